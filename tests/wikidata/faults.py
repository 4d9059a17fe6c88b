"""A small scripted HTTP server on loopback for the client's fault tests: 429 with Retry-After,
503, HTML instead of results, a server that never answers, one that trickles its answer a byte at
a time (status line included), redirects, raw bytes that are not HTTP, and SPARQL answers built
term by term (for over-long or hostile texts).

Each path gets a script, a list of replies served in order (the last one repeats). Every request
is recorded with its arrival time and headers, so tests can count requests and measure waits; a
second FaultServer with no script is the canary a redirect must never reach. It speaks HTTPS too,
with a throwaway self-signed certificate.
"""

from __future__ import annotations

import json
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from http.client import responses
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

SPARQL_JSON = "application/sparql-results+json"
NEVER = 3600.0  # a delay no test waits out: the server closes the connection when the test ends


def closed_port_url() -> str:
    """A loopback URL nothing listens on: the endpoint that cannot be reached."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    return f"http://127.0.0.1:{port}/sparql"


@dataclass(frozen=True)
class Reply:
    """One scripted answer. ``delay_s`` waits before the first byte; ``trickle_s`` sends the whole
    answer, status line and headers included, a byte at a time with that pause between bytes;
    ``length`` False leaves Content-Length out (the body ends when the connection closes); ``raw``
    is sent as it is instead of a formatted answer."""

    status: int = 200
    body: bytes = b""
    headers: tuple[tuple[str, str], ...] = ()
    delay_s: float = 0.0
    trickle_s: float = 0.0
    length: bool = True
    raw: bytes | None = None

    def encode(self) -> bytes:
        if self.raw is not None:
            return self.raw
        lines = [f"HTTP/1.1 {self.status} {responses.get(self.status, 'Unknown')}", "Connection: close"]
        lines += [f"{name}: {value}" for name, value in self.headers]
        if self.length:
            lines.append(f"Content-Length: {len(self.body)}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + self.body


@dataclass(frozen=True)
class Recorded:
    path: str
    method: str
    headers: dict[str, str]
    query: str | None
    at: float  # time.monotonic() on arrival


def uri(value: str) -> dict[str, str]:
    return {"type": "uri", "value": value}


def literal(value: str, language: str | None = None) -> dict[str, str]:
    return {"type": "literal", "value": value, **({"xml:lang": language} if language else {})}


def answer(variables: Sequence[str], rows: Sequence[Mapping[str, dict[str, str]]]) -> Reply:
    """SPARQL JSON results whose cells are given as terms (``uri``, ``literal``)."""
    document = {"head": {"vars": list(variables)}, "results": {"bindings": [dict(r) for r in rows]}}
    return Reply(200, json.dumps(document).encode(), (("Content-Type", SPARQL_JSON),))


def silent() -> Reply:
    """A server that accepts the connection, reads the request and never answers."""
    return Reply(delay_s=NEVER)


def redirect(status: int, location: str) -> Reply:
    return Reply(status, b"moved", (("Location", location), ("Content-Type", "text/plain")))


def results(variables: Sequence[str] = ("x",), rows: Sequence[dict[str, str]] = ({"x": "1"},)) -> bytes:
    """A SPARQL JSON result whose values are plain literals."""
    bindings = [{k: {"type": "literal", "value": v} for k, v in row.items()} for row in rows]
    return json.dumps({"head": {"vars": list(variables)}, "results": {"bindings": bindings}}).encode()


def ok(variables: Sequence[str] = ("x",), rows: Sequence[dict[str, str]] = ({"x": "1"},)) -> Reply:
    return Reply(200, results(variables, rows), (("Content-Type", SPARQL_JSON),))


def too_many(retry_after: str | None = "1") -> Reply:
    headers = (("Retry-After", retry_after),) if retry_after is not None else ()
    return Reply(429, b"Too Many Requests", (("Content-Type", "text/plain"), *headers))


def unavailable(retry_after: str | None = None) -> Reply:
    headers = (("Retry-After", retry_after),) if retry_after is not None else ()
    return Reply(503, b"Service Unavailable", (("Content-Type", "text/plain"), *headers))


HTML_PAGE = b"<!DOCTYPE html><html><head><title>Wikimedia Error</title></head><body>Our servers are busy</body></html>"


def html(content_type: str = "text/html; charset=utf-8") -> Reply:
    return Reply(200, HTML_PAGE, (("Content-Type", content_type),))


@dataclass
class _State:
    scripts: dict[str, list[Reply]] = field(default_factory=dict)
    served: dict[str, int] = field(default_factory=dict)
    requests: list[Recorded] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    closing: threading.Event = field(default_factory=threading.Event)


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self._answer()

    def _answer(self) -> None:
        state = self.server.state
        parts = urlsplit(self.path)
        query = parse_qs(parts.query).get("query", [None])[0]
        if self.command == "POST":
            length = int(self.headers.get("Content-Length", "0"))
            form = parse_qs(self.rfile.read(length).decode("utf-8"))
            query = form.get("query", [query])[0]
        with state.lock:
            state.requests.append(
                Recorded(parts.path, self.command, dict(self.headers.items()), query, time.monotonic())
            )
            script = state.scripts.get(parts.path, [Reply(404, b"no script for this path")])
            index = state.served.get(parts.path, 0)
            state.served[parts.path] = index + 1
            reply = script[min(index, len(script) - 1)]
        self.close_connection = True
        if reply.delay_s and state.closing.wait(reply.delay_s):
            return
        data = reply.encode()
        try:
            if reply.trickle_s:
                for byte in data:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    if state.closing.wait(reply.trickle_s):
                        return
            else:
                self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up, as it should


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    state: _State


def tls_files(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key, made by the openssl command (a skip
    where there is none). A client trusts it when SSL_CERT_FILE names the certificate."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("no openssl command to make a test certificate")
    cert, key = directory / "cert.pem", directory / "key.pem"
    subject = ["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
    files = ["-keyout", str(key), "-out", str(cert)]
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", *subject, *files],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return cert, key


class FaultServer:
    """The scripted server; use as a context manager. With ``tls`` (certificate and key files) it
    speaks HTTPS."""

    def __init__(self, tls: tuple[Path, Path] | None = None) -> None:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.state = _State()
        self._scheme = "http"
        if tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
            self._scheme = "https"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> FaultServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.state.closing.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def url(self, path: str) -> str:
        host, port = self._server.server_address[:2]
        return f"{self._scheme}://{host}:{port}{path}"

    def script(self, path: str, *replies: Reply) -> str:
        """Serve ``replies`` in order at ``path`` (the last one repeats); returns the URL."""
        with self._server.state.lock:
            self._server.state.scripts[path] = list(replies)
            self._server.state.served[path] = 0
        return self.url(path)

    def requests(self, path: str | None = None) -> list[Recorded]:
        with self._server.state.lock:
            return [r for r in self._server.state.requests if path is None or r.path == path]
