"""pytest fixtures for the Wikidata tests. A test module uses them with
``pytest_plugins = ["wikidata.fixtures"]`` and ``pytest.mark.usefixtures("no_public_wikidata")``.

``wikidata_endpoint`` is the query URL of a local Oxigraph server holding the dump-shaped fixture,
built at session start from the real ``wbgetentities`` JSON (read in place from realdata/) and the
synthetic items, loaded with ``oxigraph load`` and served by the shared ``servers.OxigraphServer``
(in its own store directory: the shared session server is emptied before each test). The server
is started once per test process.
"""

from __future__ import annotations

import atexit
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from servers import OxigraphServer, oxigraph_executable
from wikidata.faults import FaultServer, closed_port_url
from wikidata.fixture import build_fixture
from wikidata.project import real_json_files
from wikidata.synthetic import REDIRECTS, synthetic_items

_SERVER: list[OxigraphServer] = []


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
    """Make the default endpoint a closed loopback port, so a test that forgets to name its endpoint
    fails fast instead of calling the public Wikidata endpoint; ignore the developer's own
    KGPROFILES_WIKIDATA_* settings, and turn the cache off."""
    from kgprofiles.link import wikidata_settings as config

    monkeypatch.setattr(config, "DEFAULT_ENDPOINT", closed_port_url())
    monkeypatch.delenv("KGPROFILES_WIKIDATA_ENDPOINT", raising=False)
    monkeypatch.setenv("KGPROFILES_WIKIDATA_CACHE", "")
