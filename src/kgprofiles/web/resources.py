"""Dereferenceable IRIs: ``/id/{kind}/{slug}`` answers with the page (text/html) or the resource's
description (Turtle, JSON-LD, N-Triples, N-Quads, and RDF/XML where the data allows it: see
``export.rdfxml_problem``) by content negotiation (``negotiation.py``); ``.html``, ``.ttl``,
``.jsonld``, ``.nt``, ``.nq`` and ``.rdf`` suffixes ask for one form directly. A person's data is their profile export
(queries/person-export.rq, as ``kgprofiles export PERSON``); any other resource's is its own
triples (queries/resource-description.rq)."""

from __future__ import annotations

from collections.abc import Sequence

import pyoxigraph as ox
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from kgprofiles.errors import QueryError
from kgprofiles.export import rdfxml_problem, serialize_triples, to_rdfxml
from kgprofiles.profiles import NotFound
from kgprofiles.queries import named
from kgprofiles.vocab import ids
from kgprofiles.web import pages
from kgprofiles.web.negotiation import RDF_FORMATS, choose, split_suffix, suffix_for
from kgprofiles.web.site import site_of

KINDS = ("person", "organization", "topic", "work", "source", "claim", "profile", "award", "place")
SLUG = pages.SLUG
#: What one /id/ URL offers, in the server's order of preference: the page, then the data forms
#: (so ``*/*`` gets the page, ``text/*`` the page, ``application/*`` JSON-LD); application/json is
#: answered with JSON-LD, and application/xhtml+xml (last: only asked for by name) with the page.
OFFERS = (
    "text/html",
    "text/turtle",
    "application/ld+json",
    "application/n-triples",
    "application/n-quads",
    "application/rdf+xml",
    "application/json",
    "application/xhtml+xml",
)
ALIASES = {"application/xhtml+xml": "text/html", "application/json": "application/ld+json"}
RDF_XML = "application/rdf+xml"


def resource(request: Request) -> Response:
    kind, name = request.path_params["kind"], request.path_params["name"]
    slug, asked = split_suffix(name)
    if kind not in KINDS or not SLUG.fullmatch(slug):
        return pages.not_found(request)
    iri = f"{ids().base}{kind}/{slug}"
    path = f"/id/{kind}/{slug}"
    headers = {"Link": ", ".join(f'<{href}>; rel="alternate"; type="{media}"' for media, href in pages.alternates(iri))}
    site = site_of(request)
    triples: Sequence[ox.Triple] | None = None
    if asked is None:
        headers["Vary"] = "Accept"
        accept = request.headers.get("accept")
        chosen = choose(accept, OFFERS)
        if chosen == RDF_XML:
            triples = data(site, kind, iri)
            if rdfxml_problem(triples) is not None:  # the next best form, if the client takes one
                chosen = choose(accept, tuple(o for o in OFFERS if o != RDF_XML))
        if chosen is None:
            forms = ", ".join(o for o in OFFERS if o not in ALIASES)
            return PlainTextResponse(f"{path} is available as {forms}\n", status_code=406, headers=headers)
        asked = ALIASES.get(chosen, chosen)
        headers["Content-Location"] = path + suffix_for(asked)
    elif asked == RDF_XML:
        triples = data(site, kind, iri)
        problem = rdfxml_problem(triples)
        if problem is not None:
            message = f"{path}.rdf: this resource cannot be written as RDF/XML: {problem}\n"
            return PlainTextResponse(message, status_code=406, headers=headers)
    if asked == "text/html":
        return pages.html(pages.resource_page(site, kind, iri), headers=headers)
    if triples is None:
        triples = data(site, kind, iri)
    fmt = RDF_FORMATS[asked]
    body = to_rdfxml(triples) if fmt == "rdf" else serialize_triples(triples, fmt)
    return Response(body, headers={**headers, "Content-Type": asked + "; charset=utf-8"})


def data(site: pages.HasViews, kind: str, iri: str) -> Sequence[ox.Triple]:
    """The resource's description (a person's: their profile export); NotFound when the data
    says nothing. (The server's, and each file a static site writes beside a page.)"""
    node, views = ox.NamedNode(iri), site.views
    if kind == "person":
        if not views.select("person", person=node).rows:
            raise NotFound(f"no person {iri}")
        result = named(views.queries, "person-export").run(views.store, {"person": node})
        if not isinstance(result, list):
            raise QueryError("queries/person-export.rq must be a CONSTRUCT query")
        return result
    triples = views.description(iri)
    if not triples:
        raise NotFound(f"nothing is said about {iri}")
    return triples
