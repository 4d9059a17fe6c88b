"""The ``kgprofiles`` command: thin commands, each options → one library call → output.

One module per command group (``project``: init, new; ``data``: validate, build, load; ``query``: query, export;
``views``: profile, related, org, topic, people, search; ``serve``; ``link`` and ``import``; ``store``;
``site``),
assembled here. Commands raise; the one error boundary (``boundary.py``) prints the message and
picks the exit code. Nothing heavy is imported until a command needs it, and the command line builds
(into Click) only the command it runs (``--help`` and anything unexpected build them all).
"""

from __future__ import annotations

import atexit
import gc
import sys
from collections.abc import Callable, Sequence
from copy import copy
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.main import get_command_name

from kgprofiles import __version__
from kgprofiles.cli import data, project, query, serve, site, store, views
from kgprofiles.cli.boundary import ErrorBoundary, configure_logging
from kgprofiles.cli.link import import_app, link_app
from kgprofiles.cli.options import ProjectRef

__all__ = ["app"]

#: The main callback's options that take a value (the command's name is the first word after them).
_VALUED_OPTIONS = ("--project",)


class _OneCommandApp(typer.Typer):
    """The Typer app, which, run as the program, turns into Click only the command it is asked for.

    Typer builds the Click command of every registered command before it reads the command line
    (typing.get_type_hints for each parameter: 0.03–0.09 s for all of them, once most of
    ``kgprofiles --version``). The app stays one definition; a run sees a copy holding just the
    command named (none for ``--version``). Tests that invoke ``app`` through Typer's CliRunner
    build every command, as before.
    """

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # The program is about to end: its stores and files are closed by then (every command
        # closes them itself), and the interpreter's last garbage collection would only walk the
        # objects left (~45 ms of a one-file `load`'s ~0.5 s). Frozen, they are skipped.
        atexit.register(gc.freeze)  # registered first: run after every other exit handler
        configure_logging()
        argv = args[0] if args else kwargs.get("args")  # (Click's main: args, prog_name, …)
        return typer.Typer.__call__(self._only(sys.argv[1:] if argv is None else argv), *args, **kwargs)

    def _only(self, argv: Sequence[str]) -> typer.Typer:
        """This app, or a copy with only the command ``argv`` names: the first word after the main
        options. All commands when the list is needed: no arguments or ``--help`` (they are listed),
        or a word that names no command (the error comes from the whole app)."""
        words = iter(argv)
        for word in words:
            if word in ("--help", "--"):
                return self
            if word in _VALUED_OPTIONS:
                next(words, None)
            elif not word.startswith("-"):
                return self._with(word)
        return self._with(None) if argv else self

    def _with(self, name: str | None) -> typer.Typer:
        commands = [c for c in self.registered_commands if c.callback and _name(c.name, c.callback) == name]
        groups = [g for g in self.registered_groups if g.name == name]
        if name is not None and not commands and not groups:
            return self
        one = copy(self)
        one.registered_commands, one.registered_groups = commands, groups
        return one


def _name(name: str | None, callback: Callable[..., Any]) -> str:
    return name or get_command_name(callback.__name__)


app = _OneCommandApp(
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
