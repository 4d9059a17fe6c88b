"""Related people for many people: the graph's links read once into memory, each person's related
people ranked from arrays.

:func:`kgprofiles.related.related_people` asks the store seven queries per person; over a large
graph most of its time goes to candidates that only share a topic (thousands per person) and are
never shown. :class:`RelatedIndex` reads the links of the whole graph once (``queries/related-index-*.rq``),
gives every person an integer in (name, IRI) order, and for one person sums an upper bound of each
candidate's score and of its number of shared links with ``numpy.bincount``. It then scores exactly
(with :func:`kgprofiles.related.scored`, the code the per-person path uses) only the best
candidates, until no remaining candidate's bounds can beat the last one kept. The result equals
``related_people``'s: same people, scores, reasons and order (a test holds them equal). A
snapshot: rebuild it when the store changes.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import product
from typing import Any

import numpy as np
import pyoxigraph as ox

from kgprofiles.queries import NamedQuery, named
from kgprofiles.related import (
    KGP_AS_OF,
    KGP_END,
    KGP_FIRST_TOPIC,
    KGP_SOFTWARE,
    KGP_START,
    Candidate,
    Related,
    Span,
    award_label,
    best_first,
    keep_name,
    overlap,
    role_span,
    scored,
    supervision_label,
    weights,
)
from kgprofiles.store.base import Store, Term
from kgprofiles.vocab import KGP_NS

KGP_CURRENT = KGP_NS + "Current"
KGP_TOPIC = KGP_NS + "topic"
#: The named queries the index is read from, in the order it reads them (each one's successor is
#: evaluated ahead, on the other core, while its rows are read: ``Store.select_rows``).
QUERIES = (
    "related-index-names",
    "related-index-titles",
    "related-index-roles",
    "related-index-topics",
    "related-index-work-kinds",
    "related-index-works",
    "related-index-events",
    "related-index-awards",
    "related-index-supervisions",
)
KGP_HOLDER, KGP_ORGANIZATION, KGP_STATUS = KGP_NS + "holder", KGP_NS + "organization", KGP_NS + "status"
KGP_CONTRIBUTOR, KGP_WORK = KGP_NS + "contributor", KGP_NS + "work"
KGP_SUBJECT, KGP_DATE, KGP_TITLE = KGP_NS + "subject", KGP_NS + "date", KGP_NS + "title"
KGP_PARTICIPANT, KGP_RECIPIENT, KGP_AWARD = KGP_NS + "participant", KGP_NS + "recipient", KGP_NS + "award"
KGP_ADVISOR, KGP_STUDENT = KGP_NS + "advisor", KGP_NS + "student"

_Ids = np.ndarray  # a sorted array of person numbers
#: Candidates scored exactly at a time (at least the limit): a page's 10 related people in one
#: step (at 100,000 people, 1.19 ms a person with 16, 1.00 with 8).
BATCH = 8


@dataclass
class _Membership:
    """One person at one organisation: each of their roles there, as (whether it is current, when
    it was held)."""

    roles: list[tuple[bool, Span]]

    @property
    def current(self) -> bool:
        return any(current for current, _ in self.roles)


def linked_by_subject(rows: Iterator[dict[str, str]], subject: str) -> dict[str, dict[str, list[str]]]:
    """Rows of (?subject, ?link, ?value), as subject → link → values: the join the flat queries
    leave to us."""
    found: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        found[row[subject]][row["link"]].append(row["value"])
    return found


class RelatedIndex:
    """The links of every person (organisations with their roles' times, topics, works, events, award
    receipts, supervisions) and every name, in memory."""

    def __init__(
        self,
        store: Store,
        queries: Mapping[str, NamedQuery],
        weight_overrides: Mapping[str, float] | None = None,
        *,
        advance: Callable[[int], None] = lambda steps: None,
    ):
        """Read from ``store`` with ``queries``; ``advance(1)`` after each of the ``QUERIES`` (a
        progress bar's steps: at 100,000 people each takes seconds to half a minute)."""
        started = time.perf_counter()
        self.weights = weights(weight_overrides)
        self._read(store, queries, advance)
        self._derive()
        self.seconds = time.perf_counter() - started

    @classmethod
    def from_state(cls, state: Mapping[str, Any], weight_overrides: Mapping[str, float] | None = None) -> RelatedIndex:
        """The index whose ``state()`` this is (``related_index_cache``: kept on disk for a store
        generation). A state of another shape raises KeyError, TypeError or ValueError."""
        started = time.perf_counter()
        index = cls.__new__(cls)
        index.weights = weights(weight_overrides)
        strings: list[str] = list(state["strings"])
        if not all(isinstance(s, str) for s in strings):
            raise TypeError("the strings are not strings")

        def text(number: Any) -> str:
            return strings[number]

        def texts(numbers: Any) -> list[str]:
            return [strings[n] for n in numbers]

        def sets(raw: Any) -> defaultdict[str, set[str]]:
            return defaultdict(set, {text(k): set(texts(v)) for k, v in raw})

        index._names = {text(k): texts(v) for k, v in state["names"]}
        index._titled = {text(k): (int(order), text(name)) for k, order, name in state["titled"]}
        index._orgs = defaultdict(dict)
        for person, org, roles in state["orgs"]:
            index._orgs[text(person)][text(org)] = _Membership(
                [(bool(current), (text(span[0]), text(span[1])) if span else None) for current, span in roles]
            )
        index._topics = defaultdict(dict)
        for person, topic, links in state["topics"]:
            index._topics[text(person)][text(topic)] = set(texts(links))
        index._software = set(texts(state["software"]))
        index._works = sets(state["works"])
        index._events = sets(state["events"])
        index._event_titles = {text(k): text(v) for k, v in state["event_titles"]}
        index._receipts = sets(state["receipts"])
        index._receipt_labels = {text(k): text(v) for k, v in state["receipt_labels"]}
        index._supervised = sets(state["supervised"])
        index._advisor_pairs = {(text(a), text(b)) for a, b in state["advisor_pairs"]}
        index._derive()
        index.seconds = time.perf_counter() - started
        return index

    def state(self) -> dict[str, Any]:
        """What the index read from the store, as JSON values (every text once, in ``strings``,
        and numbers for them elsewhere): ``from_state`` makes the same index again."""
        numbers: dict[str, int] = {}

        def n(text: str) -> int:
            number = numbers.get(text)
            if number is None:
                number = numbers[text] = len(numbers)
            return number

        def ns(values: Iterable[str]) -> list[int]:
            return [n(v) for v in sorted(values)]

        state = {
            "names": [[n(k), [n(v) for v in values]] for k, values in self._names.items()],
            "titled": [[n(k), order, n(name)] for k, (order, name) in self._titled.items()],
            "orgs": [
                [
                    n(person),
                    n(org),
                    [[current, [n(span[0]), n(span[1])] if span else None] for current, span in m.roles],
                ]
                for person, orgs in self._orgs.items()
                for org, m in orgs.items()
            ],
            "topics": [
                [n(person), n(topic), ns(links)]
                for person, topics in self._topics.items()
                for topic, links in topics.items()
            ],
            "software": ns(self._software),
            "works": [[n(k), ns(v)] for k, v in self._works.items()],
            "events": [[n(k), ns(v)] for k, v in self._events.items()],
            "event_titles": [[n(k), n(v)] for k, v in self._event_titles.items()],
            "receipts": [[n(k), ns(v)] for k, v in self._receipts.items()],
            "receipt_labels": [[n(k), n(v)] for k, v in self._receipt_labels.items()],
            "supervised": [[n(k), ns(v)] for k, v in self._supervised.items()],
            "advisor_pairs": [[n(a), n(b)] for a, b in sorted(self._advisor_pairs)],
        }
        return {"strings": list(numbers), **state}

    def _read(self, store: Store, queries: Mapping[str, NamedQuery], advance: Callable[[int], None]) -> None:
        """Read the links of the whole graph (``QUERIES``), ``advance(1)`` after each query."""
        kept: dict[str, str] = {}  # each IRI and name once in memory, however many rows name it
        one = kept.setdefault
        started_ahead: dict[str, Iterator[dict[str, Term]]] = {}

        def rows(name: str) -> Iterator[dict[str, str]]:  # streamed: millions of rows at 100,000 people
            # this query's successor runs ahead while this one's rows are read (1.6 M rows at most)
            following = QUERIES[QUERIES.index(name) + 1 :][:1]
            for each in (name, *following):
                if each not in started_ahead:
                    started_ahead[each] = named(queries, each).rows(store, ahead=True)
            for row in started_ahead.pop(name):
                yield {key: one(term.value, term.value) for key, term in row.items()}
            advance(1)

        names: dict[str, list[str]] = defaultdict(list)  # kgp:name, every value
        for row in rows("related-index-names"):
            names[row["thing"]].append(row["name"])
        self._names = {thing: sorted(values) for thing, values in names.items()}
        titled: dict[str, tuple[int, str]] = {}  # works and abouts: one name, a short name first
        titled.update((thing, (0, values[0])) for thing, values in self._names.items())
        for row in rows("related-index-titles"):
            keep_name(titled, row["thing"], (1, row["title"]))

        self._orgs: dict[str, dict[str, _Membership]] = defaultdict(dict)  # person → org → membership
        for links in linked_by_subject(rows("related-index-roles"), "role").values():
            dates = {link: links[link] for link in (KGP_START, KGP_END, KGP_AS_OF) if links[link]}
            for person, org, status in product(links[KGP_HOLDER], links[KGP_ORGANIZATION], links[KGP_STATUS]):
                if org in self._names:
                    current = status == KGP_CURRENT
                    membership = self._orgs[person].setdefault(org, _Membership([]))
                    membership.roles.append((current, role_span(dates, current)))
        self._topics: dict[str, dict[str, set[str]]] = defaultdict(dict)  # person → topic → links
        for row in rows("related-index-topics"):
            if row["topic"] in self._names:
                self._topics[row["person"]].setdefault(row["topic"], set()).add(row["link"])
        kinds: dict[str, set[str]] = defaultdict(set)
        for row in rows("related-index-work-kinds"):
            kinds[row["work"]].add(row["type"])
        self._software = {work for work, types in kinds.items() if KGP_SOFTWARE in types}
        self._works: dict[str, set[str]] = defaultdict(set)  # person → works
        for links in linked_by_subject(rows("related-index-works"), "contribution").values():
            for person, work in product(links[KGP_CONTRIBUTOR], links[KGP_WORK]):
                if work in kinds and work in titled:
                    self._works[person].add(work)
        self._events: dict[str, set[str]] = defaultdict(set)  # person → the events they took part in
        self._event_titles: dict[str, str] = {}
        for event, links in linked_by_subject(rows("related-index-events"), "event").items():
            if links[KGP_SUBJECT] and links[KGP_DATE] and links[KGP_TITLE]:
                self._event_titles[event] = min(links[KGP_TITLE])
                for person in {*links[KGP_SUBJECT], *links[KGP_PARTICIPANT]}:
                    self._events[person].add(event)
        self._receipts: dict[str, set[str]] = defaultdict(set)  # person → the award receipts they are recipients of
        self._receipt_labels: dict[str, str] = {}
        for receipt, links in linked_by_subject(rows("related-index-awards"), "receipt").items():
            award_names = [n for a in links[KGP_AWARD] for n in self._names.get(a, ())]
            labels = [award_label(n, d) for n in award_names for d in links[KGP_DATE]]
            if labels:
                self._receipt_labels[receipt] = min(labels)
                for person in links[KGP_RECIPIENT]:
                    self._receipts[person].add(receipt)
        self._supervised: dict[str, set[str]] = defaultdict(set)  # person → their advisors and students
        self._advisor_pairs: set[tuple[str, str]] = set()  # (advisor, student)
        for links in linked_by_subject(rows("related-index-supervisions"), "supervision").values():
            for advisor, student in product(links[KGP_ADVISOR], links[KGP_STUDENT]):
                if advisor != student:
                    self._advisor_pairs.add((advisor, student))
                    self._supervised[advisor].add(student)
                    self._supervised[student].add(advisor)
        self._titled = titled

    def _derive(self) -> None:
        """What ``related`` ranks from, made from what was read: every candidate's number and
        each thing's candidates as arrays."""
        # Candidates are the linked people with a name, numbered in (name, IRI) order: the tie-break.
        linked = set(self._orgs) | set(self._topics) | set(self._works) | set(self._events)
        linked |= set(self._receipts) | set(self._supervised)
        people = sorted((self._names[p][0], p) for p in linked if p in self._names)
        self._iris = [iri for _, iri in people]
        self._number = {iri: i for i, iri in enumerate(self._iris)}

        self._org_members = self._members((p, org) for p, orgs in self._orgs.items() for org in orgs)
        self._org_current = self._members(
            (p, o) for p, orgs in self._orgs.items() for o, m in orgs.items() if m.current
        )
        self._org_spans = self._spans()
        self._topic_members = self._members((p, topic) for p, topics in self._topics.items() for topic in topics)
        self._work_members = self._members((p, work) for p, works in self._works.items() for work in works)
        self._event_members = self._members((p, e) for p, events in self._events.items() for e in events)
        self._receipt_members = self._members((p, r) for p, receipts in self._receipts.items() for r in receipts)
        self._supervision_members = self._members((p, o) for o, others in self._supervised.items() for p in others)

    def _spans(self) -> dict[str, tuple[_Ids, np.ndarray, np.ndarray]]:
        """Organisation → its candidates' roles there whose time is known: (person numbers, first
        days, last days), the days as the ``YYYY-MM-DD`` text ``overlap`` compares."""
        found: dict[str, list[tuple[int, str, str]]] = defaultdict(list)
        for person, orgs in self._orgs.items():
            number = self._number.get(person)
            if number is not None:
                for org, membership in orgs.items():
                    for _, span in membership.roles:
                        if span:
                            found[org].append((number, span[0], span[1]))
        return {
            org: (
                np.array([number for number, _, _ in roles], dtype=np.int64),
                np.array([first for _, first, _ in roles], dtype=str),
                np.array([last for _, _, last in roles], dtype=str),
            )
            for org, roles in found.items()
        }

    def _overlapping(self, org: str, spans: list[tuple[str, str]]) -> _Ids | None:
        """The candidates with a role at ``org`` whose time shares a day with one of ``spans``."""
        held = self._org_spans.get(org)
        if held is None:
            return None
        numbers, firsts, lasts = held
        shared = np.zeros(len(numbers), dtype=bool)
        for first, last in spans:  # (numpy compares the texts as overlap() does)
            shared |= (firsts <= last) & (lasts >= first)
        return np.unique(numbers[shared])

    def _members(self, links: Iterator[tuple[str, str]]) -> dict[str, _Ids]:
        """Thing → the sorted numbers of the candidates linked to it."""
        found: dict[str, list[int]] = defaultdict(list)
        for person, thing in links:
            number = self._number.get(person)
            if number is not None:
                found[thing].append(number)
        return {thing: np.array(sorted(ids), dtype=np.int64) for thing, ids in found.items()}

    def __len__(self) -> int:
        """How many people can be related to someone (linked, with a name)."""
        return len(self._iris)

    def name(self, person: str) -> str | None:
        """The person's name (the first in text order, if several), or None."""
        names = self._names.get(person)
        return names[0] if names else None

    @property
    def people(self) -> list[str]:
        """The IRIs of every linked person (with or without a name), sorted."""
        linked = set(self._orgs) | set(self._topics) | set(self._works) | set(self._events)
        return sorted(linked | set(self._receipts) | set(self._supervised))

    def topic_members(self, topic: str) -> list[tuple[str, str]]:
        """Each (person, name) of the people on ``topic`` (``kgp:topic``), a row a name, in (name,
        IRI) order: ``queries/topic-members.rq``'s rows, sorted."""
        numbers = self._topic_members.get(topic, ())
        on = (self._iris[n] for n in numbers)
        on_topic = (person for person in on if KGP_TOPIC in self._topics[person][topic])  # (not only kgp:firstTopic)
        found = [(name, person) for person in on_topic for name in self._names[person]]
        return [(person, name) for name, person in sorted(found)]

    def home_organization(self, person: str) -> str:
        """The first (by IRI) of the organisations the person holds a role at, current ones first;
        "" for none: a key that puts people near the colleagues they are most often related to."""
        orgs = self._orgs.get(person, {})
        return min(orgs, key=lambda org: (not orgs[org].current, org), default="")

    def current_organization_names(self, person: str) -> list[str]:
        """Every name of every organisation the person holds a current role at, sorted
        (``queries/topic-member-organizations.rq``'s ``?orgName`` for the person)."""
        orgs = self._orgs.get(person, {})
        return sorted({name for org, membership in orgs.items() if membership.current for name in self._names[org]})

    # ------------------------------------------------------------------ one person

    def related(self, person: ox.NamedNode | str, limit: int | None = None) -> list[Related]:
        """What ``related_people(store, queries, person, weights, limit)`` gives, from memory.

        The best ``limit`` are looked for first among the people who share more than topics with
        the person: at 100,000 people a topic has thousands of people, nine in ten of a person's
        candidates, and they are almost never among the best ten (1.21 → 0.55 ms a person,
        ``bench/RESULTS.md``). Where the last of those kept does not score more than sharing every
        one of the person's topics would, everyone is ranked (the same answer either way)."""
        iri = person.value if isinstance(person, ox.NamedNode) else person
        if limit is not None and limit <= 0:
            return []
        if limit is not None and min(self.weights.values()) >= 0:
            kept = self._best(iri, *self._bounds(iri, topic_only=False), limit)
            if len(kept) == limit and kept[-1].score > self._topics_at_most(iri) + 1e-9:
                return kept
        return self._best(iri, *self._bounds(iri), limit)

    def _topics_at_most(self, iri: str) -> float:
        """The most a candidate who shares only topics with the person can score: every topic."""
        return sum(each for _, each, _ in self._topic_parts(iri))

    def _topic_parts(self, iri: str) -> list[tuple[_Ids, float, int]]:
        """Each topic of the person (``kgp:topic``) that has people: its people, the points and the
        links sharing it is worth at most."""
        w, names = self.weights["topic"], self._names
        return [
            (members, w * len(names[topic]), len(names[topic]))
            for topic, topic_links in self._topics.get(iri, {}).items()
            if KGP_TOPIC in topic_links and (members := self._topic_members.get(topic)) is not None and len(members)
        ]

    def _best(
        self, iri: str, candidates: _Ids, bound: np.ndarray, links: np.ndarray, limit: int | None
    ) -> list[Related]:
        """The best ``limit`` of ``candidates`` (``_bounds``' arrays), exactly scored, best first."""
        me = self._number.get(iri)
        if me is not None:
            others = candidates != me
            candidates, bound, links = candidates[others], bound[others], links[others]
        bounds = np.round(bound, 6)
        # Best bound first, then most links at most, then name order: the order of rank_key's parts.
        by_rank = np.lexsort((candidates, -links, -bounds))
        order, ordered_bounds, ordered_links = candidates[by_rank], bounds[by_rank], links[by_rank]
        if limit is None or min(self.weights.values()) < 0:  # a negative weight: no bound holds
            return best_first([self._exact(iri, int(c)) for c in order], limit)
        kept: list[Related] = []
        step, at = max(limit, BATCH), 0
        while at < len(order):
            kept.extend(self._exact(iri, int(c)) for c in order[at : at + step])
            kept = best_first(kept, limit)
            at += step
            if len(kept) == limit and at < len(order):
                last = kept[-1]
                # No one left can beat the last kept: a lower bound; or the same bound and fewer links
                # at most; or the same bound and links and later by name.
                bound_at, links_at = ordered_bounds[at], int(ordered_links[at])
                if (
                    bound_at < last.score
                    or (bound_at == last.score and links_at < last.links)
                    or (bound_at == last.score and links_at == last.links and int(order[at]) > self._number[last.iri])
                ):
                    break
        return kept

    def _bounds(self, iri: str, topic_only: bool = True) -> tuple[_Ids, np.ndarray, np.ndarray]:
        """The candidates (the people linked to ``iri`` at all, by number, sorted), and for each
        a score at least its exact score (when no weight is negative) and a number of links at
        least its exact number. Summed over the candidates only, not arrays of everyone: at
        100,000 people 0.83–0.88 against 1.20–1.22 ms a person's ten related people.
        ``topic_only`` False: without the people who share nothing but topics with ``iri`` (the
        others' bounds still count the topics they share)."""
        w = self.weights
        parts: list[_Ids] = []
        points: list[float] = []
        counts: list[int] = []

        def add(ids: _Ids | None, each: float, links: int) -> None:
            if ids is not None and len(ids):
                parts.append(ids)
                points.append(each)
                counts.append(links)

        for org, mine in self._orgs.get(iri, {}).items():
            # A shared organisation counts once: as current (both current), else as overlapping
            # (two roles share a day), else as other. At most the best of the weights that may apply.
            n = len(self._names[org])
            add(self._org_members.get(org), w["other_org"] * n, n)
            current = self._org_current.get(org) if mine.current and w["current_org"] > w["other_org"] else None
            spans = [span for _, span in mine.roles if span]
            overlapping = self._overlapping(org, spans) if spans and w["overlap_org"] > w["other_org"] else None
            extra_current = (w["current_org"] - w["other_org"]) * n
            extra_overlap = (w["overlap_org"] - w["other_org"]) * n
            if current is not None and overlapping is not None and len(current) and len(overlapping):
                both = np.intersect1d(current, overlapping, assume_unique=True)
                add(current, extra_current, 0)
                add(overlapping, extra_overlap, 0)
                add(both, -min(extra_current, extra_overlap), 0)  # (the better of the two, not both)
            else:
                add(current, extra_current, 0)
                add(overlapping, extra_overlap, 0)
        topics = self._topic_parts(iri)
        for members, each, n in topics if topic_only else ():
            add(members, each, n)
        for work in self._works.get(iri, ()):
            add(self._work_members.get(work), w["work"], 1)
        for event in self._events.get(iri, ()):
            add(self._event_members.get(event), w["event"], 1)
        for receipt in self._receipts.get(iri, ()):
            add(self._receipt_members.get(receipt), w["award"], 1)
        if iri in self._supervised and iri in self._names:
            add(self._supervision_members.get(iri), w["supervision"] * 2, 2)  # my advisor and my student, at most
        if not parts:
            return np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0, dtype=np.int64)
        ids = np.concatenate(parts)
        sizes = [len(p) for p in parts]
        candidates, position = np.unique(ids, return_inverse=True)
        bound = np.bincount(position, weights=np.repeat(np.array(points), sizes), minlength=len(candidates))
        links = np.bincount(
            position, weights=np.repeat(np.array(counts, dtype=np.float64), sizes), minlength=len(candidates)
        )
        for members, each, n in () if topic_only else topics:  # (the topics of those linked otherwise)
            at = np.minimum(np.searchsorted(members, candidates), len(members) - 1)
            shared = members[at] == candidates
            bound[shared] += each
            links[shared] += n
        return candidates, bound, np.rint(links).astype(np.int64)

    def _exact(self, iri: str, number: int) -> Related:
        """The candidate's exact score and reason, as the per-person queries give them."""
        other = self._iris[number]
        c = Candidate(self._names[other][0])
        mine, theirs = self._orgs.get(iri, {}), self._orgs.get(other, {})
        for org in mine.keys() & theirs.keys():
            for (my_current, my_span), (their_current, their_span) in product(mine[org].roles, theirs[org].roles):
                c.add_role_pair(self._names[org], my_current and their_current, overlap(my_span, their_span))
        my_topics, their_topics = self._topics.get(iri, {}), self._topics.get(other, {})
        for topic in my_topics.keys() & their_topics.keys():
            if KGP_TOPIC in my_topics[topic]:
                for name in self._names[topic]:
                    c.add_topic(name, KGP_FIRST_TOPIC in their_topics[topic])
        for work in self._works.get(iri, set()) & self._works.get(other, set()):
            c.work_names[work] = self._titled[work]
        for event in self._events.get(iri, set()) & self._events.get(other, set()):
            c.events[event] = self._event_titles[event]
        for receipt in self._receipts.get(iri, set()) & self._receipts.get(other, set()):
            c.awards[receipt] = self._receipt_labels[receipt]
        my_names = self._names.get(iri)
        if my_names and other in self._supervised.get(iri, set()):
            for advisor_of_me in (True, False):
                pair = (other, iri) if advisor_of_me else (iri, other)
                if pair in self._advisor_pairs:
                    c.supervisions.add(supervision_label(advisor_of_me, my_names[0]))
        return scored(other, c, self._software, self.weights)
