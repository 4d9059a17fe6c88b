"""``serve`` over a remote store: the seed graph built into a real SPARQL server (``oxigraph serve``),
our app reading it through the RemoteStore, as ``kgprofiles serve --endpoint URL`` does."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from kgprofiles.config import Settings
from kgprofiles.pipeline import build
from kgprofiles.store.remote import RemoteStore
from kgprofiles.web import create_app
from web.server import serving


@pytest.fixture
def client(settings: Settings, oxigraph_server) -> Iterator[httpx.Client]:
    store = RemoteStore(oxigraph_server.query_endpoint)
    build(settings, store=store)
    with serving(create_app(settings, store, max_rows=500)) as url, httpx.Client(base_url=url, timeout=30) as c:
        yield c


def test_pages_and_the_endpoint_over_a_remote_store(client: httpx.Client) -> None:
    page = client.get("/id/person/horace-he")
    assert page.status_code == 200 and "<h1>Horace He</h1>" in page.text and 'href="#source-1"' in page.text
    assert client.get("/id/organization/pytorch.ttl").status_code == 200
    claim = client.get("/id/claim/horace-he-role-pytorch.nt")  # (queries/resource-description.rq, a SELECT)
    assert claim.status_code == 200 and "<https://w3id.org/kgprofiles/ontology#holder>" in claim.text
    rows = client.get("/sparql", params={"query": "SELECT ?n WHERE { ?p a kgp:Person ; kgp:name ?n }"})
    assert rows.status_code == 200 and len(rows.json()["results"]["bindings"]) == 11
    bad = client.get("/sparql", params={"query": "SELECT ?n WHERE { ?p"})
    assert bad.status_code == 400
    too_many = client.get("/sparql", params={"query": "SELECT * WHERE { ?s ?p ?o }"})
    assert too_many.status_code == 422 and "row limit hit" in too_many.text
    service = client.get("/sparql", params={"query": "SELECT * { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }"})
    assert service.status_code == 403


def test_protocol_datasets_are_refused_with_a_hint_over_a_remote_store(client: httpx.Client) -> None:
    response = client.get("/sparql", params={"query": "ASK {}", "default-graph-uri": "urn:g"})
    assert response.status_code == 400 and "FROM" in response.text
