"""The W3C SPARQL 1.1 Protocol tests, sent over HTTP to a real server (uvicorn on 127.0.0.1).

Two servers, each over a fresh store on disk (queries run in the query workers):
* read-only, holding the graphs the query tests read (their ``ut:graphData``, loaded through the
  Store API before serving): every query test passes as the manifest says; every update is refused
  (the valid ones with 403; the malformed ones with the 4xx the manifest expects);
* writable with a write token, the token sent as ``Authorization: Bearer``: every update test passes.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from conftest import realdata_dir, require_realdata
from kgprofiles.config import Settings
from kgprofiles.store.oxigraph import OxigraphStore
from kgprofiles.web import create_app
from web.server import serving
from web.w3c_protocol import ProtocolTest, check, load_graph_data, load_manifest, send

PROTOCOL = ("w3c-rdf-tests", "sparql", "sparql11", "protocol", "manifest.ttl")
TOKEN = "w3c-protocol-token"

pytestmark = pytest.mark.realdata


def _manifest_names() -> list[str]:
    path = realdata_dir().joinpath(*PROTOCOL)
    return [t.name for t in load_manifest(path)] if path.exists() else ["manifest-missing"]


NAMES = _manifest_names()
QUERY_NAMES = [n for n in NAMES if "update" not in n]
UPDATE_NAMES = [n for n in NAMES if "update" in n]


@pytest.fixture(scope="module")
def tests() -> dict[str, ProtocolTest]:
    return {t.name: t for t in load_manifest(require_realdata(*PROTOCOL))}


@pytest.fixture(scope="module")
def read_only(
    settings: Settings, tests: dict[str, ProtocolTest], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[httpx.Client]:
    store = OxigraphStore(tmp_path_factory.mktemp("w3c-read") / "store")
    load_graph_data(list(tests.values()), store)
    with serving(create_app(settings, store)) as url, httpx.Client(base_url=url, timeout=30) as client:
        yield client
    store.close()


@pytest.fixture(scope="module")
def writable(
    settings: Settings, tests: dict[str, ProtocolTest], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[httpx.Client]:
    store = OxigraphStore(tmp_path_factory.mktemp("w3c-write") / "store")
    with (
        serving(create_app(settings, store, write_token=TOKEN)) as url,
        httpx.Client(base_url=url, timeout=30) as client,
    ):
        yield client
    store.close()


def run(test: ProtocolTest, client: httpx.Client, headers: dict[str, str] | None = None) -> list[str]:
    problems = []
    for index, request in enumerate(test.requests, 1):
        outcome = check(request, send(client, request, headers))
        problems += [
            f"{test.name} request {index} ({request.method} {request.path[:60]}): {p}" for p in outcome.problems
        ]
    return problems


def test_the_manifest_has_the_34_tests(tests: dict[str, ProtocolTest]) -> None:
    assert len(tests) == 34
    assert sum(t.is_update for t in tests.values()) == 14


@pytest.mark.parametrize("name", QUERY_NAMES)
def test_query_protocol(name: str, tests: dict[str, ProtocolTest], read_only: httpx.Client) -> None:
    assert run(tests[name], read_only) == []


@pytest.mark.parametrize("name", UPDATE_NAMES)
def test_update_is_refused_when_read_only(name: str, tests: dict[str, ProtocolTest], read_only: httpx.Client) -> None:
    test = tests[name]
    first = test.requests[0]
    response = send(read_only, first)
    if name.startswith("update_"):
        assert response.status_code == 403, response.text
        assert "read-only" in response.text
    else:  # a malformed update request: refused all the same, with the 4xx the manifest expects
        assert check(first, response).problems == []


@pytest.mark.parametrize("name", UPDATE_NAMES)
def test_update_protocol_with_the_write_token(
    name: str, tests: dict[str, ProtocolTest], writable: httpx.Client
) -> None:
    assert run(tests[name], writable, {"Authorization": f"Bearer {TOKEN}"}) == []


def test_an_update_without_the_token_is_unauthorised(writable: httpx.Client) -> None:
    response = writable.post("/sparql", content=b"CLEAR ALL", headers={"Content-Type": "application/sparql-update"})
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    wrong = writable.post(
        "/sparql",
        content=b"CLEAR ALL",
        headers={"Content-Type": "application/sparql-update", "Authorization": "Bearer nope"},
    )
    assert wrong.status_code == 403


def test_graph_data_files_exist(tests: dict[str, ProtocolTest]) -> None:
    files = {file for t in tests.values() for file, _ in t.graph_data}
    assert files and all(Path(f).is_file() for f in files)
