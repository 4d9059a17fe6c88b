"""Turn ``wbgetentities`` JSON into Turtle shaped like the Wikidata RDF dump, as the Wikidata Query
Service holds it.

The shape follows https://www.mediawiki.org/wiki/Wikibase/Indexing/RDF_Dump_Format:

* ``wd:Q42 a wikibase:Item``, ``rdfs:label``/``skos:prefLabel``/``schema:name`` per language,
  ``schema:description``, ``skos:altLabel``; ``schema:version``, ``schema:dateModified``,
  ``wikibase:statements`` and ``wikibase:sitelinks`` on the item (the query service's form);
* truthy statements ``wdt:P…`` for the best-ranked, non-deprecated values;
* full statements ``p:P…`` → ``wds:…`` (``a wikibase:Statement``, ``wikibase:rank``, ``ps:P…``,
  ``psv:P…`` for times, ``pq:P…``/``pqv:P…`` qualifiers, ``prov:wasDerivedFrom`` references);
* references ``wdref:<hash>`` with ``pr:P…``/``prv:P…``;
* time values ``wdv:<hash>`` with ``wikibase:timeValue``, ``wikibase:timePrecision``,
  ``wikibase:timeTimezone`` and ``wikibase:timeCalendarModel``;
* ``owl:sameAs`` from a redirected item to its target; ``wdno:P…`` for "no value".

Both JSON shapes are read: the old one (``numeric-id`` only, ``+00000001952-…`` times) and the new
one (``id``). Missing items (``"missing": ""``) produce no triples, as on the query service.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from urllib.parse import quote

import pyoxigraph as ox

WD = "http://www.wikidata.org/entity/"
WDS = "http://www.wikidata.org/entity/statement/"
WDV = "http://www.wikidata.org/value/"
WDREF = "http://www.wikidata.org/reference/"
WDT = "http://www.wikidata.org/prop/direct/"
P = "http://www.wikidata.org/prop/"
PS = "http://www.wikidata.org/prop/statement/"
PSV = "http://www.wikidata.org/prop/statement/value/"
PQ = "http://www.wikidata.org/prop/qualifier/"
PQV = "http://www.wikidata.org/prop/qualifier/value/"
PR = "http://www.wikidata.org/prop/reference/"
PRV = "http://www.wikidata.org/prop/reference/value/"
WDNO = "http://www.wikidata.org/prop/novalue/"
GENID = "http://www.wikidata.org/.well-known/genid/"
WIKIBASE = "http://wikiba.se/ontology#"
SCHEMA = "http://schema.org/"
PROV = "http://www.w3.org/ns/prov#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
OWL = "http://www.w3.org/2002/07/owl#"
XSD = "http://www.w3.org/2001/XMLSchema#"
GEO = "http://www.opengis.net/ont/geosparql#"

PREFIXES = {
    "wd": WD,
    "wds": WDS,
    "wdv": WDV,
    "wdref": WDREF,
    "wdt": WDT,
    "p": P,
    "ps": PS,
    "psv": PSV,
    "pq": PQ,
    "pqv": PQV,
    "pr": PR,
    "prv": PRV,
    "wdno": WDNO,
    "wikibase": WIKIBASE,
    "schema": SCHEMA,
    "prov": PROV,
    "rdf": RDF,
    "rdfs": RDFS,
    "skos": SKOS,
    "owl": OWL,
    "xsd": XSD,
}

RANKS = {"preferred": "PreferredRank", "normal": "NormalRank", "deprecated": "DeprecatedRank"}


def _n(iri: str) -> ox.NamedNode:
    return ox.NamedNode(iri)


def _typed(value: str, datatype: str) -> ox.Literal:
    return ox.Literal(value, datatype=_n(XSD + datatype))


def load_entities(paths: Iterable[Path]) -> dict[str, dict]:
    """Every entity of the ``wbgetentities`` files, by id; the first file naming an id wins."""
    entities: dict[str, dict] = {}
    for path in paths:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
        for key, entity in document.get("entities", {}).items():
            entities.setdefault(entity.get("id", key), entity)
    return entities


def entity_iri(value: Mapping[str, object]) -> str:
    """``wd:Q5`` from an entity-id datavalue, old (``numeric-id``) or new (``id``) shape."""
    if "id" in value:
        return WD + str(value["id"])
    letter = {"item": "Q", "property": "P", "lexeme": "L"}[str(value.get("entity-type", "item"))]
    return f"{WD}{letter}{value['numeric-id']}"


def time_literal(time: str) -> ox.Literal:
    """``+1952-03-11T00:00:00Z`` or ``+00000001952-00-00T00:00:00Z`` → an xsd:dateTime, with a zero
    month or day written as 01 (as the RDF dump does)."""
    sign = "-" if time.startswith("-") else ""
    body = time.lstrip("+-")
    date, _, clock = body.partition("T")
    year, month, day = date.split("-")
    month = month if month != "00" else "01"
    day = day if day != "00" else "01"
    return _typed(f"{sign}{int(year):04d}-{month}-{day}T{clock or '00:00:00Z'}", "dateTime")


def _hash(data: object) -> str:
    return hashlib.sha1(json.dumps(data, sort_keys=True).encode("utf-8")).hexdigest()


class _Builder:
    def __init__(self) -> None:
        self.triples: set[ox.Triple] = set()

    def add(self, s: ox.NamedNode, p: str, o: ox.NamedNode | ox.Literal) -> None:
        self.triples.add(ox.Triple(s, _n(p), o))

    def simple_value(self, snak: Mapping) -> ox.NamedNode | ox.Literal | None:
        """The value of a snak as the truthy/ps:/pq:/pr: triples carry it."""
        if snak["snaktype"] == "somevalue":
            return _n(GENID + _hash(snak))
        if snak["snaktype"] != "value":
            return None
        datavalue = snak["datavalue"]
        value = datavalue["value"]
        kind = datavalue["type"]
        datatype = snak.get("datatype", "")
        if kind == "wikibase-entityid":
            return _n(entity_iri(value))
        if kind == "time":
            return time_literal(value["time"])
        if kind == "monolingualtext":
            return ox.Literal(value["text"], language=value["language"])
        if kind == "quantity":
            return _typed(value["amount"].lstrip("+"), "decimal")
        if kind == "globecoordinate":
            return ox.Literal(f"Point({value['longitude']} {value['latitude']})", datatype=_n(GEO + "wktLiteral"))
        if datatype == "url":
            return _n(value)
        if datatype == "commonsMedia":
            return _n("http://commons.wikimedia.org/wiki/Special:FilePath/" + quote(value.replace(" ", "_")))
        return ox.Literal(str(value))

    def full_value(self, snak: Mapping) -> ox.NamedNode | None:
        """A ``wdv:`` node for a time value (the only full value the tools read)."""
        if snak["snaktype"] != "value" or snak["datavalue"]["type"] != "time":
            return None
        value = snak["datavalue"]["value"]
        node = _n(WDV + _hash(snak["datavalue"]))
        self.add(node, RDF + "type", _n(WIKIBASE + "TimeValue"))
        self.add(node, WIKIBASE + "timeValue", time_literal(value["time"]))
        self.add(node, WIKIBASE + "timePrecision", _typed(str(value["precision"]), "integer"))
        self.add(node, WIKIBASE + "timeTimezone", _typed(str(value.get("timezone", 0)), "integer"))
        self.add(node, WIKIBASE + "timeCalendarModel", _n(value["calendarmodel"]))
        return node

    def snak(self, subject: ox.NamedNode, snak: Mapping, simple_ns: str, value_ns: str | None) -> None:
        prop = snak["property"]
        value = self.simple_value(snak)
        if value is None:  # novalue
            self.add(subject, RDF + "type", _n(WDNO + prop))
            return
        self.add(subject, simple_ns + prop, value)
        full = self.full_value(snak) if value_ns else None
        if full is not None and value_ns:
            self.add(subject, value_ns + prop, full)

    def entity(self, entity: Mapping) -> None:
        if "missing" in entity or entity.get("type") not in ("item", "property"):
            return
        eid = entity["id"]
        item = _n(WD + eid)
        self.add(item, RDF + "type", _n(WIKIBASE + ("Item" if entity["type"] == "item" else "Property")))
        for label in entity.get("labels", {}).values():
            text = ox.Literal(label["value"], language=label["language"])
            for predicate in (RDFS + "label", SKOS + "prefLabel", SCHEMA + "name"):
                self.add(item, predicate, text)
        for description in entity.get("descriptions", {}).values():
            self.add(item, SCHEMA + "description", ox.Literal(description["value"], language=description["language"]))
        for aliases in entity.get("aliases", {}).values():
            for alias in aliases:
                self.add(item, SKOS + "altLabel", ox.Literal(alias["value"], language=alias["language"]))
        if "lastrevid" in entity:
            self.add(item, SCHEMA + "version", _typed(str(entity["lastrevid"]), "integer"))
        if "modified" in entity:
            self.add(item, SCHEMA + "dateModified", _typed(entity["modified"], "dateTime"))
        claims = entity.get("claims", {})
        self.add(item, WIKIBASE + "statements", _typed(str(sum(len(c) for c in claims.values())), "integer"))
        self.add(item, WIKIBASE + "sitelinks", _typed(str(len(entity.get("sitelinks", {}))), "integer"))
        for prop, statements in sorted(claims.items()):
            self.statements(item, eid, prop, statements)

    def statements(self, item: ox.NamedNode, eid: str, prop: str, statements: list[Mapping]) -> None:
        ranks = {s.get("rank", "normal") for s in statements}
        best = "preferred" if "preferred" in ranks else "normal"
        for statement in statements:
            rank = statement.get("rank", "normal")
            node = _n(WDS + statement["id"].replace("$", "-"))
            self.add(item, P + prop, node)
            self.add(node, RDF + "type", _n(WIKIBASE + "Statement"))
            self.add(node, WIKIBASE + "rank", _n(WIKIBASE + RANKS[rank]))
            mainsnak = statement["mainsnak"]
            if rank == best:
                self.add(node, RDF + "type", _n(WIKIBASE + "BestRank"))
                value = self.simple_value(mainsnak)
                if value is None:
                    self.add(item, RDF + "type", _n(WDNO + prop))
                else:
                    self.add(item, WDT + prop, value)
            self.snak(node, mainsnak, PS, PSV)
            for snaks in statement.get("qualifiers", {}).values():
                for snak in snaks:
                    self.snak(node, snak, PQ, PQV)
            for reference in statement.get("references", []):
                ref = _n(WDREF + reference["hash"])
                self.add(node, PROV + "wasDerivedFrom", ref)
                self.add(ref, RDF + "type", _n(WIKIBASE + "Reference"))
                for snaks in reference["snaks"].values():
                    for snak in snaks:
                        self.snak(ref, snak, PR, PRV)


def build_triples(entities: Iterable[Mapping], redirects: Mapping[str, str] | None = None) -> list[ox.Triple]:
    """The dump-shaped triples of ``entities`` and of ``redirects`` (old id → target id), sorted."""
    builder = _Builder()
    for entity in entities:
        builder.entity(entity)
    for source, target in (redirects or {}).items():
        builder.add(_n(WD + source), OWL + "sameAs", _n(WD + target))
    return sorted(builder.triples, key=lambda t: (str(t.subject), str(t.predicate), str(t.object)))


def to_turtle(triples: Iterable[ox.Triple]) -> bytes:
    """Turtle with the dump's prefixes."""
    return ox.serialize(list(triples), format=ox.RdfFormat.TURTLE, prefixes=PREFIXES)  # type: ignore[return-value]


def build_fixture(
    json_paths: Iterable[Path], extra: Iterable[Mapping] = (), redirects: Mapping[str, str] | None = None
) -> bytes:
    """The fixture Turtle: the real entities of ``json_paths``, then ``extra`` (synthetic) ones."""
    entities = list(load_entities(json_paths).values()) + list(extra)
    return to_turtle(build_triples(entities, redirects))
