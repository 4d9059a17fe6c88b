"""A query's ORDER BY evaluated in Python (``kgprofiles.store.order_in_python``) puts rows in the
order pyoxigraph's own ORDER BY does: rows of names, IRIs, numbers and gaps loaded into a store,
asked once with the ORDER BY and once without it, sorted here."""

from __future__ import annotations

import pyoxigraph as ox
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import examples
from kgprofiles.queries import NamedQuery, select_rows, select_sorted_here
from kgprofiles.store.order_in_python import sorted_rows, split_order_by, without
from kgprofiles.store.oxigraph import OxigraphStore

EX = "http://example.org/"
QUERY = """SELECT ?s ?key ?n WHERE {
  ?s <http://example.org/rank> ?n .
  OPTIONAL { ?s <http://example.org/key> ?key }
}
ORDER BY ?key DESC(?n) ?s
"""

texts = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=24)
keys = st.one_of(
    st.none(),
    texts.map(ox.Literal),
    st.text(alphabet="abcé/", min_size=1, max_size=6).map(lambda local: ox.NamedNode(EX + "k/" + local)),
)
rows_of = st.lists(st.tuples(keys, st.integers(-5, 5)), max_size=30)


def _store(rows: list[tuple[ox.NamedNode | ox.Literal | None, int]]) -> OxigraphStore:
    store = OxigraphStore("memory:")
    triples = []
    for number, (key, rank) in enumerate(rows):
        subject = ox.NamedNode(f"{EX}s{number}")
        triples.append(ox.Triple(subject, ox.NamedNode(EX + "rank"), ox.Literal(rank)))
        if key is not None:
            triples.append(ox.Triple(subject, ox.NamedNode(EX + "key"), key))
    store.replace_graph(EX + "graph", triples)
    return store


@settings(max_examples=examples(60))
@given(rows=rows_of)
@example(rows=[(ox.Literal("b"), 1), (ox.Literal("a"), 1), (None, 3), (ox.NamedNode(EX + "k/a"), 0)])
@example(rows=[(ox.Literal("é"), 1), (ox.Literal("f"), 1), (ox.Literal("\U0001f600"), 2), (ox.Literal("\uffff"), 2)])
@example(rows=[(ox.Literal(""), 0), (ox.Literal("Z"), 0), (ox.Literal("a"), 0)])
def test_rows_sorted_here_come_in_the_engines_order(rows: list[tuple[ox.NamedNode | ox.Literal | None, int]]) -> None:
    store = _store(rows)
    query = NamedQuery("ranked", "", (), QUERY, None)  # type: ignore[arg-type]
    by_engine = select_rows(store, query, {})
    by_python = select_sorted_here(store, query, {})
    assert by_python.variables == by_engine.variables == ("s", "key", "n")
    assert by_python.rows == by_engine.rows


def test_a_key_the_query_does_not_project_is_projected_for_the_sort_only() -> None:
    store = _store([(ox.Literal("b"), 1), (ox.Literal("a"), 2), (ox.Literal("c"), 0)])
    query = NamedQuery("ranked", "", (), QUERY.replace("SELECT ?s ?key ?n", "SELECT ?s"), None)  # type: ignore[arg-type]
    by_python = select_sorted_here(store, query, {})
    assert by_python.variables == ("s",) and all(set(row) == {"s"} for row in by_python.rows)
    expected = tuple({"s": ox.NamedNode(f"{EX}s{n}")} for n in (1, 0, 2))  # by key: a, b, c
    assert by_python.rows == select_rows(store, query, {}).rows == expected


@pytest.mark.parametrize(
    "sparql",
    [
        "SELECT ?a WHERE { ?a ?p ?b } ORDER BY ?a LIMIT 3",  # the first three: the engine's
        "SELECT ?a WHERE { ?a ?p ?b } ORDER BY ?a OFFSET 1",
        "SELECT ?a WHERE { ?a ?p ?b } ORDER BY LCASE(?a)",  # an expression
        "SELECT ?a WHERE { { SELECT ?a WHERE { ?a ?p ?b } ORDER BY ?a } }",  # not the final ORDER BY
        "SELECT DISTINCT ?a WHERE { ?a ?p ?b } ORDER BY ?b",  # projecting ?b would add rows
        "SELECT ?a (COUNT(*) AS ?n) WHERE { ?a ?p ?b } GROUP BY ?a ORDER BY ?b",
        "SELECT ?a WHERE { ?a ?p ?b }",
        "ASK { ?a ?p ?b }",
    ],
)
def test_an_order_this_module_cannot_evaluate_is_left_to_the_engine(sparql: str) -> None:
    assert split_order_by(sparql) is None


def test_comments_after_the_order_by_are_not_keys() -> None:
    assert split_order_by("SELECT ?a WHERE { ?a ?p ?b }\nORDER BY ?a # by name\n") == (
        "SELECT ?a WHERE { ?a ?p ?b }\n",
        (("a", False),),
        (),
    )


@pytest.mark.parametrize(
    "values",
    [
        [ox.Literal("a", language="en"), ox.Literal("b")],  # a language tag
        [ox.Literal("1", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#decimal"))],
        [ox.Literal("x"), ox.Literal(3)],  # strings and numbers in one key
        [ox.BlankNode("b0")],
        [ox.Literal("three", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer"))],  # ill-typed
    ],
)
def test_values_of_an_unknown_order_are_left_to_the_engine(values: list[ox.Literal | ox.BlankNode]) -> None:
    assert sorted_rows([{"v": value} for value in values], [("v", False)]) is None


def test_the_engine_answers_where_the_values_need_it() -> None:
    store = _store([(ox.Literal("b", language="en"), 1), (ox.Literal("a"), 1)])
    query = NamedQuery("ranked", "", (), QUERY, None)  # type: ignore[arg-type]
    assert select_sorted_here(store, query, {}).rows == select_rows(store, query, {}).rows


def test_without_takes_the_sort_keys_out() -> None:
    rows = [{"a": ox.Literal("x"), "order": ox.Literal(1)}]
    assert without(rows, ["order"]) == ({"a": ox.Literal("x")},)
