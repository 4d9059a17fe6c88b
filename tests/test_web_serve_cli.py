"""``kgprofiles serve`` as a user runs it: a built store served on 127.0.0.1, the URL printed."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from processes import all_gone, children, descendants, running
from servers import answers_ask, free_port

ROOT = Path(__file__).resolve().parents[1]
STARTUP_TIMEOUT_S = 30.0


def kgprofiles(*args: str) -> list[str]:
    return [sys.executable, "-m", "kgprofiles", "--project", str(ROOT), *args]


def serve_process(store: Path | str, port: int, *more: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """``kgprofiles serve`` of ``store`` on ``port`` as a user starts it, its output in one text
    pipe (the first line says where it serves, once it listens)."""
    return subprocess.Popen(
        kgprofiles("serve", "--store", str(store), "--port", str(port), *more),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )


@pytest.fixture(scope="module")
def built_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("served") / "store"
    done = subprocess.run(kgprofiles("build", "--store", str(store), "-q"), capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return store


@pytest.fixture(scope="module")
def served(built_store: Path) -> Iterator[tuple[str, str]]:
    """(base URL, the first line the command printed)."""
    port = free_port()
    env = {**os.environ, "KGPROFILES_WRITE_TOKEN": "cli-token"}
    process = serve_process(built_store, port, "--max-rows", "50", env=env)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            try:
                httpx.get(base + "/", timeout=1)
                break
            except httpx.TransportError:
                assert process.poll() is None, line + process.stdout.read()
                assert time.monotonic() < deadline, "the server did not answer"
                time.sleep(0.1)
        yield base, line
    finally:
        process.terminate()
        process.wait(timeout=15)


def test_serve_prints_the_url_and_serves_the_seed_graph(served: tuple[str, str]) -> None:
    base, line = served
    assert f"{base}/" in line and f"{base}/sparql" in line and "read-write" in line
    page = httpx.get(base + "/id/person/horace-he", timeout=10)
    assert page.status_code == 200 and "<h1>Horace He</h1>" in page.text
    ask = httpx.get(base + "/sparql", params={"query": "ASK { person:horace-he kgp:name 'Horace He' }"}, timeout=10)
    assert ask.json()["boolean"] is True


def test_serve_options_reach_the_app(served: tuple[str, str]) -> None:
    base, _ = served
    limited = httpx.get(base + "/sparql", params={"query": "SELECT * WHERE { ?s ?p ?o }"}, timeout=10)
    assert limited.status_code == 422 and "more than 50 rows" in limited.text
    update = "INSERT DATA { GRAPH <urn:x> { <urn:a> <urn:b> 'c' } }"
    refused = httpx.post(base + "/sparql", data={"update": update}, timeout=10)
    assert refused.status_code == 401
    accepted = httpx.post(base + "/sparql", data={"update": update}, headers={"Authorization": "Bearer cli-token"})
    assert accepted.status_code == 204


def test_a_request_head_past_the_limit_is_refused_before_it_is_read_whole(served: tuple[str, str]) -> None:
    """httptools alone keeps any head a client sends (200 MB were read whole): past 64 KiB of
    request line and header fields, 431 and the connection closed; 30 KB of cookie still pass."""
    base, _ = served
    port = int(base.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as flood:
        flood.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
        sent = 0
        with contextlib.suppress(OSError):  # (the server closes the connection while this still sends)
            for i in range(20_000):  # 20 MB of header fields, if it read them all
                flood.sendall(b"X-H%d: %s\r\n" % (i, b"a" * 1000))
                sent += 1
        answer = flood.recv(200)
    assert answer.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n") and sent < 20_000
    with socket.create_connection(("127.0.0.1", port), timeout=10) as cookie:
        cookie.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nCookie: " + b"a" * 30_000 + b"\r\n\r\n")
        assert cookie.recv(20).startswith(b"HTTP/1.1 200 OK")
    assert httpx.get(base + "/id/person/horace-he", timeout=10).status_code == 200


def test_one_client_cannot_hold_every_connection(served: tuple[str, str]) -> None:
    """One client (an address) may hold 256 connections at once (5,000 idle ones from one address
    were all kept): the next gets 429 and is closed, while another address is still answered."""
    from kgprofiles.web.http_limits import DEFAULT_CONNECTIONS_PER_CLIENT, raise_descriptor_limit

    assert raise_descriptor_limit() > DEFAULT_CONNECTIONS_PER_CLIENT + 50  # (this process holds them all)
    base, _ = served
    port = int(base.rsplit(":", 1)[1])
    assert DEFAULT_CONNECTIONS_PER_CLIENT == 256  # (the --help's default)
    held: list[socket.socket] = []
    try:
        for _ in range(DEFAULT_CONNECTIONS_PER_CLIENT):
            held.append(socket.create_connection(("127.0.0.1", port), timeout=10))
        held[-1].sendall(b"GET /api/prefixes HTTP/1.1\r\nHost: x\r\n\r\n")  # (all of them accepted)
        assert held[-1].recv(20).startswith(b"HTTP/1.1 200 OK")
        with socket.create_connection(("127.0.0.1", port), timeout=10) as one_more:
            refused = one_more.recv(200)
        assert refused.startswith(b"HTTP/1.1 429 Too Many Requests\r\n"), refused
        # another client (a loopback address of its own) is answered all the while
        with socket.create_connection(("127.0.0.1", port), timeout=10, source_address=("127.0.0.2", 0)) as other:
            other.sendall(b"GET /api/prefixes HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            assert other.recv(20).startswith(b"HTTP/1.1 200 OK")
    finally:
        for sock in held:
            sock.close()
    deadline = time.monotonic() + 10  # (the server counts a connection off when it sees it closed)
    while httpx.get(base + "/api/prefixes", timeout=10).status_code != 200:
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_client_connections_sets_the_limit() -> None:
    port = free_port()
    process = subprocess.Popen(
        kgprofiles("serve", "--store", "memory:", "--port", str(port), "--client-connections", "1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        assert process.stdout is not None
        process.stdout.readline()  # (said once it listens)
        with socket.create_connection(("127.0.0.1", port), timeout=10) as first:
            with socket.create_connection(("127.0.0.1", port), timeout=10) as second:
                assert second.recv(40).startswith(b"HTTP/1.1 429 Too Many Requests")
            first.sendall(b"GET /api/prefixes HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            assert first.recv(20).startswith(b"HTTP/1.1 200 OK")
    finally:
        process.terminate()
        process.wait(timeout=15)


def test_serve_raises_its_descriptor_limit(built_store: Path) -> None:
    """Started with 256 open descriptors allowed (a client's 256 silent connections would shut
    everyone else out), the server asks for 65,536 (or its hard limit, if lower)."""
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    port = free_port()
    process = subprocess.Popen(
        kgprofiles("serve", "--store", str(built_store), "--port", str(port)),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard)),
    )
    try:
        assert process.stdout is not None
        process.stdout.readline()  # (the server says where it serves once it is set up)
        line = next(x for x in Path(f"/proc/{process.pid}/limits").read_text().splitlines() if "open files" in x)
        soft = line.split()[3]
        assert soft == str(min(65536, hard) if hard != resource.RLIM_INFINITY else 65536), line
    finally:
        process.terminate()
        process.wait(timeout=15)


def test_serve_says_when_the_port_is_taken() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = subprocess.run(
            kgprofiles("serve", "--store", "memory:", "--port", str(port)),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr and "--port" in done.stderr


def test_serve_without_a_store_says_to_build(tmp_path: Path) -> None:
    done = subprocess.run(
        kgprofiles("serve", "--store", str(tmp_path / "none"), "--port", str(free_port())),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0 and "kgprofiles build" in done.stderr


def test_a_second_server_reads_the_same_store_beside_the_first(served: tuple[str, str], built_store: Path) -> None:
    """Readers never write: any number of servers (and CLI readers) share one store."""
    port = free_port()
    process = serve_process(built_store, port)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            try:
                page = httpx.get(base + "/id/person/horace-he", timeout=5)
                break
            except httpx.TransportError:
                assert process.poll() is None, process.stdout.read()  # type: ignore[union-attr]
                assert time.monotonic() < deadline, "the second server did not answer"
                time.sleep(0.1)
        assert page.status_code == 200 and "<h1>Horace He</h1>" in page.text
        first = httpx.get(served[0] + "/id/person/horace-he", timeout=5)
        assert first.status_code == 200
        done = subprocess.run(
            kgprofiles("profile", "horace-he", "--store", str(built_store)), capture_output=True, text=True, check=False
        )
        assert done.returncode == 0 and "Horace He" in done.stdout, done.stderr
    finally:
        process.terminate()
        process.wait(timeout=15)


def test_a_server_stopped_by_sigterm_exits_0_and_leaves_nothing_behind(built_store: Path, tmp_path: Path) -> None:
    """SIGTERM (a service manager's stop) ends ``serve`` as Ctrl-C does: exit 0, its clean-up run.
    By SIGTERM's default action (uvicorn raises it again after shutting down) each stop left the
    query workers' forkserver directory (``pymp-*``) in TMPDIR: 847 of them on this machine."""
    port = free_port()
    process = serve_process(built_store, port, env={**os.environ, "TMPDIR": str(tmp_path)})
    try:
        process.stdout.readline()  # type: ignore[union-attr]  # (said once it listens)
        answer = httpx.get(f"http://127.0.0.1:{port}/sparql", params={"query": "ASK {}"}, timeout=30)
        assert answer.status_code == 200 and len(list(tmp_path.glob("pymp-*"))) == 1
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert process.returncode == 0 and list(tmp_path.iterdir()) == []


def test_several_workers_answer_on_one_port_and_stop_together(built_store: Path, tmp_path: Path) -> None:
    """...and share the pages they make: in a private directory of their server (under TMPDIR),
    removed when it stops; any of them revalidates a page another made (304)."""
    port = free_port()
    process = serve_process(built_store, port, "--workers", "2", env={**os.environ, "TMPDIR": str(tmp_path)})
    try:
        base = f"http://127.0.0.1:{port}"
        line = process.stdout.readline()  # type: ignore[union-attr]
        assert f"{base}/" in line
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            try:
                page = httpx.get(base + "/id/person/horace-he", timeout=5)
                break
            except httpx.TransportError:
                assert process.poll() is None, process.stdout.read()  # type: ignore[union-attr]
                assert time.monotonic() < deadline, "the workers did not answer"
                time.sleep(0.1)
        assert page.status_code == 200 and "<h1>Horace He</h1>" in page.text
        workers = children(process.pid)
        assert len(workers) == 2
        with httpx.Client(base_url=base, timeout=10) as client:  # (one connection: one worker)
            assert all(client.get("/id/person/horace-he").text == page.text for _ in range(5))
        (shared,) = tmp_path.glob("kgprofiles-pages-*")
        assert shared.stat().st_mode & 0o777 == 0o700
        etag = page.headers["etag"]
        for _ in range(12):  # a new connection each: either worker
            again = httpx.get(base + "/id/person/horace-he", headers={"If-None-Match": etag}, timeout=10)
            assert again.status_code == 304 and again.headers["etag"] == etag
        (file,) = shared.glob("*.sqlite")
        assert file.name == f"{os.readlink(built_store)}.sqlite".rsplit("/", 1)[-1]
        for _ in range(4):  # (each worker's query workers start from a forkserver: its socket's /tmp/pymp-*)
            assert httpx.get(base + "/sparql", params={"query": "ASK {}"}, timeout=10).status_code == 200
        assert len(list(tmp_path.glob("pymp-*"))) >= 1
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert process.returncode == 0
    assert list(tmp_path.glob("kgprofiles-pages-*")) == [] and list(tmp_path.glob("pymp-*")) == []
    assert not [pid for pid in workers if running(pid)]


def test_the_workers_go_with_their_server_killed_outright(built_store: Path) -> None:
    """SIGKILL to ``serve --workers 2`` (no chance to stop its workers): they go with it, and so do
    their query workers; the port is free again, not answered by workers nobody supervises."""
    port = free_port()
    process = subprocess.Popen(
        kgprofiles("serve", "--store", str(built_store), "--port", str(port), "--workers", "2"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    try:
        while len(children(process.pid)) < 2 or not answers_ask(base + "/sparql"):
            assert process.poll() is None and time.monotonic() < deadline, "the workers did not answer"
            time.sleep(0.1)
        asked = httpx.get(base + "/sparql", params={"query": "ASK {}"}, timeout=30)  # (query workers start)
        assert asked.status_code == 200
        workers = descendants(process.pid)
        assert len(workers) > 2
    finally:
        process.kill()
        process.wait()
    assert all_gone(workers)
    assert not answers_ask(base + "/sparql")


def test_pages_are_kept_per_generation_and_revalidated(served: tuple[str, str]) -> None:
    """Strong ETags of the generation, the path and the negotiated type; 304 for If-None-Match;
    a new generation (here made by an update) gives new ETags. (Last: it writes to the store.)"""
    base, _ = served
    html = {"Accept": "text/html"}
    first = httpx.get(base + "/id/person/horace-he", headers=html, timeout=10)
    etag = first.headers["etag"]
    assert first.status_code == 200 and etag.startswith('"') and first.headers["cache-control"] == "no-cache"
    again = httpx.get(base + "/id/person/horace-he", headers=html, timeout=10)
    assert again.content == first.content and again.headers["etag"] == etag
    turtle = httpx.get(base + "/id/person/horace-he", headers={"Accept": "text/turtle"}, timeout=10)
    assert turtle.headers["content-type"].startswith("text/turtle") and turtle.headers["etag"] != etag
    unchanged = httpx.get(base + "/id/person/horace-he", headers={**html, "If-None-Match": f'W/"x", {etag}'})
    assert unchanged.status_code == 304 and unchanged.content == b"" and unchanged.headers["etag"] == etag
    assert unchanged.headers["vary"] == "Accept" and "content-security-policy" in unchanged.headers
    other = httpx.get(base + "/id/person/horace-he", headers={**html, "If-None-Match": '"another"'}, timeout=10)
    assert other.status_code == 200 and other.content == first.content
    assert "etag" not in httpx.get(base + "/id/person/nobody", timeout=10).headers  # a 404 is not kept
    update = "INSERT DATA { GRAPH <urn:cache-test> { <urn:a> <urn:b> 'c' } }"
    done = httpx.post(base + "/sparql", data={"update": update}, headers={"Authorization": "Bearer cli-token"})
    assert done.status_code == 204
    fresh = httpx.get(base + "/id/person/horace-he", headers={**html, "If-None-Match": etag}, timeout=10)
    assert fresh.status_code == 200 and fresh.headers["etag"] != etag and fresh.content == first.content


@pytest.mark.parametrize("timeout", ["inf", "nan", "1e10", "0"])
def test_serve_refuses_a_query_timeout_that_is_no_budget(timeout: str) -> None:
    """``--query-timeout inf`` (or NaN, or past a day) left the server's queries without a time
    budget, or hit it at once; now refused before anything is opened."""
    from typer.testing import CliRunner

    from kgprofiles.cli import app

    done = CliRunner().invoke(
        app,
        ["--project", str(ROOT), "serve", "--store", "memory:", "--host", "256.0.0.1", "--query-timeout", timeout],
    )
    assert done.exit_code == 2, done.output
    assert "--query-timeout must be a number of seconds above 0 and at most 86,400" in done.output


@pytest.mark.parametrize(
    ("address", "says"),
    [
        (["--host", "evil..example"], "cannot listen on evil..example:8000: not a host name"),
        (["--host", "a" * 64 + ".example"], "not a host name"),
        (["--port", "70000"], "70000 is not in the range 0<=x<=65535"),
        (["--port", "-1"], "-1 is not in the range 0<=x<=65535"),
    ],
    ids=["empty-label", "overlong-label", "past-65535", "negative"],
)
def test_serve_refuses_an_address_it_cannot_listen_on(address: list[str], says: str) -> None:
    """``--host evil..example`` was 'internal error: UnicodeError' (exit 70); ``--port 70000``
    listened on port 4464 (70000 - 65536) while it said it served at :70000."""
    from typer.testing import CliRunner

    from kgprofiles.cli import app

    done = CliRunner().invoke(app, ["--project", str(ROOT), "serve", "--store", "memory:", *address])
    assert done.exit_code == 2 and says in " ".join(done.output.split()), done.output
    assert "internal error" not in done.output


def test_sigterm_while_the_server_starts_stops_it_with_exit_0(built_store: Path, tmp_path: Path) -> None:
    """SIGTERM that came while the server was starting (a supervisor stopping its workers, a
    service manager right after a start): the handler raised where it landed, here inside
    uvicorn's logging set-up ("internal error: ValueError: Unable to configure formatter
    'default' … a bug in kgprofiles", exit 70), elsewhere inside code that caught it (the server
    ran on, the signal lost). It is now taken as a request to stop once started: exit 0."""
    port = free_port()
    wrapper = (
        "import logging.config, os, signal, sys\n"
        "real = logging.config.DictConfigurator.configure_formatter\n"
        "def configure_formatter(self, config):\n"
        "    os.kill(os.getpid(), signal.SIGTERM)  # (delivered here, inside dictConfig)\n"
        "    return real(self, config)\n"
        "logging.config.DictConfigurator.configure_formatter = configure_formatter\n"
        "from kgprofiles.cli import app\n"
        f"app(prog_name='kgprofiles', args=['--project', {str(ROOT)!r}, 'serve', '--store', "
        f"{str(built_store)!r}, '--port', '{port}'])\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", wrapper],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )
    try:
        output, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, output
    assert "internal error" not in output and list(tmp_path.iterdir()) == [], output


def test_an_idle_server_lets_go_of_a_generation_a_build_replaced(built_store: Path, tmp_path: Path) -> None:
    """A server with no visitors held the generation it opened until its next request, however
    long: every gc kept it ("a reader holds it"), its disk never freed. It now follows the store
    by itself and releases the old generation within a few seconds."""
    import shutil

    from kgprofiles.store import generations
    from kgprofiles.store.writer import GenerationWriter

    store = tmp_path / "store"
    shutil.copytree(generations.generations_dir(built_store), generations.generations_dir(store), symlinks=True)
    published = generations.generations_dir(store) / Path(os.readlink(built_store)).name
    store.symlink_to(os.path.relpath(published, tmp_path))
    first = generations.current(store)
    assert first is not None
    port = free_port()
    process = serve_process(store, port)
    try:
        process.stdout.readline()  # type: ignore[union-attr]  # (said once it listens)
        assert httpx.get(f"http://127.0.0.1:{port}/id/person/horace-he", timeout=30).status_code == 200
        assert any(f"pid {process.pid} " in h for h in generations.lease_holders(first))
        with GenerationWriter(store) as writer:  # (a load's new generation: the same graph)
            writer.publish(writer.copy_of_current())
        assert first.exists()  # (held by the server: kept by the publish's gc)
        deadline = time.monotonic() + 20
        while any(f"pid {process.pid} " in h for h in generations.lease_holders(first)):
            assert time.monotonic() < deadline, "the idle server still holds the replaced generation"
            time.sleep(0.2)
        assert first.name in generations.collect_garbage(store).removed
    finally:
        process.terminate()
        process.wait(timeout=30)
