"""A fault proxy for tests: forwards every HTTP request to a real server, except those a rule
chooses to fail.

A rule sees (method, path with query, body) and returns:

* ``None``: forward the request, answer with the server's answer;
* a status (int): answer with it, never forwarding (the server never saw the request);
* ``RESET``: close the connection without answering, never forwarding;
* ``AFTER_500``: forward the request (the server does it), then answer 500 as if it failed;
* ``AFTER_RESET``: forward the request, then close the connection without answering;
* ``AFTER_PARTIAL``: forward the request, then answer with the server's body and status but the
  headers of a Virtuoso "anytime" answer cut at its time limit (``X-SQL-State: S1TAT``);
* ``AFTER_206``: the same with status 206 (Virtuoso's default for such an answer).

Authentication headers travel both ways, so a server that asks for Digest credentials works
through the proxy; so does a server's result-cap header.
"""

from __future__ import annotations

import re
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RESET = "reset"
AFTER_500 = "after-500"
AFTER_RESET = "after-reset"
AFTER_PARTIAL = "after-partial"
AFTER_206 = "after-206"
#: The headers Virtuoso sends with an answer stopped at its time limit (README.ANYTIME.md).
_ANYTIME = {
    "X-SQL-State": "S1TAT",
    "X-SQL-Message": "RC...: Returning incomplete results, query interrupted by result timeout.",
}

#: (method, path with query, body) → None (forward), a status, RESET or an AFTER_… outcome.
Rule = Callable[[str, str, bytes], int | str | None]
_REQUEST_HEADERS = ("Content-Type", "Accept", "Authorization")
_ANSWER_HEADERS = ("WWW-Authenticate", "X-SPARQL-MaxRows")


#: An update that starts by inserting into a staging graph (``RemoteStore._stage``).
_STAGING_INSERT = re.compile(rb"INSERT DATA \{ GRAPH <[^>]*/staging/[0-9a-f]{16}/[0-9]+>")


def stages(method: str, body: bytes) -> bool:
    """Whether a request writes into a write's staging graph: a PUT (a large graph, through the
    Graph Store Protocol), or an update whose INSERT DATA names one (small graphs, many a request);
    not the journal's record, whose IRI has no graph number."""
    return method == "PUT" or (method == "POST" and _STAGING_INSERT.match(body) is not None)


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirects())


@contextmanager
def fault_proxy(target: str, rule: Rule, *, authenticated_only: bool = False) -> Iterator[str]:
    """A proxy on 127.0.0.1 in front of ``target`` (a base URL); yields its own base URL.
    ``authenticated_only``: the rule sees only requests that carry credentials (the others go
    through untouched, to get the server's challenge)."""

    class Handler(BaseHTTPRequestHandler):
        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            checked = not authenticated_only or bool(self.headers.get("Authorization"))
            fault = rule(self.command, self.path, body) if checked else None
            if fault == RESET:
                self._reset()
                return
            if isinstance(fault, int):
                self._answer(fault, {"Content-Type": "text/plain"}, b"injected fault\n")
                return
            request = urllib.request.Request(target + self.path, data=body or None, method=self.command)
            for name in _REQUEST_HEADERS:
                if self.headers.get(name):
                    request.add_header(name, self.headers[name])
            try:
                with _OPENER.open(request, timeout=30) as answer:
                    code, headers, payload = answer.status, answer.headers, answer.read()
            except urllib.error.HTTPError as error:
                code, headers, payload = error.code, error.headers, error.read()
            if fault == AFTER_RESET:
                self._reset()
                return
            if fault == AFTER_500:
                self._answer(500, {"Content-Type": "text/plain"}, b"injected fault after the server did it\n")
                return
            passed = {"Content-Type": headers.get("Content-Type", "application/octet-stream")}
            passed |= {name: headers[name] for name in _ANSWER_HEADERS if headers.get(name)}
            if fault in (AFTER_PARTIAL, AFTER_206):
                passed |= _ANYTIME
                code = 206 if fault == AFTER_206 else code
            self._answer(code, passed, payload)

        def _answer(self, code: int, headers: dict[str, str], payload: bytes) -> None:
            self.send_response(code)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def _reset(self) -> None:
            """Close the connection at once (RST: SO_LINGER 0), with no answer."""
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            self.close_connection = True
            self.connection.close()

        do_GET = do_POST = do_PUT = do_DELETE = _handle

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
