"""Real SPARQL clients against /sparql on a real server: SPARQLWrapper, rdflib's SPARQLStore and
rasqal's ``roqet`` (Debian's rasqal-utils, installed by tools/install-test-deps.sh)."""

from __future__ import annotations

import shutil
import subprocess
import urllib.error
from collections.abc import Iterator

import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.plugins.stores.sparqlstore import SPARQLStore
from SPARQLWrapper import JSON, TURTLE, XML, SPARQLWrapper
from SPARQLWrapper.SPARQLExceptions import QueryBadFormed

from kgprofiles.config import Settings
from kgprofiles.vocab import KGP
from kgprofiles.web import create_app
from seed_ids import PERSON
from web.server import serving

NAMES = "SELECT ?person ?name WHERE { ?person a kgp:Person ; kgp:name ?name } ORDER BY ?name"
FULL_NAMES = (
    "PREFIX kgp: <https://w3id.org/kgprofiles/ontology#>\n"
    "SELECT ?person ?name WHERE { ?person a kgp:Person ; kgp:name ?name } ORDER BY ?name"
)


@pytest.fixture(scope="module")
def endpoint(settings: Settings, seed_store) -> Iterator[str]:
    with serving(create_app(settings, seed_store)) as url:
        yield f"{url}/sparql"


def wrapper(endpoint: str, query: str, fmt: str, method: str = "GET") -> SPARQLWrapper:
    client = SPARQLWrapper(endpoint)
    client.setQuery(query)
    client.setReturnFormat(fmt)
    client.setMethod(method)
    return client


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_sparqlwrapper_select_json_and_xml(endpoint: str, method: str) -> None:
    as_json = wrapper(endpoint, NAMES, JSON, method).queryAndConvert()
    names = [b["name"]["value"] for b in as_json["results"]["bindings"]]  # type: ignore[index]
    assert len(names) == 11 and "Horace He" in names and names == sorted(names)
    as_xml = wrapper(endpoint, NAMES, XML, method).queryAndConvert()
    assert len(as_xml.getElementsByTagName("result")) == 11  # type: ignore[union-attr]


def test_sparqlwrapper_ask_and_construct(endpoint: str) -> None:
    ask = wrapper(endpoint, "ASK { person:horace-he kgp:name 'Horace He' }", JSON).queryAndConvert()
    assert ask["boolean"] is True  # type: ignore[index]
    graph = wrapper(endpoint, "DESCRIBE person:horace-he", TURTLE).queryAndConvert()
    parsed = Graph().parse(data=graph, format="turtle")  # type: ignore[arg-type]
    assert (URIRef(str(PERSON["horace-he"])), URIRef(str(KGP.name)), Literal("Horace He")) in parsed


def test_sparqlwrapper_reports_a_malformed_query_and_a_refused_update(endpoint: str) -> None:
    with pytest.raises(QueryBadFormed) as bad:
        wrapper(endpoint, "SELECT ?x WHERE { ?x", JSON).query()
    assert "line 1, column" in str(bad.value)
    update = SPARQLWrapper(endpoint)
    update.setMethod("POST")
    update.setQuery("INSERT DATA { <urn:a> <urn:b> <urn:c> }")
    with pytest.raises(urllib.error.HTTPError) as refused:
        update.query()
    assert refused.value.code == 403


def test_rdflib_sparqlstore(endpoint: str) -> None:
    graph = Graph(store=SPARQLStore(endpoint, returnFormat="json"))
    rows = list(graph.query(FULL_NAMES))
    assert len(rows) == 11 and Literal("Horace He") in {row[1] for row in rows}  # type: ignore[index]
    names = set(graph.objects(URIRef(str(PERSON["horace-he"])), URIRef(str(KGP.name))))
    assert names == {Literal("Horace He")}
    assert graph.query(f"ASK {{ <{PERSON['horace-he']}> ?p ?o }}").askAnswer is True
    constructed = graph.query(
        "CONSTRUCT { ?p <http://schema.org/name> ?n } WHERE { ?p a <https://w3id.org/kgprofiles/ontology#Person> ; "
        "<https://w3id.org/kgprofiles/ontology#name> ?n }"
    ).graph
    assert constructed is not None and len(constructed) == 11
    xml_graph = Graph(store=SPARQLStore(endpoint, returnFormat="xml"))
    assert len(list(xml_graph.query(FULL_NAMES))) == 11


@pytest.fixture(scope="module")
def roqet() -> str:
    found = shutil.which("roqet")
    if found is None:
        pytest.fail("roqet is not installed: run tools/install-test-deps.sh (Debian's rasqal-utils)")
    return found


@pytest.mark.parametrize("results", ["csv", "xml", "tsv", "simple"])
def test_roqet(roqet: str, endpoint: str, results: str) -> None:
    done = subprocess.run(
        [roqet, "-i", "sparql11-query", "-p", endpoint, "-e", FULL_NAMES, "-r", results],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Horace He" in done.stdout and "Chris Lattner" in done.stdout
    if results == "csv":
        lines = done.stdout.strip().splitlines()
        assert lines[0] == "person,name" and len(lines) == 12


def test_roqet_sees_a_refused_service_query(roqet: str, endpoint: str) -> None:
    query = "SELECT * WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }"
    done = subprocess.run(
        [roqet, "-i", "sparql11-query", "-p", endpoint, "-e", query, "-r", "csv"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "HTTP status 403" in done.stderr, done.stderr
