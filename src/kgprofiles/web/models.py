"""View models of the pages the CLI has no view for (home, work, source, search results, any
other resource), each from named queries in ``queries/``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pyoxigraph as ox

from kgprofiles.profiles import DateValue, NotFound
from kgprofiles.queries import get_query
from kgprofiles.store.base import Term
from kgprofiles.web.site import Site


@dataclass(frozen=True)
class Link:
    iri: str
    name: str
    count: int | None = None
    note: str | None = None


@dataclass(frozen=True)
class Home:
    counts: dict[str, int]
    topics: tuple[Link, ...]
    organizations: tuple[Link, ...]


@dataclass(frozen=True)
class WorkView:
    iri: str
    title: str
    name: str | None
    kind: str | None
    date: DateValue | None
    venue: str | None
    license: str | None
    publisher: Link | None
    contributors: tuple[Link, ...]


@dataclass(frozen=True)
class SourceView:
    iri: str
    title: str
    site: str | None
    url: str | None
    kind: str | None
    retrieved: str | None
    citations: tuple[Link, ...]  # the person, footnote number as note, claims supported as count


@dataclass(frozen=True)
class SearchHit:
    iri: str
    kind: str
    name: str


def _opt(row: Mapping[str, Term], key: str) -> str | None:
    term = row.get(key)
    return term.value if term is not None else None


def home(site: Site, listed: int = 30) -> Home:
    counts = {r["kind"].value: int(r["count"].value) for r in site.select("site-counts").rows}
    topics = tuple(
        Link(r["topic"].value, r["name"].value, int(r["people"].value)) for r in site.select("topics").rows[:listed]
    )
    orgs = tuple(
        Link(r["organization"].value, r["name"].value, int(r["people"].value))
        for r in site.select("organizations").rows[:listed]
    )
    return Home(counts, topics, orgs)


def work(site: Site, iri: str) -> WorkView:
    node = ox.NamedNode(iri)
    rows = site.select("work", work=node).rows
    if not rows:
        raise NotFound(f"no work {iri}")
    r = rows[0]
    publisher = (
        Link(r["publisher"].value, _opt(r, "publisherName") or r["publisher"].value) if "publisher" in r else None
    )
    contributors = tuple(
        Link(c["person"].value, c["name"].value, note=_opt(c, "kinds"))
        for c in site.select("work-contributors", work=node)
    )
    return WorkView(
        iri,
        r["title"].value,
        _opt(r, "name"),
        _opt(r, "kindLabel"),
        DateValue.of(r.get("date")),
        _opt(r, "venue"),
        _opt(r, "license"),
        publisher,
        contributors,
    )


def source(site: Site, iri: str) -> SourceView:
    node = ox.NamedNode(iri)
    rows = site.select("source", source=node).rows
    if not rows:
        raise NotFound(f"no source {iri}")
    r = rows[0]
    citations = tuple(
        Link(c["person"].value, c["name"].value, int(c["claims"].value), note=c["number"].value)
        for c in site.select("source-citations", source=node)
    )
    return SourceView(
        iri, r["title"].value, _opt(r, "site"), _opt(r, "url"), _opt(r, "kind"), _opt(r, "retrieved"), citations
    )


def search(site: Site, text: str) -> tuple[SearchHit, ...]:
    return tuple(
        SearchHit(r["item"].value, r["kind"].value, r["name"].value) for r in site.select("search", text=text).rows
    )


def description(site: Site, iri: str) -> list[ox.Triple]:
    """The resource's own triples from the data files (queries/resource-description.rq)."""
    result = get_query(site.settings.queries_dir, "resource-description").run(
        site.store, {"resource": ox.NamedNode(iri)}
    )
    assert isinstance(result, list)
    return result
