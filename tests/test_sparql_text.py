"""How the fast path runs an sh:sparql SELECT over all focus nodes at once (``fast/sparql_text.py``).

The reference is pyshacl's own way: the original query, run by rdflib once per focus node with
``$this`` bound. The rewritten query, run once by pyoxigraph, must give the same rows. A top-level
``FILTER NOT EXISTS`` over a basic graph pattern becomes a MINUS only where that means the same.
"""

from __future__ import annotations

import pyoxigraph as ox
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rdflib import Graph, URIRef

from conftest import examples
from kgprofiles.fast.shapes_model import Unsupported
from kgprofiles.fast.sparql_text import rewrite_select

EX = "http://example.org/"
PREFIXES = {"ex": EX}
TARGET = "?this a ex:Focus"

#: The shape of the profile's missing-source constraint and its neighbours. A NOT EXISTS becomes a
#: MINUS when one of its variables is bound in every solution ($this, or a variable of a top-level
#: triple pattern), also when others are bound only in an OPTIONAL or a UNION branch; not when none
#: is, when its group has a FILTER of its own, or when it sits inside a FILTER expression.
QUERIES = {
    "bound outside": (
        "SELECT DISTINCT $this ?value WHERE { $this ex:p ?x . ?x ex:q ?value . "
        "FILTER NOT EXISTS { $this ex:r/ex:q ?value } }",
        True,
    ),
    "two groups": (
        "SELECT $this ?v WHERE { $this ex:p ?v FILTER NOT EXISTS { $this ex:q ?v } FILTER NOT EXISTS { ?v ex:r ?z } }",
        True,
    ),
    "only $this shared": ("SELECT $this WHERE { $this ex:p ?v FILTER NOT EXISTS { $this ex:q ?w } }", True),
    "optional beside a bound one": (
        "SELECT $this ?v WHERE { $this ex:p ?u OPTIONAL { ?u ex:q ?v } FILTER NOT EXISTS { ?u ex:r ?v } }",
        True,
    ),
    "union beside a bound one": (
        "SELECT $this ?v WHERE { $this ex:p ?u { ?u ex:q ?v } UNION { ?u ex:r ?w } FILTER NOT EXISTS { ?u ex:r ?v } }",
        True,
    ),
    "only in an optional": (
        "SELECT $this ?v WHERE { $this ex:p ?u OPTIONAL { ?u ex:q ?v } FILTER NOT EXISTS { ?v ex:r ?z } }",
        False,
    ),
    "only in a union branch": (
        "SELECT $this ?v WHERE { $this ex:p ?u { ?u ex:q ?v } UNION { ?u ex:r ?w } FILTER NOT EXISTS { ?v ex:p ?z } }",
        False,
    ),
    "nothing shared": ("SELECT $this WHERE { $this ex:p ?v FILTER NOT EXISTS { ?x ex:q ?y } }", False),
    "own filter": (
        "SELECT $this ?v WHERE { $this ex:p ?v FILTER NOT EXISTS { $this ex:q ?w FILTER (?w != ?v) } }",
        False,
    ),
    "in an expression": ("SELECT $this ?v WHERE { $this ex:p ?v FILTER (NOT EXISTS { $this ex:q ?v }) }", False),
}


def test_the_profiles_missing_source_constraint_runs_as_an_anti_join() -> None:
    text = rewrite_select(*QUERIES["bound outside"][:1], PREFIXES, TARGET).text
    where = text[text.index("WHERE") :]
    assert "NOT EXISTS" not in where
    assert "MINUS { ?this ex:r/ex:q ?value }" in where


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_which_filters_become_minus(name: str) -> None:
    query, becomes_minus = QUERIES[name]
    where = rewrite_select(query, PREFIXES, TARGET).text.split("WHERE", 1)[1]
    assert ("MINUS" in where) is becomes_minus
    assert ("NOT EXISTS" in where) is not becomes_minus


def test_a_comment_at_the_end_of_the_group_does_not_swallow_the_minus() -> None:
    query = "SELECT $this WHERE { $this ex:p ?v FILTER NOT EXISTS { $this ex:q ?v } # the end }\n}"
    text = rewrite_select(query, PREFIXES, TARGET).text
    assert "\n  MINUS { ?this ex:q ?v }" in text
    ox.Store().query(text)  # parses


NODES = [f"{EX}n{i}" for i in range(4)]
PREDICATES = [f"{EX}{p}" for p in ("p", "q", "r")]
edges = st.lists(st.tuples(st.sampled_from(NODES), st.sampled_from(PREDICATES), st.sampled_from(NODES)), max_size=14)
focus = st.sets(st.sampled_from(NODES), min_size=1)


@settings(max_examples=examples(20), deadline=None)  # each runs pyshacl's SPARQL on rdflib
@given(edges=edges, focus=focus)
@example(  # a focus with a value its own ex:r/ex:q also reaches, and one it does not
    edges=[(NODES[0], f"{EX}p", NODES[1]), (NODES[1], f"{EX}q", NODES[2]), (NODES[0], f"{EX}r", NODES[1])],
    focus={NODES[0]},
)
def test_rewritten_queries_give_pyshacls_rows(edges: list[tuple[str, str, str]], focus: set[str]) -> None:
    store = ox.Store()
    graph = Graph()
    for s, p, o in edges:
        store.add(ox.Quad(ox.NamedNode(s), ox.NamedNode(p), ox.NamedNode(o)))
        graph.add((URIRef(s), URIRef(p), URIRef(o)))
    rdf_type = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
    for node in focus:
        store.add(ox.Quad(ox.NamedNode(node), ox.NamedNode(rdf_type), ox.NamedNode(f"{EX}Focus")))
    for name, (query, _) in QUERIES.items():
        rewritten = rewrite_select(query, PREFIXES, TARGET)
        names = ("this", *(n for n in rewritten.variables if n != "this"))
        fast = {
            tuple(row[n].value if row[n] is not None else None for n in names)
            for row in store.query(rewritten.text, use_default_graph_as_union=True)  # type: ignore[union-attr]
        }
        reference = set()
        for node in focus:
            for row in graph.query(query, initNs=PREFIXES, initBindings={"this": URIRef(node)}):
                values = {**row.asdict(), "this": URIRef(node)}  # type: ignore[union-attr]
                reference.add(tuple(str(values[n]) if values.get(n) is not None else None for n in names))
        assert fast == reference, name


@pytest.mark.parametrize(
    "query",
    [
        "SELECT $this WHERE { $this ex:p ?v FILTER NOT EXISTS { $this ex:q ?v }",
        "SELECT $this WHERE { $this ex:p ?v FILTER NOT EXISTS { $this ex:q ?v ",
    ],
)
def test_a_group_that_does_not_close_is_unsupported_not_a_crash(query: str) -> None:
    with pytest.raises(Unsupported, match="does not close"):
        rewrite_select(query, PREFIXES, TARGET)
