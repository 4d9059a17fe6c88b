"""The Store contract, run against every backend: OxigraphStore in memory, OxigraphStore on disk,
and RemoteStore on a real ``oxigraph serve --union-default-graph`` (tests/servers.py). Then what
only one backend has: persistence on disk, skolemization and HTTP failures for the remote."""

from __future__ import annotations

import http.server
import io
import re
import socket
import threading
import urllib.request
from collections.abc import Iterable, Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest

from kgprofiles.config import Settings
from kgprofiles.errors import QueryError, RemoteError, StoreError
from kgprofiles.sparql_lexer import scan
from kgprofiles.store import OxigraphStore, RemoteStore, SelectResult, Store, open_store
from kgprofiles.store.binding import SparqlText, inline_values
from kgprofiles.store.oxigraph import is_staging
from kgprofiles.store.remote import GENID, JOURNAL_GRAPH, STAGING_GRAPH_PREFIX, derive_endpoints
from servers import OxigraphServer, VirtuosoServer

EX = "http://example.org/"
G1 = "https://w3id.org/kgprofiles/graph/file/people/ada.ttl"
G2 = "https://w3id.org/kgprofiles/graph/file/people/grace.ttl"
G3 = "https://w3id.org/kgprofiles/graph/inferred"
PROJECT_GRAPHS = "https://w3id.org/kgprofiles/graph/"
XSD = "http://www.w3.org/2001/XMLSchema#"
RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
NAME = ox.NamedNode("http://schema.org/name")
KNOWS = ox.NamedNode(EX + "knows")
AGE = ox.NamedNode(EX + "age")
ADA, GRACE, ALAN = (ox.NamedNode(EX + n) for n in ("ada", "grace", "alan"))
INJECTION = "\" } ; DROP ALL # ' } \\u0022 } ''' \"\"\" >\n} INSERT DATA { <x:a> <x:b> <x:c> }"


def node(name: str) -> ox.NamedNode:
    return ox.NamedNode(EX + name)


def t(s: ox.NamedNode | ox.BlankNode, p: ox.NamedNode, o: ox.NamedNode | ox.BlankNode | ox.Literal) -> ox.Triple:
    return ox.Triple(s, p, o)


ADA_GRAPH = [
    t(ADA, NAME, ox.Literal("Ada Lovelace", language="en")),
    t(ADA, AGE, ox.Literal("36", datatype=ox.NamedNode(XSD + "integer"))),
    t(ADA, KNOWS, GRACE),
]
GRACE_GRAPH = [t(GRACE, NAME, ox.Literal("Grace Hopper")), t(GRACE, KNOWS, ALAN)]


@pytest.fixture(params=["memory", "disk", "remote", "virtuoso"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """Each backend, empty: embedded in memory and on disk, ``oxigraph serve`` as a generic
    SPARQL 1.1 server (the verified replace), and Virtuoso 7 with credentials for updates."""
    if request.param == "memory":
        backend: Store = OxigraphStore("memory:")
    elif request.param == "disk":
        backend = OxigraphStore(tmp_path / "store")
    elif request.param == "virtuoso":
        virtuoso: VirtuosoServer = request.getfixturevalue("virtuoso_server")
        backend = RemoteStore(virtuoso.query_endpoint, kind="virtuoso", credentials=virtuoso.credentials)
    else:
        server: OxigraphServer = request.getfixturevalue("oxigraph_server")
        backend = RemoteStore(server.query_endpoint)
    yield backend
    backend.close()


@pytest.fixture
def loaded(store: Store) -> Store:
    """A store with two file graphs."""
    store.replace_graphs({G1: ADA_GRAPH, G2: GRACE_GRAPH})
    return store


def select(store: Store, sparql: str, **bindings: ox.NamedNode | ox.BlankNode | ox.Literal) -> SelectResult:
    result = store.query(sparql, bindings)
    assert isinstance(result, SelectResult)
    return result


def graph_triples(store: Store, graph: str) -> set[ox.Triple]:
    return {q.triple for q in store.quads(graph)}


def canonical(quads: Iterable[ox.Quad]) -> set[ox.Quad]:
    """The quads with canonical blank-node labels (RDFC-1.0): equal sets mean isomorphic datasets."""
    dataset = ox.Dataset(list(quads))
    dataset.canonicalize(ox.CanonicalizationAlgorithm.RDFC_1_0)
    return set(dataset)


def snapshot(store: Store) -> tuple[list[str], set[ox.Quad]]:
    return store.graphs(), canonical(store.quads())


def failing(triples: list[ox.Triple], after: int) -> Iterator[ox.Triple]:
    """Yields ``after`` triples, then fails like a broken input would."""
    yield from triples[:after]
    raise ValueError("input broke half way")


# -- the contract, on every backend -----------------------------------------------------------


def test_every_backend_is_a_store(store: Store) -> None:
    assert isinstance(store, Store)


def test_select_rows_in_projection_order_without_unbound_variables(loaded: Store) -> None:
    result = select(loaded, f"SELECT ?who ?age WHERE {{ ?who schema:name ?n OPTIONAL {{ ?who <{AGE.value}> ?age }} }}")
    assert result.variables == ("who", "age")
    assert sorted(result, key=lambda row: row["who"].value) == [
        {"who": ADA, "age": ox.Literal("36", datatype=ox.NamedNode(XSD + "integer"))},
        {"who": GRACE},
    ]


@pytest.mark.parametrize("ahead", [False, True], ids=["read-as-they-come", "evaluated-ahead"])
def test_select_rows_one_at_a_time_are_the_querys_rows(loaded: Store, ahead: bool) -> None:
    text = f"SELECT ?who ?age WHERE {{ ?who schema:name ?n OPTIONAL {{ ?who <{AGE.value}> ?age }} }}"
    rows = loaded.select_rows(text, ahead=ahead)
    assert iter(rows) is rows  # given as they come, not a list
    assert sorted(rows, key=lambda row: row["who"].value) == sorted(select(loaded, text), key=lambda r: r["who"].value)
    bound = list(loaded.select_rows("SELECT ?n WHERE { ?who schema:name ?n }", {"who": GRACE}, ahead=ahead))
    assert bound == [{"n": ox.Literal("Grace Hopper")}]
    with pytest.raises(QueryError, match="SELECT"):
        list(loaded.select_rows(f"ASK {{ <{ADA.value}> ?p ?o }}", ahead=ahead))
    with pytest.raises(QueryError) as malformed:
        list(loaded.select_rows("SELECT ?x WHERE { ?x", ahead=ahead))
    with pytest.raises(QueryError) as in_line:
        list(loaded.select_rows("SELECT ?x WHERE { ?x"))
    assert str(malformed.value) == str(in_line.value)  # the same message, line and column


def test_ask(loaded: Store) -> None:
    assert loaded.query(f"ASK {{ <{ADA.value}> <{KNOWS.value}> <{GRACE.value}> }}") is True
    assert loaded.query(f"ASK {{ <{ADA.value}> <{KNOWS.value}> <{ALAN.value}> }}") is False


def test_construct_and_describe_give_triples(loaded: Store) -> None:
    constructed = loaded.query(f"CONSTRUCT {{ ?b <{KNOWS.value}> ?a }} WHERE {{ ?a <{KNOWS.value}> ?b }}")
    assert isinstance(constructed, list)
    assert set(constructed) == {t(GRACE, KNOWS, ADA), t(ALAN, KNOWS, GRACE)}
    described = loaded.query(f"DESCRIBE <{GRACE.value}>")
    assert isinstance(described, list)
    if isinstance(loaded, RemoteStore) and loaded.kind.name == "virtuoso":
        # what DESCRIBE gives is the server's to define (SPARQL 1.1 §16.4): Virtuoso's gives
        # the triples that point at the resource
        assert set(described) == {t(ADA, KNOWS, GRACE)}
    else:
        assert set(described) == set(GRACE_GRAPH)


def test_project_prefixes_are_predeclared_and_a_query_may_declare_its_own(loaded: Store) -> None:
    assert len(select(loaded, "SELECT ?n WHERE { ?who schema:name ?n }")) == 2
    own = "PREFIX schema: <http://example.org/not-schema/>\nSELECT ?n WHERE { ?who schema:name ?n }"
    assert len(select(loaded, own)) == 0


def test_queries_see_the_union_of_the_named_graphs(loaded: Store) -> None:
    path = select(loaded, f"SELECT ?c WHERE {{ <{ADA.value}> <{KNOWS.value}>/<{KNOWS.value}> ?c }}")
    assert [row["c"] for row in path] == [ALAN]  # ada→grace in one graph, grace→alan in the other
    by_graph = select(loaded, "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g ORDER BY ?g")
    # (Virtuoso's own graphs are there too: the store's reads name kgp: terms or filter them out;
    # a user's query is kept from them by the server, see test_virtuoso.py)
    ours = [(row["g"].value, row["n"].value) for row in by_graph if row["g"].value.startswith(PROJECT_GRAPHS)]
    assert ours == [(G1, "3"), (G2, "2")]


@pytest.mark.parametrize(
    "term",
    [
        ox.Literal("Ada Lovelace", language="en"),
        ox.Literal("Grace Hopper"),
        ox.Literal("36", datatype=ox.NamedNode(XSD + "integer")),
    ],
    ids=["language", "plain", "datatype"],
)
def test_bind_literals_exactly(loaded: Store, term: ox.Literal) -> None:
    # ?value is not projected: pyoxigraph cannot substitute it, so this checks the VALUES path too.
    rows = select(loaded, "SELECT ?who WHERE { ?who ?p ?value }", value=term)
    assert len(rows) == 1
    projected = select(loaded, "SELECT ?who ?value WHERE { ?who ?p ?value }", value=term)
    assert [row["value"] for row in projected] == [term]
    assert select(loaded, "SELECT ?who WHERE { ?who ?p ?value }", value=ox.Literal(term.value + "x")).rows == ()


def test_bind_iris_in_every_query_form(loaded: Store) -> None:
    assert [r["name"] for r in select(loaded, "SELECT ?name WHERE { ?who schema:name ?name }", who=GRACE)] == [
        ox.Literal("Grace Hopper")
    ]
    assert loaded.query(f"ASK {{ ?who <{KNOWS.value}> ?other }}", {"who": ALAN}) is False
    constructed = loaded.query(
        f"CONSTRUCT {{ ?who <{KNOWS.value}> ?o }} WHERE {{ ?who <{KNOWS.value}> ?o }}", {"who": ADA}
    )
    assert constructed == [t(ADA, KNOWS, GRACE)]
    described = loaded.query("DESCRIBE ?who", {"who": GRACE})
    assert isinstance(described, list) and set(described) == set(loaded.query(f"DESCRIBE <{GRACE.value}>"))  # type: ignore[arg-type]


def test_bindings_in_an_aggregating_query(loaded: Store) -> None:
    rows = select(loaded, "SELECT (COUNT(*) AS ?n) WHERE { ?who ?p ?o } GROUP BY ?who", who=ADA)
    assert [row["n"].value for row in rows] == ["3"]


def test_an_injection_attempt_is_bound_as_a_literal(loaded: Store) -> None:
    evil = ox.Literal(INJECTION)
    loaded.replace_graph(G3, [t(ALAN, NAME, evil)])
    before = snapshot(loaded)
    rows = select(loaded, "SELECT ?who WHERE { ?who schema:name ?name }", name=evil)
    assert [row["who"] for row in rows] == [ALAN]
    assert loaded.query("ASK { ?who schema:name ?name }", {"name": ox.Literal(INJECTION + " ")}) is False
    assert loaded.query("ASK { ?who schema:name ?name }", {"name": ox.Literal(INJECTION, language="en")}) is False
    assert snapshot(loaded) == before
    assert loaded.query("ASK { <x:a> <x:b> <x:c> }") is False


def test_bindings_are_checked(loaded: Store) -> None:
    with pytest.raises(QueryError, match="variable name"):
        loaded.query("SELECT ?who WHERE { ?who ?p ?o }", {"?who": ADA})
    with pytest.raises(QueryError, match="RDF term"):
        loaded.query("SELECT ?who WHERE { ?who ?p ?o }", {"who": "ada"})  # type: ignore[dict-item]


def test_update_is_applied_with_prefixes(store: Store) -> None:
    store.update(f'INSERT DATA {{ GRAPH <{G1}> {{ <{ADA.value}> schema:name "Ada" }} }}')
    assert store.graphs() == [G1]
    assert graph_triples(store, G1) == {t(ADA, NAME, ox.Literal("Ada"))}
    store.update(f"DELETE WHERE {{ GRAPH <{G1}> {{ ?s schema:name ?n }} }}")
    assert graph_triples(store, G1) == set()


def test_replace_graph_replaces_instead_of_appending(loaded: Store) -> None:
    new = [t(ADA, NAME, ox.Literal("Augusta Ada King", language="en")), ADA_GRAPH[2]]
    loaded.replace_graph(G1, new)
    assert graph_triples(loaded, G1) == set(new)
    assert graph_triples(loaded, G2) == set(GRACE_GRAPH)
    loaded.replace_graph(G1, new)  # the same again: idempotent
    assert graph_triples(loaded, G1) == set(new)


def test_replace_graph_with_no_triples_removes_it(loaded: Store) -> None:
    loaded.replace_graph(G1, [])
    assert loaded.graphs() == [G2]


def test_replace_graphs_replaces_and_drops_in_one_call(loaded: Store) -> None:
    inferred = [t(GRACE, KNOWS, ADA)]
    loaded.replace_graphs({G2: [GRACE_GRAPH[0]], G3: inferred}, drop=[G1, EX + "absent-graph"])
    assert loaded.graphs() == [G2, G3]
    assert graph_triples(loaded, G2) == {GRACE_GRAPH[0]}
    assert graph_triples(loaded, G3) == set(inferred)


def test_replace_graphs_refuses_a_graph_both_replaced_and_dropped(loaded: Store) -> None:
    with pytest.raises(ValueError, match="both replaced and dropped"):
        loaded.replace_graphs({G1: ADA_GRAPH}, drop=[G1])


def test_replace_graphs_is_atomic_when_the_input_fails(loaded: Store) -> None:
    before = snapshot(loaded)
    with pytest.raises(ValueError, match="half way"):
        loaded.replace_graphs({G1: [t(ADA, NAME, ox.Literal("Changed"))], G2: failing(GRACE_GRAPH, 1)}, drop=[G3])
    assert snapshot(loaded) == before  # and, remotely, no staging graph is left


def test_drop_graph(loaded: Store) -> None:
    loaded.drop_graph(G1)
    assert loaded.graphs() == [G2]
    assert list(loaded.quads(G1)) == []
    loaded.drop_graph(G1)  # absent: no error


def test_graphs_are_sorted(store: Store) -> None:
    names = [EX + "g/b", EX + "g/a", EX + "g/c"]
    store.replace_graphs({name: [t(ADA, NAME, ox.Literal(name))] for name in names})
    assert store.graphs() == sorted(names)


def test_quads_of_all_graphs_and_of_one(loaded: Store) -> None:
    expected = {ox.Quad(x.subject, x.predicate, x.object, ox.NamedNode(G1)) for x in ADA_GRAPH} | {
        ox.Quad(x.subject, x.predicate, x.object, ox.NamedNode(G2)) for x in GRACE_GRAPH
    }
    assert set(loaded.quads()) == expected
    assert set(loaded.quads(G2)) == {q for q in expected if q.graph_name == ox.NamedNode(G2)}
    assert list(loaded.quads(EX + "no-such-graph")) == []


def test_quads_for_pattern_on_every_backend(store: Store) -> None:
    """What ``load`` plans with: the same quads for each pattern on every backend, blank nodes
    included (a server stores them as skolem IRIs and gives them back), and a long answer whole
    (a server gives the first 128, then the rest)."""
    role = ox.BlankNode("role")
    many = [t(ALAN, node("wrote"), node(f"paper{n}")) for n in range(300)]
    store.replace_graphs({G1: [*ADA_GRAPH, t(ADA, node("role"), role), t(role, NAME, ox.Literal("Analyst"))], G2: many})
    g1, g2 = ox.NamedNode(G1), ox.NamedNode(G2)

    def found(s, p, o, g=None):  # type: ignore[no-untyped-def]
        return sorted(map(str, store.quads_for_pattern(s, p, o, g)))

    assert found(ADA, None, None) == sorted(
        str(ox.Quad(x.subject, x.predicate, x.object, g1)) for x in [*ADA_GRAPH, t(ADA, node("role"), role)]
    )
    assert found(None, NAME, ox.Literal("Ada Lovelace", language="en")) == [str(ox.Quad(*ADA_GRAPH[0], g1))]
    assert found(None, AGE, ox.Literal("36", datatype=ox.NamedNode(XSD + "integer")), g1) == [
        str(ox.Quad(*ADA_GRAPH[1], g1))
    ]
    assert found(role, None, None) == [str(ox.Quad(role, NAME, ox.Literal("Analyst"), g1))]
    assert found(None, None, None, g2) == sorted(str(ox.Quad(*x, g2)) for x in many)  # past the first 128
    assert found(None, node("wrote"), None, g1) == [] and found(GRACE, None, None) == []
    first = next(iter(store.quads_for_pattern(None, node("wrote"), None)))
    assert first in {ox.Quad(*x, g2) for x in many}


def test_dump_nquads_round_trips_isomorphically(store: Store) -> None:
    b1, b2 = ox.BlankNode("role1"), ox.BlankNode("role2")
    graphs = {
        G1: [*ADA_GRAPH, t(ADA, node("role"), b1), t(b1, NAME, ox.Literal("Analyst")), t(b1, node("next"), b2)],
        G2: [*GRACE_GRAPH, t(b2, NAME, ox.Literal("shared across graphs"))],
    }
    store.replace_graphs(graphs)
    dumped = store.dump(ox.RdfFormat.N_QUADS)
    parsed = list(ox.parse(dumped, format=ox.RdfFormat.N_QUADS))
    original = [ox.Quad(x.subject, x.predicate, x.object, ox.NamedNode(g)) for g, xs in graphs.items() for x in xs]
    assert canonical(parsed) == canonical(original)
    assert canonical(store.quads()) == canonical(original)


@pytest.mark.parametrize("fmt", [ox.RdfFormat.N_QUADS, ox.RdfFormat.N_TRIPLES, ox.RdfFormat.TURTLE])
def test_dump_to_a_file_or_a_stream_is_the_dump(loaded: Store, fmt: ox.RdfFormat, tmp_path: Path) -> None:
    loaded.dump_to(tmp_path / "dump", fmt)
    stream = io.BytesIO()
    loaded.dump_to(stream, fmt)
    assert (tmp_path / "dump").read_bytes() == stream.getvalue() == loaded.dump(fmt) != b""


def test_dump_turtle_is_the_union_of_the_graphs(loaded: Store) -> None:
    loaded.replace_graph(G3, [GRACE_GRAPH[0], t(ALAN, NAME, ox.Literal("Alan Turing"))])  # one triple twice
    turtle = loaded.dump(ox.RdfFormat.TURTLE)
    triples = [q.triple for q in ox.parse(turtle, format=ox.RdfFormat.TURTLE)]
    assert len(triples) == len(set(triples))
    assert set(triples) == {*ADA_GRAPH, *GRACE_GRAPH, t(ALAN, NAME, ox.Literal("Alan Turing"))}


def test_blank_nodes_survive_and_binding_one_is_a_clear_error(store: Store) -> None:
    role = ox.BlankNode("role")
    store.replace_graph(G1, [t(ADA, node("role"), role), t(role, NAME, ox.Literal("Analyst"))])
    rows = select(store, f"SELECT ?role WHERE {{ <{ADA.value}> <{EX}role> ?role }}")
    (found,) = (row["role"] for row in rows)
    assert isinstance(found, ox.BlankNode)
    query = "SELECT ?role ?name WHERE { ?role schema:name ?name }"
    if isinstance(store, RemoteStore):
        # On a server the blank node is stored as its skolem IRI, which a VALUES clause can name.
        assert [row["name"] for row in select(store, query, role=found)] == [ox.Literal("Analyst")]
    else:
        # Embedded, bindings are VALUES clauses too, and SPARQL cannot name a blank node there.
        with pytest.raises(QueryError, match="a blank node cannot be bound here"):
            select(store, query, role=found)
    assert store.query("ASK { ?role schema:name ?name FILTER(isBlank(?role) || isIRI(?role)) }") is True


def test_malformed_query_raises_query_error_with_line_and_column(loaded: Store) -> None:
    sparql = "SELECT ?who\nWHERE {\n  ?who schema:name ?name .\n  FILTER(?name = ) }"
    with pytest.raises(QueryError, match=r"^line 4(, column \d+)?: "):  # Virtuoso gives no column
        loaded.query(sparql)
    with pytest.raises(QueryError, match=r"^line 4(, column \d+)?: "):  # Virtuoso gives no column
        loaded.query(sparql, {"who": ADA})  # positions refer to the caller's text, not what was sent


def test_malformed_update_raises_query_error(store: Store) -> None:
    with pytest.raises(QueryError, match=r"line 1(, column \d+)?: "):
        store.update("INSERT DATA { GRAPH <x:g> { <x:a> <x:b> } }")
    assert store.graphs() == []


def test_service_is_refused(loaded: Store) -> None:
    with pytest.raises(QueryError, match="SERVICE is not allowed"):
        loaded.query("SELECT * WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }")
    with pytest.raises(QueryError, match="LOAD is not allowed"):
        loaded.update("LOAD <http://127.0.0.1:9/data.ttl>")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("PREFIX ex: <http://x\\u0041#> SELECT * { SERVICE <http://127.0.0.1:9/x> { ?x ?p ?o } }", "SERVICE is not"),
        ("SELECT * { \\u0053ERVICE <http://127.0.0.1:9/x> { ?s ?p ?o } }", "SERVICE is not allowed"),
        ("SELECT * FROM <http://127.0.0.1:9/remote.ttl> { ?s ?p ?o }", "is not a graph of this store"),
        ("SELECT * WHERE " + "{" * 3000 + "}" * 3000, "nests brackets 3000 levels deep"),
        ("SELECT * WHERE { FILTER(" + "(" * 5000 + "1" + ")" * 5000 + ") }", "nests brackets"),
    ],
    ids=["escaped-iri", "escaped-keyword", "from", "braces", "parentheses"],
)
def test_both_stores_check_a_query_before_their_engine_sees_it(loaded: Store, text: str, expected: str) -> None:
    with pytest.raises(QueryError, match=expected):
        loaded.query(text)


def test_from_a_graph_of_the_store_is_allowed(loaded: Store) -> None:
    rows = select(loaded, f"SELECT ?name FROM <{G1}> WHERE {{ ?who schema:name ?name }}")
    assert "Ada Lovelace" in [row["name"].value for row in rows]  # (both backends read the union even so)


def test_an_update_resolves_relative_iris_against_its_base(store: Store) -> None:
    store.update("INSERT DATA { GRAPH <urn:g> { <urn:s> <urn:p> <relative> } }", base_iri="http://base.example/")
    rows = select(store, "SELECT ?o WHERE { <urn:s> <urn:p> ?o }")
    assert rows.rows[0]["o"] == ox.NamedNode("http://base.example/relative")


# -- embedded only ------------------------------------------------------------------------------


def test_on_disk_store_persists_after_close_and_reopen(tmp_path: Path) -> None:
    location = tmp_path / "store"
    with OxigraphStore(location) as first:
        first.replace_graphs({G1: ADA_GRAPH, G2: GRACE_GRAPH})
    with pytest.raises(StoreError, match="closed"):
        first.graphs()
    with OxigraphStore(location) as second:
        assert second.graphs() == [G1, G2]
        assert graph_triples(second, G1) == set(ADA_GRAPH)
    reader = OxigraphStore(location, read_only=True)
    assert reader.graphs() == [G1, G2]
    with pytest.raises(StoreError, match="read-only"):
        reader.drop_graph(G1)
    reader.close()


def test_a_store_directory_opens_once(tmp_path: Path) -> None:
    with OxigraphStore(tmp_path / "store"), pytest.raises(StoreError, match="cannot open the store"):
        OxigraphStore(tmp_path / "store")


def test_embedded_write_failure_leaves_the_store_as_before(tmp_path: Path) -> None:
    with OxigraphStore(tmp_path / "store") as store:
        store.replace_graphs({G1: ADA_GRAPH, G2: GRACE_GRAPH})
        before = store.dump(ox.RdfFormat.N_QUADS)
        with pytest.raises(TypeError):
            store.replace_graphs({G3: GRACE_GRAPH, G1: [*ADA_GRAPH[:1], "not a triple"]}, drop=[G2])  # type: ignore[list-item]
        assert store.dump(ox.RdfFormat.N_QUADS) == before


class _AnswerFailsAsRead:
    """pyoxigraph's store, whose answers fail as they are read (it evaluates lazily: a disk
    error surfaces while the solutions are read, after ``query`` returned)."""

    def __init__(self, store: ox.Store) -> None:
        self._store = store

    def query(self, *args: object, **kwargs: object) -> Iterator[object]:
        self._store.query(*args, **kwargs)  # type: ignore[arg-type]  (parsed and planned as ever)

        def answer() -> Iterator[object]:
            raise OSError("Input/output error (injected)")
            yield

        return answer()


def test_embedded_errors_while_an_answer_is_read_are_store_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    from kgprofiles.store import oxigraph

    def failing_rows(*args: object) -> Iterator[dict[str, object]]:
        raise OSError("Input/output error (injected)")
        yield {}

    store = OxigraphStore("memory:")
    store.replace_graphs({G1: ADA_GRAPH})
    monkeypatch.setattr(oxigraph, "solution_rows", failing_rows)  # select_rows reads the solutions through it
    with pytest.raises(StoreError, match=r"query failed on .*injected"):
        list(store.select_rows("SELECT ?s WHERE { ?s ?p ?o }"))
    store._store = _AnswerFailsAsRead(store.store)  # type: ignore[assignment]
    with pytest.raises(StoreError, match=r"query failed on .*injected"):
        store.query("SELECT ?s WHERE { ?s ?p ?o }")


def test_embedded_failure_after_staging_removes_the_staging_graph(tmp_path: Path) -> None:
    with OxigraphStore(tmp_path / "store") as store:
        store.replace_graphs({G1: ADA_GRAPH})
        before = store.dump(ox.RdfFormat.N_QUADS)
        role = ox.BlankNode("role")  # blank nodes: this graph is staged with Store.extend first
        with pytest.raises(ValueError, match="half way"):
            store.replace_graphs({G2: [t(GRACE, node("role"), role)], G3: failing(GRACE_GRAPH, 1)})
        assert not any(is_staging(g) for g in store.store.named_graphs())
        assert store.dump(ox.RdfFormat.N_QUADS) == before


@pytest.mark.parametrize("on_disk", [False, True], ids=["memory", "disk"])
def test_embedded_blank_nodes_keep_their_labels(tmp_path: Path, on_disk: bool) -> None:
    store = OxigraphStore(tmp_path / "store" if on_disk else "memory:")
    role = ox.BlankNode("fhorace-heb0")
    store.replace_graph(G1, [t(ADA, node("role"), role), t(role, NAME, ox.Literal("Analyst"))])
    assert {q.subject for q in store.quads(G1)} == {ADA, role}
    assert store.query("ASK { ?role schema:name ?name FILTER(isBlank(?role)) }") is True
    store.close()


def test_staging_left_by_a_crash_is_removed_when_the_store_is_next_opened(tmp_path: Path) -> None:
    with OxigraphStore(tmp_path / "store") as store:
        store.replace_graphs({G1: ADA_GRAPH})
        leftover = ox.NamedNode(STAGING_GRAPH_PREFIX + "crashed/0")
        store.store.add(ox.Quad(GRACE, NAME, ox.Literal("half-written"), leftover))  # as a crash would leave it
        assert store.graphs() == [G1] and len(list(store.quads())) == len(ADA_GRAPH)  # hidden already
    with OxigraphStore(tmp_path / "store") as reopened:
        assert list(reopened.store.named_graphs()) == [ox.NamedNode(G1)]


def test_open_store_follows_the_settings(settings: Settings) -> None:
    embedded = open_store(settings)
    assert isinstance(embedded, OxigraphStore) and embedded.location == "memory:"
    remote = open_store(settings.with_overrides(endpoint="http://127.0.0.1:7878/query"))
    assert isinstance(remote, RemoteStore)
    assert (remote.update_endpoint, remote.graph_store_endpoint) == (
        "http://127.0.0.1:7878/update",
        "http://127.0.0.1:7878/store",
    )


# -- remote only --------------------------------------------------------------------------------


def server_select(server: OxigraphServer, sparql: str) -> bytes:
    """Ask the server directly, bypassing RemoteStore (to see what is really stored)."""
    request = urllib.request.Request(
        server.query_endpoint,
        data=urllib.parse.urlencode({"query": sparql}).encode(),
        headers={"Accept": "application/n-triples, application/sparql-results+json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return bytes(response.read())


def test_remote_blank_nodes_are_skolemized_on_the_server(oxigraph_server: OxigraphServer) -> None:
    store = RemoteStore(oxigraph_server.query_endpoint)
    role = ox.BlankNode("r1")
    store.replace_graph(G1, [t(ADA, node("role"), role)])
    stored = server_select(oxigraph_server, "CONSTRUCT WHERE { ?s ?p ?o }")
    assert f"<{GENID}r1>".encode() in stored and b"_:" not in stored
    assert list(store.quads(G1)) == [ox.Quad(ADA, node("role"), role, ox.NamedNode(G1))]  # label kept


def test_remote_rejected_graph_changes_nothing(oxigraph_server: OxigraphServer) -> None:
    """A graph the server refuses (its N-Triples parser: a langString without a language; a
    graph of more than 500 triples goes up by PUT), after others were staged."""
    store = RemoteStore(oxigraph_server.query_endpoint)
    store.replace_graphs({G1: ADA_GRAPH, G2: GRACE_GRAPH})
    before = snapshot(store)
    rejected = t(ALAN, NAME, ox.Literal("x", datatype=ox.NamedNode(RDF_LANG_STRING)))  # no language tag
    large = [rejected, *(t(ALAN, NAME, ox.Literal(f"name {n}")) for n in range(500))]
    with pytest.raises(RemoteError, match=r"/store\?graph=.* answered HTTP 400"):
        store.replace_graphs({G1: [ADA_GRAPH[0]], G2: large, G3: GRACE_GRAPH})
    assert snapshot(store) == before
    assert b"staging" not in server_select(oxigraph_server, "SELECT ?g WHERE { GRAPH ?g {} }")


def test_remote_failed_swap_changes_nothing(oxigraph_server: OxigraphServer) -> None:
    """Every update that moves or drops a graph fails (the swap, then the clean-up): the staged
    graphs stay on the server, out of sight, and the next write finds them in its journal."""
    from fault_proxy import fault_proxy

    store = RemoteStore(oxigraph_server.query_endpoint)
    store.replace_graphs({G1: ADA_GRAPH, G2: GRACE_GRAPH})
    before = snapshot(store)

    def fail_moves_and_drops(method: str, where: str, body: bytes) -> int | None:
        return (
            503 if method == "POST" and where.startswith("/update") and (b"MOVE" in body or b"DROP" in body) else None
        )

    with fault_proxy(oxigraph_server.base_url, fail_moves_and_drops) as proxy:
        broken = RemoteStore(f"{proxy}/query")
        with pytest.raises(RemoteError, match=r"/update answered HTTP 503") as caught:
            broken.replace_graphs({G1: [ADA_GRAPH[0]], G3: GRACE_GRAPH}, drop=[G2])
    assert caught.value.hint is not None and "the next write removes them" in caught.value.hint
    assert snapshot(store) == before  # staged graphs stay on the server, but out of sight
    assert b"staging/" in server_select(oxigraph_server, "SELECT ?g WHERE { GRAPH ?g {} }")
    assert len(store.purge_staging()) == 2
    assert b"staging" not in server_select(oxigraph_server, "SELECT ?g WHERE { GRAPH ?g {} }")


def test_a_verified_replace_checks_batch_by_batch_and_a_late_failure_changes_nothing(
    oxigraph_server: OxigraphServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where requests are not transactions (kind generic), the new graphs are compared, staged
    and read back a batch at a time, so the client never holds the whole graph: here batches of
    two triples. An upload that fails in the third batch leaves every graph as it was and no
    staging graph behind; without the fault the same write lands whole."""
    from fault_proxy import fault_proxy, stages
    from kgprofiles.store import remote

    monkeypatch.setattr(remote, "_TRIPLES_PER_CHECK", 2)
    graph = "https://w3id.org/kgprofiles/graph/file/people/p{}.ttl"
    old = {graph.format(n): [t(ox.NamedNode(f"{EX}p{n}"), NAME, ox.Literal(f"Old {n}"))] for n in range(6)}
    new = {
        graph.format(n): [t(ox.NamedNode(f"{EX}p{n}"), NAME, ox.Literal(f"New {n} {k}")) for k in (1, 2)]
        for n in range(6)
    }
    store = RemoteStore(oxigraph_server.query_endpoint, kind="generic")
    store.replace_graphs(old)
    before = snapshot(store)
    seen: list[str] = []

    def third_batch_fails(method: str, where: str, body: bytes) -> int | None:
        staged = re.search(rb"staging/[0-9a-f]{16}/", body)  # a staging graph (not the journal)
        read = method == "POST" and staged and body.startswith(b"query=")
        seen.append("read staging" if read else "stage" if stages(method, body) else method)
        return 500 if seen.count("stage") == 3 and seen[-1] == "stage" else None

    with fault_proxy(oxigraph_server.base_url, third_batch_fails) as proxy, pytest.raises(RemoteError, match="500"):
        RemoteStore(f"{proxy}/query", kind="generic").replace_graphs(new)
    second_batch = seen.index("stage", seen.index("stage") + 1)
    assert seen.index("read staging") < second_batch  # a batch is read back before the next is staged
    assert snapshot(store) == before
    assert b"staging/" not in server_select(oxigraph_server, "SELECT ?g WHERE { GRAPH ?g {} }")
    store.replace_graphs(new)
    assert snapshot(store)[1] == {ox.Quad(*x, ox.NamedNode(g)) for g, triples in new.items() for x in triples}


def test_the_journal_is_read_as_untrusted(oxigraph_server: OxigraphServer) -> None:
    """The journal is on the server: a record that is not a write's (another IRI) names nothing
    to drop, and a count no write makes is refused, not turned into ten million names."""
    store = RemoteStore(oxigraph_server.query_endpoint)
    victim = f"{EX}victim"
    journal, staged = JOURNAL_GRAPH, "https://w3id.org/kgprofiles/graph/stagedGraphs"
    store.update(
        f"INSERT DATA {{ GRAPH <{victim}/0> {{ <{EX}s> <{EX}p> 1 }} GRAPH <{journal}> {{ <{victim}> <{staged}> 1 }} }}"
    )
    assert store.purge_staging() == []
    assert b"victim/0" in server_select(oxigraph_server, "SELECT ?g WHERE { GRAPH ?g {} }")
    token = f"{STAGING_GRAPH_PREFIX}{'0' * 16}"
    store.update(f"INSERT DATA {{ GRAPH <{journal}> {{ <{token}> <{staged}> 99999999999 }} }}")
    with pytest.raises(RemoteError, match="says that a write made 99999999999 staging graphs") as refused:
        store.purge_staging()
    assert "store gc" in (refused.value.hint or "")
    assert store.purge_staging(listed=True) == []  # what the hint says to run: it drops the journal unread
    assert b"journal" not in server_select(oxigraph_server, "SELECT ?g WHERE { GRAPH ?g {} }")
    store.update(f"DROP GRAPH <{victim}/0>")


def test_a_write_whose_journal_cannot_be_written_stages_nothing(oxigraph_server: OxigraphServer) -> None:
    """The record of the staging graphs goes first: a write that cannot make it makes none."""
    store = RemoteStore(oxigraph_server.query_endpoint)
    store.replace_graphs({G1: ADA_GRAPH})
    closed = f"http://127.0.0.1:{free_closed_port()}/update"
    broken = RemoteStore(oxigraph_server.query_endpoint, update_endpoint=closed)
    with pytest.raises(RemoteError, match=r"cannot reach .*/update"):
        broken.replace_graphs({G1: [ADA_GRAPH[0]], G3: GRACE_GRAPH})
    assert b"staging" not in server_select(oxigraph_server, "SELECT ?g WHERE { GRAPH ?g {} }")
    assert store.purge_staging() == []


def test_remote_server_stopping_mid_upload_changes_nothing(oxigraph_server: OxigraphServer) -> None:
    """The staged replace (kind oxigraph) uploads graph after graph: the server goes away after
    the first; the verified replace (generic) reads every graph before its first request."""
    store = RemoteStore(oxigraph_server.query_endpoint, timeout_s=5, kind="oxigraph")
    store.replace_graphs({G1: ADA_GRAPH, G2: GRACE_GRAPH})
    before = snapshot(store)

    def stop_server_then_yield() -> Iterator[ox.Triple]:
        oxigraph_server.stop()
        yield from GRACE_GRAPH

    with pytest.raises(RemoteError, match="cannot reach"):
        store.replace_graphs({G1: [ADA_GRAPH[0]], G2: stop_server_then_yield()})
    oxigraph_server.start()
    assert snapshot(store) == before
    assert [g.startswith(STAGING_GRAPH_PREFIX) for g in store.purge_staging()] == [True, True]  # as journaled
    assert b"staging" not in server_select(oxigraph_server, "SELECT ?g WHERE { GRAPH ?g {} }")


def test_remote_connection_refused_is_a_clear_remote_error() -> None:
    store = RemoteStore(f"http://127.0.0.1:{free_closed_port()}/query", timeout_s=2)
    with pytest.raises(RemoteError, match=r"cannot reach http://127\.0\.0\.1:\d+/query: .*refused") as caught:
        store.query("ASK {}")
    assert caught.value.exit_code == 4 and "running" in (caught.value.hint or "")
    with pytest.raises(RemoteError, match=r"cannot reach http://127\.0\.0\.1:\d+/query"):
        store.replace_graph(G1, ADA_GRAPH)  # it first looks for staging graphs a failed write left


def test_remote_http_errors_name_url_status_and_message(oxigraph_server: OxigraphServer) -> None:
    wrong_path = RemoteStore(oxigraph_server.base_url + "/nothing-here")
    with pytest.raises(RemoteError, match=r"/nothing-here answered HTTP 404"):
        wrong_path.query("ASK {}")
    store = RemoteStore(oxigraph_server.query_endpoint)
    with pytest.raises(RemoteError, match=r"/update answered HTTP 500 .*does not exist"):
        store.update(f"DROP GRAPH <{EX}absent>")


def test_remote_html_answer_is_a_remote_error() -> None:
    with HtmlSite() as url, pytest.raises(RemoteError, match=r"answered with text/html, not SPARQL results"):
        RemoteStore(url).query("ASK {}")


def test_remote_timeout_is_a_remote_error() -> None:
    with socket.socket() as silent:  # accepts connections (backlog), never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/query"
        with pytest.raises(RemoteError, match=r"did not answer within 0.5 s"):
            RemoteStore(url, timeout_s=0.5).query("ASK {}")


def test_remote_refuses_an_update_given_as_a_query(oxigraph_server: OxigraphServer) -> None:
    with pytest.raises(QueryError, match="update"):
        RemoteStore(oxigraph_server.query_endpoint).query("DROP ALL")


def test_endpoints_derived_from_the_query_endpoint() -> None:
    assert derive_endpoints("http://h:7878/query") == ("http://h:7878/update", "http://h:7878/store")
    assert derive_endpoints("http://h/ds/sparql") == ("http://h/ds/update", "http://h/ds/store")
    assert derive_endpoints("http://h/endpoint") == ("http://h/endpoint", None)
    with pytest.raises(StoreError, match="no Graph Store endpoint"):
        RemoteStore("http://127.0.0.1:9/endpoint").replace_graph(G1, ADA_GRAPH)


def test_values_injection_cannot_change_the_query_structure() -> None:
    """Unit test of the rewriting the remote uses: the literal stays one string token."""
    sparql = "SELECT ?who WHERE { ?who schema:name ?name }"
    sent = inline_values(SparqlText.of(sparql), {"name": ox.Literal(INJECTION)}).sent
    keywords = [tok.keyword for tok in scan(sent) if tok.keyword]
    assert keywords == ["SELECT", "WHERE", "VALUES"]  # no DROP, no INSERT: they stayed inside the literal
    store = ox.Store()
    store.add(ox.Quad(ALAN, NAME, ox.Literal(INJECTION), ox.DefaultGraph()))
    store.add(ox.Quad(ADA, NAME, ox.Literal("Ada"), ox.DefaultGraph()))
    solutions = store.query(sent, prefixes={"schema": "http://schema.org/"})
    assert [s["who"] for s in solutions] == [ALAN]  # type: ignore[union-attr]


# -- helpers for the remote failure tests -------------------------------------------------------


def free_closed_port() -> int:
    """A port nothing listens on (bound then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class _HtmlPage(http.server.BaseHTTPRequestHandler):
    def _page(self) -> None:
        body = b"<!DOCTYPE html><html><body>Welcome to our site</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _page

    def log_message(self, format: str, *args: object) -> None:
        pass


class HtmlSite:
    """A real HTTP server on 127.0.0.1 that answers every request with an HTML page."""

    def __enter__(self) -> str:
        self.server = http.server.HTTPServer(("127.0.0.1", 0), _HtmlPage)
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()
        return f"http://127.0.0.1:{self.server.server_address[1]}/sparql"

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_the_project_prefixes_follow_the_base_iri_within_one_process() -> None:
    """``person:`` is the project's namespace: a process that opens a project of another base (the
    Python API, the tests) resolves the same query text under the new one (the prefixes a text
    names are kept for each text and base)."""
    from kgprofiles.vocab import KGP_NS, use_base_iri

    store = OxigraphStore("memory:")
    name = ox.NamedNode(KGP_NS + "name")
    store.replace_graph(
        "https://example.org/graph",
        [
            ox.Triple(ox.NamedNode("https://a.example/person/x"), name, ox.Literal("A")),
            ox.Triple(ox.NamedNode("https://b.example/person/x"), name, ox.Literal("B")),
        ],
    )
    query = "SELECT ?n WHERE { person:x kgp:name ?n }"
    use_base_iri("https://a.example/")
    first = store.query(query)
    use_base_iri("https://b.example/")
    second = store.query(query)
    assert isinstance(first, SelectResult) and isinstance(second, SelectResult)
    assert [r["n"].value for r in first.rows] == ["A"] and [r["n"].value for r in second.rows] == ["B"]
