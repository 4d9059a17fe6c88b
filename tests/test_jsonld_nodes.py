"""JSON-LD without rdflib's graph (``kgprofiles.jsonld_nodes``) is rdflib's JSON-LD, byte for byte:
on every resource of the seed graph, on whole profiles, and on generated graphs that mix the
context's terms (coerced to IRIs, integers, dates, booleans), types, unknown properties, and
literals of every kind, including the values rdflib treats oddly."""

from __future__ import annotations

import json
from collections import defaultdict

import pyoxigraph as ox
from hypothesis import example, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from conftest import examples
from kgprofiles.export import (
    _rdflib_context,
    jsonld_context,
    jsonld_document,
    rdflib_nodes,
    serialize_triples,
    to_jsonld,
)
from kgprofiles.jsonld_nodes import compact_nodes
from kgprofiles.queries import get_query
from kgprofiles.vocab import ids
from seed_ids import PERSON

KGP = "https://w3id.org/kgprofiles/ontology#"
XSD = "http://www.w3.org/2001/XMLSchema#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


def rdflib_jsonld(triples: list[ox.Triple]) -> bytes:
    """What ``to_jsonld`` wrote before it had its own path: rdflib's graph, always."""
    return jsonld_document(rdflib_nodes(triples, _rdflib_context(ids().base)))


def ordered(triples) -> list[ox.Triple]:
    return sorted(set(triples), key=lambda t: (str(t.subject), str(t.predicate), str(t.object)))


def test_every_resource_of_the_seed_graph_is_rdflibs_jsonld(seed_store) -> None:
    by_subject: dict[ox.NamedNode | ox.BlankNode, set[ox.Triple]] = defaultdict(set)
    for quad in seed_store.quads():
        by_subject[quad.subject].add(ox.Triple(quad.subject, quad.predicate, quad.object))
    made_here = 0
    for triples in by_subject.values():
        sorted_triples = ordered(triples)
        assert to_jsonld(sorted_triples) == rdflib_jsonld(sorted_triples)
        made_here += compact_nodes(sorted_triples, _rdflib_context(ids().base)) is not None
    assert made_here > 200  # the people, organisations, works, sources and claims (not the ontology's blank nodes)


def test_a_whole_profile_is_rdflibs_jsonld(seed_store, settings) -> None:
    export = get_query(settings.queries_dir, "person-export").run(seed_store, {"person": PERSON["horace-he"]})
    assert isinstance(export, list) and len(export) > 50
    assert compact_nodes(ordered(export), _rdflib_context(ids().base)) is not None  # made the fast way
    body = serialize_triples(export, "jsonld")
    assert body == rdflib_jsonld(ordered(export))
    assert json.loads(body)["@graph"]


def test_the_document_is_the_context_and_the_nodes_sorted() -> None:
    nodes = [{"@id": "b", "name": "Zoë"}, {"@id": "a", "rank": [2, 1]}]
    expected = {"@context": jsonld_context(), "@graph": sorted(nodes, key=lambda n: n["@id"])}
    text = json.dumps(expected, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert jsonld_document(nodes) == text.encode("utf-8")
    empty = json.dumps({"@context": jsonld_context(), "@graph": []}, indent=2, sort_keys=True, ensure_ascii=False)
    assert jsonld_document([]) == (empty + "\n").encode("utf-8")


def test_blank_nodes_and_lists_are_left_to_rdflib() -> None:
    person = ox.NamedNode(str(PERSON["horace-he"]))
    blank = [ox.Triple(person, ox.NamedNode(KGP + "holds"), ox.BlankNode("r1"))]
    listed = [ox.Triple(person, ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#first"), ox.Literal("a"))]
    context = _rdflib_context(ids().base)
    for triples in (blank, listed):
        assert compact_nodes(triples, context) is None
        assert to_jsonld(triples) == rdflib_jsonld(triples)


# ---------------------------------------------------------------------------------- generated graphs

SUBJECTS = [
    str(PERSON["horace-he"]),
    "https://w3id.org/kgprofiles/id/organization/meta",
    "https://w3id.org/kgprofiles/id/person/",  # a namespace itself
    "http://example.org/thing",
    "http://example.org/thing#part",
]
PREDICATES = [
    KGP + "name",  # a term, no coercion
    KGP + "holder",  # coerced to @id
    KGP + "rank",  # coerced to xsd:integer
    KGP + "retrieved",  # coerced to xsd:date
    KGP + "startUnknown",  # coerced to xsd:boolean
    RDF_TYPE,
    "http://www.w3.org/2000/01/rdf-schema#label",  # a prefix, no term
    "http://schema.org/name",
    "http://example.org/p",  # nothing in the context
    KGP + "unknownProperty",
]
IRIS = [*SUBJECTS, KGP + "Person", "http://schema.org/Person", "https://example.org/other", "urn:x:1"]
LEXICAL = ["", "0", "1", "01", "-3", "true", "false", "yes", "1.50", "1E0", "NaN", "2020-01-01", "2020-13-99", "a b"]
DATATYPES = [XSD + d for d in ("string", "boolean", "integer", "double", "decimal", "date", "gYear", "anyURI")] + [
    "http://example.org/datatype"
]


def typed(value: str, datatype: str) -> ox.Literal:
    return ox.Literal(value, datatype=ox.NamedNode(datatype))


def said(subject: int, predicate: str, obj: ox.Literal) -> ox.Triple:
    return ox.Triple(ox.NamedNode(SUBJECTS[subject]), ox.NamedNode(predicate), obj)


literals = st.one_of(
    st.builds(ox.Literal, st.sampled_from(LEXICAL)),
    st.builds(lambda v, lang: ox.Literal(v, language=lang), st.sampled_from(LEXICAL), st.sampled_from(["en", "fr-ca"])),
    st.builds(typed, st.sampled_from(LEXICAL), st.sampled_from(DATATYPES)),
    st.builds(ox.Literal, st.text(max_size=8)),
)
objects = st.one_of(st.builds(ox.NamedNode, st.sampled_from(IRIS)), literals)
triples = st.lists(
    st.builds(
        ox.Triple,
        st.builds(ox.NamedNode, st.sampled_from(SUBJECTS)),
        st.builds(ox.NamedNode, st.sampled_from(PREDICATES)),
        objects,
    ),
    max_size=25,
)


@hypothesis_settings(max_examples=examples(300), deadline=None)
@given(triples=triples, keep_order=st.booleans())
@example(  # a false first value is replaced by the next one, not joined with it (rdflib's `if value:`)
    triples=[said(0, KGP + "startUnknown", typed(v, XSD + "boolean")) for v in ("false", "true")],
    keep_order=True,
)
@example(  # two lexical forms rdflib makes one value
    triples=[said(3, KGP + "rank", typed(v, XSD + "integer")) for v in ("01", "1")],
    keep_order=False,
)
def test_generated_graphs_are_rdflibs_jsonld(triples: list[ox.Triple], keep_order: bool) -> None:
    given_triples = triples if keep_order else ordered(triples)
    assert compact_nodes(given_triples, _rdflib_context(ids().base)) is not None
    assert to_jsonld(given_triples) == rdflib_jsonld(given_triples)
