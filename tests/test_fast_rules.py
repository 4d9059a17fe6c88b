"""The fast inference path (compiled OWL RL rules in linear passes) gives exactly owlrl's closure.

Triple for triple (``kgprofiles.infer.closure``: new triples only, no reflexive noise, no literal
subjects), and the same inconsistencies, on:
- the seed data and every fixture directory under tests/shapes/,
- Hypothesis-generated graphs using every construct of the ontology (subclasses, subproperties,
  domains, ranges, inverses, the property chain, the one-of class, owl:sameAs classes, literals of
  every datatype, ill-typed ones, blank nodes),
- an ontology or data the compiler does not handle, which must fall back to owlrl and say so.
"""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rdflib import Graph

from conftest import ROOT, examples
from kgprofiles.config import Settings
from kgprofiles.fast.inference import infer_into, infer_triples
from kgprofiles.fast.rules import compile_rules
from kgprofiles.infer import closure
from kgprofiles.ingest import parse_files
from kgprofiles.terms import graph_from_triples, triples_from_graph
from kgprofiles.validate import load_ontology
from test_fast_graphs import KINDS, NODES, PEOPLE, SAME_AS, UNFAITHFUL, WIKIDATA, graphs, kgp, typed

DIRECTORIES = sorted(p for p in (ROOT / "tests" / "shapes").iterdir() if p.is_dir())
DIRECTORIES.append(ROOT / "tests" / "fixtures" / "lives")  # shared prizes, supervision, parts of organisations


@pytest.fixture(scope="module")
def ontology(settings: Settings) -> Graph:
    return load_ontology(settings.ontology_dir)


def reference(triples: list[ox.Triple], ontology: Graph) -> tuple[set[ox.Triple], tuple[str, ...]]:
    answer = closure(graph_from_triples(triples), ontology)
    return set(triples_from_graph(answer.triples)), answer.inconsistencies


def needs_owlrl(triples: list[ox.Triple]) -> bool:
    """owl:sameAs the compiled rules leave to owlrl: with a literal, a predicate or an ontology term."""
    predicates = {t.predicate for t in triples}
    for t in triples:
        if t.predicate == SAME_AS:
            for x in (t.subject, t.object):
                if isinstance(x, ox.Literal) or x in predicates or x in KINDS:
                    return True
    return False


def check(triples: list[ox.Triple], ontology: Graph, fallback: bool = False) -> None:
    expected, errors = reference(triples, ontology)
    fast = infer_triples(lambda: triples, ontology)
    assert fast.triples is not None
    got = set(fast.triples)
    assert len(got) == len(fast.triples), "duplicates in the answer"
    missing, extra = sorted(map(str, expected - got)), sorted(map(str, got - expected))
    assert not missing and not extra, f"owlrl only: {missing[:10]}\nfast only: {extra[:10]}"
    assert fast.inconsistencies == errors
    assert bool(fast.notes) == fallback, fast.notes


def test_the_project_ontology_compiles(ontology: Graph) -> None:
    plan = compile_rules(ontology)
    assert plan.unsupported == []
    assert plan.chains, "the ontology's property chain (authorOf) is compiled"


def test_seed_data(settings: Settings, ontology: Graph) -> None:
    files = parse_files([settings.data_dir], settings.root, settings.data_dir)
    check([t for f in files for t in f.triples], ontology)


@pytest.mark.parametrize("directory", DIRECTORIES, ids=[d.name for d in DIRECTORIES])
def test_fixture_directory(directory: Path, ontology: Graph) -> None:
    triples = [t for f in parse_files([directory], ROOT) for t in f.triples]
    check(triples, ontology, fallback=needs_owlrl(triples))


same_as_links = st.lists(
    st.tuples(st.sampled_from([*PEOPLE, *NODES[3:8]]), st.sampled_from([*WIKIDATA[:2], *PEOPLE])), max_size=4
)


@settings(max_examples=examples(8))
@given(triples=graphs(), links=same_as_links)
def test_generated_graphs(
    triples: list[ox.Triple], links: list[tuple[ox.NamedNode, ox.NamedNode]], ontology: Graph
) -> None:
    triples = list(dict.fromkeys([*triples, *(ox.Triple(a, SAME_AS, b) for a, b in links)]))
    check(triples, ontology, fallback=needs_owlrl(triples))


RDF_FIRST = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#first")
RDF_REST = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#rest")
RDF_NIL = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#nil")


@st.composite
def with_a_list(draw: st.DrawFn) -> list[ox.Triple]:
    """A generated graph and an RDF list of its nodes and literals, held by one of its nodes: a
    list alone (no OWL term pointing at it) triggers no rule of its own, so no owlrl."""
    triples = draw(graphs(max_statements=20))
    items = draw(st.lists(st.sampled_from([*NODES, *PEOPLE, ox.Literal("item"), typed("7", "integer")]), max_size=6))
    cells = [ox.BlankNode(f"list{i}") for i in range(len(items))]
    for i, (cell, item) in enumerate(zip(cells, items, strict=True)):
        triples.append(ox.Triple(cell, RDF_FIRST, item))
        triples.append(ox.Triple(cell, RDF_REST, cells[i + 1] if i + 1 < len(cells) else RDF_NIL))
    holder = draw(st.sampled_from(NODES))
    triples.append(
        ox.Triple(
            holder, draw(st.sampled_from([kgp("topic"), kgp("holds"), kgp("work")])), cells[0] if cells else RDF_NIL
        )
    )
    return list(dict.fromkeys(triples))


@settings(max_examples=examples(8))
@given(triples=with_a_list())
def test_lists_in_the_data_are_compiled(triples: list[ox.Triple], ontology: Graph) -> None:
    """A long list in a file used to send the whole closure to owlrl (rdf:first counted as schema)."""
    check(triples, ontology, fallback=needs_owlrl(triples))


@settings(max_examples=examples(6))
@given(triples=graphs(unfaithful=True, max_statements=20))
def test_literals_in_rdflib_form(triples: list[ox.Triple], ontology: Graph) -> None:
    """The inferred copies of a literal are written as rdflib writes it ("2019-06-01Z" → "2019-06-01")."""
    check(triples, ontology, fallback=needs_owlrl(triples))


def test_inconsistencies_are_reported(ontology: Graph) -> None:
    """An ill-typed date, and a literal that is both a boolean (kgp:startUnknown's range) and an
    integer, hence a decimal, once booleans and decimals are both in use."""
    role = ox.NamedNode("https://w3id.org/kgprofiles/id/claim/r")
    triples = [
        ox.Triple(role, kgp("date"), typed("2019-02-30", "date")),
        ox.Triple(role, kgp("startUnknown"), typed("7", "integer")),
        ox.Triple(role, kgp("rank"), typed("true", "boolean")),
    ]
    _, errors = reference(triples, ontology)
    assert len(errors) >= 2
    check(triples, ontology)


def test_into_a_store(settings: Settings, ontology: Graph) -> None:
    files = parse_files([settings.data_dir], settings.root, settings.data_dir)
    triples = [t for f in files for t in f.triples]
    expected, _ = reference(triples, ontology)
    store = ox.Store()
    graph = "https://w3id.org/kgprofiles/graph/inferred"
    result = infer_into(store, graph, lambda: triples, ontology)
    stored = {q.triple for q in store.quads_for_pattern(None, None, None, ox.NamedNode(graph))}
    assert result.count == len(stored)
    canonical = ox.Store()
    canonical.extend(ox.Quad(t.subject, t.predicate, t.object, ox.NamedNode(graph)) for t in expected)
    assert stored == {q.triple for q in canonical}


TRANSITIVE = """
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix kgp: <https://w3id.org/kgprofiles/ontology#> .
kgp:about a owl:TransitiveProperty .
"""


# Few examples: once the fallback is taken, the answer is owlrl's own (two owlrl runs an example).
@settings(max_examples=examples(3))
@given(triples=graphs(max_statements=20))
def test_an_ontology_it_cannot_compile_falls_back_to_owlrl(triples: list[ox.Triple], ontology: Graph) -> None:
    extended = Graph()
    extended += ontology
    extended.parse(data=TRANSITIVE, format="turtle")
    assert any("TransitiveProperty" in reason for reason in compile_rules(extended).unsupported)
    check(triples, extended, fallback=True)


def test_schema_in_the_data_falls_back_to_owlrl(ontology: Graph) -> None:
    person = PEOPLE[0]
    triples = [
        ox.Triple(
            ox.NamedNode("http://example.org/Curator"),
            ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#subClassOf"),
            kgp("Person"),
        ),
        ox.Triple(
            person,
            ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"),
            ox.NamedNode("http://example.org/Curator"),
        ),
    ]
    check(triples, ontology, fallback=True)


def test_unfaithful_literals_are_known(ontology: Graph) -> None:
    assert UNFAITHFUL  # the generated graphs draw from them in test_literals_in_rdflib_form


def test_same_as_classes_with_the_property_chain(ontology: Graph) -> None:
    """The chain authorOf = inverse(contributor)/work joins through a contribution known under two
    names, and every inferred triple is copied to every name of its nodes."""
    person, wikidata = PEOPLE[0], WIKIDATA[0]
    first, second = ox.NamedNode("http://example.org/c1"), ox.NamedNode("http://example.org/c2")
    work = ox.NamedNode("http://example.org/w")
    rdf_type = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
    triples = [
        ox.Triple(person, SAME_AS, wikidata),
        ox.Triple(first, SAME_AS, second),
        ox.Triple(first, kgp("contributor"), person),
        ox.Triple(second, kgp("work"), work),
        ox.Triple(work, rdf_type, kgp("Paper")),
        ox.Triple(PEOPLE[1], SAME_AS, wikidata),
        ox.Triple(PEOPLE[1], rdf_type, ox.NamedNode("http://example.org/Unknown")),  # a class the ontology lacks
    ]
    check(triples, ontology)
    fast = infer_triples(lambda: triples, ontology)
    assert ox.Triple(wikidata, kgp("authorOf"), work) in (fast.triples or [])
