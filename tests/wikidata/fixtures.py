"""pytest fixtures for the Wikidata tests: a test module uses them with
``pytest_plugins = ["wikidata.fixtures"]`` (and ``pytest.mark.usefixtures("no_public_wikidata")``).

``wikidata_endpoint`` is the query URL of a local Oxigraph server holding the dump-shaped fixture,
built at session start from the real ``wbgetentities`` JSON (read in place from realdata/) and the
synthetic items, loaded with ``oxigraph load`` and served by the shared ``servers.OxigraphServer``
(its own store directory: the shared session server is emptied before each test). The server is
started once per test process.
"""

from __future__ import annotations

import atexit
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import ROOT, require_realdata
from servers import OxigraphServer, oxigraph_executable
from wikidata.faults import FaultServer, closed_port_url
from wikidata.fixture import build_fixture
from wikidata.synthetic import REDIRECTS, synthetic_items

REAL_FILES = (
    "wbgetentities-Douglas-Adams.json",
    "wbgetentites-Oliver-Kahn.json",  # sic: the file's own name
    "wbgetentities-Q6-Q42-P31.json",
)
DATA = Path(__file__).resolve().parent / "data"
_SERVER: list[OxigraphServer] = []


def real_json_files() -> list[Path]:
    return [require_realdata("wikidata-entities", name) for name in REAL_FILES]


def _start(workdir: Path) -> OxigraphServer:
    turtle = workdir / "wikidata-fixture.ttl"
    turtle.write_bytes(build_fixture(real_json_files(), synthetic_items(), REDIRECTS))
    store = workdir / "store"
    subprocess.run(
        [oxigraph_executable(), "load", "--location", str(store), "--file", str(turtle)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    server = OxigraphServer(store).start()
    atexit.register(server.stop)
    return server


@pytest.fixture(scope="session")
def wikidata_endpoint(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The SPARQL query URL of the local fixture server."""
    if not _SERVER:
        _SERVER.append(_start(tmp_path_factory.mktemp("wikidata-fixture")))
    return _SERVER[0].query_endpoint


@pytest.fixture
def fault_server() -> Iterator[FaultServer]:
    with FaultServer() as server:
        yield server


@pytest.fixture
def no_public_wikidata(monkeypatch: pytest.MonkeyPatch) -> None:
    """Point the default endpoint at a closed loopback port and turn the cache off, so a test that
    forgets to name its endpoint fails fast instead of calling the public Wikidata endpoint."""
    monkeypatch.setenv("KGPROFILES_WIKIDATA_ENDPOINT", closed_port_url())
    monkeypatch.setenv("KGPROFILES_WIKIDATA_CACHE", "")


def project(tmp_path: Path, data: Path, endpoint: str | None = None) -> Path:
    """A project root in ``tmp_path`` that uses this checkout's ontology, shapes and queries, the data
    directory ``data``, and ``endpoint`` as its Wikidata endpoint."""
    lines = [
        "[kgprofiles]",
        f'data = "{data}"',
        f'ontology = "{ROOT / "ontology"}"',
        f'shapes = "{ROOT / "shapes"}"',
        f'queries = "{ROOT / "queries"}"',
        "",
        "[kgprofiles.wikidata]",
        f'cache_dir = "{tmp_path / "cache"}"',
        "min_interval_s = 0",
        "backoff_s = 0.05",
        "connect_timeout_s = 2",
        "read_timeout_s = 20",
    ]
    if endpoint:
        lines.append(f'endpoint = "{endpoint}"')
    (tmp_path / "kgprofiles.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.makedirs(tmp_path / "cache", exist_ok=True)
    return tmp_path
