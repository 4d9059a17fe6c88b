"""rdflib's RDF, RDFS, OWL and XSD terms settled as class attributes (``namespace_terms``) are the
terms rdflib makes, and names a vocabulary lacks still go to rdflib, as before."""

from __future__ import annotations

import pytest
from rdflib import URIRef
from rdflib.namespace import OWL, RDF, RDFS, XSD

from kgprofiles.namespace_terms import settle_terms


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
