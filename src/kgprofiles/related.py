"""Related people: a weighted score over shared organisations, topics, works and events, with a
reason that names each link. The queries are ``queries/related-*.rq``; the weights live here."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import pyoxigraph as ox

from kgprofiles.errors import InputError
from kgprofiles.queries import NamedQuery
from kgprofiles.store.base import SelectResult, Store, Term
from kgprofiles.vocab import KGP

#: The one place the weights are set; ``[kgprofiles.related_weights]`` in kgprofiles.toml overrides.
DEFAULT_WEIGHTS: dict[str, float] = {
    "current_org": 3.0,  # an organisation where both hold a current role
    "other_org": 1.0,  # an organisation shared otherwise (former, or not confirmed as current)
    "topic": 1.0,  # a shared topic
    "work": 2.0,  # a work both contributed to
    "event": 0.5,  # a thing both have a timeline event about
}


def weights(overrides: Mapping[str, float] | None = None) -> dict[str, float]:
    """The default weights with ``overrides`` applied; unknown names are an error."""
    merged = dict(DEFAULT_WEIGHTS)
    for name, value in (overrides or {}).items():
        if name not in merged:
            raise InputError(f"unknown related-people weight {name!r}", f"known: {', '.join(merged)}")
        merged[name] = float(value)
    return merged


@dataclass(frozen=True)
class Component:
    """One part of a score: what kind of link, how many, its weight, and the names behind it."""

    kind: str
    count: int
    weight: float
    names: tuple[str, ...]

    @property
    def points(self) -> float:
        return self.count * self.weight


@dataclass(frozen=True)
class Related:
    iri: str
    name: str
    score: float
    reason: str
    components: tuple[Component, ...]


KGP_NAME, KGP_FIRST_TOPIC, KGP_SOFTWARE = (str(KGP.name), str(KGP.firstTopic), str(KGP.Software))
#: The named queries behind each kind of link (``queries/related-*.rq``).
QUERIES = ("related-orgs", "related-topics", "related-works", "related-events")


@dataclass
class Candidate:
    name: str
    first_topic: str | None = None
    work_names: dict[str, tuple[int, str]] = field(default_factory=dict)  # IRI → (0 short name | 1 title, name)
    about_names: dict[str, tuple[int, str]] = field(default_factory=dict)
    current_orgs: set[str] = field(default_factory=set)
    orgs: set[str] = field(default_factory=set)
    topics: set[str] = field(default_factory=set)

    def add_topic(self, name: str, first: bool) -> None:
        """A shared topic; ``first`` when it is the one listed first for the candidate (if
        several are, the first in text order)."""
        self.topics.add(name)
        if first and (self.first_topic is None or name < self.first_topic):
            self.first_topic = name


def _reason(c: Candidate, other_orgs: list[str], writing: set[str], code: set[str], events: list[str]) -> str:
    parts = []
    if c.current_orgs:
        parts.append("Also at " + ", ".join(sorted(c.current_orgs)))
    topics = sorted(c.topics)
    if c.first_topic in topics:
        topics.remove(c.first_topic)
        topics.insert(0, c.first_topic)
    parts.extend(topics)
    if writing:
        parts.append("Co-authored " + ", ".join(sorted(writing)))
    if code:
        parts.append("Also contributed to " + ", ".join(sorted(code)))
    if other_orgs:
        parts.append("Both at " + ", ".join(other_orgs) + " (not both current)")
    if events:
        parts.append("Both have events about " + ", ".join(events))
    return " · ".join(parts)


def related_people(
    store: Store,
    queries: Mapping[str, NamedQuery],
    person: ox.NamedNode,
    weight_overrides: Mapping[str, float] | None = None,
    limit: int | None = None,
) -> list[Related]:
    """The people related to ``person``, best first (score, then name, then IRI). Each kind of
    link is one flat query bound to the person (``QUERIES``); the scores are summed here."""
    w = weights(weight_overrides)
    found: dict[str, Candidate] = {}

    def rows(name: str) -> Iterator[tuple[Candidate, dict[str, Term]]]:
        result = queries[name].run(store, {"person": person})
        assert isinstance(result, SelectResult)
        for row in result.rows:
            name_text = row["name"].value
            candidate = found.get(row["other"].value)
            if candidate is None:
                candidate = found[row["other"].value] = Candidate(name_text)
            elif name_text < candidate.name:  # more than one name: the first in text order
                candidate.name = name_text
            yield candidate, row

    def named(names: dict[str, tuple[int, str]], row: dict[str, Term], node: str, name: str) -> None:
        keep_name(names, row[node].value, (0 if row["nameProperty"].value == KGP_NAME else 1, row[name].value))

    for c, row in rows("related-orgs"):
        (c.current_orgs if row["bothCurrent"].value == "true" else c.orgs).add(row["orgName"].value)
    for c, row in rows("related-topics"):
        c.add_topic(row["topicName"].value, row["link"].value == KGP_FIRST_TOPIC)
    software: set[str] = set()
    for c, row in rows("related-works"):
        named(c.work_names, row, "work", "workName")
        if row["type"].value == KGP_SOFTWARE:
            software.add(row["work"].value)
    for c, row in rows("related-events"):
        named(c.about_names, row, "about", "aboutName")
    return best_first([scored(iri, c, software, w) for iri, c in found.items()], limit)


def keep_name(names: dict[str, tuple[int, str]], node: str, rank: tuple[int, str]) -> None:
    """Keep one name per node: a short name (rank 0) before a title (1), then the first in text order."""
    if node not in names or rank < names[node]:
        names[node] = rank


def scored(iri: str, c: Candidate, software: set[str], w: Mapping[str, float]) -> Related:
    """The candidate's score, components and reason (``software``: the shared works that are software)."""
    writing = {name for work, (_, name) in c.work_names.items() if work not in software}
    code = {name for work, (_, name) in c.work_names.items() if work in software}
    events = sorted({name for _, name in c.about_names.values()})
    other_orgs = sorted(c.orgs - c.current_orgs)
    names = {
        "current_org": sorted(c.current_orgs),
        "other_org": other_orgs,
        "topic": sorted(c.topics),
        "work": sorted(writing) + sorted(code),
        "event": events,
    }
    components = tuple(
        Component(kind, len(names[kind]), w[kind], tuple(names[kind])) for kind in DEFAULT_WEIGHTS if names[kind]
    )
    score = round(sum(x.points for x in components), 6)
    return Related(iri, c.name, score, _reason(c, other_orgs, writing, code, events), components)


def rank_key(r: Related) -> tuple[float, str, str]:
    """Best first: the higher score, then the name, then the IRI."""
    return (-r.score, r.name, r.iri)


def best_first(people: list[Related], limit: int | None) -> list[Related]:
    people.sort(key=rank_key)
    return people[:limit] if limit is not None else people
