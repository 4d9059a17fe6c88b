"""The ``kgprofiles`` command: thin commands, each options → one library call → output.

One module per command group (``project``: init, new; ``data``: validate, build, load; ``query``: query, export;
``views``: profile, related, org, topic, people, search; ``serve``; ``link`` and ``import``; ``store``;
``site``),
assembled here. Commands raise; the one error boundary (``boundary.py``) prints the message and
picks the exit code. Nothing heavy is imported until a command needs it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from kgprofiles import __version__
from kgprofiles.cli import data, project, query, serve, site, store, views
from kgprofiles.cli.boundary import ErrorBoundary
from kgprofiles.cli.link import import_app, link_app
from kgprofiles.cli.options import ProjectRef

__all__ = ["app"]

app = typer.Typer(
    name="kgprofiles",
    cls=ErrorBoundary,
    help="Keep a sourced knowledge graph of people: validate, build, query, export and browse profiles.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


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
    ctx.obj = ProjectRef(project)


COMMANDS: tuple[Callable[..., None], ...] = (
    project.init,
    data.validate,
    data.build,
    data.load,
    query.query,
    query.export,
    views.profile,
    views.related,
    views.org,
    views.topic,
    views.people,
    views.search,
    serve.serve,
)
for command in COMMANDS:
    app.command()(command)
app.add_typer(project.new_app, name="new")
app.add_typer(store.store_app, name="store")
app.add_typer(site.site_app, name="site")
app.add_typer(link_app, name="link")
app.add_typer(import_app, name="import")
