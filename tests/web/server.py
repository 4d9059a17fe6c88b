"""A real uvicorn server on 127.0.0.1 (a free port), serving an ASGI app from a thread."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn

from kgprofiles.web.http_limits import server_config

STARTUP_TIMEOUT_S = 20.0


@contextmanager
def serving(app: object, **config: int) -> Iterator[str]:
    """Serve ``app`` until the block ends; yields the base URL (``http://127.0.0.1:PORT``).
    ``config``: ``server_config``'s options (as ``serve``'s command line sets them)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    server = uvicorn.Server(server_config(app, **config))  # (as `kgprofiles serve` runs it)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name=f"uvicorn-{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()
