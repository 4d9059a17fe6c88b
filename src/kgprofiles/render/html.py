"""HTML views from Jinja templates (autoescaped); footnotes link to the numbered source list."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache
from importlib import resources
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from kgprofiles.profiles import Profile
from kgprofiles.render import HEADINGS, people_count
from kgprofiles.render.links import external_href
from kgprofiles.vocab import ids


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("kgprofiles.render", "templates"),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals.update(h=HEADINGS, count=people_count, external=external_href)
    return env


@lru_cache(maxsize=1)
def stylesheet() -> str:
    return resources.files("kgprofiles.render").joinpath("static/style.css").read_text(encoding="utf-8")


def local_link(base: str) -> Callable[[str], str | None]:
    """IRIs of the graph as paths on this site (``…/id/person/x`` → ``{base}/id/person/x``); any
    other IRI as itself when it may be a link to elsewhere (``external_href``), else None."""

    def link(iri: str) -> str | None:
        slug = ids().slug_of(iri)
        return base + "/id/" + slug if slug is not None else external_href(iri)

    return link


def person_jsonld(p: Profile) -> str:
    """schema.org JSON-LD for search engines, embedded in the person page."""
    doc: dict[str, Any] = {"@context": "http://schema.org", "@type": "Person", "@id": p.iri, "name": p.name}
    if p.headline:
        doc["description"] = p.headline
    if p.wikidata:
        doc["sameAs"] = [p.wikidata]
    if p.workplaces:
        doc["worksFor"] = [{"@type": "Organization", "@id": w.iri, "name": w.name} for w in p.workplaces]
    if p.topics:
        doc["knowsAbout"] = list(p.topics)
    return json.dumps(doc, ensure_ascii=False, sort_keys=True).replace("</", "<\\/")


def page(template: str, base: str = "", standalone: bool = False, **context: Any) -> str:
    """Render a page; ``standalone`` inlines the stylesheet (for files written by the CLI)."""
    return (
        environment()
        .get_template(template)
        .render(base=base, link=local_link(base), inline_css=stylesheet() if standalone else None, **context)
    )


def profile(p: Profile, base: str = "", standalone: bool = True) -> str:
    return page("profile.html", base, standalone, p=p, jsonld=person_jsonld(p))
