"""`import wikidata Q…`: a draft profile file from a Wikidata person.

The draft holds the person (name, description as headline, the owl:sameAs link), their employers
(P108) and positions (P39) as roles with start and end at Wikidata's precision, their works (P50
author, P800 notable work) as contributions, their fields of work (P101) as topics, their birth and
death (P569, P570 at their precision; P19, P20 places), awards (P166 with P585 point in time),
education (P69 with P512 degree, P580/P582), doctoral advisors and students (P184, P185) and
identifiers (P496 ORCID, P2456 DBLP, P1960 Google Scholar, P2037 GitHub), and a profile
whose numbered source list holds the item itself (source 1) and one kgp:Source per Wikidata
reference (P248 stated in, P854 reference URL, P813 retrieved, P1476 title) behind those claims.
Every claim cites the references of its statement and the item.

Organisations, works and topics we already link to the same item are reused; the others are drafted
in the same file with their own link. Where Wikidata lacks what a valid profile needs (an English
label, a position's organisation), the draft says so in a TODO comment and `kgprofiles validate`
lists exactly what the curator must add.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import pyoxigraph as ox

from kgprofiles.errors import InputError, KgError
from kgprofiles.link.local import WIKIDATA_ENTITY, LocalData, LocalEntity, is_qid, qid_of
from kgprofiles.link.turtle import comment, is_iri, turtle_term
from kgprofiles.link.wikidata import HUMAN, IDENTIFIER_PROPS, Reference, Statement, Wikidata
from kgprofiles.link.wikidata_dates import Date
from kgprofiles.link.wikidata_errors import WikidataBadAnswer
from kgprofiles.store import rdf_syntax
from kgprofiles.vocab import KGP, OWL_NS, RDF_NS, XSD_NS, ids


def prefix_lines() -> tuple[tuple[str, str], ...]:
    """The prefixes a draft declares, in order: the ontology's, the project's kinds, then others."""
    return (("kgp", str(KGP)), *ids().namespaces().items(), ("owl", OWL_NS), ("wd", WIKIDATA_ENTITY), ("xsd", XSD_NS))


SLUG = re.compile(r"[a-z0-9][a-z0-9._-]*")
PROPERTY_NAMES = {
    "P248": "stated in",
    "P854": "reference URL",
    "P813": "retrieved",
    "P1476": "title",
    "P143": "imported from",
    "P577": "publication date",
}
RDF_TYPE = ox.NamedNode(RDF_NS + "type")
SAME_AS = ox.NamedNode(OWL_NS + "sameAs")


def kgp(name: str) -> ox.NamedNode:
    return ox.NamedNode(str(KGP) + name)


def wd(qid: str) -> ox.NamedNode:
    """The IRI of Wikidata item ``qid``, which must be a Q-id (it becomes part of our IRIs too)."""
    if not is_qid(qid):
        raise WikidataBadAnswer(f"Wikidata answered {qid[:80]!r} where an item id (Q…) belongs")
    return ox.NamedNode(WIKIDATA_ENTITY + qid)


def slugify(text: str) -> str:
    """ "Douglas Noël Adams" → "douglas-noel-adams"."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


@dataclass
class _Block:
    """One subject's statements, written the way the seed files are: every term through
    ``turtle_term``, every comment through ``comment``."""

    subject: ox.NamedNode
    types: ox.NamedNode
    pairs: list[tuple[ox.NamedNode, list[ox.NamedNode | ox.Literal]]] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)

    def add(self, predicate: ox.NamedNode, *objects: ox.NamedNode | ox.Literal) -> None:
        if objects:
            self.pairs.append((predicate, list(objects)))

    def note(self, text: str) -> None:
        self.comments.append(comment(text, 400))

    def triples(self) -> Iterator[ox.Triple]:
        yield ox.Triple(self.subject, RDF_TYPE, self.types)
        for predicate, objects in self.pairs:
            for obj in objects:
                yield ox.Triple(self.subject, predicate, obj)

    def render(self, one_line: bool = False) -> str:
        def t(term: ox.NamedNode | ox.Literal) -> str:
            return turtle_term(term, dict(prefix_lines()))

        lines = [f"# {c}" for c in self.comments]
        head = f"{t(self.subject)} a {t(self.types)}"
        pairs = [f"{t(p)} {', '.join(t(o) for o in objects)}" for p, objects in self.pairs]
        if one_line or not pairs:
            return "\n".join([*lines, " ; ".join([head, *pairs]) + " ."])
        lines.append(head + " ;")
        lines.extend(f"    {pair}{' .' if i == len(pairs) - 1 else ' ;'}" for i, pair in enumerate(pairs))
        return "\n".join(lines)


@dataclass(frozen=True)
class Draft:
    """The draft file's text and what it holds."""

    qid: str
    person: str  # CURIE
    slug: str
    text: str
    sources: tuple[str, ...]  # CURIEs, in footnote order
    references: tuple[str, ...]  # the Wikidata references behind those sources (12 hex digits of each hash)
    todos: tuple[str, ...]
    notes: tuple[str, ...] = ()
    triples: frozenset[ox.Triple] = frozenset()  # exactly what ``text`` holds


def _curie(node: ox.NamedNode) -> str:
    return turtle_term(node, dict(prefix_lines()))


class _Importer:
    def __init__(self, qid: str, local: LocalData, wikidata: Wikidata, today: date) -> None:
        self.qid = qid
        self.local = local
        self.wikidata = wikidata
        self.today = today
        self.linked: dict[tuple[str, str], LocalEntity] = {}
        for entity in local.links():
            self.linked.setdefault((entity.kind, qid_of(entity.wikidata or "")), entity)
        self.blocks: dict[str, list[_Block]] = defaultdict(list)
        self.sources: list[ox.NamedNode] = []
        self.source_blocks: list[_Block] = []
        self.references: list[str] = []
        self.todos: list[str] = []
        self.drafted: dict[str, ox.NamedNode] = {}  # Q-id → an organisation, work or topic drafted here

    # -- sources -------------------------------------------------------------------------------

    def cite(self, source: ox.NamedNode) -> ox.NamedNode:
        if source not in self.sources:
            self.sources.append(source)
        return source

    def reference_source(self, reference: Reference) -> ox.NamedNode:
        key = _reference_key(reference)
        source = ox.NamedNode(f"{ids().namespace('source')}wikidata-ref-{key}")
        if key in self.references:
            return self.cite(source)
        self.references.append(key)
        block = _Block(source, kgp("Source"))
        snaks = "; ".join(
            " ".join(part for part in (p, PROPERTY_NAMES.get(p, ""), label or "", value) if part)
            for p, value, label in reference.snaks
        )
        block.note(f"Wikidata reference {reference.hash}: {snaks}")
        block.add(kgp("title"), ox.Literal(_reference_title(reference)))
        stated_in = [label for _, label in reference.values("P248") if label]
        if stated_in:
            block.add(kgp("site"), ox.Literal(stated_in[0]))
        block.add(kgp("sourceKind"), ox.Literal("Wikidata reference"))
        urls = [value for value, _ in reference.values("P854") if _is_web_address(value)]
        block.add(kgp("url"), *(ox.NamedNode(u) for u in urls))
        if reference.retrieved and reference.retrieved.precision == "day":
            block.add(kgp("retrieved"), reference.retrieved.literal())
        elif reference.retrieved:
            block.note(f"retrieved {reference.retrieved.text()}: not a whole date, so not kgp:retrieved")
        self.source_blocks.append(block)
        return self.cite(source)

    def statement_sources(self, statement: Statement, references: dict[str, list[Reference]]) -> list[ox.NamedNode]:
        return [self.cite(self.item_source)] + [self.reference_source(r) for r in references.get(statement.iri, [])]

    def todo(self, block: _Block, text: str) -> None:
        self.todos.append(text)
        block.note(f"TODO: {text}")

    # -- things the person is related to ---------------------------------------------------------

    def target(self, kind: str, qid: str, label: str | None, date_of: Date | None = None) -> ox.NamedNode:
        """Our entity linked to ``qid``, or one drafted in this file."""
        item = wd(qid)
        existing = self.linked.get((kind, qid))
        if existing is not None:
            return ox.NamedNode(existing.iri)
        if qid in self.drafted:
            return self.drafted[qid]
        cls, name_property = {
            "organization": ("Organization", "name"),
            "work": ("Work", "title"),
            "topic": ("Topic", "name"),
            "award": ("Award", "name"),
            "place": ("Place", "name"),
            "person": ("Person", "name"),
        }[kind]
        node = ox.NamedNode(f"{ids().namespace(kind)}wikidata-{qid.lower()}")
        block = _Block(node, kgp(cls))
        if label:
            block.add(kgp(name_property), ox.Literal(label))
        else:
            self.todo(block, f"{_curie(node)}: add kgp:{name_property} (Wikidata has no English label for {qid})")
        if date_of is not None:
            block.add(kgp("date"), date_of.literal())
        block.add(SAME_AS, item)
        if kind == "person":  # the imported item names them: the source of their name
            block.add(kgp("source"), self.item_source)
        self.blocks[kind].append(block)
        self.drafted[qid] = node
        return node

    # -- the draft -------------------------------------------------------------------------------

    def build(self, slug: str | None) -> Draft:
        if slug is not None and not SLUG.fullmatch(slug):
            raise InputError(
                f"not a slug: {slug[:80]!r}",
                "a slug is lower-case letters, digits, '-', '_' and '.', e.g. ada-lovelace",
            )
        items = self.wikidata.items([self.qid])
        item = items[self.qid]
        notes = []
        if not item.exists:
            raise InputError(f"Wikidata has no item {self.qid}", "check the Q-id")
        if item.redirect:
            notes.append(f"{self.qid} redirects to {item.redirect}; imported {item.redirect}")
            self.qid = item.redirect
            item = self.wikidata.items([self.qid])[self.qid]
        if HUMAN not in item.types:
            raise InputError(
                f"{self.qid} is not a human (instance of {', '.join(item.types) or 'nothing'})",
                "import makes person profiles only; give the Q-id of a person (instance of Q5)",
            )
        already = self.linked.get(("person", self.qid))
        if already is not None:
            raise InputError(
                f"{self.qid} is already in the graph as {already.label} ({already.file})",
                "use `kgprofiles link diff` to compare it with Wikidata",
            )
        name = item.label or self.qid
        slug = slug or slugify(name) or f"wikidata-{self.qid.lower()}"
        if self.local.ask("iri-in-use", resource=ox.NamedNode(ids().namespace("person") + slug)):
            slug = f"{slug}-{self.qid.lower()}"
        person = ox.NamedNode(f"{ids().namespace('person')}{slug}")
        self.item_source = ox.NamedNode(f"{ids().namespace('source')}wikidata-{self.qid.lower()}")
        self.cite(self.item_source)
        statements = self.wikidata.statements([self.qid]).get(self.qid, [])
        references = self.wikidata.references([s.iri for s in statements])

        person_block = _Block(person, kgp("Person"))
        if not item.label:
            self.todo(person_block, f"{_curie(person)}: add kgp:name (Wikidata has no English label for {self.qid})")
        else:
            person_block.add(kgp("name"), ox.Literal(name))
        if item.description:
            person_block.add(kgp("headline"), ox.Literal(item.description))
        roles = self.roles(slug, person, [s for s in statements if s.prop in ("P108", "P39")], references)
        lives = self.lives(slug, person, statements, references)
        works = self.works(slug, person, [s for s in statements if s.prop in ("P50", "P800")], references)
        topics = [s for s in statements if s.prop == "P101"]
        person_sources = [self.item_source]
        for statement in topics:
            person_sources.extend(self.statement_sources(statement, references)[1:])
        person_block.add(kgp("topic"), *(self.target("topic", s.value, s.value_label) for s in topics))
        person_block.add(SAME_AS, wd(self.qid))
        person_block.add(kgp("source"), *dict.fromkeys(person_sources))

        item_block = _Block(self.item_source, kgp("Source"))
        item_block.add(kgp("title"), ox.Literal(f"Wikidata item {self.qid}: {name}"))
        item_block.add(kgp("site"), ox.Literal("Wikidata"))
        item_block.add(kgp("sourceKind"), ox.Literal("Wikidata item"))
        item_block.add(kgp("url"), ox.NamedNode(f"https://www.wikidata.org/wiki/{self.qid}"))
        item_block.add(kgp("retrieved"), Date(self.today.isoformat(), "day").literal())

        profile = _Block(ox.NamedNode(f"{ids().namespace('profile')}{slug}"), kgp("Profile"))
        profile.add(kgp("profileOf"), person)
        citations = []
        for number, source in enumerate(self.sources, 1):
            citation = _Block(ox.NamedNode(f"{ids().namespace('profile')}{slug}-fn-{number}"), kgp("Citation"))
            citation.add(kgp("number"), ox.Literal(number))
            citation.add(kgp("cites"), source)
            citations.append(citation)
        profile.add(kgp("citation"), *(c.subject for c in citations))

        every = [person_block, profile, *citations, *roles, *lives, *works, item_block, *self.source_blocks]
        every += [b for blocks in self.blocks.values() for b in blocks]
        triples = frozenset(t for block in every for t in block.triples())
        text = self.render(name, person_block, profile, citations, roles + lives, works, item_block, notes)
        _check_holds(text, triples)
        return Draft(
            self.qid,
            _curie(person),
            slug,
            text,
            tuple(_curie(s) for s in self.sources),
            tuple(self.references),
            tuple(self.todos),
            tuple(notes),
            triples,
        )

    def roles(
        self, slug: str, person: ox.NamedNode, statements: list[Statement], references: dict[str, list[Reference]]
    ) -> list[_Block]:
        blocks = []
        used: dict[str, int] = defaultdict(int)
        for statement in statements:
            wd(statement.value)  # a Q-id, or the answer is refused: it becomes part of the claim's IRI
            key = f"{'employer' if statement.prop == 'P108' else 'position'}-{statement.value.lower()}"
            used[key] += 1
            suffix = f"-{used[key]}" if used[key] > 1 else ""
            block = _Block(ox.NamedNode(f"{ids().namespace('claim')}{slug}-{key}{suffix}"), kgp("Role"))
            block.note(f"{statement.prop} {statement.value_text} ({statement.iri})")
            block.add(kgp("holder"), person)
            if statement.prop == "P108":
                block.add(kgp("organization"), self.target("organization", statement.value, statement.value_label))
            elif statement.of:
                block.add(kgp("organization"), self.target("organization", statement.of, statement.of_label))
                block.add(kgp("title"), ox.Literal(statement.value_label or statement.value))
            else:
                self.todo(
                    block,
                    f"{_curie(block.subject)}: add kgp:organization (Wikidata names no organisation for this position)",
                )
                block.add(kgp("title"), ox.Literal(statement.value_label or statement.value))
            block.add(kgp("status"), kgp("Former") if statement.end else kgp("NotConfirmedCurrent"))
            if statement.start:
                block.add(kgp("start"), statement.start.literal())
            else:
                block.add(kgp("startUnknown"), ox.Literal(True))
            if statement.end:
                block.add(kgp("end"), statement.end.literal())
            block.add(kgp("source"), *self.statement_sources(statement, references))
            blocks.append(block)
        return blocks

    def lives(
        self, slug: str, person: ox.NamedNode, statements: list[Statement], references: dict[str, list[Reference]]
    ) -> list[_Block]:
        """Birth and death, awards, education, advisors and students, identifiers: one claim each,
        citing its statements' references and the item."""
        blocks = []
        used: dict[str, int] = defaultdict(int)

        def claim(key: str, cls: str, found: list[Statement]) -> _Block:
            used[key] += 1
            suffix = f"-{used[key]}" if used[key] > 1 else ""
            block = _Block(ox.NamedNode(f"{ids().namespace('claim')}{slug}-{key}{suffix}"), kgp(cls))
            what = (f"{s.prop} {s.value_text or (s.time.text() if s.time else '')} ({s.iri})" for s in found)
            block.note("; ".join(what))
            blocks.append(block)
            return block

        def sources(found: list[Statement]) -> list[ox.NamedNode]:
            return list(dict.fromkeys(src for s in found for src in self.statement_sources(s, references)))

        for kind, date_prop, place_prop in (("Birth", "P569", "P19"), ("Death", "P570", "P20")):
            dates = [s for s in statements if s.prop == date_prop and s.time]
            places = [s for s in statements if s.prop == place_prop]
            if not dates and not places:
                continue
            block = claim(kind.lower(), kind, dates + places)
            block.add(kgp("subject"), person)
            if dates:
                block.add(kgp("date"), dates[0].time.literal())  # type: ignore[union-attr]
            for s in places[:1]:
                wd(s.value)
                block.add(kgp("place"), self.target("place", s.value, s.value_label))
            block.add(kgp("source"), *sources(dates + places))
        for s in (s for s in statements if s.prop == "P166"):
            wd(s.value)
            block = claim(f"award-{s.value.lower()}", "AwardReceipt", [s])
            block.add(kgp("recipient"), person)
            block.add(kgp("award"), self.target("award", s.value, s.value_label))
            if s.when:
                block.add(kgp("date"), s.when.literal())
            else:
                self.todo(block, f"{_curie(block.subject)}: add kgp:date (Wikidata gives no point in time, P585)")
            block.add(kgp("source"), *sources([s]))
        for s in (s for s in statements if s.prop == "P69"):
            wd(s.value)
            block = claim(f"education-{s.value.lower()}", "Education", [s])
            block.add(kgp("holder"), person)
            block.add(kgp("organization"), self.target("organization", s.value, s.value_label))
            if s.degree_label:
                block.add(kgp("degree"), ox.Literal(s.degree_label))
            block.add(kgp("status"), kgp("Former") if s.end else kgp("NotConfirmedCurrent"))
            block.add(*((kgp("start"), s.start.literal()) if s.start else (kgp("startUnknown"), ox.Literal(True))))
            if s.end:
                block.add(kgp("end"), s.end.literal())
            block.add(kgp("source"), *sources([s]))
        for s in (s for s in statements if s.prop in ("P184", "P185")):
            wd(s.value)
            other = self.target("person", s.value, s.value_label)
            block = claim(f"{'advisor' if s.prop == 'P184' else 'student'}-{s.value.lower()}", "Supervision", [s])
            block.add(kgp("advisor"), other if s.prop == "P184" else person)
            block.add(kgp("student"), person if s.prop == "P184" else other)
            block.add(kgp("source"), *sources([s]))
        for s in (s for s in statements if s.prop in IDENTIFIER_PROPS):
            scheme = IDENTIFIER_PROPS[s.prop]
            block = claim(scheme.lower(), "Identifier", [s])
            block.add(kgp("subject"), person)
            block.add(kgp("scheme"), kgp(scheme))
            block.add(kgp("value"), ox.Literal(s.value))
            block.add(kgp("source"), *sources([s]))
        return blocks

    def works(
        self, slug: str, person: ox.NamedNode, statements: list[Statement], references: dict[str, list[Reference]]
    ) -> list[_Block]:
        by_work: dict[str, list[Statement]] = defaultdict(list)
        for statement in statements:
            by_work[statement.value].append(statement)
        blocks = []
        for qid, found in by_work.items():
            first = found[0]
            work = self.target("work", qid, first.value_label, next((s.date for s in found if s.date), None))
            block = _Block(ox.NamedNode(f"{ids().namespace('claim')}{slug}-work-{qid.lower()}"), kgp("Contribution"))
            block.note("; ".join(f"{s.prop} {s.value_text} ({s.iri})" for s in found))
            block.add(kgp("contributor"), person)
            block.add(kgp("work"), work)
            author = any(s.prop == "P50" for s in found)
            block.add(kgp("contributionKind"), kgp("Author") if author else kgp("Contributor"))
            sources: list[ox.NamedNode] = []
            for statement in found:
                sources.extend(self.statement_sources(statement, references))
            block.add(kgp("source"), *dict.fromkeys(sources))
            blocks.append(block)
        return blocks

    def render(
        self,
        name: str,
        person: _Block,
        profile: _Block,
        citations: list[_Block],
        roles: list[_Block],
        works: list[_Block],
        item_source: _Block,
        notes: list[str],
    ) -> str:
        pad = max(len(p) for p, _ in prefix_lines()) + 2
        out = [
            f"# Draft profile of {comment(name, 120)}, imported from Wikidata item {self.qid} "
            f"({WIKIDATA_ENTITY}{self.qid}) on {self.today.isoformat()} by `kgprofiles import wikidata`.",
            "# Every claim cites the Wikidata references of its statement and the item itself (source 1).",
            "# Check each claim against its sources, fill in the TODOs, then run `kgprofiles validate`.",
        ]
        out.extend(f"# Note: {comment(n)}" for n in notes)
        out.extend(f"@prefix {(p + ':').ljust(pad)}{ox.NamedNode(ns)} ." for p, ns in prefix_lines())
        sections: list[tuple[str, list[str]]] = [
            ("the person", [person.render()]),
            ("the page", [profile.render(), "\n".join(c.render(one_line=True) for c in citations)]),
            ("roles (P108, P39, P69 education), life, awards, advisors, identifiers", [b.render() for b in roles]),
            ("works and contributions (P50 author, P800 notable work)", [b.render() for b in works]),
            (
                "organisations, works, topics, awards, places and people drafted from Wikidata",
                [
                    b.render()
                    for kind in ("organization", "work", "topic", "award", "place", "person")
                    for b in self.blocks[kind]
                ],
            ),
            (
                "sources: the item, and one per Wikidata reference",
                [item_source.render()] + [b.render() for b in self.source_blocks],
            ),
        ]
        for title, blocks in sections:
            if not blocks:
                continue
            out.append("")
            out.append(f"{'#' * (100 - len(title) - 1)} {title}")
            for block in blocks:
                out.append("")
                out.append(block)
        return "\n".join(out) + "\n"


def _check_holds(text: str, triples: frozenset[ox.Triple]) -> None:
    """The draft's text must parse to exactly the triples it was written from: no value can have
    added, changed or hidden one. Otherwise nothing is written."""
    try:
        parsed = {
            ox.Triple(q.subject, q.predicate, q.object)
            for q in rdf_syntax.parse(text.encode(), format=rdf_syntax.RdfFormat.TURTLE)
        }
    except SyntaxError as error:
        parsed = None
        why = f"it does not parse: {error}"
    if parsed is not None and parsed == triples:
        return
    if parsed is not None:
        why = f"{len(parsed - triples)} triple(s) more and {len(triples - parsed)} fewer than imported"
    raise KgError(
        f"the draft's Turtle would not hold what was imported ({why}); nothing was written",
        "this is a bug in kgprofiles: please report it with the Q-id",
    )


def _reference_key(reference: Reference) -> str:
    """The reference's hash (12 hex digits of it) for its source's IRI; a hash of its IRI if the
    endpoint gave a reference node that is not named by a hash."""
    if re.fullmatch(r"[0-9a-f]{12,64}", reference.hash):
        return reference.hash[:12]
    return hashlib.sha1(reference.iri.encode("utf-8")).hexdigest()[:12]


def _is_web_address(value: str) -> bool:
    """A reference URL kept as a source's kgp:url: http(s) only, as `kgprofiles new source` asks
    (a ``javascript:`` or ``file:`` one stays in the reference's comment, as text)."""
    return is_iri(value) and value.lower().startswith(("http://", "https://"))


def _reference_title(reference: Reference) -> str:
    for value, _ in reference.values("P1476"):
        return value
    for value, label in reference.values("P248"):
        return label or f"Stated in {value}"
    for value, _ in reference.values("P854"):
        if _is_web_address(value):
            return value
    for value, label in reference.values("P143"):
        return f"Imported from {label or value}"
    return f"Wikidata reference {reference.hash[:12]}"


def import_person(
    qid: str, local: LocalData, wikidata: Wikidata, today: date | None = None, slug: str | None = None
) -> Draft:
    """The draft profile of Wikidata person ``qid`` (a Q-id)."""
    if not is_qid(qid):
        raise InputError(f"not a Wikidata item id: {qid!r}", "give a Q-id such as Q42")
    return _Importer(qid, local, wikidata, today or date.today()).build(slug)


def default_path(data_dir: Path, draft: Draft) -> Path:
    return data_dir / "people" / f"{draft.slug}.ttl"
