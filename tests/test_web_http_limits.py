"""The limits on a request's head (``web/http_limits.py``), on a real uvicorn server configured as
``kgprofiles serve`` configures it: a head that takes too long gets 408 and the connection is
closed; one that arrives in time, even slowly, is answered. (Its size limit, on ``kgprofiles
serve`` itself: tests/test_web_serve_cli.py.)"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from kgprofiles.config import Settings
from kgprofiles.web import create_app, http_limits
from web.server import serving

LIMIT_S = 0.6


@pytest.fixture
def port(seed_store, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    monkeypatch.setattr(http_limits, "HEAD_TIMEOUT_S", LIMIT_S)
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
