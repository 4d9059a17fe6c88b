"""Related people: a weighted score over shared organisations, topics, works and events, with a
reason that names each link. The query is ``queries/related-people.rq``; the weights live here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pyoxigraph as ox

from kgprofiles.errors import InputError
from kgprofiles.queries import NamedQuery
from kgprofiles.store.base import SelectResult, Store

#: The one place the weights are set; ``[kgprofiles.related_weights]`` in kgprofiles.toml overrides.
DEFAULT_WEIGHTS: dict[str, float] = {
    "current_org": 3.0,  # an organisation where both hold a current role
    "other_org": 1.0,  # an organisation shared otherwise (former, or not confirmed as current)
    "topic": 1.0,  # a shared topic
    "work": 2.0,  # a work both contributed to
    "event": 0.5,  # a thing both have a timeline event about
}
_PARAMS = {
    "current_org": "wCurrentOrg",
    "other_org": "wOtherOrg",
    "topic": "wTopic",
    "work": "wWork",
    "event": "wEvent",
}
_COUNTS = {
    "current_org": "currentOrgs",
    "other_org": "otherOrgs",
    "topic": "topics",
    "work": "works",
    "event": "events",
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


def _split(row: dict[str, ox.Literal], key: str) -> list[str]:
    value = row.get(key)
    return sorted(n for n in value.value.split("\t") if n) if value is not None else []


def _reason(row: dict, first_topic: str | None) -> str:
    parts = []
    current = _split(row, "currentOrgNames")
    if current:
        parts.append("Also at " + ", ".join(current))
    topics = _split(row, "topicNames")
    if first_topic in topics:
        topics.remove(first_topic)
        topics.insert(0, first_topic)
    parts.extend(topics)
    writing = _split(row, "writingNames")
    if writing:
        parts.append("Co-authored " + ", ".join(writing))
    code = _split(row, "codeNames")
    if code:
        parts.append("Also contributed to " + ", ".join(code))
    other = _split(row, "otherOrgNames")
    if other:
        parts.append("Both at " + ", ".join(other) + " (not both current)")
    events = _split(row, "eventNames")
    if events:
        parts.append("Both have events about " + ", ".join(events))
    return " · ".join(parts)


def related_people(
    store: Store,
    query: NamedQuery,
    person: ox.NamedNode,
    weight_overrides: Mapping[str, float] | None = None,
    limit: int | None = None,
) -> list[Related]:
    """The people related to ``person``, best first (score, then name, then IRI)."""
    w = weights(weight_overrides)
    values: dict[str, str | ox.NamedNode] = {"person": person}
    values.update({_PARAMS[k]: repr(v) for k, v in w.items()})
    result = query.run(store, values)
    assert isinstance(result, SelectResult)
    people = []
    name_keys = {
        "current_org": ("currentOrgNames",),
        "other_org": ("otherOrgNames",),
        "topic": ("topicNames",),
        "work": ("writingNames", "codeNames"),
        "event": ("eventNames",),
    }
    for row in result.rows:
        first = row.get("firstTopic")
        components = tuple(
            Component(
                kind,
                int(row[_COUNTS[kind]].value),
                w[kind],
                tuple(n for key in name_keys[kind] for n in _split(row, key)),
            )
            for kind in DEFAULT_WEIGHTS
            if int(row[_COUNTS[kind]].value)
        )
        score = round(sum(c.points for c in components), 6)
        people.append(
            Related(
                row["other"].value, row["name"].value, score, _reason(row, first.value if first else None), components
            )
        )
    people.sort(key=lambda r: (-r.score, r.name, r.iri))
    return people[:limit] if limit is not None else people
