"""``kgprofiles serve``: the web app on uvicorn, over the same store as the other commands (opened
to read: the server follows each generation a build or load publishes)."""

from __future__ import annotations

import contextlib
import ipaddress
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from kgprofiles.cli.options import ServerKindOption, store_settings
from kgprofiles.config import MEMORY, seconds
from kgprofiles.errors import InputError

if TYPE_CHECKING:
    import socket

    import uvicorn

    from kgprofiles.config import Settings

LOOPBACK_HINT = "other machines can reach it; it is read-only unless --write-token is given"


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port, or a clear error when it cannot be had."""
    import socket

    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as exc:
        raise InputError(f"cannot listen on {host}:{port}: {exc.strerror or exc}", "choose another --port") from exc
    except UnicodeError as exc:  # (a name IDNA cannot encode: an empty or overlong label)
        raise InputError(f"cannot listen on {host}:{port}: not a host name", "give an address or a host name") from exc
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
    port: Annotated[int, typer.Option(help="Port to listen on.", min=0, max=65535)] = 8000,
    store: Annotated[
        str | None, typer.Option("--store", help="Store directory, or memory: (default .kgprofiles/store).")
    ] = None,
    endpoint: Annotated[
        str | None,
        typer.Option("--endpoint", help="Serve this SPARQL 1.1 server's data instead of the embedded store."),
    ] = None,
    server_kind: ServerKindOption = None,
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
    workers: Annotated[
        int,
        typer.Option(
            "--workers", min=1, help="Processes answering requests, each reading the store on its own (default 1)."
        ),
    ] = 1,
    connections_per_client: Annotated[
        int,
        typer.Option(
            "--client-connections",
            min=0,
            help="Connections one client (an IPv4 address, an IPv6 /64) may hold at once in each process; "
            "more get 429. 0: no limit (behind a reverse proxy, which should limit them itself).",
        ),
    ] = 256,
    listen_fd: Annotated[int | None, typer.Option("--listen-fd", hidden=True)] = None,
    shared_pages: Annotated[Path | None, typer.Option("--shared-pages", hidden=True)] = None,
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
    import socket

    import uvicorn

    from kgprofiles.store import open_store
    from kgprofiles.web.app import create_app
    from kgprofiles.web.http_limits import raise_descriptor_limit, server_config

    # a server stops on SIGTERM the way uvicorn and supervise() see to, not as an interrupted
    # write (boundary.Terminated: "nothing was published", exit 143)
    _stop.requested, _stop.server = False, None
    signal.signal(signal.SIGTERM, _stopped)
    if listen_fd is not None:  # a worker of `serve --workers`: it goes with its supervisor, killed outright too
        from kgprofiles.killable import die_with_parent

        die_with_parent()
    raise_descriptor_limit()  # (each connection holds one while its request arrives)
    settings = store_settings(ctx, store, endpoint, server_kind)
    if query_timeout is not None:
        seconds(query_timeout, "--query-timeout")
    if max_rows <= 0:
        raise InputError("--max-rows must be positive")
    if workers > 1 and settings.endpoint is None and str(settings.store) == MEMORY:
        raise InputError("an in-memory store cannot be shared by several --workers", "serve a built store")
    target = open_store(settings, read_only=True, allow_fetch=allow_fetch)
    try:
        sock = bind(host, port) if listen_fd is None else socket.socket(fileno=listen_fd)
    except BaseException:
        target.close()
        raise
    url = url_of(host, port)
    if workers > 1 and listen_fd is None:
        target.close()  # each worker opens the store itself
        try:
            _say_serving(settings, url, host, write_token)
            supervise(sock, workers)
        finally:
            sock.close()
        return
    try:
        app = create_app(
            settings,
            target,
            write_token,
            query_timeout=query_timeout,
            max_rows=max_rows,
            allow_fetch=allow_fetch,
            cors=cors or (),
            shared_pages=shared_pages,
        )
        pool = app.state.site.pool
        if pool is not None and pool.isolation is not None and listen_fd is None:
            typer.secho(
                f"kgprofiles: warning: query workers run with the network: {pool.isolation}", err=True, fg="yellow"
            )
            typer.echo("hint: SERVICE and LOAD are still refused by reading each query first", err=True)
        if listen_fd is None:
            _say_serving(settings, url, host, write_token)
        server = uvicorn.Server(server_config(app, connections_per_client=connections_per_client))
        _stop.server = server
        server.should_exit = _stop.requested  # (a SIGTERM while it started: it stops once started)
        server.run(sockets=[sock])
    finally:
        sock.close()
        target.close()


class _Stop:
    """SIGTERM as this process has seen it: asked for, and the uvicorn server to stop."""

    requested = False
    server: uvicorn.Server | None = None


_stop = _Stop()


def _stopped(signum: int, frame: object) -> None:
    """SIGTERM before uvicorn runs (while the server starts), or once uvicorn has shut down
    gracefully and raises it again: the server stops once started, and exits 0 as after Ctrl-C,
    its clean-up run. Nothing is raised: raised where the signal lands, it came out of uvicorn's
    logging set-up as "internal error: ValueError: Unable to configure formatter" (exit 70), or
    was caught by the code it landed in and lost (the server ran on). (By SIGTERM's default
    action, each process left its query workers' forkserver directory, /tmp/pymp-*, behind.)"""
    _stop.requested = True
    if _stop.server is not None:
        _stop.server.should_exit = True


def _say_serving(settings: Settings, url: str, host: str, write_token: str | None) -> None:
    source = settings.endpoint or settings.store
    mode = "read-write with the write token" if write_token else "read-only"
    typer.echo(f"kgprofiles: serving {source} at {url} ({mode}); SPARQL at {url}sparql. Ctrl-C stops.")
    if not is_loopback(host):
        typer.secho(f"kgprofiles: listening on {host}: {LOOPBACK_HINT}", err=True, fg="yellow")


#: A worker that stops sooner than this after its start is not started again (it would only stop again).
STEADY_S = 10.0


def supervise(sock: socket.socket, workers: int) -> None:
    """Run ``workers`` copies of this command, each answering on ``sock`` (given as --listen-fd)
    with its own store, views and query workers, until SIGINT or SIGTERM; a worker that stops is
    started again, unless it stopped right after its start (then all stop, with its exit code).
    The workers share the pages they make in a private directory (--shared-pages), removed at the end."""
    shared = Path(tempfile.mkdtemp(prefix="kgprofiles-pages-"))  # (mode 0700: this user's alone)
    try:
        _supervise(sock, workers, shared)
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def _supervise(sock: socket.socket, workers: int, shared: Path) -> None:
    argv = [sys.executable, "-m", "kgprofiles", *sys.argv[1:], "--listen-fd", str(sock.fileno())]
    argv += ["--shared-pages", str(shared)]
    stopping = False

    def start() -> tuple[subprocess.Popen[bytes], float]:
        # In their own session: Ctrl-C reaches them once, from here.
        return subprocess.Popen(argv, pass_fds=(sock.fileno(),), start_new_session=True), time.monotonic()

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True
        for process, _ in running:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM if signum == signal.SIGTERM else signal.SIGINT)

    running = [start() for _ in range(workers)]
    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    if _stop.requested:  # (a SIGTERM before this process took it over)
        stop(signal.SIGTERM, None)
    try:
        while not stopping:
            time.sleep(0.2)
            for at, (process, started) in enumerate(running):
                code = process.poll()
                if code is None or stopping:
                    continue
                if time.monotonic() - started < STEADY_S:
                    stop(signal.SIGTERM, None)
                    raise typer.Exit(code or 1)
                typer.echo(f"kgprofiles: a server worker stopped (exit code {code}); starting another", err=True)
                running[at] = start()
    finally:
        for process, _ in running:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
