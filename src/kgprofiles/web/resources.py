"""Dereferenceable IRIs: ``/id/{kind}/{slug}`` answers with the page (text/html) or the resource's
description (Turtle, JSON-LD, N-Triples) by content negotiation; ``.html``, ``.ttl``, ``.jsonld``
and ``.nt`` suffixes ask for one form directly. A person's data is their profile export
(queries/person-export.rq, as ``kgprofiles export PERSON``); any other resource's is its own
triples (queries/resource-description.rq)."""

from __future__ import annotations

import re

import pyoxigraph as ox
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from kgprofiles.export import MEDIA_TYPES, export_profile, serialize_triples
from kgprofiles.profiles import NotFound
from kgprofiles.queries import get_query
from kgprofiles.vocab import ids
from kgprofiles.web import pages
from kgprofiles.web.negotiation import RDF_FORMATS, choose, split_suffix, suffix_for
from kgprofiles.web.site import Site, site_of

KINDS = ("person", "organization", "topic", "work", "source", "claim", "profile")
SLUG = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
#: What one /id/ URL offers, the page first; application/json is answered with JSON-LD.
OFFERS = ("text/html", "application/xhtml+xml", *RDF_FORMATS, "application/json")


def resource(request: Request) -> Response:
    kind, name = request.path_params["kind"], request.path_params["name"]
    slug, asked = split_suffix(name)
    if kind not in KINDS or not SLUG.fullmatch(slug):
        return pages.not_found(request)
    iri = f"{ids().base}{kind}/{slug}"
    path = f"/id/{kind}/{slug}"
    headers = {"Link": ", ".join(f'<{href}>; rel="alternate"; type="{media}"' for media, href in pages.alternates(iri))}
    if asked is None:
        headers["Vary"] = "Accept"
        chosen = choose(request.headers.get("accept"), OFFERS)
        if chosen is None:
            return PlainTextResponse(
                f"{path} is available as {', '.join(OFFERS[:1] + OFFERS[2:5])}\n", status_code=406, headers=headers
            )
        asked = {"application/xhtml+xml": "text/html", "application/json": "application/ld+json"}.get(chosen, chosen)
        headers["Content-Location"] = path + suffix_for(asked)
    site = site_of(request)
    if asked == "text/html":
        return pages.html(pages.resource_page(site, kind, iri), headers=headers)
    fmt = RDF_FORMATS[asked]
    body = data(site, kind, iri, fmt)
    return Response(body, headers={**headers, "Content-Type": MEDIA_TYPES[fmt] + "; charset=utf-8"})


def data(site: Site, kind: str, iri: str, fmt: str) -> bytes:
    """The resource's description in ``fmt`` (ttl, jsonld, nt); NotFound when the data says nothing."""
    node = ox.NamedNode(iri)
    if kind == "person":
        if not site.select("person", person=node).rows:
            raise NotFound(f"no person {iri}")
        return export_profile(site.store, get_query(site.settings.queries_dir, "person-export"), node, fmt)
    triples = site.views.description(iri)
    if not triples:
        raise NotFound(f"nothing is said about {iri}")
    return serialize_triples(triples, fmt)
