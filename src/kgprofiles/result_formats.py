"""Query results as bytes in a media type: SPARQL JSON, XML, CSV or TSV for SELECT (JSON or XML
for ASK); Turtle, N-Triples, JSON-LD or RDF/XML for CONSTRUCT and DESCRIBE.

The query workers serialise here (``store/sandbox.py``), so that only bytes travel back to the
server; the endpoint serialises here the results it holds itself (``web/results.py``, which adds
the HTML page).
"""

from __future__ import annotations

import json

from kgprofiles.store import rdf_syntax
from kgprofiles.store.base import QueryResult, SelectResult
from kgprofiles.store.oxigraph import as_bytes

JSON = "application/sparql-results+json"
XML = "application/sparql-results+xml"
CSV = "text/csv"
TSV = "text/tab-separated-values"
TURTLE = "text/turtle"
NTRIPLES = "application/n-triples"
JSONLD = "application/ld+json"
RDFXML = "application/rdf+xml"

#: Other names clients use for these formats ("application/json" is JSON-LD for a graph).
ALIASES = {
    "application/json": JSON,
    "application/xml": XML,
    "text/xml": XML,
    "application/x-turtle": TURTLE,
    "text/plain": NTRIPLES,
}
_RESULT_FORMATS = {
    JSON: rdf_syntax.QueryResultsFormat.JSON,
    XML: rdf_syntax.QueryResultsFormat.XML,
    CSV: rdf_syntax.QueryResultsFormat.CSV,
    TSV: rdf_syntax.QueryResultsFormat.TSV,
}
_GRAPH_FORMATS = {TURTLE: "ttl", NTRIPLES: "nt", JSONLD: "jsonld"}
_CHARSET = {JSON, CSV, TSV, TURTLE, NTRIPLES, JSONLD}


def kind_of(result: QueryResult) -> str:
    """ "select", "boolean" (ASK) or "graph" (CONSTRUCT, DESCRIBE)."""
    if isinstance(result, bool):
        return "boolean"
    return "select" if isinstance(result, SelectResult) else "graph"


def serialize(result: QueryResult, media_type: str) -> tuple[bytes, str]:
    """The result as ``media_type`` (a format above or an alias, fitting the kind of result):
    (body, Content-Type header)."""
    graph = kind_of(result) == "graph"
    media_type = JSONLD if graph and media_type == "application/json" else ALIASES.get(media_type, media_type)
    if isinstance(result, bool):
        doc = json.dumps({"head": {}, "boolean": result}).encode()
        if media_type == XML:
            parsed = rdf_syntax.parse_query_results(doc, format=rdf_syntax.QueryResultsFormat.JSON)
            doc = as_bytes(parsed.serialize(format=rdf_syntax.QueryResultsFormat.XML))
        body = doc
    elif isinstance(result, SelectResult):
        body = result.serialize(_RESULT_FORMATS[media_type])
    elif media_type == RDFXML:
        body = as_bytes(rdf_syntax.serialize(sorted(result, key=str), format=rdf_syntax.RdfFormat.RDF_XML))
    else:
        from kgprofiles.export import serialize_triples  # rdflib, for JSON-LD

        body = serialize_triples(result, _GRAPH_FORMATS[media_type])
    charset = "; charset=utf-8" if media_type in _CHARSET else ""
    return body, media_type + charset
