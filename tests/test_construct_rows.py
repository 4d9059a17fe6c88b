"""A CONSTRUCT read as the SELECT of its template's variables, the template filled in by us
(``store/construct_rows.py``; how a remote store reads a CONSTRUCT from a server that may cut it).

The reference is pyoxigraph's own CONSTRUCT over the same data: the same graph, blank nodes
aside (compared as a multiset with each blank node written ``_:b``)."""

from __future__ import annotations

from collections import Counter

import pyoxigraph as ox
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import examples
from kgprofiles.store.base import SelectResult
from kgprofiles.store.construct_rows import as_select, fill

EX = "http://example.org/"
PROLOGUE = f"PREFIX ex: <{EX}>\n"

#: Templates and patterns a CONSTRUCT may have: unbound variables (OPTIONAL), a literal in the
#: subject position, blank nodes (new for each solution), duplicate solutions, LIMIT and ORDER BY,
#: the short form, a GRAPH pattern, a constant in the template.
QUERIES = {
    "plain": "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }",
    "optional": "CONSTRUCT { ?s ex:seen ?x . ?x ex:back ?s } WHERE { ?s ex:p ?o OPTIONAL { ?o ex:q ?x } }",
    "literal subject": "CONSTRUCT { ?o ex:of ?s } WHERE { ?s ?p ?o }",
    "blank nodes": 'CONSTRUCT { ?s ex:via [ ex:to ?o ; ex:kind "k"@en ] } WHERE { ?s ex:p ?o . ?o ?p2 ?any }',
    "duplicates": "CONSTRUCT { ?s ex:has ex:something } WHERE { ?s ?p ?o }",
    "limit": "CONSTRUCT { ?s ex:first ?o } WHERE { ?s ?p ?o } ORDER BY ?o ?s ?p LIMIT 3",
    "short form": "CONSTRUCT WHERE { ?s ex:p ?o . ?o ex:q ?z }",
    "graph": "CONSTRUCT { ?s ex:in ?g } WHERE { GRAPH ?g { ?s ?p ?o } }",
}

NODES = [ox.NamedNode(f"{EX}n{i}") for i in range(4)]
LITERALS = [ox.Literal("1", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")), ox.Literal("a")]
PREDICATES = [ox.NamedNode(f"{EX}{p}") for p in ("p", "q")]
GRAPHS = [ox.NamedNode(f"{EX}g1"), ox.NamedNode(f"{EX}g2")]
quads = st.lists(
    st.builds(
        ox.Quad,
        st.sampled_from(NODES),
        st.sampled_from(PREDICATES),
        st.sampled_from(NODES + LITERALS),
        st.sampled_from(GRAPHS),
    ),
    max_size=12,
)


def shape(triples: list[ox.Triple]) -> Counter[str]:
    def name(term: object) -> str:
        return "_:b" if isinstance(term, ox.BlankNode) else str(term)

    return Counter(f"{name(t.subject)} {name(t.predicate)} {name(t.object)}" for t in triples)


@settings(max_examples=examples(40), deadline=None)
@given(quads=quads)
@example(  # two solutions with the same ?s ?o: two blank nodes in the reference, so two here
    quads=[
        ox.Quad(NODES[0], PREDICATES[0], NODES[1], GRAPHS[0]),
        ox.Quad(NODES[1], PREDICATES[0], NODES[2], GRAPHS[0]),
        ox.Quad(NODES[1], PREDICATES[1], NODES[3], GRAPHS[0]),
    ]
)
def test_filled_templates_give_the_engines_own_graph(quads: list[ox.Quad]) -> None:
    store = ox.Store()
    store.extend(quads)
    for name, query in QUERIES.items():
        as_rows = as_select(PROLOGUE + query)
        assert as_rows is not None, name
        solutions = store.query(as_rows.text, use_default_graph_as_union=True)
        rows = SelectResult.from_solutions(solutions)  # type: ignore[arg-type]
        reference = list(store.query(PROLOGUE + query, use_default_graph_as_union=True))  # type: ignore[arg-type]
        assert shape(fill(as_rows.template, rows.rows)) == shape(reference), name


@pytest.mark.parametrize(
    ("query", "head"),
    [
        ("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", {"DISTINCT", "?s", "?p", "?o"}),
        ("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o } LIMIT 5", {"?s", "?p", "?o"}),
        ("CONSTRUCT { ?s ex:p [ ex:q ?o ] } WHERE { ?s ?p ?o }", {"?s", "?o"}),
        ("construct where { ?s ex:p ?o }", {"DISTINCT", "?s", "?o"}),
    ],
)
def test_the_select_projects_the_templates_variables(query: str, head: set[str]) -> None:
    as_rows = as_select(PROLOGUE + query)
    assert as_rows is not None
    select = as_rows.text.removeprefix(PROLOGUE)
    assert select.startswith("SELECT ")
    assert set(select[len("SELECT ") : select.upper().index("WHERE")].split()) == head


@pytest.mark.parametrize(
    "query",
    [
        "CONSTRUCT { ex:a ex:b ex:c } WHERE { ?s ?p ?o }",  # no variable to select
        "CONSTRUCT WHERE { ?s ex:p ?o FILTER (?o > 1) }",  # not a short form rdflib reads
        "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o ",  # does not parse: sent as written, the server says why
        "CONSTRUCT { << ?s ?p ?o >> ex:q ?o } WHERE { ?s ?p ?o }",  # RDF-star: rdflib cannot read it
        'CONSTRUCT { ?s ex:p "x"@en-abcdefghijklmnop } WHERE { ?s ?p ?o }',  # a tag pyoxigraph refuses
    ],
)
def test_what_cannot_be_read_as_rows_is_sent_as_written(query: str) -> None:
    assert as_select(PROLOGUE + query) is None


def test_the_template_of_the_unbound_query_serves_every_binding() -> None:
    """The views send one CONSTRUCT with other bindings each time: its template is read from the
    text before the bindings (once), and the SELECT is made from the text as sent."""
    unbound = PROLOGUE + "CONSTRUCT { ?s ex:p ?o } WHERE { ?s ex:q ?o }"
    for person in ("a", "b"):
        sent = unbound.replace("WHERE {", f"WHERE {{ VALUES ?s {{ ex:{person} }}", 1)
        assert as_select(sent, unbound) == as_select(sent)
        assert f"VALUES ?s {{ ex:{person} }}" in as_select(sent, unbound).text  # type: ignore[union-attr]
