"""Related people: a weighted score over the evidence two people share, with a reason that names
each piece of it. Strong: an award receipt both are recipients of, a supervision (advisor and
student), a work both contributed to, an organisation where both hold a current role; then an
organisation where their roles overlap in time; weak: the same organisation at any time, a shared
topic. An event counts only for the people who took part in it (its subject and participants). Ties
break by the number of shared links, then by name. The queries are ``queries/related-*.rq``; the
weights live here."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import pyoxigraph as ox

from kgprofiles.errors import InputError
from kgprofiles.queries import NamedQuery
from kgprofiles.queries import named as named_query
from kgprofiles.store.base import SelectResult, Store, Term
from kgprofiles.store.binding import bind_rows, chunks
from kgprofiles.vocab import KGP_NS

#: The one place the weights are set; ``[kgprofiles.related_weights]`` in kgprofiles.toml overrides.
DEFAULT_WEIGHTS: dict[str, float] = {
    "current_org": 3.0,  # an organisation where both hold a current role
    "other_org": 1.0,  # an organisation shared otherwise (former, or not confirmed as current)
    "topic": 1.0,  # a shared topic
    "work": 2.0,  # a work both contributed to
    "event": 1.0,  # an event both took part in (its subject or a participant)
    "award": 5.0,  # an award receipt both are recipients of (they shared the prize)
    "supervision": 5.0,  # one was the other's doctoral advisor
    "overlap_org": 2.0,  # an organisation where their roles overlap in time (not both current)
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

    @property
    def links(self) -> int:
        """How many links the two share (the first tie-break)."""
        return sum(c.count for c in self.components)


KGP_NAME, KGP_FIRST_TOPIC, KGP_SOFTWARE = (KGP_NS + "name", KGP_NS + "firstTopic", KGP_NS + "Software")
#: The named queries behind each kind of link (``queries/related-*.rq``).
QUERIES = (
    "related-orgs",
    "related-role-dates",
    "related-topics",
    "related-works",
    "related-events",
    "related-awards",
    "related-supervisions",
)
KGP_START, KGP_END, KGP_AS_OF, KGP_STATUS = KGP_NS + "start", KGP_NS + "end", KGP_NS + "asOf", KGP_NS + "status"
_CURRENT_IRI = KGP_NS + "Current"
_TIME_ZONE = re.compile(r"(Z|[+-]\d\d:\d\d)$")
#: A role's time span as two day strings (first, last), or None when the dates do not allow one.
Span = tuple[str, str] | None


def role_span(dates: Mapping[str, list[str]], current: bool) -> Span:
    """When a role was held, from its kgp:start, kgp:end and kgp:asOf values (at any precision):
    from its start (or point in time) to its end (or point in time; a current role runs on). A
    year reads as the whole year, a month as the whole month. None when the dates do not say."""
    starts = sorted(_day(v, first=True) for v in (dates.get(KGP_START) or dates.get(KGP_AS_OF) or []))
    ends = sorted(_day(v, first=False) for v in (dates.get(KGP_END) or dates.get(KGP_AS_OF) or []))
    if not starts:
        return None
    if not ends:
        return (starts[0], "9999-12-31") if current else None
    return (starts[0], ends[-1])


def _day(value: str, first: bool) -> str:
    text = _TIME_ZONE.sub("", value)
    if len(text) == 4:
        return text + ("-01-01" if first else "-12-31")
    if len(text) == 7:
        return text + ("-01" if first else "-31")
    return text[:10]


def overlap(a: Span, b: Span) -> bool:
    """Whether two spans share a day (False when either is unknown)."""
    return a is not None and b is not None and a[0] <= b[1] and b[0] <= a[1]


def award_label(name: str, date: str) -> str:
    """ "the 1903 Example Prize": the year of the receipt and the award's name."""
    year = re.match(r"-?\d+", date)
    return f"the {year.group(0)} {name}" if year else f"the {name}"


def supervision_label(advisor_of_me: bool, my_name: str) -> str:
    return f"Doctoral {'advisor' if advisor_of_me else 'student'} of {my_name}"


@dataclass
class Candidate:
    name: str
    first_topic: str | None = None
    work_names: dict[str, tuple[int, str]] = field(default_factory=dict)  # IRI → (0 short name | 1 title, name)
    current_orgs: set[str] = field(default_factory=set)
    orgs: set[str] = field(default_factory=set)
    overlap_orgs: set[str] = field(default_factory=set)
    topics: set[str] = field(default_factory=set)
    awards: dict[str, str] = field(default_factory=dict)  # receipt IRI → "the 1903 Example Prize"
    supervisions: set[str] = field(default_factory=set)  # "Doctoral advisor of …"
    events: dict[str, str] = field(default_factory=dict)  # event IRI → its title

    def add_role_pair(self, org_names: list[str], both_current: bool, overlapping: bool) -> None:
        """One of my roles and one of theirs at the same organisation."""
        if both_current:
            self.current_orgs.update(org_names)
        else:
            self.orgs.update(org_names)
            if overlapping:
                self.overlap_orgs.update(org_names)

    def add_topic(self, name: str, first: bool) -> None:
        """A shared topic; ``first`` when it is the one listed first for the candidate (if
        several are, the first in text order)."""
        self.topics.add(name)
        if first and (self.first_topic is None or name < self.first_topic):
            self.first_topic = name


def _reason(c: Candidate, names: Mapping[str, list[str]], writing: set[str], code: set[str]) -> str:
    """The evidence in words, strongest first (the shared prize, the supervision, a current
    organisation), then the topics and the weaker links."""
    parts = []
    if names["award"]:
        parts.append("Shared " + ", ".join(names["award"]))
    parts.extend(names["supervision"])
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
    if names["overlap_org"]:
        parts.append("Both at " + ", ".join(names["overlap_org"]) + " at the same time")
    if names["other_org"]:
        parts.append("Both at " + ", ".join(names["other_org"]) + " (not both current)")
    if names["event"]:
        parts.append("Both took part in " + ", ".join(f"“{e}”" for e in names["event"]))
    return " · ".join(parts)


def related_people(
    store: Store,
    queries: Mapping[str, NamedQuery],
    person: ox.NamedNode,
    weight_overrides: Mapping[str, float] | None = None,
    limit: int | None = None,
) -> list[Related]:
    """The people related to ``person``, best first (score, shared links, name, IRI). Each kind of
    link is one flat query bound to the person (``QUERIES``); the scores are summed here.

    With a ``limit`` (and a topic weight of 0 or more), the people who share only topics with the
    person are not read a row per link: a topic is a weak link that thousands may share (8,000
    people at 100,000). The others are scored first; then, only if someone sharing n topic names
    could still rank among the first ``limit``, the topic sharers are counted and read, most
    shared topics first, until no one further down could. The answer is the same either way
    (tests/test_related_index.py compares every person, limit and weighting)."""
    w = weights(weight_overrides)
    found: dict[str, Candidate] = {}
    unbindable = False  # a candidate that is a blank node cannot be narrowed to by VALUES

    def rows(name: str) -> Iterator[tuple[Candidate, dict[str, Term]]]:
        nonlocal unbindable
        for row in _rows(queries, store, person, name):
            unbindable = unbindable or isinstance(row["other"], ox.BlankNode)
            name_text = row["name"].value
            candidate = found.get(row["other"].value)
            if candidate is None:
                candidate = found[row["other"].value] = Candidate(name_text)
            elif name_text < candidate.name:  # more than one name: the first in text order
                candidate.name = name_text
            yield candidate, row

    def named(names: dict[str, tuple[int, str]], row: dict[str, Term], node: str, name: str) -> None:
        keep_name(names, row[node].value, (0 if row["nameProperty"].value == KGP_NAME else 1, row[name].value))

    spans: dict[str, Span] = {}  # a role → when it was held (its own status says whether it runs on)
    for row in _rows(queries, store, person, "related-role-dates"):
        links: dict[str, list[str]] = {}
        for pair in row["values"].value.split(" ") if "values" in row else ():
            key, _, value = pair.partition("=")
            links.setdefault(KGP_NS + key, []).append(value)
        spans[row["role"].value] = role_span(links, _CURRENT_IRI in links.get(KGP_STATUS, ()))
    for c, row in rows("related-orgs"):
        both_current = row["bothCurrent"].value == "true"
        overlapping = not both_current and overlap(spans.get(row["mine"].value), spans.get(row["theirs"].value))
        c.add_role_pair([row["orgName"].value], both_current, overlapping)
    software: set[str] = set()
    for c, row in rows("related-works"):
        named(c.work_names, row, "work", "workName")
        if row["type"].value == KGP_SOFTWARE:
            software.add(row["work"].value)
    for c, row in rows("related-events"):
        keep_first(c.events, row["event"].value, row["title"].value)
    for c, row in rows("related-awards"):
        keep_first(c.awards, row["receipt"].value, award_label(row["awardName"].value, row["date"].value))
    supervised = [(c, row["theirLink"] == _ADVISOR, row["myName"].value) for c, row in rows("related-supervisions")]
    my_name = min((name for _, _, name in supervised), default="")  # several names: the first in text order
    for c, advisor_of_me, _ in supervised:
        c.supervisions.add(supervision_label(advisor_of_me, my_name))

    def add_topics(others: list[str] | None = None) -> list[Related]:
        """Add the topics shared (by ``others`` only, if given); everyone found so far, ranked."""
        if others is None:
            for c, row in rows("related-topics"):
                c.add_topic(row["topicName"].value, row["link"].value == KGP_FIRST_TOPIC)
        for batch in chunks(others or []):
            names: dict[str, str] = {}  # of the people not found yet: the first in text order
            for row in _narrowed(
                named_query(queries, "related-index-names"), store, [o for o in batch if o not in found], "thing"
            ):
                keep_first(names, row["thing"].value, row["name"].value)
            for row in _narrowed(named_query(queries, "related-topic-links"), store, batch):
                other, topic = row["other"].value, row["topic"].value
                if topic not in mine or (other not in found and other not in names):
                    continue
                candidate = found.get(other) or found.setdefault(other, Candidate(names[other]))
                for topic_name in mine[topic]:
                    candidate.add_topic(topic_name, row["link"].value == KGP_FIRST_TOPIC)
        return best_first([scored(iri, c, software, w) for iri, c in found.items()], None)

    mine: dict[str, set[str]] = {}  # the person's topics (IRIs) → their names
    for row in _rows(queries, store, person, "related-my-topics"):
        unbindable = unbindable or isinstance(row["topic"], ox.BlankNode)  # STR() of it is an error
        mine.setdefault(row["topic"].value, set()).add(row["topicName"].value)
    if limit is None or limit < 1 or w["topic"] < 0 or unbindable:
        return add_topics()[:limit]
    ranked = add_topics(list(found))
    if not _may_rank(len(set().union(*mine.values())), w["topic"], ranked, limit):
        return ranked[:limit]
    tiers: dict[int, list[str]] = {}  # topic names shared → the people outside ``found`` sharing that many
    for row in _rows(queries, store, person, "related-topic-sharers"):
        if isinstance(row["other"], ox.BlankNode):
            return add_topics()[:limit]
        if row["other"].value not in found:
            shared = set().union(*(mine.get(topic, set()) for topic in row["topics"].value.split(" ")))
            if shared:
                tiers.setdefault(len(shared), []).append(row["other"].value)
    for count in sorted(tiers, reverse=True):
        if not _may_rank(count, w["topic"], ranked, limit):
            break
        ranked = add_topics(tiers[count])
    return ranked[:limit]


_ADVISOR = ox.NamedNode(KGP_NS + "advisor")


def _rows(queries: Mapping[str, NamedQuery], store: Store, person: ox.NamedNode, name: str) -> list[dict[str, Term]]:
    result = named_query(queries, name).run(store, {"person": person})
    assert isinstance(result, SelectResult)
    return list(result.rows)


def _narrowed(
    query: NamedQuery, store: Store, others: list[str], variable: str = "other"
) -> tuple[dict[str, Term], ...]:
    """The rows of ``query`` for ``others`` (IRIs, bound by VALUES ?``variable``)."""
    if not others:
        return ()
    result = store.query(bind_rows(query.text, variable, [ox.NamedNode(o) for o in others]))
    assert isinstance(result, SelectResult)
    return result.rows


def _may_rank(topics: int, weight: float, ranked: list[Related], limit: int) -> bool:
    """Whether someone who shares only ``topics`` topic names (scored ``topics`` × ``weight``, as
    many links) could still rank among the first ``limit`` of ``ranked`` (on a tie of score and
    links, the name decides: they could)."""
    if len(ranked) < limit:
        return True
    last = rank_key(ranked[limit - 1])
    return (-round(topics * weight, 6), -topics) <= last[:2]


def keep_first(found: dict[str, str], node: str, label: str) -> None:
    """One label per node: the first in text order (a node with several names or dates)."""
    if node not in found or label < found[node]:
        found[node] = label


def keep_name(names: dict[str, tuple[int, str]], node: str, rank: tuple[int, str]) -> None:
    """Keep one name per node: a short name (rank 0) before a title (1), then the first in text order."""
    if node not in names or rank < names[node]:
        names[node] = rank


def scored(iri: str, c: Candidate, software: set[str], w: Mapping[str, float]) -> Related:
    """The candidate's score, components and reason (``software``: the shared works that are software)."""
    writing = {name for work, (_, name) in c.work_names.items() if work not in software}
    code = {name for work, (_, name) in c.work_names.items() if work in software}
    overlapping = c.overlap_orgs - c.current_orgs
    names = {
        "current_org": sorted(c.current_orgs),
        "other_org": sorted(c.orgs - c.current_orgs - overlapping),
        "topic": sorted(c.topics),
        "work": sorted(writing) + sorted(code),
        "event": sorted(set(c.events.values())),
        "award": sorted(set(c.awards.values())),
        "supervision": sorted(c.supervisions),
        "overlap_org": sorted(overlapping),
    }
    components = tuple(
        Component(kind, len(names[kind]), w[kind], tuple(names[kind])) for kind in DEFAULT_WEIGHTS if names[kind]
    )
    score = round(sum(x.points for x in components), 6)
    return Related(iri, c.name, score, _reason(c, names, writing, code), components)


def rank_key(r: Related) -> tuple[float, int, str, str]:
    """Best first: the higher score, then more shared links, then the name, then the IRI."""
    return (-r.score, -r.links, r.name, r.iri)


def best_first(people: list[Related], limit: int | None) -> list[Related]:
    people.sort(key=rank_key)
    return people[:limit] if limit is not None else people
