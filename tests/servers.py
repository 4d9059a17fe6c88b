"""Real SPARQL servers for tests (Oxigraph, Virtuoso 7), and the pytest fixtures that share them.

``OxigraphServer`` runs ``oxigraph serve --location <dir> --bind 127.0.0.1:<free port>
--union-default-graph`` (the ``oxigraph`` executable installed next to the running Python), waits
until it answers, and stops it. The fixtures:

* ``oxigraph_server_process``: one server for the whole session;
* ``oxigraph_server``: that server, emptied (``DROP ALL``) before each test.

``VirtuosoServer`` runs Debian's ``virtuoso-t`` over a scratch database with its own ini (free
ports on 127.0.0.1) and a user who needs credentials to update; ``virtuoso_server`` is the
session's one (its ``ResultSetMaxRows`` lowered to 1,000), emptied of all but Virtuoso's system
graphs before each test.

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

from kgprofiles.store.credentials import Credentials

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


def answers_ask(query_endpoint: str) -> bool:
    """Whether a SPARQL endpoint answers ``ASK {}`` (a server is up and serving)."""
    request = urllib.request.Request(
        f"{query_endpoint}?query=ASK%7B%7D", headers={"Accept": "application/sparql-results+json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=1) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def terminate(process: subprocess.Popen[bytes] | None, *, grace_s: float) -> None:
    """Stop a server process: SIGTERM, then SIGKILL after ``grace_s`` seconds."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


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
        return answers_ask(self.query_endpoint)

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 10 s); its data stays in ``location``."""
        process, self._process = self._process, None
        terminate(process, grace_s=10)

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
def oxigraph_server(oxigraph_server_process: OxigraphServer, monkeypatch: pytest.MonkeyPatch) -> OxigraphServer:
    """The session's Oxigraph server, with an empty dataset (restarted if a test stopped it);
    commands run in the test know it is an Oxigraph server (``KGPROFILES_SERVER_KIND``)."""
    monkeypatch.setenv("KGPROFILES_SERVER_KIND", "oxigraph")
    if not oxigraph_server_process.running:
        oxigraph_server_process.start()
    oxigraph_server_process.clear()
    return oxigraph_server_process


# -- Virtuoso 7 ---------------------------------------------------------------------------------

#: The user the tests write as (updates need credentials: the anonymous /sparql only reads).
VIRTUOSO_USER = "kgprofiles"
VIRTUOSO_PASSWORD = "test-password-not-secret"
#: Graphs Virtuoso keeps for itself in every database; ``clear()`` leaves them.
VIRTUOSO_SYSTEM_GRAPH_PREFIXES = ("http://www.openlinksw.com/", "http://www.w3.org/ns/ldp#", "http://localuriqaserver/")

_VIRTUOSO_INI = """\
[Database]
DatabaseFile       = {dir}/virtuoso.db
ErrorLogFile       = {dir}/virtuoso.log
LockFile           = {dir}/virtuoso.lck
TransactionFile    = {dir}/virtuoso.trx
xa_persistent_file = {dir}/virtuoso.pxa
ErrorLogLevel      = 7
FileExtend         = 200
Striping           = 0
TempStorage        = TempDatabase

[TempDatabase]
DatabaseFile       = {dir}/virtuoso-temp.db
TransactionFile    = {dir}/virtuoso-temp.trx

[Parameters]
ServerPort         = 127.0.0.1:{sql_port}
DisableUnixSocket  = 1
CheckpointInterval = 0
CaseMode           = 2
DirsAllowed        = {dir}
NumberOfBuffers    = {buffers}
MaxDirtyBuffers    = {dirty_buffers}
ThreadsPerQuery    = 2
MaxSortedTopRows   = {max_rows}
MaxClientConnections = 8
TransactionAfterImageLimit = {transaction_bytes}

[HTTPServer]
ServerPort         = 127.0.0.1:{http_port}
ServerRoot         = {dir}
ServerThreads      = 6
MaxClientConnections = 6
Charset            = UTF-8
EnabledGzipContent = 0

[SPARQL]
ResultSetMaxRows      = {max_rows}
MaxQueryExecutionTime = 60
"""


def virtuoso_executables() -> tuple[str, str]:
    """``virtuoso-t`` and ``isql-vt`` (Debian's virtuoso-opensource-7)."""
    server, isql = shutil.which("virtuoso-t"), shutil.which("isql-vt")
    if server is None or isql is None:
        pytest.fail("Virtuoso 7 is not installed: `make test` installs it (tools/install-test-deps.sh)")
    return server, isql


class VirtuosoServer:
    """One ``virtuoso-t`` over a scratch database directory with its own virtuoso.ini, on
    127.0.0.1 (free HTTP and SQL ports), with a user ``VIRTUOSO_USER`` who may update through
    ``/sparql-auth`` and ``/sparql-graph-crud-auth`` (HTTP Digest); the anonymous ``/sparql``
    only reads. ``max_rows`` is the server's result cap (``ResultSetMaxRows``) and the rows it
    sorts at most for ORDER BY with LIMIT/OFFSET (``MaxSortedTopRows``); ``transaction_bytes`` is
    the most one transaction may log (``TransactionAfterImageLimit``, Virtuoso's default 50 MB);
    ``buffers`` the 8 KB pages it caches (``NumberOfBuffers``: 80 MB for tests; Virtuoso's
    documentation advises 340,000 with 4 GB of memory to spare, which the benchmark uses)."""

    def __init__(
        self, directory: Path, max_rows: int = 10_000, transaction_bytes: int = 50_000_000, buffers: int = 10_000
    ) -> None:
        self.directory = directory
        self.buffers = buffers
        self.max_rows = max_rows
        self.transaction_bytes = transaction_bytes
        self.http_port = free_port()
        self.sql_port = free_port()
        self.base_url = f"http://127.0.0.1:{self.http_port}"
        self.log_path = directory / "virtuoso.log"
        self.startup_s = 0.0
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def query_endpoint(self) -> str:
        return f"{self.base_url}/sparql"

    @property
    def credentials(self) -> Credentials:
        """The update user's credentials."""
        return Credentials(VIRTUOSO_USER, VIRTUOSO_PASSWORD, "the test server")

    @property
    def credentials_env(self) -> dict[str, str]:
        """The environment variables kgprofiles reads the update credentials from."""
        return {"KGPROFILES_SERVER_USER": VIRTUOSO_USER, "KGPROFILES_SERVER_PASSWORD": VIRTUOSO_PASSWORD}

    def start(self) -> VirtuosoServer:
        """Start the server, wait until it answers, create the update user (or fail with its log)."""
        server, _ = virtuoso_executables()
        started = time.monotonic()
        self.directory.mkdir(parents=True, exist_ok=True)
        ini = self.directory / "virtuoso.ini"
        ini.write_text(
            _VIRTUOSO_INI.format(
                dir=self.directory,
                sql_port=self.sql_port,
                http_port=self.http_port,
                max_rows=self.max_rows,
                transaction_bytes=self.transaction_bytes,
                buffers=self.buffers,
                dirty_buffers=self.buffers * 3 // 4,
            )
        )
        first_start = not (self.directory / "virtuoso.db").exists()
        with open(self.directory / "stdout.log", "ab") as log:
            self._process = subprocess.Popen(
                [server, "+foreground", "+configfile", str(ini)],
                cwd=self.directory,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 60
        while not self._answers():
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"virtuoso-t did not start: {self.log_path.read_text(errors='replace')[-3000:]}")
            time.sleep(0.1)
        if first_start:
            self.isql(
                f"DB.DBA.USER_CREATE('{VIRTUOSO_USER}', '{VIRTUOSO_PASSWORD}');",
                f'GRANT SPARQL_UPDATE TO "{VIRTUOSO_USER}";',
                "DB.DBA.RDF_DEFAULT_USER_PERMS_SET('nobody', 1);",
                f"DB.DBA.RDF_DEFAULT_USER_PERMS_SET('{VIRTUOSO_USER}', 3);",
            )
        self.startup_s = time.monotonic() - started
        return self

    def isql(self, *statements: str) -> str:
        """Run SQL statements as the database administrator (isql-vt over the SQL port)."""
        _, isql = virtuoso_executables()
        done = subprocess.run(
            [isql, f"127.0.0.1:{self.sql_port}", "dba", "dba", "exec=" + " ".join(statements)],
            capture_output=True,
            timeout=60,
            check=False,
        )
        output = done.stdout.decode(errors="replace") + done.stderr.decode(errors="replace")
        if done.returncode != 0 or "*** Error" in output:
            raise RuntimeError(f"isql-vt failed: {output}")
        return output

    def _answers(self) -> bool:
        return answers_ask(self.query_endpoint)

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 20 s)."""
        process, self._process = self._process, None
        terminate(process, grace_s=20)

    def clear(self) -> None:
        """Remove every graph but Virtuoso's own (``DROP ALL`` would remove those too)."""
        keep = " AND ".join(f"id_to_iri(G) NOT LIKE '{p}%'" for p in VIRTUOSO_SYSTEM_GRAPH_PREFIXES)
        self.isql("log_enable(3, 1);", f"DELETE FROM DB.DBA.RDF_QUAD WHERE {keep};")

    def __enter__(self) -> VirtuosoServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


#: The result cap of the session's Virtuoso: well below the seed graph's 1,599 quads, so that every
#: test on it (the store contract, the same answers as the embedded store, exports) also shows that
#: reads which must be complete page past a cap. One server for all: each start costs 3-9 s.
CAPPED_MAX_ROWS = 1000


@pytest.fixture(scope="session")
def virtuoso_server_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VirtuosoServer]:
    """One Virtuoso 7 server for the test session (stopped at the end), its ResultSetMaxRows
    lowered to ``CAPPED_MAX_ROWS``."""
    with VirtuosoServer(tmp_path_factory.mktemp("virtuoso"), max_rows=CAPPED_MAX_ROWS) as server:
        yield server


@pytest.fixture
def virtuoso_server(virtuoso_server_process: VirtuosoServer) -> VirtuosoServer:
    """The session's Virtuoso, holding only its own system graphs (restarted if a test stopped it)."""
    if not virtuoso_server_process.running:
        virtuoso_server_process.start()
    virtuoso_server_process.clear()
    return virtuoso_server_process
