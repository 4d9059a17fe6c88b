"""Summary boxes: the few facts a reader looks for first, as labelled rows of items.

A box is plain data: each row has a label and items; an item is text and, where it has one, the IRI
it stands for (a thing of the graph, or an address elsewhere). The renderers decide what becomes a
link (``render.html.local_link`` and ``render.links.external_href``: a ``javascript:`` address
from the data is shown as text, never linked).

Each kind of box is one table of ``(label, rule)``; a rule reads the facts and gives the row's
items, and a row without items is left out. A new row is one line in its table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pyoxigraph as ox

from kgprofiles.profiles import Link, OrganizationView, Profile, TopicView, Views
from kgprofiles.render import education_text, life_text
from kgprofiles.vocab import WD_NS


@dataclass(frozen=True)
class Item:
    text: str
    iri: str | None = None
    notes: tuple[int, ...] = ()  # footnotes: the sources of a claim shown in the box


@dataclass(frozen=True)
class Row:
    label: str
    items: tuple[Item, ...]


@dataclass(frozen=True)
class InfoBox:
    kind: str  # person, organization, topic
    name: str
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class PersonFacts:
    """What a person's box reads: the profile, and the links the profile keeps as names only."""

    profile: Profile
    topics: tuple[Link, ...]
    same_as: tuple[str, ...]  # every owl:sameAs of the person, in text order
    events: tuple[str, ...] = ()  # the IRI of each entry of profile.timeline, in its order


def _wikidata(iris: tuple[str | None, ...]) -> tuple[Item, ...]:
    """Wikidata entity IRIs as "Q…" items, each once, in text order."""
    found = sorted({i for i in iris if i and i.startswith(WD_NS)})
    return tuple(Item(i[len(WD_NS) :], i) for i in found)


#: Known identifier schemes: the start of the IRI → the name shown before the identifier.
IDENTIFIER_SCHEMES = {
    "https://orcid.org/": "ORCID",
    "http://orcid.org/": "ORCID",
    "https://dblp.org/pid/": "DBLP",
    "https://scholar.google.com/citations?user=": "Google Scholar",
    "https://github.com/": "GitHub",
}


def identifier(iri: str) -> Item:
    """An identifier elsewhere as "ORCID 0000-…" where its scheme is known, else the IRI itself."""
    for start, name in IDENTIFIER_SCHEMES.items():
        if iri.startswith(start) and len(iri) > len(start):
            return Item(f"{name} {iri[len(start) :]}", iri)
    return Item(iri, iri)


def _life(p: Profile, kind: str) -> tuple[Item, ...]:
    """A birth or a death (``kind``): date and place, with its sources."""
    return tuple(Item(life_text(x), None, x.notes) for x in p.life if x.kind == kind)


def _identifiers(f: PersonFacts) -> tuple[Item, ...]:
    """The typed identifiers of the data (ORCID, DBLP, ... with their pages), then every other
    owl:sameAs that is not Wikidata's."""
    typed = tuple(Item(f"{i.label} {i.value}", i.url) for i in f.profile.identifiers)
    shown = {i.iri for i in typed}
    return typed + tuple(identifier(i) for i in f.same_as if not i.startswith(WD_NS) and i not in shown)


PersonRule = Callable[[PersonFacts], tuple[Item, ...]]
#: The person's box, row by row (a new row, e.g. born, educated at, awards: one line here).
PERSON_ROWS: tuple[tuple[str, PersonRule], ...] = (
    ("Known for", lambda f: (Item(f.profile.headline),) if f.profile.headline else ()),
    ("Born", lambda f: _life(f.profile, "born")),
    ("Died", lambda f: _life(f.profile, "died")),
    ("Works at", lambda f: tuple(Item(w.name, w.iri) for w in f.profile.workplaces)),
    ("Education", lambda f: tuple(Item(education_text(e), None, e.notes) for e in f.profile.education)),
    ("Awards", lambda f: tuple(Item(f"{a.name} ({a.date.text})", None, a.notes) for a in f.profile.awards)),
    ("Topics", lambda f: tuple(Item(t.name, t.iri) for t in f.topics)),
    ("Wikidata", lambda f: _wikidata((f.profile.wikidata, *f.same_as))),
    ("Identifiers", _identifiers),
    ("Sources", lambda f: (Item(f"{len(f.profile.sources)} numbered sources"),) if f.profile.sources else ()),
)


def _count(n: int, one: str, many: str) -> tuple[Item, ...]:
    return (Item(f"{n} {one if n == 1 else many}"),)


def _members(o: OrganizationView, status: str) -> tuple[Item, ...]:
    people = {m.iri for m in o.members if m.status == status}
    return _count(len(people), "person", "people") if people else ()


OrganizationRule = Callable[[OrganizationView], tuple[Item, ...]]
#: The organisation's box, row by row.
ORGANIZATION_ROWS: tuple[tuple[str, OrganizationRule], ...] = (
    ("Also known as", lambda o: tuple(Item(a) for a in o.alt_names)),
    ("People in the graph", lambda o: _count(o.people, "person", "people")),
    ("Current roles", lambda o: _members(o, "current")),
    ("Former roles", lambda o: _members(o, "former")),
    ("Not confirmed as current", lambda o: _members(o, "not confirmed")),
    ("Wikidata", lambda o: _wikidata((o.wikidata,))),
)


def _topic_orgs(t: TopicView) -> tuple[Item, ...]:
    """The current organisations of the topic's people, most people first, then by name."""
    counts: dict[str, int] = {}
    for m in t.members:
        for name in m.organizations:
            counts[name] = counts.get(name, 0) + 1
    return tuple(Item(f"{name} ({n})") for name, n in sorted(counts.items(), key=lambda x: (-x[1], x[0])))


TopicRule = Callable[[TopicView], tuple[Item, ...]]
#: The topic's box, row by row.
TOPIC_ROWS: tuple[tuple[str, TopicRule], ...] = (
    ("People in the graph", lambda t: _count(t.people, "person", "people")),
    ("Where they work now", _topic_orgs),
    ("Wikidata", lambda t: _wikidata((t.wikidata,))),
)


def _rows(rules: tuple[tuple[str, Callable[[object], tuple[Item, ...]]], ...], facts: object) -> tuple[Row, ...]:
    return tuple(Row(label, items) for label, rule in rules if (items := rule(facts)))


def person_facts(views: Views, profile: Profile) -> PersonFacts:
    """The profile with its topics' IRIs, the person's owl:sameAs links and its timeline events'
    IRIs (three named queries; person-timeline is the query the profile's timeline comes from, in
    the same order)."""
    person = ox.NamedNode(profile.iri)
    topics = tuple(Link(r["topic"].value, r["name"].value) for r in views.select("person-topics", person=person).rows)
    same_as = tuple(r["same"].value for r in views.select("person-same-as", person=person).rows)
    events = tuple(r["event"].value for r in views.select("person-timeline", person=person).rows)
    return PersonFacts(profile, topics, same_as, events if len(events) == len(profile.timeline) else ())


def person_box(facts: PersonFacts) -> InfoBox:
    return InfoBox("person", facts.profile.name, _rows(PERSON_ROWS, facts))  # type: ignore[arg-type]


def organization_box(o: OrganizationView) -> InfoBox:
    return InfoBox("organization", o.name, _rows(ORGANIZATION_ROWS, o))  # type: ignore[arg-type]


def topic_box(t: TopicView) -> InfoBox:
    return InfoBox("topic", t.name, _rows(TOPIC_ROWS, t))  # type: ignore[arg-type]
