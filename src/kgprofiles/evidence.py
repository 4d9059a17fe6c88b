"""Why one person is related to another: every piece of evidence behind the score, in words, each
with its footnotes (a "Why?" page).

The parts are the score's components (``related.py``: shared current organisations, other shared
organisations, topics, works, events); each part lists what each of the two profiles says about
the shared thing (their roles there, their contribution to the work, their events about it), with
the sources those claims cite. The two profiles number their sources each their own way; this
page numbers them again, 1..n in order of first citation, so every footnote points at the list
at its foot.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

import pyoxigraph as ox

from kgprofiles.config import RELATED_ON_PROFILE
from kgprofiles.profiles import Link, NotFound, Profile, SourceItem, Views
from kgprofiles.related import Related

#: What each kind of link says, as a heading before the shared thing's name.
HEADINGS = {
    "current_org": "Both hold a current role at",
    "other_org": "Both have had a role at",
    "topic": "Both work on",
    "work": "Both contributed to",
    "event": "Both have timeline events about",
    "award": "Shared",
    "supervision": "Supervision:",
    "overlap_org": "Both at the same time at",
}


#: Each kind of link in the score's sum, in words.
KIND_WORDS = {
    "current_org": "shared current organisations",
    "other_org": "other shared organisations",
    "topic": "shared topics",
    "work": "shared works",
    "event": "shared event subjects",
    "award": "shared awards",
    "supervision": "doctoral advisor and student",
    "overlap_org": "organisations at the same time",
}


@dataclass(frozen=True)
class Line:
    text: str
    notes: tuple[int, ...]


@dataclass(frozen=True)
class Part:
    kind: str
    heading: str
    name: str
    iri: str | None  # the shared thing, where the person's profile names it
    weight: float
    lines: tuple[Line, ...]


@dataclass(frozen=True)
class Why:
    person: Link
    other: Link
    related: Related
    rank: int  # 1 for the best related person
    parts: tuple[Part, ...]
    sources: tuple[SourceItem, ...]


class _Numbering:
    """Footnotes of two profiles renumbered for one page, in order of first citation."""

    def __init__(self, *profiles: Profile) -> None:
        self.by_number = [{s.number: s for s in p.sources} for p in profiles]
        self.order: dict[str, int] = {}
        self.items: dict[str, SourceItem] = {}

    def notes(self, which: int, numbers: tuple[int, ...]) -> tuple[int, ...]:
        found = set()
        for n in numbers:
            source = self.by_number[which].get(n)
            if source is None:
                continue
            number = self.order.setdefault(source.iri, len(self.order) + 1)
            if source.iri not in self.items:
                self.items[source.iri] = replace(source, number=number)
            found.add(number)
        return tuple(sorted(found))

    def sources(self) -> tuple[SourceItem, ...]:
        return tuple(sorted(self.items.values(), key=lambda s: s.number))


def _span(start: object, end: object) -> str:
    first = getattr(start, "text", None)
    last = getattr(end, "text", None)
    if not first and not last:
        return ""
    return f", {first or '?'} – {last or ''}".rstrip()


def _topic_iris(views: Views, person: str) -> dict[str, str]:
    rows = views.select("person-topics", person=ox.NamedNode(person)).rows
    return {r["name"].value: r["topic"].value for r in rows}


def why(views: Views, person: ox.NamedNode, other: ox.NamedNode, first: int = RELATED_ON_PROFILE) -> Why:
    """The evidence that ``other`` is related to ``person`` (NotFound when they are not related).
    The ``first`` best related people are ranked first (those a profile shows); everyone only
    when ``other`` is not among them, which costs more in a large graph."""
    found = None
    for limit in (first, None):
        ranked = views.related(person, limit)
        found = next(((i, r) for i, r in enumerate(ranked, start=1) if r.iri == other.value), None)
        if found is not None or (limit is not None and len(ranked) < limit):
            break
    if found is None:
        raise NotFound(f"{other.value} is not among the people related to {person.value}")
    rank, related = found
    mine, theirs = views.profile(person, 0), views.profile(other, 0)
    numbering = _Numbering(mine, theirs)
    topics = _topic_iris(views, person.value)
    parts = []
    for component in related.components:
        for name in component.names:
            lines: list[Line] = []
            iris: list[str] = []
            for which, p in enumerate((mine, theirs)):
                lines += _said(component.kind, name, p, partial(numbering.notes, which), iris)
            if component.kind == "topic":
                iris.append(topics.get(name, ""))
                lines.append(Line(f"{mine.name} and {theirs.name} both list {name} among their topics.", ()))
            elif component.kind == "event" and not lines:
                lines.append(Line(f"{mine.name} and {theirs.name} each have a timeline event about {name}.", ()))
            iri = next((i for i in iris if i), None)
            parts.append(Part(component.kind, HEADINGS[component.kind], name, iri, component.weight, tuple(lines)))
    return Why(
        Link(mine.iri, mine.name), Link(theirs.iri, theirs.name), related, rank, tuple(parts), numbering.sources()
    )


def _said(
    kind: str, name: str, p: Profile, notes: Callable[[tuple[int, ...]], tuple[int, ...]], iris: list[str]
) -> list[Line]:
    """What one profile says about a shared thing of ``kind`` named ``name``: its roles at the
    organisation, its contributions to the work, its timeline events about it (``iris`` gets the
    thing's IRI where the profile names it)."""
    lines = []
    if kind in ("current_org", "other_org", "overlap_org"):
        for r in p.roles:
            if r.organization_name == name:
                iris.append(r.organization)
                status = {"not confirmed": "not confirmed as current"}.get(r.status, r.status)
                lines.append(Line(f"{p.name}: {r.title or 'a role'} ({status}{_span(r.start, r.end)})", notes(r.notes)))
    elif kind == "work":
        for w in p.works:
            if name in (w.name, w.title):
                iris.append(w.iri)
                detail = f": {w.description}" if w.description else ""
                lines.append(Line(f"{p.name} ({', '.join(w.contribution) or 'contributor'}){detail}", notes(w.notes)))
    elif kind == "award":
        for a in p.awards:
            if name in (a.name, f"the {a.name}") or a.name in name:
                lines.append(Line(f"{p.name}: {a.name} ({a.date.text})", notes(a.notes)))
    elif kind == "event":
        for t in p.timeline:
            if name.lower() in t.label.lower():
                lines.append(Line(f"{p.name}, {t.date.text}: {t.label}", notes(t.notes)))
    return lines
