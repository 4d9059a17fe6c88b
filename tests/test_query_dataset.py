"""FROM and FROM NAMED on the embedded store: a query that names its dataset reads that dataset,
not the union of the store's graphs (pyoxigraph's union option would override it); with neither,
the default graph is the union. Over the store's API, ``kgprofiles query`` and the W3C test of a
dataset clause. (/sparql: tests/test_web_sparql.py.)"""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
from typer.testing import CliRunner

from conftest import require_realdata
from kgprofiles.cli import app
from kgprofiles.store import OxigraphStore, SelectResult
from kgprofiles.store.binding import SparqlText
from kgprofiles.store.sandbox import QueryJob, run_in_thread

ROOT = Path(__file__).resolve().parents[1]
JANE = "https://w3id.org/kgprofiles/graph/file/people/jane-xu.ttl"
COUNT = "SELECT (COUNT(*) AS ?n) {from} WHERE {{ {pattern} }}"


def count(store: OxigraphStore, dataset: str, pattern: str = "?s ?p ?o") -> int:
    result = store.query(COUNT.format(**{"from": dataset, "pattern": pattern}))
    assert isinstance(result, SelectResult)
    return int(result.rows[0]["n"].value)


def test_from_one_graph_counts_only_its_triples(seed_store: OxigraphStore) -> None:
    jane = len(list(seed_store.quads(JANE)))
    everything = count(seed_store, "")
    assert 0 < jane < everything
    assert count(seed_store, f"FROM <{JANE}>") == jane


def test_from_named_alone_leaves_the_default_graph_empty(seed_store: OxigraphStore) -> None:
    assert count(seed_store, f"FROM NAMED <{JANE}>") == 0
    assert count(seed_store, f"FROM NAMED <{JANE}>", "GRAPH ?g { ?s ?p ?o }") == len(list(seed_store.quads(JANE)))


def test_the_query_workers_honour_from_too(seed_store: OxigraphStore) -> None:
    job = QueryJob(
        seed_store.location, SparqlText.of(COUNT.format(**{"from": f"FROM <{JANE}>", "pattern": "?s ?p ?o"}))
    )
    answer = run_in_thread(seed_store, job)
    assert isinstance(answer, SelectResult)
    assert int(answer.rows[0]["n"].value) == len(list(seed_store.quads(JANE)))


def test_kgprofiles_query_with_from(seed_store_dir: Path, seed_store: OxigraphStore) -> None:
    query = f"SELECT (COUNT(*) AS ?n) FROM <{JANE}> {{?s ?p ?o}}"
    result = CliRunner().invoke(
        app, ["--project", str(ROOT), "query", "-e", query, "--format", "csv", "--store", str(seed_store_dir)]
    )
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[1] == str(len(list(seed_store.quads(JANE))))


def test_w3c_construct_where_with_a_dataset_clause() -> None:
    """sparql11/construct constructwhere04: CONSTRUCT FROM <data.ttl> WHERE { ?s ?p ?o }, with the
    data in the graph named by its file and another graph beside it that must not be read."""
    folder = require_realdata("w3c-rdf-tests", "sparql", "sparql11", "construct")
    data = folder / "data.ttl"
    graph = ox.NamedNode(data.as_uri())
    store = OxigraphStore("memory:")
    store.store.load(path=str(data), format=ox.RdfFormat.TURTLE, to_graph=graph)
    other = ox.NamedNode("http://example.org/other")
    store.store.add(ox.Quad(other, other, other, other))
    query = (folder / "constructwhere04.rq").read_text().replace("<data.ttl>", f"<{data.as_uri()}>")
    result = store.query(query)
    expected = ox.parse(path=str(folder / "constructwhere04result.ttl"), format=ox.RdfFormat.TURTLE)
    assert isinstance(result, list)
    assert sorted(map(str, result)) == sorted(str(q.triple) for q in expected)
    store.close()


def test_without_a_dataset_the_default_graph_is_the_union(seed_store: OxigraphStore) -> None:
    assert count(seed_store, "") == len({q.triple for q in seed_store.quads()})
