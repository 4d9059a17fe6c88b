"""``kgprofiles serve``: the web app on uvicorn, over the same store as the other commands (opened
to read: the server follows each generation a build or load publishes)."""

from __future__ import annotations

import ipaddress
import socket
from typing import Annotated

import typer

from kgprofiles.cli.options import store_settings
from kgprofiles.errors import InputError

LOOPBACK_HINT = "other machines can reach it; it is read-only unless --write-token is given"


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port, or a clear error when it cannot be had."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as exc:
        raise InputError(f"cannot listen on {host}:{port}: {exc.strerror or exc}", "choose another --port") from exc
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def url_of(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def serve(
    ctx: typer.Context,
    host: Annotated[str, typer.Option(help="Address to listen on (default: this machine only).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    store: Annotated[
        str | None, typer.Option("--store", help="Store directory, or memory: (default .kgprofiles/store).")
    ] = None,
    endpoint: Annotated[
        str | None,
        typer.Option("--endpoint", help="Serve this SPARQL 1.1 server's data instead of the embedded store."),
    ] = None,
    write_token: Annotated[
        str | None,
        typer.Option(
            "--write-token",
            envvar="KGPROFILES_WRITE_TOKEN",
            help="Accept SPARQL updates sent with 'Authorization: Bearer TOKEN' (default: read-only).",
        ),
    ] = None,
    query_timeout: Annotated[
        float | None, typer.Option("--query-timeout", help="Seconds a query may run (default: query_timeout_s, 30).")
    ] = None,
    max_rows: Annotated[int, typer.Option("--max-rows", help="Rows (or triples) a query may return.")] = 100_000,
    allow_fetch: Annotated[
        bool, typer.Option("--allow-fetch", help="Let SPARQL SERVICE and LOAD fetch URLs (refused by default).")
    ] = False,
    cors: Annotated[
        list[str] | None,
        typer.Option(
            "--cors",
            metavar="ORIGIN",
            help="Let scripts on ORIGIN (https://host[:port], or * for any) read /sparql queries, /id/… and "
            "/api/… (CORS; never updates). Repeat for more origins. Off by default.",
        ),
    ] = None,
) -> None:
    """Serve the graph over HTTP: profile pages and every /id/ IRI (HTML, Turtle, JSON-LD,
    N-Triples, N-Quads, RDF/XML by content negotiation), full-text search, the SPARQL 1.1
    endpoint and query editor at /sparql, whole-graph downloads and a JSON API. Read-only and
    on 127.0.0.1 unless told otherwise."""
    import uvicorn

    from kgprofiles.store import open_store
    from kgprofiles.web.app import create_app

    settings = store_settings(ctx, store, endpoint)
    if (query_timeout is not None and query_timeout <= 0) or max_rows <= 0:
        raise InputError("--query-timeout and --max-rows must be positive")
    target = open_store(settings, read_only=True, allow_fetch=allow_fetch)
    try:
        sock = bind(host, port)
    except BaseException:
        target.close()
        raise
    try:
        app = create_app(
            settings,
            target,
            write_token,
            query_timeout=query_timeout,
            max_rows=max_rows,
            allow_fetch=allow_fetch,
            cors=cors or (),
        )
        pool = app.state.site.pool
        if pool is not None and pool.isolation is not None:
            typer.secho(
                f"kgprofiles: warning: query workers run with the network: {pool.isolation}", err=True, fg="yellow"
            )
            typer.echo("hint: SERVICE and LOAD are still refused by reading each query first", err=True)
        url = url_of(host, port)
        source = settings.endpoint or settings.store
        mode = "read-write with the write token" if write_token else "read-only"
        typer.echo(f"kgprofiles: serving {source} at {url} ({mode}); SPARQL at {url}sparql. Ctrl-C stops.")
        if not is_loopback(host):
            typer.secho(f"kgprofiles: listening on {host}: {LOOPBACK_HINT}", err=True, fg="yellow")
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
        target.close()
