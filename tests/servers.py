"""A real Oxigraph SPARQL server for tests, and the pytest fixtures that share it.

``OxigraphServer`` runs ``oxigraph serve --location <dir> --bind 127.0.0.1:<free port>
--union-default-graph`` (the ``oxigraph`` executable installed next to the running Python), waits
until it answers, and stops it. The fixtures:

* ``oxigraph_server_process``: one server for the whole session;
* ``oxigraph_server``: that server, emptied (``DROP ALL``) before each test.

Registered for every test module by ``pytest_plugins = ["servers"]`` in conftest.py.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

STARTUP_TIMEOUT_S = 20.0


def oxigraph_executable() -> str:
    """The ``oxigraph`` CLI of this environment (from the ``oxigraph`` PyPI package)."""
    beside = Path(sys.executable).with_name("oxigraph")
    if beside.exists():
        return str(beside)
    found = shutil.which("oxigraph")
    if found is None:
        pytest.fail("the oxigraph server is not installed: `make test` installs it (the oxigraph package)")
    return found


def free_port() -> int:
    """A TCP port nobody listens on right now, on 127.0.0.1."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class OxigraphServer:
    """One ``oxigraph serve`` process over a directory, on 127.0.0.1."""

    def __init__(self, location: Path, port: int | None = None) -> None:
        self.location = location
        self.port = port or free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log_path = location.with_name(location.name + ".log")
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def query_endpoint(self) -> str:
        return f"{self.base_url}/query"

    @property
    def update_endpoint(self) -> str:
        return f"{self.base_url}/update"

    @property
    def graph_store_endpoint(self) -> str:
        return f"{self.base_url}/store"

    def start(self) -> OxigraphServer:
        """Start the server and wait until it answers a query (or fail with its log)."""
        command = [
            oxigraph_executable(),
            "serve",
            "--location",
            str(self.location),
            "--bind",
            f"127.0.0.1:{self.port}",
            "--union-default-graph",
        ]
        with open(self.log_path, "ab") as log:
            self._process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not self._answers():
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"oxigraph serve did not start: {self.log_path.read_text(errors='replace')}")
            time.sleep(0.05)
        return self

    def _answers(self) -> bool:
        request = urllib.request.Request(
            f"{self.query_endpoint}?query=ASK%7B%7D", headers={"Accept": "application/sparql-results+json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=1) as response:
                return bool(response.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 10 s); its data stays in ``location``."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)

    def restart(self) -> OxigraphServer:
        """Stop and start again over the same directory and port."""
        self.stop()
        return self.start()

    def clear(self) -> None:
        """Remove every graph (``DROP ALL``)."""
        request = urllib.request.Request(
            self.update_endpoint,
            data=b"DROP ALL",
            headers={"Content-Type": "application/sparql-update"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=10):
            pass

    def __enter__(self) -> OxigraphServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@pytest.fixture(scope="session")
def oxigraph_server_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OxigraphServer]:
    """One Oxigraph server for the test session (stopped at the end)."""
    with OxigraphServer(tmp_path_factory.mktemp("oxigraph") / "data") as server:
        yield server


@pytest.fixture
def oxigraph_server(oxigraph_server_process: OxigraphServer) -> OxigraphServer:
    """The session's Oxigraph server, with an empty dataset (restarted if a test stopped it)."""
    if not oxigraph_server_process.running:
        oxigraph_server_process.start()
    oxigraph_server_process.clear()
    return oxigraph_server_process
