"""What the commands share: the settings of the project, the options every store command takes,
opening the store to read it, and how a writer meets another writer."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from kgprofiles.config import MEMORY, Settings, load_settings, refuse_the_projects_own
from kgprofiles.errors import InputError

if TYPE_CHECKING:
    from kgprofiles.pipeline import WriteOptions
    from kgprofiles.store.base import Store

StoreOption = Annotated[
    str | None, typer.Option("--store", help="Store directory, or memory: (default .kgprofiles/store).")
]
EndpointOption = Annotated[
    str | None,
    typer.Option("--endpoint", help="A SPARQL 1.1 query endpoint URL: use that server instead of the embedded store."),
]
ServerKindOption = Annotated[
    str | None,
    typer.Option(
        "--server-kind",
        help="The kind of SPARQL server --endpoint is: oxigraph, virtuoso, fuseki, graphdb or generic "
        "(default: KGPROFILES_SERVER_KIND, else [kgprofiles.server] kind in kgprofiles.toml, else generic).",
    ),
]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")]
NoWaitOption = Annotated[
    bool,
    typer.Option(
        "--no-wait",
        help="If another process is writing the store, fail at once (exit 3) instead of waiting for it.",
    ),
]


class ProjectRef:
    """The project a run is about (--project, or found from the current directory), read when a
    command first needs it: `--help` and `init` work outside any project."""

    def __init__(self, root: Path | None) -> None:
        self.root = root
        self._settings: Settings | None = None

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            from kgprofiles.store.server_kinds import server_kind

            settings = load_settings(self.root)
            server_kind(settings.server_kind)  # an unknown kind fails here, naming the kinds
            self._settings = settings
        return self._settings


def project_settings(ctx: typer.Context) -> Settings:
    """The settings of the run's project (a NotAProject error outside any project)."""
    return ctx.find_root().obj.settings  # type: ignore[no-any-return]


def store_settings(
    ctx: typer.Context, store: str | None, endpoint: str | None, server_kind: str | None = None
) -> Settings:
    """The project settings with --store / --endpoint / --server-kind applied (a relative --store
    is taken from the current directory, and not resolved: it is the link a build publishes)."""
    settings = project_settings(ctx)
    if store is not None and store != MEMORY:
        store = str((Path.cwd() / store).absolute())
    if server_kind is not None:
        from kgprofiles.store.server_kinds import server_kind as kind_named

        kind_named(server_kind)  # an unknown kind fails here, naming the kinds
    return settings.with_overrides(store=store, endpoint=endpoint, server_kind=server_kind)


def open_reader(settings: Settings) -> Store:
    """The store to read: the published generation of an on-disk store, opened read-only (any
    number of readers run beside a writer), or the remote server."""
    from kgprofiles.store import open_store

    return open_store(settings, read_only=True)


def write_options(command: str, no_wait: bool) -> WriteOptions:
    """How ``command`` meets another writer: waits, saying so on stderr, unless --no-wait."""
    from kgprofiles.pipeline import WriteOptions

    return WriteOptions(wait=not no_wait, on_wait=lambda message: typer.echo(message, err=True), command=command)


def checked_output(settings: Settings, out: Path, option: str = "--output") -> Path:
    """A command's ``option`` file (``out``), resolved: a file's path in a directory that exists, outside the
    project's data and store; else an InputError that names it (before anything is read or written)."""
    where = out.resolve()
    if where.is_dir():
        raise InputError(f"{option} {out} is a directory", "give the path of the file to write")
    if not where.parent.is_dir():
        raise InputError(f"{option} {out}: no directory {out.parent}", "make the directory first, or give another path")
    refuse_the_projects_own(settings, where)
    return where
