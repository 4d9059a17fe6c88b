"""What ``rdflib_speedups`` does once changes no answer: rdflib's RDF, RDFS, OWL and XSD terms settled
as class attributes are the terms rdflib makes (names a vocabulary lacks still go to rdflib), and a
SPARQL text prepared once answers with each call's own bindings, prefixes and base.

(pyshacl's answers with prepared texts: the W3C SHACL test suite, tests/test_w3c_shacl.py.)"""

from __future__ import annotations

import pytest
from pyparsing import ParseException
from rdflib import Graph, URIRef
from rdflib.namespace import OWL, RDF, RDFS, XSD

from kgprofiles.rdflib_speedups import _prepared, prepare_queries_once, settle_terms


@pytest.mark.parametrize("namespace", [RDF, RDFS, OWL, XSD], ids=["rdf", "rdfs", "owl", "xsd"])
def test_every_settled_term_is_the_one_rdflib_makes(namespace: type) -> None:
    settle_terms()
    names = [name for name in namespace.__annotations__ if not name.startswith("_")]
    assert names
    for name in names:
        settled = vars(namespace)[name]
        assert type(settled) is URIRef and settled == URIRef(str(namespace._NS) + name)
        assert namespace[name] == settled  # rdflib's own lookup agrees


def test_a_name_the_vocabulary_lacks_still_goes_to_rdflib() -> None:
    settle_terms()
    with pytest.raises(AttributeError, match="not in namespace"):
        OWL.sameAss  # noqa: B018 (closed vocabularies refuse it, as rdflib does)
    with pytest.warns(UserWarning, match="not defined"):
        assert XSD.dates == URIRef("http://www.w3.org/2001/XMLSchema#dates")  # XSD warns, then makes it
    assert "sameAss" not in vars(OWL) and "dates" not in vars(XSD)


def test_settling_twice_changes_nothing() -> None:
    settle_terms()
    before = dict(vars(OWL))
    settle_terms()
    assert dict(vars(OWL)) == before


# -- SPARQL texts prepared once ------------------------------------------------------------------

DATA = """
@prefix a: <urn:a:> . @prefix b: <urn:b:> .
a:s a:p 1 . a:t a:p 2 . b:s b:p 3 .
<http://example.org/base/s> <http://example.org/base/p> 4 .
"""


def graph() -> Graph:
    prepare_queries_once()
    return Graph().parse(data=DATA, format="turtle")


def values(result: object) -> list[object]:
    return sorted(row[0].toPython() for row in result)  # type: ignore[attr-defined]


def test_a_text_asked_again_is_not_parsed_again_and_takes_its_new_bindings() -> None:
    g = graph()
    text = "SELECT ?o WHERE { ?s <urn:a:p> ?o }"
    assert values(g.query(text)) == [1, 2]
    hits = _prepared.cache_info().hits
    assert values(g.query(text, initBindings={"s": URIRef("urn:a:t")})) == [2]
    assert values(g.query(text, initBindings={"s": URIRef("urn:a:s")})) == [1]
    assert _prepared.cache_info().hits == hits + 2


def test_the_same_text_under_other_prefixes_or_another_base_is_its_own_query() -> None:
    g = graph()
    text = "SELECT ?o WHERE { ?s x:p ?o }"
    assert values(g.query(text, initNs={"x": "urn:a:"})) == [1, 2]
    assert values(g.query(text, initNs={"x": "urn:b:"})) == [3]
    relative = "SELECT ?o WHERE { ?s <p> ?o }"
    assert values(g.query(relative, base="http://example.org/base/")) == [4]
    assert values(g.query(relative, base="http://example.org/elsewhere/")) == []


def test_a_malformed_text_fails_every_time_and_is_not_kept() -> None:
    g = graph()
    for _ in range(2):
        with pytest.raises(ParseException):
            g.query("SELECT ?o WHERE { ?s ?p ")


def test_installing_twice_wraps_rdflib_once() -> None:
    from rdflib.plugins.sparql.processor import SPARQLProcessor

    prepare_queries_once()
    installed = SPARQLProcessor.query
    prepare_queries_once()
    assert SPARQLProcessor.query is installed and installed._prepares_once  # type: ignore[attr-defined]
