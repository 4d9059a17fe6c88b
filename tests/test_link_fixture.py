"""The Wikidata fixture: the real wbgetentities JSON turned into dump-shaped RDF, and the synthetic
items beside it (tests/wikidata/fixture.py, synthetic.py)."""

from __future__ import annotations

import json

import pyoxigraph as ox
import pytest

from wikidata.fixture import WD, build_fixture, build_triples, load_entities, time_literal
from wikidata.project import real_json_files
from wikidata.synthetic import REDIRECTS, synthetic_items

pytestmark = pytest.mark.realdata

PREFIXES = """
PREFIX wd: <http://www.wikidata.org/entity/>
PREFIX wdt: <http://www.wikidata.org/prop/direct/>
PREFIX p: <http://www.wikidata.org/prop/>
PREFIX ps: <http://www.wikidata.org/prop/statement/>
PREFIX psv: <http://www.wikidata.org/prop/statement/value/>
PREFIX pq: <http://www.wikidata.org/prop/qualifier/>
PREFIX pqv: <http://www.wikidata.org/prop/qualifier/value/>
PREFIX pr: <http://www.wikidata.org/prop/reference/>
PREFIX prv: <http://www.wikidata.org/prop/reference/value/>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX wikibase: <http://wikiba.se/ontology#>
PREFIX schema: <http://schema.org/>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
PREFIX owl: <http://www.w3.org/2002/07/owl#>
"""


@pytest.fixture(scope="module")
def dump() -> ox.Store:
    store = ox.Store()
    store.load(build_fixture(real_json_files(), synthetic_items(), REDIRECTS), format=ox.RdfFormat.TURTLE)
    return store


def ask(store: ox.Store, where: str) -> bool:
    return bool(store.query(PREFIXES + f"ASK {{ {where} }}"))


def rows(store: ox.Store, select: str) -> list[tuple[str, ...]]:
    solutions = store.query(PREFIXES + select)
    names = [v.value for v in solutions.variables]
    return [tuple(s[n].value if s[n] is not None else "" for n in names) for s in solutions]


def test_item_labels_description_aliases_and_truthy_type(dump: ox.Store) -> None:
    assert ask(dump, 'wd:Q42 a wikibase:Item ; rdfs:label "Douglas Adams"@en ; schema:name "Douglas Adams"@en')
    assert ask(dump, 'wd:Q42 schema:description "English writer and humorist"@en')
    assert ask(dump, 'wd:Q42 skos:altLabel "Douglas Noël Adams"@en')
    assert ask(dump, "wd:Q42 wdt:P31 wd:Q5 . wd:Q131261 wdt:P31 wd:Q5")


def test_full_statements_with_rank_qualifiers_and_references(dump: ox.Store) -> None:
    # Q42's P69 (educated at Q35794) has a P582 qualifier at year precision and two references.
    found = rows(
        dump,
        """SELECT ?rank ?end ?precision (COUNT(DISTINCT ?ref) AS ?refs) WHERE {
             wd:Q42 p:P69 ?st . ?st ps:P69 wd:Q35794 ; wikibase:rank ?rank ; pq:P582 ?end ;
                 pqv:P582 [ wikibase:timeValue ?end ; wikibase:timePrecision ?precision ] ;
                 prov:wasDerivedFrom ?ref .
           } GROUP BY ?rank ?end ?precision""",
    )
    assert found == [("http://wikiba.se/ontology#NormalRank", "1974-01-01T00:00:00Z", "9", "2")]
    assert ask(
        dump,
        """wd:Q42 p:P69 ?st . ?st prov:wasDerivedFrom ?ref .
           ?ref a wikibase:Reference ; pr:P854 <http://www.nndb.com/people/731/000023662/>""",
    )


def test_reference_values_keep_their_time_precision(dump: ox.Store) -> None:
    found = rows(
        dump,
        """SELECT DISTINCT ?time ?precision WHERE {
             wd:Q42 p:P31 ?st . ?st prov:wasDerivedFrom ?ref .
             ?ref pr:P248 wd:Q54919 ; pr:P813 ?time ; prv:P813 [ wikibase:timePrecision ?precision ] }""",
    )
    assert found == [("2013-12-07T00:00:00Z", "11")]


def test_missing_item_has_no_triples_and_redirect_is_same_as(dump: ox.Store) -> None:
    assert not ask(dump, "{ wd:Q6 ?p ?o } UNION { ?s ?p wd:Q6 }")
    assert ask(dump, "wd:Q99900000001 owl:sameAs wd:Q131261")


def test_statement_and_reference_counts_match_the_json() -> None:
    entities = load_entities(real_json_files())
    triples = build_triples(entities.values())
    q42 = entities["Q42"]
    statements = sum(len(c) for c in q42["claims"].values())
    refs = {r["hash"] for c in q42["claims"].values() for s in c for r in s.get("references", [])}
    subjects = {str(t.subject) for t in triples}
    statement_nodes = {s for s in subjects if s.lower().startswith("<http://www.wikidata.org/entity/statement/q42-")}
    assert len(statement_nodes) == statements
    assert refs <= {s[len("<http://www.wikidata.org/reference/") : -1] for s in subjects if "/reference/" in s}


def test_both_json_shapes_give_the_same_values() -> None:
    """The Q6-Q42 file writes times as +00000001952-…; the Douglas Adams file as +1952-…."""
    assert time_literal("+00000001952-03-11T00:00:00Z") == time_literal("+1952-03-11T00:00:00Z")
    assert time_literal("+1974-00-00T00:00:00Z").value == "1974-01-01T00:00:00Z"
    old = json.loads(real_json_files()[2].read_text(encoding="utf-8"))["entities"]["Q42"]
    new_shape = json.loads(json.dumps(old).replace('"numeric-id": 5}', '"numeric-id": 5, "id": "Q5"}'))
    assert {str(t) for t in build_triples([old])} == {str(t) for t in build_triples([new_shape])}


def test_synthetic_items_are_clearly_synthetic() -> None:
    for item in synthetic_items():
        assert int(item["id"][1:]) >= 99900000000
        assert item["descriptions"]["en"]["value"].startswith("synthetic test item")
    assert all(int(q[1:]) >= 99900000000 for q in REDIRECTS)
    assert WD == "http://www.wikidata.org/entity/"
