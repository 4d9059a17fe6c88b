"""A site build reads a batch of people's profiles with one query per section
(``Views.prefetch``, ``binding.bind_each``: the query under ``LATERAL``, once for each person)
instead of one query per section and person. These tests hold each batched answer to the answer
the query gives one person at a time (same rows, same order, same variables) on the seed data,
the lives fixture and 300 synthetic people, and hold ``bind_each`` to the queries it may not take."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from kgprofiles.config import Settings
from kgprofiles.errors import QueryError
from kgprofiles.profiles import BATCHED, Views
from kgprofiles.queries import load_queries, named
from kgprofiles.static_site import BATCH
from kgprofiles.store.binding import bind_each, projection
from kgprofiles.store.oxigraph import OxigraphStore

ROOT = Path(__file__).resolve().parents[1]


def iris_of(store: OxigraphStore, kind: str) -> list[str]:
    """Every resource of a kind of page (person, source, work; "why": the people of "Why?" pages)."""
    cls = "Person" if kind == "why" else kind.capitalize()
    found = store.query(f"SELECT DISTINCT ?x WHERE {{ ?x a kgp:{cls} }}").rows
    return sorted(r["x"].value for r in found)


def _key(row: dict) -> list[tuple[str, str]]:
    return sorted((name, str(term)) for name, term in row.items())


@pytest.mark.parametrize("graph", ["seed_store", "lives_store", "synthetic_store"])
@pytest.mark.parametrize("kind", sorted(BATCHED))
def test_each_batched_answer_is_the_one_resource_answer(graph: str, kind: str, settings: Settings, request) -> None:
    store = request.getfixturevalue(graph)
    one_at_a_time = Views(store, settings.queries_dir)
    batched = Views(store, settings.queries_dir, stable=True)
    batched.read_once()
    param, names = BATCHED[kind]
    ordered = {name: "ORDER BY" in named(one_at_a_time.queries, name).text for name in names}
    iris = iris_of(store, kind)
    if graph == "synthetic_store":  # (its first 600 of each kind: thousands of claims took 10 s of CI)
        iris = iris[:600]
    compared = 0
    for at in range(0, len(iris), BATCH):
        batch = iris[at : at + BATCH]
        batched.prefetch({kind: batch})
        for name in names:
            for iri in batch:
                alone = one_at_a_time.select(name, **{param: ox.NamedNode(iri)})
                together = batched.select(name, **{param: ox.NamedNode(iri)})
                assert together.variables == alone.variables, (name, iri)
                if ordered[name]:
                    assert together.rows == alone.rows, (name, iri)
                else:  # (in the engine's order, which its readers do not depend on: test_a_batch_makes…)
                    assert sorted(map(_key, together.rows)) == sorted(map(_key, alone.rows)), (name, iri)
                compared += bool(alone.rows)
    assert compared >= (len(iris) if len(names) > 1 else bool(iris))  # (answers with rows, not only empty ones)
    assert iris or (graph, kind) == ("lives_store", "work")  # (the lives fixture has no works)


def test_a_batch_makes_the_pages_one_query_at_a_time_makes(synthetic_store: OxigraphStore, settings: Settings) -> None:
    one_at_a_time = Views(synthetic_store, settings.queries_dir)
    batched = Views(synthetic_store, settings.queries_dir, stable=True)
    batched.read_once()
    people, sources, works = (iris_of(synthetic_store, kind)[:64] for kind in ("person", "source", "work"))
    for at in range(0, 64, BATCH):
        batched.prefetch(
            {"person": people[at : at + BATCH], "source": sources[at : at + BATCH], "work": works[at : at + BATCH]}
        )
        for iri in people[at : at + BATCH]:
            assert batched.profile(ox.NamedNode(iri)) == one_at_a_time.profile(ox.NamedNode(iri)), iri
        for iri in sources[at : at + BATCH]:
            assert batched.source(iri) == one_at_a_time.source(iri), iri
        for iri in works[at : at + BATCH]:
            assert batched.work(iri) == one_at_a_time.work(iri), iri


def test_the_batch_is_read_with_one_query_a_section(
    synthetic_store: OxigraphStore, settings: Settings, monkeypatch
) -> None:
    views = Views(synthetic_store, settings.queries_dir, stable=True)
    views.read_once()
    sent: list[str] = []
    original = OxigraphStore.select_rows

    def counted(self: OxigraphStore, sparql: str, *args: object, **kwargs: object):
        sent.append(sparql)
        return original(self, sparql, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(OxigraphStore, "select_rows", counted)
    views.prefetch({kind: iris_of(synthetic_store, kind)[:BATCH] for kind in ("person", "source", "work", "topic")})
    assert 0 < len(sent) <= sum(len(names) for _, names in BATCHED.values())
    assert all("LATERAL" in text for text in sent)


class NoLateral(OxigraphStore):
    """A store that, like a remote SPARQL 1.1 server, is not asked for LATERAL."""

    lateral = False


def test_a_store_without_lateral_is_read_one_person_at_a_time(settings: Settings, seed_store_factory) -> None:
    store = seed_store_factory()
    plain = NoLateral("memory:")
    plain.replace_graphs({g: [q.triple for q in store.quads(g)] for g in store.graphs()})
    views = Views(plain, settings.queries_dir, stable=True)
    views.prefetch({"person": iris_of(plain, "person")})
    assert views._prefetched == {}
    horace = views.profile(views.resolve_person("horace-he"))
    assert horace.name == "Horace He" and horace.sources


@pytest.mark.parametrize(
    ("query", "refused"),
    [
        ("SELECT (COUNT(*) AS ?n) WHERE { ?person ?p ?o }", "aggregates without GROUP BY"),
        ("SELECT ?o (GROUP_CONCAT(?p) AS ?ps) WHERE { ?person ?p ?o }", "aggregates without GROUP BY"),
        ("SELECT (SAMPLE(?o) AS ?x) WHERE { ?person ?p ?o } ORDER BY ?x", "aggregates without GROUP BY"),
        ("SELECT * WHERE { ?person ?p ?o }", "projects * or ?person"),
        ("SELECT ?person ?o WHERE { ?person ?p ?o }", "projects * or ?person"),
        ("SELECT ?o FROM <http://example.org/g> WHERE { ?person ?p ?o }", "names its dataset"),
        ("ASK { ?person ?p ?o }", "only a SELECT"),
        ("CONSTRUCT { ?person ?p ?o } WHERE { ?person ?p ?o }", "only a SELECT"),
        ("# SELECT ?x\nDESCRIBE ?person", "only a SELECT"),
    ],
)
def test_bind_each_refuses_what_it_cannot_answer_for_each(query: str, refused: str) -> None:
    with pytest.raises(QueryError, match=refused.replace("*", r"\*").replace("?", r"\?")):
        bind_each(query, "person", [ox.NamedNode("http://example.org/a")])


def test_bind_each_writes_terms_escaped_and_refuses_blank_nodes(seed_store: OxigraphStore) -> None:
    hostile = ox.Literal('x" } } DROP ALL ; SELECT * { "')
    text = bind_each("SELECT ?p WHERE { ?person ?p ?o }", "person", [hostile, ox.NamedNode("http://example.org/a")])
    assert "DROP ALL" in text and list(seed_store.select_rows(text)) == []  # (a literal: nothing of it runs)
    with pytest.raises(QueryError, match="blank node"):
        bind_each("SELECT ?p WHERE { ?person ?p ?o }", "person", [ox.BlankNode("b")])
    with pytest.raises(QueryError, match="not a variable name"):  # (even with no terms to check it by)
        bind_each("SELECT ?p WHERE { ?person ?p ?o }", "person } } DROP ALL #", [])


def test_the_projection_is_read_in_order(settings: Settings) -> None:
    queries = load_queries(settings.queries_dir)
    assert projection(queries["person-roles"].text) == (
        "role", "organization", "organizationName", "title", "start", "end", "asOf", "status"
    )  # fmt: skip
    for _, names in BATCHED.values():  # (each batched query names what it projects)
        for name in names:
            assert projection(queries[name].text), name


def test_a_description_is_the_files_triples_and_its_blank_nodes_once_each(settings: Settings) -> None:
    # queries/resource-description.rq: the resource's triples of the data files and those of the
    # blank nodes it points to; a triple two files state, once; the inferred graph's, not at all.
    # The same batched (a site's claims) as alone (a served page, a remote store).
    store = OxigraphStore("memory:")
    claim, other = ox.NamedNode("https://w3id.org/kgprofiles/id/claim/c1"), ox.NamedNode("https://example.org/o")
    p, q, blank = ox.NamedNode("https://example.org/p"), ox.NamedNode("https://example.org/q"), ox.BlankNode("b1")
    one, two = (f"https://w3id.org/kgprofiles/graph/file/{n}.ttl" for n in ("one", "two"))
    said = [ox.Triple(claim, p, ox.Literal("x")), ox.Triple(claim, q, blank), ox.Triple(blank, p, ox.Literal("in"))]
    store.replace_graphs(
        {
            one: said,
            two: [said[0], ox.Triple(other, p, claim)],  # (stated twice; a triple about another resource)
            "https://w3id.org/kgprofiles/graph/inferred": [ox.Triple(claim, p, ox.Literal("inferred"))],
        }
    )
    alone = Views(store, settings.queries_dir).description(claim.value)
    assert sorted(map(str, alone)) == sorted(map(str, said)) and len(alone) == 3
    batched = Views(store, settings.queries_dir, stable=True)
    batched.prefetch({"claim": [claim.value, other.value]})
    assert sorted(map(str, batched.description(claim.value))) == sorted(map(str, said))
    assert batched.description(other.value) == (ox.Triple(other, p, claim),)
