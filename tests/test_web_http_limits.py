"""The limits on a request's head (``web/http_limits.py``) and body (``web/protocol.py``), on a
real uvicorn server configured as ``kgprofiles serve`` configures it: a head too large gets 431,
one that takes too long 408, and the connection is closed before more is read; a body larger
than 10 MiB gets 413 as soon as it passes that (a chunked one too), one that takes too long 408.
What arrives in time and within the limits, even slowly or in one large write, is answered."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import Iterator

import pytest

from kgprofiles.config import Settings
from kgprofiles.web import create_app, http_limits, protocol
from web.server import serving

LIMIT_S = 0.6


@pytest.fixture
def port(seed_store, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    monkeypatch.setattr(http_limits, "HEAD_TIMEOUT_S", LIMIT_S)
    monkeypatch.setattr(protocol, "BODY_TIMEOUT_S", LIMIT_S)
    with serving(create_app(settings, seed_store)) as url:
        yield int(url.rsplit(":", 1)[1])


def answer(sock: socket.socket) -> bytes:
    """What the server sends until it closes the connection (or 10 s pass)."""
    sock.settimeout(10)
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.parametrize("sent", [b"", b"GET / HTTP/1.1\r\nHost: x\r\n"], ids=["nothing", "half a head"])
def test_a_head_that_does_not_arrive_in_time_gets_408_and_the_connection_closes(port: int, sent: bytes) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        started = time.monotonic()
        sock.sendall(sent)
        got = answer(sock)
    assert got.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), got[:80]
    assert LIMIT_S * 0.8 <= time.monotonic() - started < LIMIT_S + 5  # (timed from its accept)


def test_a_slow_head_that_arrives_in_time_is_answered(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        for part in (b"GET /id/person/horace-he HTTP/1.1\r\n", b"Host: x\r\n", b"Connection: close\r\n\r\n"):
            sock.sendall(part)
            time.sleep(LIMIT_S / 4)
        got = answer(sock)
    assert got.startswith(b"HTTP/1.1 200 OK\r\n") and b"<h1>Horace He</h1>" in got


def test_the_next_request_on_a_connection_has_its_own_time(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        time.sleep(LIMIT_S / 2)
        sock.sendall(b"GET /api/prefixes HTTP/1.1\r\nHost: x\r\n\r\n")
        sock.settimeout(10)
        first = sock.recv(65536)
        time.sleep(LIMIT_S / 2)  # (more than the limit since the connection began)
        sock.sendall(b"GET /api/prefixes HTTP/1.1\r\nHost: x\r\n")  # half of the next one
        rest = answer(sock)
    assert first.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"HTTP/1.1 408 Request Timeout\r\n" in rest


HEAD = b"POST /sparql HTTP/1.1\r\nHost: x\r\nContent-Type: application/sparql-query\r\n"


@pytest.mark.parametrize(
    ("start", "repeated", "end"),
    [
        (b"GET / HTTP/1.1\r\nHost: x\r\n", b"X-%d: " + b"a" * 1000 + b"\r\n", b"\r\n"),  # many fields
        (b"GET / HTTP/1.1\r\nHost: x\r\nX-Long: ", b"a" * 1000, b"\r\n\r\n"),  # one long field
        (b"GET /?q=", b"a" * 1000, b" HTTP/1.1\r\nHost: x\r\n\r\n"),  # a long request line
    ],
    ids=["many fields", "one long field", "a long request line"],
)
def test_a_head_past_64_kib_gets_431_before_the_rest_is_read(
    port: int, start: bytes, repeated: bytes, end: bytes
) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(start)
        sent = 0
        with contextlib.suppress(OSError):  # (closed by the server while this still sends)
            for i in range(20_000):  # 20 MB, if it were all read
                sock.sendall(repeated.replace(b"%d", str(i).encode()))
                sent += 1
            sock.sendall(end)
        got = answer(sock)
    assert got.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n") and sent < 20_000


def test_a_large_body_sent_with_its_head_in_one_write_is_not_taken_for_a_large_head(port: int) -> None:
    body = b"ASK {} #" + b"-" * 300_000 + b"\n"
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(HEAD + b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        got = answer(sock)
    assert got.startswith(b"HTTP/1.1 200 OK\r\n") and got.endswith(b'"boolean": true}')


def test_a_chunked_body_past_10_mib_gets_413_once_it_passes(port: int) -> None:
    chunk = b"%x\r\n" % (1 << 20) + b"#" * (1 << 20) + b"\r\n"
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(HEAD + b"Transfer-Encoding: chunked\r\n\r\n")
        for _ in range(11):  # (no length said beforehand)
            sock.sendall(chunk)
        sock.settimeout(10)
        got = sock.recv(200)
    assert got.startswith(b"HTTP/1.1 413 "), got


def test_a_body_that_does_not_arrive_in_time_gets_408(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(HEAD + b"Content-Length: 100\r\n\r\nASK {")  # 5 bytes of 100
        got = answer(sock)
    assert got.startswith(b"HTTP/1.1 408 Request Timeout\r\n") and b"the body did not arrive" in got


def test_a_client_gone_before_its_body_arrived_leaves_no_traceback(seed_store, settings: Settings) -> None:
    """A client that sent a POST's head and closed the connection: the body's read raised
    ClientDisconnect through every handler, and the server logged 'Exception in ASGI application'
    with a traceback on the terminal of `kgprofiles serve`. Now a 400 that no one reads."""
    app = create_app(settings, seed_store)
    sent: list[dict[str, object]] = []
    headers = [(b"host", b"x"), (b"content-type", b"application/sparql-query"), (b"content-length", b"100")]
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/sparql",
        "raw_path": b"/sparql",
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }

    async def receive() -> dict[str, object]:
        return {"type": "http.disconnect"}

    async def send(message: dict[str, object]) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))  # (raised ClientDisconnect before)
    assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 400


@pytest.mark.parametrize(
    ("host", "key"),
    [
        ("192.0.2.7", "192.0.2.7"),
        ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),  # (its holder has the whole /64)
        ("2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"),
        ("2001:db8:1:3::1", "2001:db8:1:3::/64"),
        ("::ffff:192.0.2.7", "192.0.2.7"),  # (IPv4 on a dual-stack socket: as IPv4)
        ("not an address", "not an address"),
    ],
)
def test_connections_count_against_an_address_or_an_ipv6_network(host: str, key: str) -> None:
    assert http_limits.client_key(host) == key


@pytest.mark.parametrize("limit", [3, 0])
def test_a_client_past_its_connections_gets_429_and_one_closed_makes_room(
    seed_store, settings: Settings, limit: int
) -> None:
    with serving(create_app(settings, seed_store), connections_per_client=limit) as url:
        port = int(url.rsplit(":", 1)[1])
        held = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(3)]
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=10) as fourth:
                fourth.sendall(b"GET /api/prefixes HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                got = answer(fourth)
            if not limit:  # (no limit: answered)
                assert got.startswith(b"HTTP/1.1 200 OK\r\n"), got[:80]
                return
            assert got.startswith(b"HTTP/1.1 429 Too Many Requests\r\n") and b"retry-after: 5" in got, got[:200]
            held.pop().close()
            deadline = time.monotonic() + 10
            while True:  # (counted off once the server sees the close)
                with socket.create_connection(("127.0.0.1", port), timeout=10) as again:
                    again.sendall(b"GET /api/prefixes HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    got = answer(again)
                if got.startswith(b"HTTP/1.1 200 OK\r\n") or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            assert got.startswith(b"HTTP/1.1 200 OK\r\n"), got[:80]
        finally:
            for sock in held:
                sock.close()
