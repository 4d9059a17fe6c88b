"""Query results as bytes in the media type the client negotiated: SPARQL JSON, XML, CSV or TSV
for SELECT (JSON or XML for ASK); Turtle, N-Triples, JSON-LD or RDF/XML for CONSTRUCT and
DESCRIBE; and, for a browser that prefers HTML (the editor's plain form without JavaScript), a
page with a table. HTML is offered last, so no SPARQL client that names its formats gets it."""

from __future__ import annotations

import json

import pyoxigraph as ox

from kgprofiles.export import serialize_triples
from kgprofiles.render.html import page
from kgprofiles.store.base import QueryResult, SelectResult, Term
from kgprofiles.vocab import PREFIXES

JSON = "application/sparql-results+json"
XML = "application/sparql-results+xml"
CSV = "text/csv"
TSV = "text/tab-separated-values"
TURTLE = "text/turtle"
NTRIPLES = "application/n-triples"
JSONLD = "application/ld+json"
RDFXML = "application/rdf+xml"
HTML = "text/html"

#: What each kind of result can be sent as, the server's preference first; aliases map to a format.
SELECT_OFFERS = (JSON, XML, CSV, TSV, "application/json", "application/xml", "text/xml", HTML)
ASK_OFFERS = (JSON, XML, "application/json", "application/xml", "text/xml", HTML)
GRAPH_OFFERS = (TURTLE, NTRIPLES, JSONLD, RDFXML, "application/x-turtle", "text/plain", "application/json", HTML)
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
_CHARSET = {JSON, CSV, TSV, TURTLE, NTRIPLES, JSONLD, HTML}


def offers(result: QueryResult) -> tuple[str, ...]:
    if isinstance(result, bool):
        return ASK_OFFERS
    if isinstance(result, SelectResult):
        return SELECT_OFFERS
    return GRAPH_OFFERS


def serialize(result: QueryResult, media_type: str, query: str = "") -> tuple[bytes, str]:
    """The result as ``media_type`` (one of ``offers(result)``): (body, Content-Type header)."""
    media_type = ALIASES.get(media_type, media_type)
    if media_type == HTML:
        body = html_page(result, query).encode("utf-8")
    elif isinstance(result, bool):
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


def _cell(term: Term | None) -> tuple[str | None, str] | None:
    """(IRI to link or None, text) of one term."""
    if term is None:
        return None
    if isinstance(term, ox.NamedNode):
        for prefix, namespace in PREFIXES.items():
            if term.value.startswith(namespace) and term.value != namespace:
                return term.value, f"{prefix}:{term.value[len(namespace) :]}"
        return term.value, term.value
    if isinstance(term, ox.BlankNode):
        return None, f"_:{term.value}"
    return None, term.value


def html_page(result: QueryResult, query: str) -> str:
    """The result as a readable page: a table of rows (or of triples), or the ASK answer."""
    if isinstance(result, bool):
        return page("sparql_results.html", boolean=result, query=query)
    if isinstance(result, SelectResult):
        variables = list(result.variables)
        rows = [[_cell(row.get(v)) for v in variables] for row in result.rows]
    else:
        variables = ["subject", "predicate", "object"]
        rows = [[_cell(t.subject), _cell(t.predicate), _cell(t.object)] for t in result]  # type: ignore[arg-type]
    return page("sparql_results.html", boolean=None, variables=variables, rows=rows, query=query)
