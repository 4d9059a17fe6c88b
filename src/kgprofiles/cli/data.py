"""The data commands: ``validate`` (the SHACL report), ``build`` (data/ → store) and ``load`` (files
into the built store). ``build`` and ``load`` are the store's writers: one at a time."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from kgprofiles.cli.options import (
    EndpointOption,
    NoWaitOption,
    QuietOption,
    ServerKindOption,
    StoreOption,
    project_settings,
    store_settings,
    write_options,
)
from kgprofiles.errors import InputError

if TYPE_CHECKING:
    from kgprofiles.config import Settings
    from kgprofiles.validate import ValidationReport


def validate(
    ctx: typer.Context,
    paths: Annotated[list[Path] | None, typer.Argument(help="Files or directories (default: data/).")] = None,
    output: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
    severity: Annotated[
        str, typer.Option("--severity", help="Show results of this severity and worse: warning or violation.")
    ] = "warning",
    reference: Annotated[
        bool, typer.Option("--reference", help="Validate with pyshacl itself (slow at scale).")
    ] = False,
) -> None:
    """Check data files against the SHACL shapes, in the context of the whole project: a file's
    references to organisations, topics and sources defined in other files of data/ resolve, and
    only results about what the named files define are reported. What OWL RL inference would
    refuse in a build is reported too (shape "OWL RL"): a literal its datatype does not allow and,
    where an axiom data can break is used (owl:disjointWith, owl:Nothing…), each inconsistency.

    Prints one line per result, `file:line: severity: message (focus node, path, shape)`, grouped by
    file, then a summary. Exit 0: no violation (warnings never fail); 1: violations, or the check
    stopped at its time budget (engine_timeout_s); 2: unreadable input.

    The context is every file of data/, read afresh: minutes for a large project. Once the store is
    built, `kgprofiles load --check FILE` checks edited files against it in about a second.
    """
    from kgprofiles.pipeline import validate as run_validate

    if output not in ("text", "json"):
        raise InputError(f"unknown format {output!r}", "choose text or json")
    if severity not in ("warning", "violation"):
        raise InputError(f"unknown severity {severity!r}", "choose warning or violation")
    settings = project_settings(ctx)
    report = run_validate(settings, paths, reference=reference)
    if output == "json":
        typer.echo(report.to_json())
    else:
        _print_results(report, severity)
    raise typer.Exit(0 if report.conforms else 1)


def _print_results(report: ValidationReport, severity: str = "warning") -> None:
    """One line per result of ``severity`` and worse, grouped by file, then the summary."""
    current = None
    for result in report.results:
        if severity == "violation" and result.severity != "violation":
            continue
        if result.file != current:
            if current is not None:
                typer.echo("")
            current = result.file
        colour = "red" if result.severity == "violation" else "yellow"
        typer.secho(result.format(), fg=colour if sys.stdout.isatty() else None)
    typer.echo(report.summary())


ReferenceOption = Annotated[
    bool,
    typer.Option("--reference", help="Validate with pyshacl and infer with owlrl themselves (slow at scale)."),
]


def build(
    ctx: typer.Context,
    paths: Annotated[list[Path] | None, typer.Argument(help="Files or directories (default: data/).")] = None,
    store: StoreOption = None,
    endpoint: EndpointOption = None,
    server_kind: ServerKindOption = None,
    quiet: QuietOption = False,
    reference: ReferenceOption = False,
    no_wait: NoWaitOption = False,
    discard_updates: Annotated[
        bool,
        typer.Option(
            "--discard-updates",
            help="Build even if the store holds SPARQL updates sent to `kgprofiles serve` (they are dropped; "
            "without this, such a build is refused).",
        ),
    ] = False,
) -> None:
    """Build the graph: parse data/ (one named graph per file), validate it with SHACL, add the
    OWL RL closure in its own graph, and store it, atomically: on any error the previous store
    stays exactly as it was. Exit 1 on a violation, 2 on unreadable input (a directory without
    .ttl or .nt files among it: a store is never replaced by an empty graph), 3 when the store is
    busy.

    Validation and inference take fast paths that give exactly pyshacl's results and owlrl's triples.

    Where they fall back to those engines, the build says so.

    On disk, the build writes a new generation of the store and publishes it in one atomic step,
    durably: readers (views, queries, a running server) keep the generation they opened. One
    writer at a time: a second build or load waits for the first (or fails with --no-wait).

    The parsed data waits in a scratch file beside the store (about 160 bytes a triple)."""
    from kgprofiles.pipeline import build as run_build
    from kgprofiles.progress import report_progress

    settings = store_settings(ctx, store, endpoint, server_kind)
    with report_progress("build", quiet) as progress:
        writing = replace(write_options("kgprofiles build", no_wait), discard_updates=discard_updates)
        report = run_build(settings, paths, progress, reference=reference, writing=writing)
    for note in report.notes:
        typer.echo(f"note: {note}", err=True)
    typer.echo(f"built: {report.summary()}")


def load(
    ctx: typer.Context,
    paths: Annotated[list[Path], typer.Argument(help="The files to add or replace.")],
    store: StoreOption = None,
    endpoint: EndpointOption = None,
    server_kind: ServerKindOption = None,
    quiet: QuietOption = False,
    reference: Annotated[
        bool,
        typer.Option("--reference", help="Validate with pyshacl and re-infer everything with owlrl (slow at scale)."),
    ] = False,
    no_wait: NoWaitOption = False,
    check: Annotated[
        bool,
        typer.Option(
            "--check",
            help="Validate the files as the load would, against the built store, print every result "
            "(warnings too) and write nothing. Exit 0 if the load would go through, 1 if not.",
        ),
    ] = False,
) -> None:
    """Add or replace single files in the built store without a full rebuild, all or nothing.
    Only what the files touch is validated and re-inferred.

    On disk, the load writes a new generation (a copy of the published one: hard links, so it costs
    milliseconds) and publishes it like a build. One writer at a time (see `build`).

    `--check` is the quick check of an edited file: about a second at 100,000 people, where
    `validate FILE` checks the whole data directory for the file's context."""
    from kgprofiles.pipeline import load as run_load
    from kgprofiles.progress import report_progress

    settings = store_settings(ctx, store, endpoint, server_kind)
    if check:
        _check_load(settings, paths, quiet, reference)
    with report_progress("load", quiet) as progress:
        writing = write_options("kgprofiles load", no_wait)
        report = run_load(settings, paths, progress, reference=reference, writing=writing)
    for note in report.notes:
        typer.echo(f"note: {note}", err=True)
    typer.echo(f"loaded: {report.summary()}")


def _check_load(settings: Settings, paths: list[Path], quiet: bool, reference: bool) -> NoReturn:
    """``load --check``: the results printed, and the command's exit (it never goes on to load)."""
    from kgprofiles.pipeline import check_load
    from kgprofiles.progress import report_progress

    if reference:
        raise InputError(
            "--check validates as the fast load does", "drop --reference, or run `kgprofiles validate --reference`"
        )
    with report_progress("load --check", quiet) as progress:
        report, notes = check_load(settings, paths, progress)
    for note in notes:
        typer.echo(f"note: {note}", err=True)
    _print_results(report)
    typer.echo("checked against the built store; nothing written")
    raise typer.Exit(0 if report.conforms else 1)
