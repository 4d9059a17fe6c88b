"""The HTML pages: home, people, search, downloads, the page of each kind of resource, and the
helpful 404. Plain server-rendered HTML from the Jinja templates of ``kgprofiles.render``; no
JavaScript. Handlers are plain functions: Starlette runs them in its thread pool."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import Protocol

import pyoxigraph as ox
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response

from kgprofiles import evidence, vocab
from kgprofiles.errors import KgError
from kgprofiles.infobox import person_facts
from kgprofiles.profiles import NotFound, Views
from kgprofiles.render.html import page, person_jsonld
from kgprofiles.search import Hit
from kgprofiles.vocab import ids
from kgprofiles.web.negotiation import SUFFIXES, choose
from kgprofiles.web.site import Site, site_of

PAGE_SIZE = 100
SLUG = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def html(body: str, status: int = 200, headers: dict[str, str] | None = None) -> HTMLResponse:
    return HTMLResponse(body, status_code=status, headers=headers)


def alternates(iri: str, forms: Collection[str] | None = None) -> list[tuple[str, str]]:
    """(media type, URL) of each data form of a resource (or of ``forms``), for <link rel="alternate">."""
    path = "/id/" + (ids().slug_of(iri) or "")
    return [
        (media, path + suffix)
        for suffix, media in SUFFIXES.items()
        if media != "text/html" and (forms is None or media in forms)
    ]


def curie(iri: str) -> str:
    return vocab.curie(iri) or iri


# ------------------------------------------------------------------------------ site pages


def home(request: Request) -> Response:
    site = site_of(request)
    return html(page("home.html", home=site.summary("home", site.views.home)))


def no_icon(request: Request) -> Response:
    """No favicon: an empty answer rather than a 404 page for every browser visit."""
    return Response(status_code=204)


def people(request: Request) -> Response:
    site = site_of(request)
    text = request.query_params.get("q") or None
    try:
        page_number = max(int(request.query_params.get("page", "1")), 1)
    except ValueError:
        page_number = 1
    rows = site.views.people(text) if text else site.summary("people", lambda: site.views.people(None))
    start = (page_number - 1) * PAGE_SIZE
    return html(
        page(
            "people.html",
            rows=rows[start : start + PAGE_SIZE],
            total=len(rows),
            q=text or "",
            page_number=page_number,
            pages=max((len(rows) + PAGE_SIZE - 1) // PAGE_SIZE, 1),
        )
    )


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def search(request: Request) -> Response:
    """Full-text search (``kgprofiles.search``); the same results as ``/api/search`` and
    ``kgprofiles search``."""
    text = _CONTROL.sub(" ", request.query_params.get("q") or "").strip()  # (none is text, nor may HTML hold one)
    results = site_of(request).search(text) if text else None
    return html(page("search.html", q=text, results=results))


# ------------------------------------------------------------------------------ resource pages


class HasViews(Protocol):
    """What a page needs of its site: the views (a web ``Site``, or the static site's builder)."""

    @property
    def views(self) -> Views: ...


def resource_page(site: HasViews, kind: str, iri: str, base: str = "", forms: Collection[str] | None = None) -> str:
    """The HTML page of one resource (NotFound when there is none); ``base`` prefixes the site's
    own links (the static site's are relative), ``forms`` the data forms it links to (default all)."""
    links = alternates(iri, forms)
    if kind == "person":
        profile = site.views.profile(ox.NamedNode(iri))
        facts = person_facts(site.views, profile)
        return page("profile.html", base, p=profile, jsonld=person_jsonld(profile), facts=facts, alternates=links)
    if kind == "organization":
        return page("organization.html", base, o=site.views.organization(iri), alternates=links)
    if kind == "topic":
        return page("topic.html", base, t=site.views.topic(iri), alternates=links)
    if kind == "work":
        return page("work.html", base, w=site.views.work(iri), alternates=links)
    if kind == "source":
        return page("source.html", base, s=site.views.source(iri), alternates=links)
    triples = site.views.description(iri)
    if not triples:
        raise NotFound(f"nothing is said about {iri}")
    subject = ox.NamedNode(iri)
    rows = sorted(  # rdf:type first, then by property: the same page from any store
        (
            (curie(t.predicate.value), t.object.value if isinstance(t.object, ox.NamedNode) else None, str(t.object))
            for t in triples
            if t.subject == subject and not isinstance(t.object, ox.Triple)
        ),
        key=lambda row: (row[0] != "rdf:type", row[0], row[2]),
    )
    return page("resource.html", base, iri=iri, kind=kind, rows=rows, curie=curie, alternates=links)


def why(request: Request) -> Response:
    """``/id/person/{slug}/related/{other}``: why one person is related to another, every piece of
    evidence in words with its footnotes (``kgprofiles.evidence``)."""
    slug, other = request.path_params["slug"], request.path_params["other"]
    if not (SLUG.fullmatch(slug) and SLUG.fullmatch(other)):
        return not_found(request)
    return html(why_page(site_of(request), slug, other))


def why_page(site: HasViews, slug: str, other: str, base: str = "") -> str:
    """The "Why?" page of two people (by slug), its links under ``base`` (the server's, or a
    static site's relative one)."""
    people = ids().namespace("person")
    found = evidence.why(site.views, ox.NamedNode(people + slug), ox.NamedNode(people + other))
    return page("why.html", base, w=found)


# ------------------------------------------------------------------------------ errors


def suggestions(site: Site, path: str) -> Sequence[Hit]:
    """What the search finds for the longest word of the path's last part."""
    last = path.rstrip("/").rsplit("/", 1)[-1]
    last = re.sub(r"\.(html|ttl|jsonld|nt)$", "", last)
    words = sorted((w for w in re.split(r"[^A-Za-z0-9]+", last) if len(w) >= 3), key=len, reverse=True)
    if not words:
        return ()
    try:
        return site.search(words[0], limit=10).hits
    except KgError:
        return ()


def not_found(request: Request, message: str | None = None) -> Response:
    """A 404 that helps: what was asked for, things with a similar name, and where to go from here.
    JSON for the API, plain text for a client that does not want HTML."""
    path = request.url.path
    message = message or f"There is no page at {path}."
    if path.startswith("/api/"):
        return JSONResponse({"error": message}, status_code=404)
    if choose(request.headers.get("accept"), ("text/html", "text/plain")) != "text/html":
        return PlainTextResponse(message + "\n", status_code=404)
    site = site_of(request)
    return html(page("not_found.html", path=path, message=message, hits=suggestions(site, path)), status=404)
