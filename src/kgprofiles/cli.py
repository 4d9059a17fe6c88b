"""The ``kgprofiles`` command: thin commands, each options → one library call → output."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from kgprofiles import __version__
from kgprofiles.config import Settings, load_settings
from kgprofiles.errors import KgError

app = typer.Typer(
    name="kgprofiles",
    help="Keep a sourced knowledge graph of people: validate, build, query, export and browse profiles.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def settings_from(ctx: typer.Context) -> Settings:
    return ctx.obj  # type: ignore[no-any-return]


def fail(error: KgError) -> typer.Exit:
    typer.secho(f"kgprofiles: {error.kind}: {error.message}", err=True, fg="red")
    if error.hint:
        typer.echo(f"hint: {error.hint}", err=True)
    return typer.Exit(error.exit_code)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"kgprofiles {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    ctx: typer.Context,
    project: Annotated[
        Path | None, typer.Option(help="Project root (holds data/, ontology/, shapes/, queries/).")
    ] = None,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True)] = False,
) -> None:
    """Keep a sourced knowledge graph of people."""
    try:
        ctx.obj = load_settings(project)
    except KgError as error:
        raise fail(error) from error


@app.command()
def validate(
    ctx: typer.Context,
    paths: Annotated[list[Path] | None, typer.Argument(help="Files or directories (default: data/).")] = None,
    output: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
) -> None:
    """Check data files against the SHACL shapes.

    Prints one line per result, `file:line: severity: message (focus node, path, shape)`, grouped by
    file, then a summary. Exit 0: no violation (warnings never fail); 1: violations; 2: unreadable input.
    """
    from kgprofiles.ingest import parse_files
    from kgprofiles.validate import validate_files

    settings = settings_from(ctx)
    try:
        files = parse_files(paths or [settings.data_dir], settings.root)
        report = validate_files(files, settings)
    except KgError as error:
        raise fail(error) from error
    if output == "json":
        typer.echo(report.to_json())
    else:
        current = None
        for result in report.results:
            if result.file != current:
                if current is not None:
                    typer.echo("")
                current = result.file
            colour = "red" if result.severity == "violation" else "yellow"
            typer.secho(result.format(), fg=colour if sys.stdout.isatty() else None)
        typer.echo(report.summary())
    raise typer.Exit(0 if report.conforms else 1)
