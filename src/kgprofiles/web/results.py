"""Query results as bytes in the media type the client negotiated: SPARQL JSON, XML, CSV or TSV
for SELECT (JSON or XML for ASK); Turtle, N-Triples, JSON-LD or RDF/XML for CONSTRUCT and
DESCRIBE."""

from __future__ import annotations

import json

import pyoxigraph as ox

from kgprofiles.export import serialize_triples
from kgprofiles.store.base import QueryResult, SelectResult

JSON = "application/sparql-results+json"
XML = "application/sparql-results+xml"
CSV = "text/csv"
TSV = "text/tab-separated-values"
TURTLE = "text/turtle"
NTRIPLES = "application/n-triples"
JSONLD = "application/ld+json"
RDFXML = "application/rdf+xml"

#: What each kind of result can be sent as, the server's preference first; aliases map to a format.
SELECT_OFFERS = (JSON, XML, CSV, TSV, "application/json", "application/xml", "text/xml")
ASK_OFFERS = (JSON, XML, "application/json", "application/xml", "text/xml")
GRAPH_OFFERS = (TURTLE, NTRIPLES, JSONLD, RDFXML, "application/x-turtle", "text/plain", "application/json")
ALIASES = {
    "application/json": JSON,
    "application/xml": XML,
    "text/xml": XML,
    "application/x-turtle": TURTLE,
    "text/plain": NTRIPLES,
}
_RESULT_FORMATS = {
    JSON: ox.QueryResultsFormat.JSON,
    XML: ox.QueryResultsFormat.XML,
    CSV: ox.QueryResultsFormat.CSV,
    TSV: ox.QueryResultsFormat.TSV,
}
_GRAPH_FORMATS = {TURTLE: "ttl", NTRIPLES: "nt", JSONLD: "jsonld"}
_CHARSET = {JSON, CSV, TSV, TURTLE, NTRIPLES, JSONLD}


def offers(result: QueryResult) -> tuple[str, ...]:
    if isinstance(result, bool):
        return ASK_OFFERS
    if isinstance(result, SelectResult):
        return SELECT_OFFERS
    return GRAPH_OFFERS


def serialize(result: QueryResult, media_type: str) -> tuple[bytes, str]:
    """The result as ``media_type`` (one of ``offers(result)``): (body, Content-Type header)."""
    media_type = ALIASES.get(media_type, media_type)
    if isinstance(result, bool):
        doc = json.dumps({"head": {}, "boolean": result}).encode()
        if media_type == XML:
            parsed = ox.parse_query_results(doc, format=ox.QueryResultsFormat.JSON)
            doc = parsed.serialize(format=ox.QueryResultsFormat.XML)
        body = doc
    elif isinstance(result, SelectResult):
        body = result.serialize(_RESULT_FORMATS[media_type])
    elif media_type == RDFXML:
        body = ox.serialize(sorted(result, key=str), format=ox.RdfFormat.RDF_XML)
    else:
        body = serialize_triples(result, _GRAPH_FORMATS[media_type])
    charset = "; charset=utf-8" if media_type in _CHARSET else ""
    return body, media_type + charset
