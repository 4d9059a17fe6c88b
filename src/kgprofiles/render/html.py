"""HTML views from Jinja templates (autoescaped); footnotes link to the numbered source list."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from functools import lru_cache
from importlib import resources
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup, escape

from kgprofiles.evidence import KIND_WORDS, Part
from kgprofiles.infobox import InfoBox, PersonFacts, organization_box, person_box, topic_box
from kgprofiles.profiles import Profile, SourceItem
from kgprofiles.related import Component
from kgprofiles.render import (
    HEADINGS,
    as_of,
    award_text,
    education_text,
    latest_note,
    people_count,
    span,
    supervision_label,
)
from kgprofiles.render.links import external_href
from kgprofiles.render.network_svg import network_svg
from kgprofiles.render.timeline_svg import timeline_svg
from kgprofiles.vocab import ids


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("kgprofiles.render", "templates"),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,  # templates ship with the package: not looked for on disk at every page
    )
    env.globals.update(
        h=HEADINGS,
        count=people_count,
        external=external_href,
        organization_box=organization_box,
        topic_box=topic_box,
        timeline_svg=timeline_svg,
        person_box=person_box,
        person_network=person_network,
        anchor=anchor,
        notes=notes,
        data_links=data_links,
        source_list=source_list,
        infobox=infobox,
        evidence_sections=evidence_sections,
        score_terms=score_terms,
        related_list=related_list,
        timeline_list=timeline_list,
    )
    env.globals.update(
        as_of=as_of, award_text=award_text, education_text=education_text, latest_note=latest_note, span=span,
        supervision_label=supervision_label,
    )  # fmt: skip
    return env


def notes(numbers: Iterable[object] | None) -> Markup:
    """A claim's footnote marks, each a link to its numbered source (nothing without numbers).
    (Written here, not as a template macro: pages call it for every claim, and a macro call costs
    ten times as much.)"""
    if not numbers:
        return Markup("")
    marks = ",".join(f'<a href="#source-{n}" aria-label="source {n}">{n}</a>' for n in map(escape, numbers))
    return Markup(f'<sup class="notes">{marks}</sup>')


def anchor(href: object, text: object, rel: str | None = None) -> Markup:
    """A link when ``href`` is one (from ``link()`` or ``external()``), else the text alone."""
    if not href:
        return escape(text)
    rel_attribute = f' rel="{escape(rel)}"' if rel else ""
    return Markup(f'<a href="{escape(href)}"{rel_attribute}>{escape(text)}</a>')


def evidence_sections(parts: Iterable[Part], link: Callable[[str], str | None]) -> Markup:
    """A "Why?" page's evidence: a section for each thing the two people share, headed by its
    name (a link where it has a page) and points, listing what each profile says with its
    footnote marks. (Written here, not in the template: a site has a million "Why?" pages.)"""
    sections = []
    for part in parts:
        points = "point" if part.weight == 1 else "points"
        lines = "".join(f"<li>{escape(line.text)}{notes(line.notes)}</li>\n" for line in part.lines)
        name = anchor(link(part.iri) if part.iri else None, part.name)
        sections.append(
            f'<section class="evidence">\n<h2>{escape(part.heading)} {name}'
            f' <span class="count">{part.weight:g} {points}</span></h2>\n<ul>{lines}</ul>\n</section>\n'
        )
    return Markup("".join(sections))


def score_terms(components: Iterable[Component]) -> Markup:
    """The terms of a related person's score in words: "shared works 2 × 3 + …"."""
    return Markup(" + ".join(f"{escape(KIND_WORDS[c.kind])} {escape(c.count)} × {c.weight:g}" for c in components))


def infobox(box: InfoBox, link: Callable[[str], str | None]) -> Markup:
    """A summary box (``kgprofiles.infobox``) of a person, organisation or topic page: labelled
    rows, each item a link where ``link`` allows one, with its footnote marks. (Written here, not
    as a template macro, for the cost of a macro call on every page.)"""
    rows = "".join(
        f"<dt>{escape(row.label)}</dt><dd>"
        + '<span class="sep">, </span>'.join(
            anchor(link(item.iri) if item.iri else None, item.text) + notes(item.notes) for item in row.items
        )
        + "</dd>\n"
        for row in box.rows
    )
    return Markup(f'<aside class="infobox" aria-label="Summary: {escape(box.name)}">\n<dl>{rows}</dl>\n</aside>')


def source_list(sources: Iterable[SourceItem], link: Callable[[str], str | None]) -> Markup:
    """A page's numbered sources (profile and "Why?" pages): each its title, linked where its
    first address may be a link (``external_href``; else the address shown as code), its other
    addresses, site, kind and retrieval date, and a link to its record on this site. (Written
    here, not in the templates: a "Why?" page lists its sources a million times a site.)"""
    items = []
    for s in sources:
        number = escape(s.number)
        href = external_href(s.url) if s.url else None
        parts = [f'<li id="source-{number}" value="{number}">', anchor(href, s.title, "nofollow")]
        if s.url and not href:
            parts.append(f' <code class="url">{escape(s.url)}</code>')
        parts.extend(f" · {anchor(external_href(u), u, 'nofollow')}" for u in s.urls[1:])
        if s.site or s.kind:
            about = "; ".join(escape(x) for x in (s.site, s.kind) if x)
            retrieved = f", retrieved {escape(s.retrieved)}" if s.retrieved else ""
            parts.append(f' <span class="muted">({about}{retrieved})</span>')
        record = link(s.iri)
        if record:
            parts.append(
                f' <a class="record" href="{escape(record)}" aria-label="source {number}: its record">record</a>'
            )
        parts.append("</li>\n")
        items.append("".join(parts))
    return Markup(f'<ol class="sources">{"".join(items)}</ol>')


#: The data forms a page links to in its text (all of them are in its <link rel="alternate">).
LINKED_FORMS = (
    ("text/turtle", ".ttl", "Turtle"),
    ("application/ld+json", ".jsonld", "JSON-LD"),
    ("application/n-triples", ".nt", "N-Triples"),
)


def data_links(
    link: Callable[[str], str | None],
    iri: str,
    alternates: Iterable[tuple[str, str]] | None,
    wikidata: str | None = None,
) -> Markup:
    """A resource's "Data:" line: links to its Turtle, JSON-LD and N-Triples (those of
    ``alternates`` only, when given: a static site may write fewer) and to its Wikidata item;
    nothing when there is none of them.

    >>> topic = "https://w3id.org/kgprofiles/id/topic/t"
    >>> str(data_links(local_link(".."), topic, [("application/n-triples", "/id/topic/t.nt")]))
    '<p class="formats">Data: <a href="../id/topic/t.nt">N-Triples</a></p>'
    >>> str(data_links(local_link(""), topic, [], "https://www.wikidata.org/wiki/Q1"))
    '<p class="formats">Data: <a href="https://www.wikidata.org/wiki/Q1">Wikidata</a></p>'
    >>> str(data_links(local_link(""), topic, [])), str(data_links(local_link(""), topic, None)).count("<a ")
    ('', 3)
    """
    home = link(iri)
    offered = None if alternates is None else {media for media, _ in alternates}
    links = [
        anchor(f"{home}{suffix}", name)
        for media, suffix, name in LINKED_FORMS
        if home is not None and (offered is None or media in offered)
    ]
    if wikidata:
        links.append(anchor(external_href(wikidata), "Wikidata"))
    return Markup(f'<p class="formats">Data: {"".join(links)}</p>') if links else Markup("")


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
    for item, date, place in ((p.born, "birthDate", "birthPlace"), (p.died, "deathDate", "deathPlace")):
        if item and item.date:
            doc[date] = item.date.iso
        if item and item.place:
            doc[place] = {"@type": "Place", "name": item.place}
    if p.awards:
        doc["award"] = [f"{a.name} ({a.date.text})" for a in p.awards]
    if p.education:
        doc["alumniOf"] = [
            {"@type": "Organization", "@id": e.organization, "name": e.organization_name} for e in p.education
        ]
    links = [href for i in p.identifiers if i.url and (href := external_href(i.url))]  # http(s) only
    if links:
        doc["sameAs"] = [*doc.get("sameAs", []), *links]
    # (in a <script> block, "</script" ends it and "<!--<script" makes its own end tag not end it:
    # no "<" at all, as JSON may write it)
    return json.dumps(doc, ensure_ascii=False, sort_keys=True).replace("<", "\\u003c")


def page(template: str, base: str = "", standalone: bool = False, **context: Any) -> str:
    """Render a page; ``standalone`` inlines the stylesheet (for files written by the CLI)."""
    context.setdefault("alternates", None)  # (None: every data form; a static site may write fewer)
    return (
        environment()
        .get_template(template)
        .render(base=base, link=local_link(base), inline_css=stylesheet() if standalone else None, **context)
    )


def why_href(link: Callable[[str], str | None], person: str, other: str) -> str | None:
    """The address of the "Why?" page of two people of the graph (``/id/person/A/related/B``)."""
    home = link(person)
    mine, theirs = ids().slug_of(person), ids().slug_of(other)
    if home is None or mine is None or theirs is None or not theirs.startswith("person/"):
        return None
    return f"{home}/related/{theirs[len('person/') :]}"


def related_list(p: Profile, link: Callable[[str], str | None]) -> Markup:
    """A profile's related people: each a link, the reason, and a link to its "Why?" page.
    (Written here, not in the template, as ``source_list``: every person page has one.)"""
    items = []
    for r in p.related:
        why = why_href(link, p.iri, r.iri)
        label = f"Why is {r.name} related to {p.name}?"
        more = f' <a class="why" href="{escape(why)}" aria-label="{escape(label)}">Why?</a>' if why else ""
        items.append(
            f'<li><a href="{escape(link(r.iri))}">{escape(r.name)}</a><span class="reason">{escape(r.reason)}</span>'
            f"{more}</li>\n"
        )
    return Markup(f'<ul class="plain related">{"".join(items)}</ul>')


def timeline_list(p: Profile, facts: PersonFacts | None, link: Callable[[str], str | None]) -> Markup:
    """A profile's dated entries, numbered as the timeline picture's marks (``#timeline-N``), each
    with its footnote marks and, where ``facts`` knows its event, a link to the event's record."""
    events = facts.events if facts else ()
    items = []
    for number, item in enumerate(p.timeline, start=1):
        record = link(events[number - 1]) if events else None
        more = (
            f' <a class="record" href="{escape(record)}" aria-label="entry {number}: its record">record</a>'
            if record
            else ""
        )
        items.append(
            f'<li id="timeline-{number}"><time datetime="{escape(item.date.iso)}">{escape(item.date.text)}</time>'
            f"{escape(item.label)}{notes(item.notes)}{more}</li>\n"
        )
    return Markup(f'<ol class="timeline">\n{"".join(items)}</ol>')


def person_network(p: Profile, link: Callable[[str], str | None], facts: PersonFacts | None = None) -> Markup:
    """The picture of the people around ``p`` (``render.network_svg``), related people linked to
    their "Why?" pages; ``facts`` gives the topics' pages."""
    topics = {t.name: t.iri for t in facts.topics} if facts else {}
    return network_svg(p, link, lambda other: why_href(link, p.iri, other), topics)


def profile(p: Profile, base: str = "", standalone: bool = True, facts: PersonFacts | None = None) -> str:
    """The person's page; with ``facts`` (``infobox.person_facts``), their summary box too."""
    return page("profile.html", base, standalone, p=p, jsonld=person_jsonld(p), facts=facts)
