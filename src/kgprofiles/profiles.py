"""View models of a person's profile, an organisation and a topic, built from named queries.

Nothing here writes SPARQL: each section comes from one query in ``queries/``. The models are plain
frozen dataclasses; the renderers (``render/``) and the JSON API read them.
"""

from __future__ import annotations

import logging
import re
import sqlite3
import threading
import time
from collections import Counter, OrderedDict, defaultdict
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar
from urllib.parse import quote

import pyoxigraph as ox

from kgprofiles.config import RELATED_ON_PROFILE, SearchPath
from kgprofiles.dates import format_date, precision
from kgprofiles.errors import InputError
from kgprofiles.freed_memory import give_back_freed_memory
from kgprofiles.names import NameMatcher, normalize
from kgprofiles.progress import Progress, Silent
from kgprofiles.queries import (
    NamedQuery,
    load_queries,
    named,
    resolve_iri,
    select_rows,
    select_sorted_here,
    whole_graph_form,
)
from kgprofiles.related import Related, related_people
from kgprofiles.store.base import SelectResult, Store, Term
from kgprofiles.store.binding import bind_each, bind_rows, chunks, projection
from kgprofiles.store.order_in_python import sorted_rows, split_order_by, without
from kgprofiles.vocab import KGP_NS, RDF_NS, WD_NS, ids

if TYPE_CHECKING:
    from kgprofiles.profile_shelf import ProfileShelf
    from kgprofiles.related_index import RelatedIndex

log = logging.getLogger(__name__)
STATUS_NAMES = {
    KGP_NS + "Current": "current",
    KGP_NS + "Former": "former",
    KGP_NS + "NotConfirmedCurrent": "not confirmed",
}
_CURRENT = KGP_NS + "Current"
_STATUS_ORDER = {_CURRENT: 0, KGP_NS + "Former": 1, KGP_NS + "NotConfirmedCurrent": 2}


class NotFound(InputError):
    """No person, organisation or topic matches."""


class Ambiguous(InputError):
    """A name matches several people; the message lists them."""


@dataclass(frozen=True)
class DateValue:
    iso: str
    precision: str
    text: str

    @classmethod
    def of(cls, term: Term | None) -> DateValue | None:
        if not isinstance(term, ox.Literal):
            return None
        return cls(term.value, precision(term), format_date(term))


@dataclass(frozen=True)
class Paragraph:
    text: str
    notes: tuple[int, ...]


@dataclass(frozen=True)
class WorkItem:
    iri: str
    title: str
    name: str
    kind: str
    description: str | None
    date: DateValue | None
    venue: str | None
    license: str | None
    contribution: tuple[str, ...]
    featured: bool
    notes: tuple[int, ...]


@dataclass(frozen=True)
class TimelineItem:
    date: DateValue
    label: str
    notes: tuple[int, ...]


@dataclass(frozen=True)
class RoleItem:
    organization: str
    organization_name: str
    title: str | None
    status: str
    start: DateValue | None
    end: DateValue | None
    notes: tuple[int, ...]
    as_of: DateValue | None = None  # a role known at a point in time (kgp:asOf)


@dataclass(frozen=True)
class PersonLink:
    iri: str
    name: str


@dataclass(frozen=True)
class LifeItem:
    """A birth or a death: ``kind`` is "born" or "died"."""

    kind: str
    date: DateValue | None
    place: str | None
    notes: tuple[int, ...]


@dataclass(frozen=True)
class AwardItem:
    award: str
    name: str
    date: DateValue
    shared_with: tuple[PersonLink, ...]
    share: str | None
    motivation: str | None
    conferred_by: str | None
    notes: tuple[int, ...]


@dataclass(frozen=True)
class EducationItem:
    organization: str
    organization_name: str
    degree: str | None
    start: DateValue | None
    end: DateValue | None
    as_of: DateValue | None
    notes: tuple[int, ...]


@dataclass(frozen=True)
class SupervisionItem:
    """``relation`` is "advisor" (the other person advised this one) or "student"."""

    relation: str
    person: PersonLink
    notes: tuple[int, ...]


@dataclass(frozen=True)
class IdentifierItem:
    scheme: str
    label: str
    value: str
    url: str | None


@dataclass(frozen=True)
class Workplace:
    iri: str
    name: str
    people: int


@dataclass(frozen=True)
class SourceItem:
    """One entry of a profile's numbered source list. ``url`` is the first of ``urls`` (all the
    source's addresses, in text order), kept for readers of one address."""

    number: int
    iri: str
    title: str
    site: str | None
    url: str | None
    kind: str | None
    retrieved: str | None
    urls: tuple[str, ...] = ()

    @classmethod
    def of(cls, number: int, iri: str, facts: Mapping[str, list[Term]]) -> SourceItem:
        """From the source's facts (property IRI → values: the rows of ``profile-sources`` or
        ``source``); of several values the first in text order, every URL."""
        urls = tuple(sorted({u.value for u in facts.get(_K + "url", ())}))
        return cls(
            number, iri, _first(facts, "title") or iri, _first(facts, "site"), urls[0] if urls else None,
            _first(facts, "sourceKind"), _first(facts, "retrieved"), urls,
        )  # fmt: skip


@dataclass(frozen=True)
class Profile:
    iri: str
    slug: str
    name: str
    headline: str | None
    wikidata: str | None
    topics: tuple[str, ...]
    summary: tuple[Paragraph, ...]
    writing: tuple[Paragraph, ...]
    works: tuple[WorkItem, ...]
    timeline: tuple[TimelineItem, ...]
    roles: tuple[RoleItem, ...]
    workplaces: tuple[Workplace, ...]
    related: tuple[Related, ...]
    sources: tuple[SourceItem, ...]
    life: tuple[LifeItem, ...] = ()
    awards: tuple[AwardItem, ...] = ()
    education: tuple[EducationItem, ...] = ()
    supervisions: tuple[SupervisionItem, ...] = ()
    identifiers: tuple[IdentifierItem, ...] = ()
    workplaces_as_of: DateValue | None = None  # set when no role is current: the latest known affiliation

    @property
    def born(self) -> LifeItem | None:
        return next((x for x in self.life if x.kind == "born"), None)

    @property
    def died(self) -> LifeItem | None:
        return next((x for x in self.life if x.kind == "died"), None)

    @property
    def advisors(self) -> tuple[SupervisionItem, ...]:
        return tuple(s for s in self.supervisions if s.relation == "advisor")

    @property
    def students(self) -> tuple[SupervisionItem, ...]:
        return tuple(s for s in self.supervisions if s.relation == "student")

    @property
    def has_facts(self) -> bool:
        """Whether the summary box (born, died, education, awards, identifiers) has anything to show."""
        return bool(self.life or self.awards or self.education or self.identifiers)

    @property
    def featured_works(self) -> tuple[WorkItem, ...]:
        """The works the profile features, or all of them when it features none."""
        featured = tuple(w for w in self.works if w.featured)
        return featured or self.works

    def roles_with(self, status: str) -> tuple[RoleItem, ...]:
        return tuple(r for r in self.roles if r.status == status)


# -------------------------------------------------------------------- the site's other pages


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
    urls: tuple[str, ...] = ()  # every address; ``url`` is the first


@dataclass(frozen=True)
class SearchHit:
    """A person, organisation or topic found by one of its names (``Views.search``)."""

    iri: str
    kind: str
    name: str


_V = TypeVar("_V")
_H = TypeVar("_H", bound=Hashable)
#: Profiles (and related lists) stable views keep: a person's page and its "Why?" pages, and the
#: people those name, are rendered close together (``serve`` and ``site build``).
RECENT_PROFILES = 256
#: Named-query results stable views keep (a page asks a few of them twice: its box and its
#: "Why?" evidence read the topics and the timeline its profile read) and the most rows one may
#: have to be kept.
RECENT_SELECTS, KEPT_ROWS = 64, 1000
#: The queries that list the whole graph or thousands of people, their ORDER BY evaluated in
#: Python (``store.order_in_python``): at 100,000 people ``names`` 12.3 → 3.3 s, ``people`` 10.5 →
#: 3.4 s, ``topic-members`` of a topic of 4,084 people 0.26–0.31 → 0.07–0.08 s.
SORTED_HERE = frozenset({"names", "people", "topic-members"})
#: ``people`` with a filter: up to this many people it leaves are read by a query bound to them,
#: 500 at a time (4,084 people 0.4 s at 100,000 people); more, and the whole list is read and
#: filtered (4–5 s at 100,000 people).
PEOPLE_BOUND = 20_000
#: A name look-up reads the names of at most this many items the search index says may match
#: (one query bound to them); more, and every name.
NAMES_BOUND = 500
#: For each kind of page, the parameter and the named queries ``Views.prefetch`` reads for a
#: batch of resources in one query each (``binding.bind_each``). At 100,000 people, a person's
#: ~1.2 ms against 3.3 ms one person at a time, a source's 0.16 against 0.70 ms, a work's 0.19
#: against 0.65 ms, a claim's description 0.33 against 0.63 ms. Left to one query a resource:
#: ``person-supervisions`` (inside LATERAL its UNION is evaluated over the whole graph: ~0.6 ms a
#: person), ``person-role-evidence`` and ``person-award-partners`` (each read for one person in
#: ten or fewer). "why": what the "Why?" pages of a batch read of their people that is not in
#: the profiles on the shelf.
BATCHED: dict[str, tuple[str, tuple[str, ...]]] = {
    "person": ("person", (
        "person", "profile-sources", "claim-sources", "profile-statements", "person-contributions", "person-works",
        "profile-featured", "person-timeline", "person-roles", "person-topics", "person-life", "person-education",
        "person-awards", "person-identifiers", "person-same-as",
    )),
    "source": ("source", ("source", "source-claims", "source-citations")),
    "work": ("work", ("work", "work-contributors")),
    "claim": ("resource", ("resource-description",)),
    "why": ("person", ("person-topics",)),  # (the person's "Why?" pages: the rest is on the shelf)
}  # fmt: skip


class _Recent(Generic[_V]):
    """The last ``size`` values made, by key (thread-safe; a value may be made twice at once).

    >>> recent = _Recent(2)
    >>> made = []
    >>> for key in ("a", "b", "a", "c", "b"):
    ...     _ = recent.get(key, lambda: made.append(key) or key.upper())
    >>> made  # "a" was still there; "b" had gone (the oldest) when "c" came
    ['a', 'b', 'c', 'b']
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._values: OrderedDict[Hashable, _V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, make: Callable[[], _V], keep: Callable[[_V], bool] | None = None) -> _V:
        """The value kept for ``key``, else ``make()`` (kept unless ``keep`` says not)."""
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                return self._values[key]
        value = make()
        if keep is not None and not keep(value):
            return value
        with self._lock:
            self._values[key] = value
            while len(self._values) > self.size:
                self._values.popitem(last=False)
        return value


class Views:
    """Builds view models from one store and the named queries.

    ``stable=True`` is for a store that does not change while the views live (a server over a
    read-only store, a static export): what depends on the whole graph is then read once, on
    first use: related people come from a :class:`~kgprofiles.related_index.RelatedIndex`
    instead of four queries per person, organisation sizes from one ``org-sizes`` query instead
    of one per organisation. The views are the same either way."""

    def __init__(
        self,
        store: Store,
        queries_dir: Path | SearchPath,
        related_weights: Mapping[str, float] | None = None,
        stable: bool = False,
    ) -> None:
        self.store = store
        self.queries_dir = queries_dir
        self.related_weights = dict(related_weights or {})
        self.stable = stable
        self._index: RelatedIndex | None = None
        self._org_sizes: dict[str, int] | None = None
        self._sections: dict[str, frozenset[str]] | None = None  # section query → the people it may have rows for
        self._section_variables: dict[str, tuple[str, ...]] = {}
        self._once = threading.Lock()
        self._warming = threading.Event()  # set while warm() reads in the background
        self._kinds: dict[str, tuple[int, str]] | None = None
        self._queries: dict[str, NamedQuery] | None = None
        self._name_list: list[tuple[SearchHit, tuple[str, ...]]] | None = None
        self._indexed_names: list[tuple[str, str]] | None = None  # (IRI, names) from the search index
        self._profiles: _Recent[Profile] = _Recent(RECENT_PROFILES)  # without their related people
        self.shelf: ProfileShelf | None = None  # every profile and related list made, for all processes of a site build
        self._related: _Recent[list[Related]] = _Recent(RECENT_PROFILES)
        self._selected: _Recent[SelectResult] = _Recent(RECENT_SELECTS)
        self._prefetched: dict[Hashable, SelectResult] = {}  # (``prefetch``), each taken once by ``select``

    @property
    def queries(self) -> dict[str, NamedQuery]:
        """The named queries, read once for these views (not looked for on disk at every query)."""
        if self._queries is None:
            self._queries = load_queries(self.queries_dir)
        return self._queries

    @property
    def _whole_graph_read(self) -> bool:
        """Whether answers come from what stable views read once (``read_once``): stable, and not
        still reading it in the background (``warm``)."""
        return self.stable and not self._warming.is_set()

    def select(self, name: str, **values: str | Term) -> SelectResult:
        """The rows of the named query ``name`` with its parameters bound to ``values`` (stable
        views keep the last ``RECENT_SELECTS`` results of up to ``KEPT_ROWS`` rows, and do not
        run a section query of ``person-sections`` for a person it does not list)."""
        select = select_sorted_here if name in SORTED_HERE else select_rows
        query = named(self.queries, name) if values else whole_graph_form(self.queries, name)
        if not self.stable:
            return select(self.store, query, values)
        empty = self._known_empty(name, values)
        if empty is not None:
            return empty
        key = (name, *sorted(values.items()))

        def run() -> SelectResult:
            found = self._prefetched.pop(key, None)
            return found if found is not None else select(self.store, query, values)

        result = self._selected.get(key, run, keep=lambda result: len(result.rows) <= KEPT_ROWS)
        if self._sections is not None and name in self._sections:
            self._section_variables.setdefault(name, result.variables)
        return result

    def prefetch(self, batch: Mapping[str, Sequence[str]]) -> None:
        """Read the ``BATCHED`` queries of each kind of ``batch`` (kind → IRIs) for all its
        resources at once, one query each, for their pages to come: a site build calls it with
        each batch it renders. The rows each resource then gets are those of the query sent for it
        alone, in the same order (``binding.bind_each``; tests/test_profile_batches.py). Only
        stable views over a store that reads LATERAL do; the batch before is forgotten."""
        self._prefetched.clear()
        if not (self.stable and self.store.lateral):
            return
        for kind, iris in batch.items():
            param, names = BATCHED.get(kind, ("", ()))
            nodes = [ox.NamedNode(iri) for iri in dict.fromkeys(iris)]
            for name in names if nodes else ():
                listed = self._sections.get(name) if self._sections is not None else None
                wanted = nodes if listed is None else [n for n in nodes if n.value in listed]
                if wanted:
                    self._prefetch(name, param, wanted)

    def _prefetch(self, name: str, param: str, nodes: list[ox.NamedNode]) -> None:
        query = named(self.queries, name)
        found: dict[str, list[dict[str, Term]]] = {n.value: [] for n in nodes}
        for row in self.store.select_rows(bind_each(query.text, param, nodes)):
            found[row.pop(param).value].append(row)
        variables = projection(query.text)
        for node in nodes:
            self._prefetched[(name, (param, node))] = SelectResult(variables, tuple(found[node.value]))

    def _known_empty(self, name: str, values: Mapping[str, str | Term]) -> SelectResult | None:
        """The empty answer of the section query ``name`` for a person ``person-sections`` does
        not list for it (once read, and once the query's variables are known from a first run)."""
        if self._sections is None or name not in self._section_variables:
            return None
        person = values.get("person")
        if len(values) != 1 or not isinstance(person, ox.NamedNode) or person.value in self._sections[name]:
            return None
        return SelectResult(self._section_variables[name], ())

    # -------------------------------------------------------------------- resolving names

    def resolve_person(self, text: str) -> ox.NamedNode:
        """A person from a slug, CURIE, IRI, exact name, Wikidata Q-id or unique part of a name."""
        text = text.strip()
        if re.fullmatch(r"Q[1-9]\d*", text):
            rows = self.select("person-by-wikidata", wikidata=ox.NamedNode(WD_NS + text)).rows
            return self._one(rows, text)
        if ":" in text or re.fullmatch(r"[a-z0-9][a-z0-9._-]*", text):
            try:
                iri = ox.NamedNode(resolve_iri(text, ids().namespace("person")))
            except InputError:
                iri = None
            if iri is not None and self.select("person", person=iri).rows:
                return iri
        candidates = self._name_candidates(NameMatcher(text))  # (an exact name is found too)
        if candidates is not None and len(candidates) <= NAMES_BOUND:
            query = named(self.queries, "person-by-name")
            nodes = [ox.NamedNode(iri) for iri in sorted(candidates)]
            bound = replace(query, text=bind_rows(query.text, "person", nodes))
            rows = select_rows(self.store, bound, {"wanted": text}).rows if nodes else ()
        else:
            rows = self.select("person-by-name", wanted=text).rows
        if not rows:  # the same name but for case, accents and spacing; then a name the text finds
            people = [(hit, plain) for hit, plain in self._name_hits(text) if hit.kind == "person"]
            wanted = normalize(text)
            same = [hit for hit, plain in people if wanted in plain]
            hits = same or [hit for hit, _ in people]
            rows = tuple({"person": ox.NamedNode(h.iri), "name": ox.Literal(h.name)} for h in hits)
        return self._one(rows, text)

    def _one(self, rows: tuple[dict[str, Term], ...], text: str) -> ox.NamedNode:
        if not rows:
            raise NotFound(f"no person matches {text!r}", "try `kgprofiles people --name PART` to search")
        if len(rows) > 1:
            listing = "\n".join(f"  {_slug(r['person'].value)}  {r['name'].value}" for r in rows)
            raise Ambiguous(f"{text!r} matches {len(rows)} people:\n{listing}", "give one of the slugs above")
        person = rows[0]["person"]
        assert isinstance(person, ox.NamedNode)
        return person

    def resolve(self, text: str, namespace: str) -> ox.NamedNode:
        return ox.NamedNode(resolve_iri(text, namespace))

    # -------------------------------------------------------------------- the profile

    def profile(self, person: ox.NamedNode, related_limit: int | None = RELATED_ON_PROFILE) -> Profile:
        """The person's profile, with ``related_limit`` related people (None: all). The rest of it
        is made once per person where it can be kept: stable views keep the last
        ``RECENT_PROFILES`` made, and every one on their ``shelf`` if they have one."""
        if related_limit == 0:  # (the core as it is: a "Why?" page reads two profiles so, a million times a site)
            return self._core(person)
        return replace(self._core(person), related=tuple(self.related(person, related_limit)))

    def _core(self, person: ox.NamedNode) -> Profile:
        """The profile without its related people."""
        if not self.stable:
            return self._profile(person)
        return self._profiles.get(person.value, lambda: self._shelved(person))

    def _shelved(self, person: ox.NamedNode) -> Profile:
        if self.shelf is None:
            return self._profile(person)
        found = self.shelf.get(person.value)
        if found is None:
            found = self._profile(person)
            self.shelf.put(person.value, found)
        return found

    def _profile(self, person: ox.NamedNode) -> Profile:
        facts = self.select("person", person=person).rows
        if not facts:
            raise NotFound(f"no person {person.value}")
        fact = facts[0]
        listed = _facts_by(self.select("profile-sources", person=person).rows, _numbered_source)
        sources = tuple(SourceItem.of(number, iri, about) for (number, iri), about in sorted(listed.items()))
        hand_numbered = bool(sources)
        if not hand_numbered:  # numbered in order of first citation, once the page is laid out
            sources = self._cited_sources(person)
        notes = self._notes(person, sources)
        statements = self.select("profile-statements", person=person).rows
        paragraphs: dict[str, list[Paragraph]] = defaultdict(list)
        for r in statements:
            paragraphs[r["section"].value].append(Paragraph(r["text"].value, notes.get(r["statement"].value, ())))
        works = self._works(person, notes)
        timeline = tuple(
            TimelineItem(DateValue.of(r["date"]), r["label"].value, notes.get(r["event"].value, ()))  # type: ignore[arg-type]
            for r in self.select("person-timeline", person=person).rows
        )
        role_rows = self.select("person-roles", person=person).rows
        roles = self._roles(person, role_rows, notes)
        workplaces, workplaces_as_of = self._workplaces(role_rows)
        topics = tuple(r["name"].value for r in self.select("person-topics", person=person).rows)
        built = Profile(
            iri=person.value,
            slug=_slug(person.value),
            name=fact["name"].value,
            headline=_opt(fact, "headline"),
            wikidata=_opt(fact, "wikidata"),
            topics=topics,
            summary=tuple(paragraphs["summary"]),
            writing=tuple(paragraphs["writing"]),
            works=works,
            timeline=timeline,
            roles=roles,
            workplaces=workplaces,
            related=(),
            sources=sources,
            life=self._life(person, notes),
            awards=self._awards(person, notes),
            education=self._education(person, notes),
            supervisions=tuple(
                SupervisionItem(
                    r["relation"].value,
                    PersonLink(r["other"].value, r["name"].value),
                    notes.get(r["supervision"].value, ()),
                )
                for r in self.select("person-supervisions", person=person).rows
            ),
            identifiers=self._identifiers(person),
            workplaces_as_of=workplaces_as_of,
        )
        return built if hand_numbered else number_by_first_citation(built)

    def _life(self, person: ox.NamedNode, notes: dict[str, tuple[int, ...]]) -> tuple[LifeItem, ...]:
        """Birth, then death (the first of each, by date, should the sources give two)."""
        found: dict[str, LifeItem] = {}
        for r in self.select("person-life", person=person).rows:
            place = ", ".join(x for x in (_opt(r, "placeName"), _opt(r, "countryName")) if x) or None
            item = LifeItem(r["kind"].value, DateValue.of(r.get("date")), place, notes.get(r["event"].value, ()))
            found.setdefault(item.kind, item)
        return tuple(found[k] for k in ("born", "died") if k in found)

    def _awards(self, person: ox.NamedNode, notes: dict[str, tuple[int, ...]]) -> tuple[AwardItem, ...]:
        receipts = self.select("person-awards", person=person).rows
        partners: dict[str, list[PersonLink]] = defaultdict(list)
        for r in self.select("person-award-partners", person=person).rows if receipts else ():
            partners[r["receipt"].value].append(PersonLink(r["other"].value, r["name"].value))
        return tuple(
            AwardItem(
                r["award"].value,
                r["awardName"].value,
                DateValue.of(r["date"]),  # type: ignore[arg-type]
                tuple(partners.get(r["receipt"].value, ())),
                _opt(r, "share"),
                _opt(r, "motivation"),
                _opt(r, "conferrerName"),
                notes.get(r["receipt"].value, ()),
            )
            for r in receipts
        )

    def _education(self, person: ox.NamedNode, notes: dict[str, tuple[int, ...]]) -> tuple[EducationItem, ...]:
        return tuple(
            EducationItem(
                r["organization"].value,
                r["organizationName"].value,
                _opt(r, "degree"),
                DateValue.of(r.get("start")),
                DateValue.of(r.get("end")),
                DateValue.of(r.get("asOf")),
                notes.get(r["education"].value, ()),
            )
            for r in self.select("person-education", person=person).rows
        )

    def _identifiers(self, person: ox.NamedNode) -> tuple[IdentifierItem, ...]:
        items = []
        for r in self.select("person-identifiers", person=person).rows:
            value, formatter = r["value"].value, _opt(r, "formatter")
            url = formatter.replace("$1", quote(value, safe="/:@-._~")) if formatter else None
            items.append(IdentifierItem(r["scheme"].value, _opt(r, "label") or _slug(r["scheme"].value), value, url))
        return tuple(items)

    def _workplaces(self, rows: tuple[dict[str, Term], ...]) -> tuple[tuple[Workplace, ...], DateValue | None]:
        """Where the person works now, from the rows of ``person-roles``: the organisations of their
        current roles, largest first; with no current role, those of the roles known at the latest
        point in time (``asOf``), with that date."""
        orgs = {(r["organization"].value, r["organizationName"].value) for r in rows if r["status"].value == _CURRENT}
        as_of = None
        if not orgs:
            dated = sorted(
                {
                    (r["asOf"].value, r["organizationName"].value, r["role"].value, r["organization"].value): r
                    for r in rows
                    if "asOf" in r
                }.items()
            )
            latest = max((key[0] for key, _ in dated), default=None)
            # (of an organisation with several names, the last in text order, as before)
            orgs = set({org: (org, name) for (when, name, _, org), _ in dated if when == latest}.values())
            as_of = next((DateValue.of(r["asOf"]) for (when, *_), r in dated if when == latest), None)
        places = (Workplace(org, name, self.org_size(ox.NamedNode(org))) for org, name in orgs)
        return tuple(sorted(places, key=lambda w: (-w.people, w.name, w.iri))), as_of

    def _roles(
        self, person: ox.NamedNode, rows: tuple[dict[str, Term], ...], notes: dict[str, tuple[int, ...]]
    ) -> tuple[RoleItem, ...]:
        """The person's roles (the rows of ``person-roles``) in its order (by status, newest start
        first), except that roles without a start come newest evidence first
        (``person-role-evidence``), then by name."""
        undated = Counter(r["status"].value for r in rows if "start" not in r)
        # (the evidence orders undated roles of one status among themselves: read when two are)
        needed = any(n > 1 for n in undated.values())
        evidence_rows = self.select("person-role-evidence", person=person).rows if needed else ()
        evidence = {r["role"].value: _opt(r, "evidence") or "" for r in evidence_rows}
        for r in rows:  # a point in time is evidence of its own
            if "asOf" in r:
                evidence[r["role"].value] = max(evidence.get(r["role"].value, ""), r["asOf"].value)
        newest = {e: rank for rank, e in enumerate(sorted(set(evidence.values()) | {""}, reverse=True))}

        def key(item: tuple[int, Mapping[str, Term]]) -> tuple[int, int, int, int]:
            index, r = item
            status = _STATUS_ORDER.get(r["status"].value, 3)
            if "start" in r:
                return (status, 0, 0, index)
            return (status, 1, newest[evidence.get(r["role"].value, "")], index)

        return tuple(
            RoleItem(
                r["organization"].value,
                r["organizationName"].value,
                _opt(r, "title"),
                STATUS_NAMES.get(r["status"].value, "unknown"),
                DateValue.of(r.get("start")),
                DateValue.of(r.get("end")),
                notes.get(r["role"].value, ()),
                DateValue.of(r.get("asOf")),
            )
            for _, r in sorted(enumerate(rows), key=key)
        )

    def _works(self, person: ox.NamedNode, notes: dict[str, tuple[int, ...]]) -> tuple[WorkItem, ...]:
        """The person's works: featured ones first in the profile's order, then newest first."""
        contributions = _facts_by(self.select("person-contributions", person=person).rows, _value_of("contribution"))
        if not contributions:  # (the works and the featured ones are read through contributions)
            return ()
        facts = _facts_by(self.select("person-works", person=person).rows, _value_of("work"))
        featured = {r["contribution"].value for r in self.select("profile-featured", person=person).rows}
        kinds = self._work_kinds()
        items = []
        for iri, c in sorted(contributions.items()):
            work = c[_K + "work"][0].value
            f = facts.get(work, {})
            title = _first(f, "title") or work
            labelled = [kinds[t.value] for t in f.get(_RDF_TYPE, []) if t.value in kinds]
            rank = _first(c, "rank")
            items.append(
                (
                    (0, int(rank)) if iri in featured and rank else (1, 0),
                    WorkItem(
                        work,
                        title,
                        _first(f, "name") or title,
                        max(labelled)[1] if labelled else "Work",
                        _first(c, "description"),
                        DateValue.of(f[_K + "date"][0]) if f.get(_K + "date") else None,
                        _first(f, "venue"),
                        _first(f, "license"),
                        tuple(sorted(k.value.rsplit("#", 1)[-1] for k in c.get(_K + "contributionKind", []))),
                        iri in featured,
                        notes.get(iri, ()),
                    ),
                )
            )
        # Featured by rank; the rest newest first (dates compare as text at any precision), undated last.
        items.sort(key=lambda x: (x[0], x[1].date is None, _negate(x[1].date.iso if x[1].date else ""), x[1].title))
        return tuple(item for _, item in items)

    def _work_kinds(self) -> dict[str, tuple[int, str]]:
        """Each labelled kind of work → (how many labelled kinds it narrows, its label)."""
        if self._kinds is None:
            depth: dict[str, int] = defaultdict(int)
            labels: dict[str, str] = {}
            for r in self.select("work-kinds").rows:
                labels[r["kind"].value] = r["label"].value
                if "broader" in r:
                    depth[r["kind"].value] += 1
            self._kinds = {kind: (depth[kind], label) for kind, label in labels.items()}
        return self._kinds

    def _cited_sources(self, person: ox.NamedNode) -> tuple[SourceItem, ...]:
        """Every source the person's claims cite, numbered provisionally in IRI order (a profile
        without a hand-numbered source list; ``number_by_first_citation`` gives the final numbers)."""
        cited = sorted({r["source"].value for r in self.select("claim-sources", person=person).rows})
        items = []
        for number, iri in enumerate(cited, start=1):
            items.append(SourceItem.of(number, iri, self._source_facts(ox.NamedNode(iri))))
        return tuple(items)

    def _source_facts(self, source: ox.NamedNode) -> dict[str, list[Term]]:
        """The source's facts (``source``): property IRI → values."""
        facts: dict[str, list[Term]] = defaultdict(list)
        for r in self.select("source", source=source).rows:
            facts[r["property"].value].append(r["value"])
        return facts

    def _notes(self, person: ox.NamedNode, sources: tuple[SourceItem, ...]) -> dict[str, tuple[int, ...]]:
        """Each claim's footnote numbers on the person's profile, ascending."""
        numbers = {s.iri: s.number for s in sources}
        found: dict[str, set[int]] = defaultdict(set)
        for r in self.select("claim-sources", person=person).rows:
            if r["source"].value in numbers:
                found[r["claim"].value].add(numbers[r["source"].value])
        return {claim: tuple(sorted(n)) for claim, n in found.items()}

    def related(self, person: ox.NamedNode, limit: int | None = None) -> list[Related]:
        if self._whole_graph_read:
            return list(self._related.get((person.value, limit), lambda: self._shelved_related(person, limit)))
        return related_people(self.store, self.queries, person, self.related_weights, limit)

    def _shelved_related(self, person: ox.NamedNode, limit: int | None) -> list[Related]:
        if self.shelf is None or limit == 0:
            return self.related_index().related(person, limit)
        found = self.shelf.related(person.value, limit)
        if found is None:
            found = self.related_index().related(person, limit)
            self.shelf.put_related(person.value, limit, found)
        return found

    def related_index(self, advance: Callable[[int], None] = lambda steps: None) -> RelatedIndex:
        """The in-memory related-people index over this store, read on first use (from its
        entry in the disk cache, for a store generation: ``related_index_cache``); ``advance``:
        ``len(related_index.QUERIES)`` steps as it is read (none if it was in)."""
        with self._once:
            if self._index is None:
                from kgprofiles.related_index_cache import related_index  # numpy: only where ranking needs it

                self._index = related_index(self.store, self.queries, self.related_weights, advance=advance)
            return self._index

    def org_size(self, organization: ox.NamedNode) -> int:
        """How many people have a role at the organisation (every size read at once when stable)."""
        if not self._whole_graph_read:
            return sum(int(r["people"].value) for r in self.select("org-sizes", organization=organization).rows)
        return self._all_org_sizes().get(organization.value, 0)

    def _all_org_sizes(self) -> dict[str, int]:
        with self._once:
            if self._org_sizes is None:
                rows = self.select("org-sizes").rows
                self._org_sizes = {r["organization"].value: int(r["people"].value) for r in rows}
            return self._org_sizes

    def _read_sections(self) -> None:
        with self._once:
            if self._sections is None:
                found: dict[str, set[str]] = {name: set() for name in section_queries(self.queries)}
                for row in self.select("person-sections").rows:
                    found[row["query"].value].add(row["person"].value)
                self._sections = {name: frozenset(people) for name, people in found.items()}

    def read_once(self, progress: Progress | None = None) -> None:
        """Read now what stable views read once: the related index, organisation sizes and
        which people have the sections most people lack (``person-sections``); on ``progress``,
        as the stage "related index", a step a whole-graph read (a minute or two at 100,000
        people when the index is not kept from an earlier run)."""
        from kgprofiles.related_index import QUERIES

        progress = progress or Silent()
        progress.stage("related index", len(QUERIES) + 2)
        if self._index is not None:  # (read already: its steps done)
            progress.advance(len(QUERIES))
        self.related_index(progress.advance)
        self._all_org_sizes()
        progress.advance()
        self._read_sections()
        progress.advance()
        give_back_freed_memory()  # what the whole-graph reads freed (a site build forks its workers next)

    def over(self, store: Store) -> Views:
        """These views over another handle of the same store (a worker process's own), sharing
        what they have read once."""
        views = Views(store, self.queries_dir, self.related_weights, self.stable)
        views._index, views._org_sizes, views._queries = self._index, self._org_sizes, self._queries
        views._sections, views._section_variables = self._sections, self._section_variables
        views._kinds, views._name_list, views.shelf = self._kinds, self._name_list, self.shelf
        return views

    def warm(self) -> threading.Thread:
        """Read what stable views read once (``read_once``) in a background thread. Until it is
        in, the views ask per-person queries: the same answers, slower. For a server, so that it
        answers from its first second."""
        self._warming.set()

        def read() -> None:
            try:
                started = time.perf_counter()
                self.read_once()
                log.info("views: whole-graph results read in %.1f s", time.perf_counter() - started)
            except Exception:  # the store closed under us, or broke: stay on per-person queries
                log.exception("views: reading the whole-graph results failed; per-person queries stay in use")
                return
            self._warming.clear()

        thread = threading.Thread(target=read, name="kgprofiles-views-warm", daemon=True)
        thread.start()
        return thread

    # -------------------------------------------------------------------- organisations, topics, people

    def organization(self, text: str) -> OrganizationView:
        org = self.resolve(text, ids().namespace("organization"))
        facts = self.select("org", org=org).rows
        if not facts:
            raise NotFound(f"no organisation {text!r}", "try `kgprofiles query search --param text=PART`")
        members = tuple(
            Member(
                r["person"].value,
                r["name"].value,
                _opt(r, "title"),
                STATUS_NAMES.get(r["status"].value, "unknown"),
                DateValue.of(r.get("start")),
                DateValue.of(r.get("end")),
            )
            for r in self.select("org-members", org=org).rows
        )
        f = facts[0]
        alt = _opt(f, "altNames")
        parts = self._parts(org)
        with_parts = self.select("org-people-with-parts", org=org).rows if parts else ()
        return OrganizationView(
            org.value,
            _slug(org.value),
            f["name"].value,
            tuple(alt.split(" / ")) if alt else (),
            _opt(f, "wikidata"),
            int(f["people"].value),
            members,
            parts,
            int(with_parts[0]["people"].value) if with_parts else int(f["people"].value),
        )

    def _parts(self, org: ox.NamedNode) -> tuple[Link, ...]:
        """The organisation's parts, each with its people, most first, then by name."""
        found = [(r["part"], r["name"].value) for r in self.select("org-parts", org=org).rows]
        if not found:
            return ()
        query = named(self.queries, "org-part-people").text
        counted = self.store.query(bind_rows(query, "part", [part for part, _ in found]))
        people = {r["part"].value: int(r["people"].value) for r in counted} if isinstance(counted, SelectResult) else {}
        links = [Link(part.value, name, people.get(part.value, 0)) for part, name in found]
        return tuple(sorted(links, key=lambda link: (-(link.count or 0), link.name, link.iri)))

    def topic(self, text: str) -> TopicView:
        topic = self.resolve(text, ids().namespace("topic"))
        facts = self.select("topic", topic=topic).rows
        if not facts:
            raise NotFound(f"no topic {text!r}", "try `kgprofiles query search --param text=PART`")
        if self._whole_graph_read:  # (the index in memory: 45 ms, not 700, at 100,000 people)
            index = self.related_index()
            members = index.topic_members(topic.value)
            current = {person: index.current_organization_names(person) for person, _ in members}
        else:
            found: defaultdict[str, set[str]] = defaultdict(set)
            for r in self.select("topic-member-organizations", topic=topic).rows:
                found[r["person"].value].add(r["orgName"].value)
            members = [(r["person"].value, r["name"].value) for r in self.select("topic-members", topic=topic).rows]
            current = {person: sorted(names) for person, names in found.items()}
        people = tuple(TopicMember(person, name, tuple(current.get(person, ()))) for person, name in members)
        return TopicView(
            topic.value, _slug(topic.value), facts[0]["name"].value, len(people), people, _opt(facts[0], "wikidata")
        )

    def people(
        self, text: str | None = None, topic: str | None = None, org: str | None = None
    ) -> tuple[PersonRow, ...]:
        """The people (on a topic, at an organisation), and of them those ``text`` finds by name
        (``kgprofiles.names.matches``: any case and accents, middle names and initials left out,
        other names too). The rows are ``queries/people.rq``'s; with a filter, they are read for
        the people it leaves (``topic-people.rq``, ``org-people.rq``, the names), when few."""
        values: dict[str, str | Term] = {}
        if topic:
            values["topic"] = self.resolve(topic, ids().namespace("topic"))
        if org:
            values["org"] = self.resolve(org, ids().namespace("organization"))
        wanted: set[str] | None = None
        for name, value in values.items():
            found = {r["person"].value for r in self.select(f"{name}-people", **{name: value}).rows}
            wanted = found if wanted is None else wanted & found
        if text:
            found = {hit.iri for hit, _ in self._name_hits(text) if hit.kind == "person"}
            wanted = found if wanted is None else wanted & found
        if wanted is None:
            rows = self.select("people").rows
        else:
            among = self._people_among(sorted(wanted)) if len(wanted) <= PEOPLE_BOUND else None
            rows = (
                among
                if among is not None
                else tuple(r for r in self.select("people").rows if r["person"].value in wanted)
            )
        return tuple(
            PersonRow(r["person"].value, _slug(r["person"].value), r["name"].value, _opt(r, "headline")) for r in rows
        )

    def _people_among(self, iris: list[str]) -> tuple[dict[str, Term], ...] | None:
        """``queries/people.rq``'s rows for these people only (the query without its ORDER BY,
        bound to a batch of them at a time), sorted once in its order; None where that order is
        not one Python can make."""
        split = split_order_by(named(self.queries, "people").text)
        if split is None:
            return None
        text, keys, added = split
        rows = [
            row
            for batch in chunks(iris)
            for row in self.store.select_rows(bind_rows(text, "person", [ox.NamedNode(i) for i in batch]))
        ]
        ordered = sorted_rows(rows, keys)
        return without(ordered, added) if ordered is not None else None

    # -------------------------------------------------------------------- the site's other pages

    def home(self, listed: int = 30) -> Home:
        """The counts of the graph, and the first ``listed`` topics and organisations."""
        counts = {r["kind"].value: int(r["count"].value) for r in self.select("site-counts").rows}
        topics = tuple(
            Link(r["topic"].value, r["name"].value, int(r["people"].value)) for r in self.select("topics").rows[:listed]
        )
        orgs = tuple(
            Link(r["organization"].value, r["name"].value, int(r["people"].value))
            for r in self.select("organizations").rows[:listed]
        )
        return Home(counts, topics, orgs)

    def work(self, iri: str) -> WorkView:
        node = ox.NamedNode(iri)
        rows = self.select("work", work=node).rows
        if not rows:
            raise NotFound(f"no work {iri}")
        r = rows[0]
        publisher = (
            Link(r["publisher"].value, _opt(r, "publisherName") or r["publisher"].value) if "publisher" in r else None
        )
        contributors = tuple(
            Link(c["person"].value, c["name"].value, note=_opt(c, "kinds"))
            for c in self.select("work-contributors", work=node)
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

    def source(self, iri: str) -> SourceView:
        node = ox.NamedNode(iri)
        facts = self._source_facts(node)
        if not facts:
            raise NotFound(f"no source {iri}")
        item = SourceItem.of(0, iri, facts)
        claims = {r["person"].value: int(r["claims"].value) for r in self.select("source-claims", source=node)}
        citations = tuple(
            Link(c["person"].value, c["name"].value, claims.get(c["person"].value, 0), note=c["number"].value)
            for c in self.select("source-citations", source=node)
        )
        return SourceView(iri, item.title, item.site, item.url, item.kind, item.retrieved, citations, item.urls)

    def search(self, text: str) -> tuple[SearchHit, ...]:
        """People, then organisations, then topics, that ``text`` finds by name or other name, each
        by name (``kgprofiles.names.matches``: "Richard Feynman" finds "Richard P. Feynman",
        "Rontgen" finds "Röntgen")."""
        return tuple(hit for hit, _ in self._name_hits(text))

    def _name_hits(self, text: str) -> list[tuple[SearchHit, tuple[str, ...]]]:
        """The people, organisations and topics ``text`` finds by name, each with its names
        normalized, in ``queries/names.rq``'s order. Unless the views keep every name already,
        the names read are only those of the items the store generation's search index says
        may match (``search.generation_index``: its text of an item holds all the item's names,
        so its matches are a superset), when there are at most ``NAMES_BOUND`` of them: the
        whole list costs 3–5 s at 100,000 people."""
        matcher = NameMatcher(text)
        if not matcher.query:
            return []
        listed = None
        if self._name_list is None:
            candidates = self._name_candidates(matcher)
            if candidates is not None and len(candidates) <= NAMES_BOUND:
                listed = self._names(sorted(candidates)) if candidates else []
        if listed is None:
            listed = self._names()
        return [(hit, plain) for hit, plain in listed if matcher.finds(plain)]

    def _name_candidates(self, matcher: NameMatcher) -> set[str] | None:
        """The people, organisations and topics whose names ``matcher`` may find, by the store
        generation's search index; None where there is none to read."""
        if self._indexed_names is None:
            from kgprofiles.search import generation_index  # (not imported by every command)

            index = generation_index(self.store)
            if index is None:
                return None
            try:
                texts = index.name_texts(("person", "organization", "topic"))
            except sqlite3.Error:
                return None
            finally:
                index.close()
            # lower-cased is as good as normalized to look for a word in (the words have no space
            # or punctuation), and far cheaper for 100,000 names; names with accents normalized
            self._indexed_names = [(iri, t.lower() if t.isascii() else normalize(t)) for iri, t in texts]
        words = matcher.words
        return {
            iri
            for iri, text in self._indexed_names
            if all(word in text for word in words) and matcher.finds((normalize(text),))
        }

    def _names(self, items: list[str] | None = None) -> list[tuple[SearchHit, tuple[str, ...]]]:
        """Every person, organisation and topic (or only ``items``) with all its names, each
        normalized (``queries/names.rq``, ``names.normalize``); every one read once when the
        views are stable."""
        if items is None and self.stable and self._name_list is not None:
            return self._name_list
        if items is None:
            rows = self.select("names").rows
        else:
            query = named(self.queries, "names")
            bound = replace(query, text=bind_rows(query.text, "item", [ox.NamedNode(i) for i in items]))
            rows = select_sorted_here(self.store, bound, {}).rows
        found: dict[str, tuple[SearchHit, list[str]]] = {}
        for r in rows:
            item, name, other = r["item"].value, r["name"].value, r.get("other")
            if item not in found:
                found[item] = (SearchHit(item, r["kind"].value, name), [name])
            names = found[item][1]
            if name not in names:
                names.append(name)
            if other is not None and other.value not in names:
                names.append(other.value)
        listed = [(hit, tuple(normalize(name) for name in names)) for hit, names in found.values()]
        if self.stable and items is None:
            self._name_list = listed
        return listed

    def description(self, iri: str) -> tuple[ox.Triple, ...]:
        """The resource's own triples from the data files, each once (queries/resource-description.rq;
        stable views read it for a batch of claims at once: ``BATCHED``)."""
        rows = self.select("resource-description", resource=ox.NamedNode(iri)).rows
        return tuple(dict.fromkeys(ox.Triple(r["s"], r["p"], r["o"]) for r in rows))  # type: ignore[arg-type]


@dataclass(frozen=True)
class Member:
    iri: str
    name: str
    title: str | None
    status: str
    start: DateValue | None
    end: DateValue | None


@dataclass(frozen=True)
class OrganizationView:
    iri: str
    slug: str
    name: str
    alt_names: tuple[str, ...]
    wikidata: str | None
    people: int
    members: tuple[Member, ...] = field(default=())
    parts: tuple[Link, ...] = ()  # organisations part of this one (through any chain), people of each as count
    people_with_parts: int = 0  # people with a role here or at any part


@dataclass(frozen=True)
class TopicMember:
    iri: str
    name: str
    organizations: tuple[str, ...]


@dataclass(frozen=True)
class TopicView:
    iri: str
    slug: str
    name: str
    people: int
    members: tuple[TopicMember, ...]
    wikidata: str | None = None


@dataclass(frozen=True)
class PersonRow:
    iri: str
    slug: str
    name: str
    headline: str | None


_K = KGP_NS
_RDF_TYPE = RDF_NS + "type"


def section_queries(queries: Mapping[str, NamedQuery]) -> tuple[str, ...]:
    """The section queries ``person-sections`` lists people for (its ``BIND ("name" AS ?query)``)."""
    return tuple(re.findall(r'BIND \("([a-z0-9-]+)" AS \?query\)', named(queries, "person-sections").text))


def page_order_notes(profile: Profile) -> Iterator[tuple[int, ...]]:
    """Every footnote group of a profile in the order the page shows them: birth and death (in the
    summary box), summary, research and writing, works, timeline, awards, education and advisors,
    then the roles."""
    yield from (x.notes for x in profile.life)
    yield from (p.notes for p in profile.summary)
    yield from (p.notes for p in profile.writing)
    yield from (w.notes for w in profile.featured_works)
    yield from (t.notes for t in profile.timeline)
    yield from (a.notes for a in profile.awards)
    yield from (e.notes for e in profile.education)
    yield from (s.notes for s in profile.supervisions)
    for status in ("current", "former", "not confirmed"):
        yield from (r.notes for r in profile.roles_with(status))
    yield from (r.notes for r in profile.roles if r.status not in ("current", "former", "not confirmed"))


def number_by_first_citation(profile: Profile) -> Profile:
    """The profile with its sources numbered 1..n in order of first citation on the page (sources
    no claim shown cites come last, in their provisional order), every footnote renumbered."""
    order: dict[int, int] = {}
    for notes in page_order_notes(profile):
        for old in notes:
            order.setdefault(old, len(order) + 1)
    for source in profile.sources:
        order.setdefault(source.number, len(order) + 1)

    def renumber(item: Any) -> Any:
        if isinstance(item, tuple):
            return tuple(renumber(x) for x in item)
        if is_dataclass(item) and not isinstance(item, type) and any(f.name == "notes" for f in fields(item)):
            return replace(item, notes=tuple(sorted(order[n] for n in item.notes)))  # type: ignore[attr-defined]
        return item

    sources = tuple(sorted((replace(s, number=order[s.number]) for s in profile.sources), key=lambda s: s.number))
    return replace(
        profile,
        summary=renumber(profile.summary),
        writing=renumber(profile.writing),
        works=renumber(profile.works),
        timeline=renumber(profile.timeline),
        roles=renumber(profile.roles),
        life=renumber(profile.life),
        awards=renumber(profile.awards),
        education=renumber(profile.education),
        supervisions=renumber(profile.supervisions),
        sources=sources,
    )


def _facts_by(
    rows: Iterable[Mapping[str, Term]], key: Callable[[Mapping[str, Term]], _H]
) -> dict[_H, dict[str, list[Term]]]:
    """The rows of a flat query (…, ?property, ?value) as ``key(row)`` → property IRI → values."""
    found: dict[_H, dict[str, list[Term]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        found[key(row)][row["property"].value].append(row["value"])
    return found


def _value_of(variable: str) -> Callable[[Mapping[str, Term]], str]:
    return lambda row: row[variable].value


def _numbered_source(row: Mapping[str, Term]) -> tuple[int, str]:
    """A row of ``profile-sources``: its footnote number and source."""
    return int(row["number"].value), row["source"].value


def _first(facts: Mapping[str, list[Term]], name: str) -> str | None:
    """The first value (in text order) of ``kgp:name`` among a node's facts."""
    values = sorted(v.value for v in facts.get(_K + name, []))
    return values[0] if values else None


def _negate(text: str) -> tuple[int, ...]:
    """A key that sorts texts in reverse."""
    return tuple(-ord(c) for c in text)


def _opt(row: Mapping[str, Term], key: str) -> str | None:
    term = row.get(key)
    return term.value if term is not None else None


def _slug(iri: str) -> str:
    return iri.rstrip("/").rsplit("/", 1)[-1]
