"""``kgprofiles store …``: look after an on-disk store: check every generation, remove the old
ones no reader holds, publish an older good one again."""

from __future__ import annotations

import urllib.parse
from pathlib import Path
from typing import Annotated

import typer

from kgprofiles.cli.options import (
    EndpointOption,
    NoWaitOption,
    ServerKindOption,
    StoreOption,
    project_settings,
    store_settings,
    write_options,
)
from kgprofiles.config import Settings
from kgprofiles.errors import InputError, StoreError

store_app = typer.Typer(
    name="store",
    help="Look after the on-disk store: check its generations, remove old ones, go back to a good one.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _store_path(ctx: typer.Context, store: str | None) -> Path:
    settings = store_settings(ctx, store, None)
    if settings.endpoint:
        raise InputError("`kgprofiles store` looks after an on-disk store", "give --store PATH")
    path = Path(settings.store)
    if not path.exists() and not path.is_symlink():
        raise StoreError(f"no store at {path}", "run `kgprofiles build` first, or give --store PATH")
    return path


@store_app.command("check")
def check(
    ctx: typer.Context,
    store: StoreOption = None,
    endpoint: EndpointOption = None,
    server_kind: ServerKindOption = None,
) -> None:
    """Read every generation of the store to the end (every checksum is verified), list its graphs
    and run a query; say which generations are good. Exit 0 when the published one is good, 3 when
    it is not (the hint names a good one to go back to with `kgprofiles store use`).
    With --endpoint (or an endpoint in kgprofiles.toml): try the SPARQL server (query, update,
    Graph Store, transactions, result cap, booleans, graph listing, auth) and say what works;
    exit 4 when something kgprofiles needs does not."""
    from kgprofiles.store import generations
    from kgprofiles.store.health import check_store

    if endpoint is not None or (store is None and project_settings(ctx).endpoint):
        _probe_remote(store_settings(ctx, None, endpoint, server_kind))
        return
    path = _store_path(ctx, store)
    if not generations.is_published(path):
        raise StoreError(f"{path} is not a published store", "run `kgprofiles build` to publish one")
    results = check_store(path)
    for health in results:
        typer.echo(health.format())
    if generations.writer_active(path):
        typer.echo("a writer is running: its unfinished generation is not listed")
    published = [h for h in results if h.published]
    if not published:
        raise StoreError(f"the link {path} points at no generation")
    if not published[0].good:
        good = [h.name for h in results if h.good]
        hint = f"`kgprofiles store use {good[0]}` publishes a good one again" if good else "rebuild: `kgprofiles build`"
        raise StoreError(f"the published generation {published[0].name} is broken", hint)


@store_app.command("gc")
def gc(
    ctx: typer.Context,
    store: StoreOption = None,
    endpoint: EndpointOption = None,
    server_kind: ServerKindOption = None,
) -> None:
    """Remove the generations that are neither published nor held by a reader (a running server,
    a query), and what a killed build or load left behind. Safe beside readers and writers.
    With --endpoint: drop the staging graphs a failed write left on the SPARQL server."""
    from kgprofiles.store import generations

    if endpoint is not None or project_settings(ctx).endpoint:
        _purge_remote(store_settings(ctx, store, endpoint, server_kind))
        return
    path = _store_path(ctx, store)
    try:
        with generations.writer_lock(path, command="kgprofiles store gc", wait=False):
            collected = generations.collect_garbage(path, unfinished=True)
    except generations.StoreBusy:
        collected = generations.collect_garbage(path)  # a writer runs: leave its unfinished work
    for name in collected.removed:
        typer.echo(f"removed {name}")
    for name in collected.in_use:
        holders = generations.lease_holders(generations.generations_dir(path) / name)
        typer.echo(f"kept {name}: a reader holds it" + (f": {', '.join(holders)}" if holders else ""))
    typer.echo(f"freed {collected.freed_bytes / 1e6:.1f} MB")


def _probe_remote(settings: Settings) -> None:
    from kgprofiles.errors import RemoteError
    from kgprofiles.store import open_store
    from kgprofiles.store.probe import probe
    from kgprofiles.store.remote import RemoteStore

    remote = open_store(settings)
    assert isinstance(remote, RemoteStore)
    typer.echo(f"{remote.query_endpoint} as a {remote.kind.name} server")
    findings = probe(remote)
    for finding in findings:
        typer.echo(finding.format())
    failing = [f.name for f in findings if f.ok is False]
    if failing:
        raise RemoteError(
            f"{settings.endpoint}: {', '.join(failing)} do(es) not work as kgprofiles needs",
            "see the lines above; --server-kind names the kind of server, [kgprofiles.server] in kgprofiles.toml",
        )


def _purge_remote(settings: Settings) -> None:
    from kgprofiles.store import open_store
    from kgprofiles.store.remote import RemoteStore

    remote = open_store(settings)
    assert isinstance(remote, RemoteStore)
    dropped = remote.purge_staging()
    for graph in dropped:
        typer.echo(f"dropped {graph}")
    typer.echo(f"dropped {len(dropped)} staging graph(s) on {settings.endpoint}")
    for backup in remote.backups():
        target = urllib.parse.unquote(backup.rsplit("/", 1)[1])
        typer.echo(f"kept {backup}: what <{target}> held before a write that could not restore it")


@store_app.command("use")
def use(
    ctx: typer.Context,
    generation: Annotated[str, typer.Argument(help="The name of a generation (`kgprofiles store check` lists them).")],
    store: StoreOption = None,
    no_wait: NoWaitOption = False,
) -> None:
    """Publish an existing generation again (after `store check` found the published one broken).
    It is checked first; readers keep the generation they opened."""
    from kgprofiles.store import generations
    from kgprofiles.store.health import check_generation

    path = _store_path(ctx, store)
    target = generations.generations_dir(path) / generation
    if "/" in generation or not target.is_dir() or target.name.endswith((generations.BUILDING, generations.DELETING)):
        where = generations.generations_dir(path)
        raise InputError(f"no generation {generation!r} in {where}", "see `kgprofiles store check`")
    with write_options("kgprofiles store use", no_wait).writer(path):
        held = generations.lease(target)  # (held until the link points at it: a `store gc` beside leaves it)
        if held is None:
            raise InputError(f"no generation {generation!r} in {target.parent}", "see `kgprofiles store check`")
        with held:
            health = check_generation(target, published=False)
            if not health.good:
                raise StoreError(
                    f"{generation} is broken: {health.problem}", "choose a good one: `kgprofiles store check`"
                )
            generations.point(path, target)
    typer.echo(f"published {generation}: {health.quads:,} quads")
