"""What the endpoint offers for each kind of result, and the results it holds as bytes in the media
type the client negotiated: the formats of ``kgprofiles.result_formats`` and, for a browser that
prefers HTML (the editor's plain form without JavaScript), a page with a table. HTML is offered
last, so no SPARQL client that names its formats gets it."""

from __future__ import annotations

import pyoxigraph as ox

from kgprofiles import result_formats
from kgprofiles.render.html import page
from kgprofiles.result_formats import CSV, JSON, JSONLD, NTRIPLES, RDFXML, TSV, TURTLE, XML, kind_of
from kgprofiles.store.base import QueryResult, SelectResult, Term
from kgprofiles.vocab import PREFIXES

HTML = "text/html"

#: What each kind of result can be sent as, the server's preference first; aliases map to a format.
OFFERS = {
    "select": (JSON, XML, CSV, TSV, "application/json", "application/xml", "text/xml", HTML),
    "boolean": (JSON, XML, "application/json", "application/xml", "text/xml", HTML),
    "graph": (TURTLE, NTRIPLES, JSONLD, RDFXML, "application/x-turtle", "text/plain", "application/json", HTML),
}


def offers(result: QueryResult) -> tuple[str, ...]:
    return OFFERS[kind_of(result)]


def serialize(result: QueryResult, media_type: str, query: str = "") -> tuple[bytes, str]:
    """The result as ``media_type`` (one of ``offers(result)``): (body, Content-Type header)."""
    if media_type == HTML:
        return html_page(result, query).encode("utf-8"), "text/html; charset=utf-8"
    return result_formats.serialize(result, media_type)


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
