"""A fault proxy for tests: forwards every HTTP request to a real server, except those a rule
chooses to fail (answered with the status the rule gives, never forwarded)."""

from __future__ import annotations

import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

#: (method, path with query, body) → a status to fail with, or None to forward.
Rule = Callable[[str, str, bytes], int | None]


@contextmanager
def fault_proxy(target: str, rule: Rule) -> Iterator[str]:
    """A proxy on 127.0.0.1 in front of ``target`` (a base URL); yields its own base URL."""

    class Handler(BaseHTTPRequestHandler):
        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            status = rule(self.command, self.path, body)
            if status is not None:
                message = b"injected fault\n"
                self.send_response(status)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(message)))
                self.end_headers()
                self.wfile.write(message)
                return
            request = urllib.request.Request(target + self.path, data=body or None, method=self.command)
            for name in ("Content-Type", "Accept"):
                if self.headers.get(name):
                    request.add_header(name, self.headers[name])
            try:
                with urllib.request.urlopen(request, timeout=30) as answer:
                    code, headers, payload = answer.status, answer.headers, answer.read()
            except urllib.error.HTTPError as error:
                code, headers, payload = error.code, error.headers, error.read()
            self.send_response(code)
            self.send_header("Content-Type", headers.get("Content-Type", "application/octet-stream"))
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

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
