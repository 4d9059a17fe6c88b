"""`import wikidata Q…`: a draft profile file from a Wikidata person.

The draft holds the person (name, description as headline, the owl:sameAs link), their employers
(P108) and positions (P39) as roles with start and end at Wikidata's precision, their works (P50
author, P800 notable work) as contributions, their fields of work (P101) as topics, and a profile
whose numbered source list holds the item itself (source 1) and one kgp:Source per Wikidata
reference (P248 stated in, P854 reference URL, P813 retrieved, P1476 title) behind those claims.
Every claim cites the references of its statement and the item.

Organisations, works and topics we already link to the same item are reused; the others are drafted
in the same file with their own link. Where Wikidata lacks what a valid profile needs (an English
label, a position's organisation), the draft says so in a TODO comment and `kgprofiles validate`
lists exactly what the curator must add.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import pyoxigraph as ox

from kgprofiles.errors import InputError
from kgprofiles.link.dates import Date
from kgprofiles.link.local import LocalData, LocalEntity, qid_of
from kgprofiles.link.remote import HUMAN, Reference, Statement, Wikidata
from kgprofiles.link.turtle import date_literal, is_iri, literal
from kgprofiles.vocab import ORGANIZATION, PERSON, TOPIC, WORK

PREFIX_LINES = (
    ("kgp", "https://w3id.org/kgprofiles/ontology#"),
    ("person", str(PERSON)),
    ("organization", str(ORGANIZATION)),
    ("topic", str(TOPIC)),
    ("work", str(WORK)),
    ("source", "https://w3id.org/kgprofiles/id/source/"),
    ("claim", "https://w3id.org/kgprofiles/id/claim/"),
    ("profile", "https://w3id.org/kgprofiles/id/profile/"),
    ("owl", "http://www.w3.org/2002/07/owl#"),
    ("wd", "http://www.wikidata.org/entity/"),
    ("xsd", "http://www.w3.org/2001/XMLSchema#"),
)
XSD_NAMES = {"year": "gYear", "month": "gYearMonth", "day": "date"}
PROPERTY_NAMES = {
    "P248": "stated in",
    "P854": "reference URL",
    "P813": "retrieved",
    "P1476": "title",
    "P143": "imported from",
    "P577": "publication date",
}


def slugify(text: str) -> str:
    """ "Douglas Noël Adams" → "douglas-noel-adams"."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


@dataclass
class _Block:
    """One subject's statements, written the way the seed files are."""

    subject: str
    types: str
    pairs: list[tuple[str, list[str]]] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)

    def add(self, predicate: str, *objects: str) -> None:
        if objects:
            self.pairs.append((predicate, list(objects)))

    def render(self) -> str:
        lines = [f"# {c}" for c in self.comments]
        head = f"{self.subject} a {self.types}"
        if not self.pairs:
            return "\n".join([*lines, head + " ."])
        lines.append(head + " ;")
        for index, (predicate, objects) in enumerate(self.pairs):
            end = " ." if index == len(self.pairs) - 1 else " ;"
            lines.append(f"    {predicate} {', '.join(objects)}{end}")
        return "\n".join(lines)


@dataclass(frozen=True)
class Draft:
    """The draft file's text and what it holds."""

    qid: str
    person: str  # CURIE
    slug: str
    text: str
    sources: tuple[str, ...]  # CURIEs, in footnote order
    references: tuple[str, ...]  # the Wikidata reference hashes behind those sources
    todos: tuple[str, ...]
    notes: tuple[str, ...] = ()


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
        self.sources: list[str] = []
        self.source_blocks: list[_Block] = []
        self.references: list[str] = []
        self.todos: list[str] = []
        self.drafted: dict[str, str] = {}  # Q-id → CURIE of an organisation, work or topic drafted here

    # -- sources -------------------------------------------------------------------------------

    def cite(self, curie: str) -> str:
        if curie not in self.sources:
            self.sources.append(curie)
        return curie

    def reference_source(self, reference: Reference) -> str:
        curie = f"source:wikidata-ref-{reference.hash[:12]}"
        if reference.hash in self.references:
            return self.cite(curie)
        self.references.append(reference.hash)
        block = _Block(curie, "kgp:Source")
        snaks = "; ".join(
            f"{p} {PROPERTY_NAMES.get(p, '')} {label + ' ' if label else ''}{value}".replace("  ", " ")
            for p, value, label in reference.snaks
        )
        block.comments.append(f"Wikidata reference {reference.hash}: {snaks}")
        block.add("kgp:title", literal(_reference_title(reference)))
        stated_in = [label for _, label in reference.values("P248") if label]
        if stated_in:
            block.add("kgp:site", literal(stated_in[0]))
        block.add("kgp:sourceKind", literal("Wikidata reference"))
        urls = [value for value, _ in reference.values("P854") if is_iri(value)]
        block.add("kgp:url", *(f"<{u}>" for u in urls))
        if reference.retrieved and reference.retrieved.precision == "day":
            block.add("kgp:retrieved", date_literal(reference.retrieved.iso, "date"))
        elif reference.retrieved:
            block.comments.append(f"retrieved {reference.retrieved.text()}: not a whole date, so not kgp:retrieved")
        self.source_blocks.append(block)
        return self.cite(curie)

    def statement_sources(self, statement: Statement, references: dict[str, list[Reference]]) -> list[str]:
        return [self.cite(self.item_source)] + [self.reference_source(r) for r in references.get(statement.iri, [])]

    # -- things the person is related to ---------------------------------------------------------

    def target(self, kind: str, qid: str, label: str | None, date_of: Date | None = None) -> str:
        """Our entity linked to ``qid``, or one drafted in this file."""
        existing = self.linked.get((kind, qid))
        if existing is not None:
            return existing.label
        if qid in self.drafted:
            return self.drafted[qid]
        namespace, cls, name_property = {
            "organization": ("organization", "kgp:Organization", "kgp:name"),
            "work": ("work", "kgp:Work", "kgp:title"),
            "topic": ("topic", "kgp:Topic", "kgp:name"),
        }[kind]
        curie = f"{namespace}:wikidata-{qid.lower()}"
        block = _Block(curie, cls)
        if label:
            block.add(name_property, literal(label))
        else:
            todo = f"{curie}: add {name_property} (Wikidata has no English label for {qid})"
            block.comments.append(f"TODO: {todo}")
            self.todos.append(todo)
        if date_of is not None:
            block.add("kgp:date", date_literal(date_of.iso, XSD_NAMES[date_of.precision]))
        block.add("owl:sameAs", f"wd:{qid}")
        self.blocks[kind].append(block)
        self.drafted[qid] = curie
        return curie

    # -- the draft -------------------------------------------------------------------------------

    def build(self, slug: str | None) -> Draft:
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
        if self.local.ask("iri-in-use", resource=ox.NamedNode(str(PERSON) + slug)):
            slug = f"{slug}-{self.qid.lower()}"
        person = f"person:{slug}"
        self.item_source = f"source:wikidata-{self.qid.lower()}"
        self.cite(self.item_source)
        statements = self.wikidata.statements([self.qid]).get(self.qid, [])
        references = self.wikidata.references([s.iri for s in statements])

        person_block = _Block(person, "kgp:Person")
        if not item.label:
            self.todos.append(f"{person}: add kgp:name (Wikidata has no English label for {self.qid})")
            person_block.comments.append(f"TODO: {self.todos[-1]}")
        else:
            person_block.add("kgp:name", literal(name))
        if item.description:
            person_block.add("kgp:headline", literal(item.description))
        roles = self.roles(slug, person, [s for s in statements if s.prop in ("P108", "P39")], references)
        works = self.works(slug, person, [s for s in statements if s.prop in ("P50", "P800")], references)
        topics = [s for s in statements if s.prop == "P101"]
        person_sources = [self.item_source]
        for statement in topics:
            person_sources.extend(self.statement_sources(statement, references)[1:])
        person_block.add("kgp:topic", *(self.target("topic", s.value, s.value_label) for s in topics))
        person_block.add("owl:sameAs", f"wd:{self.qid}")
        person_block.add("kgp:source", *dict.fromkeys(person_sources))

        item_block = _Block(self.item_source, "kgp:Source")
        item_block.add("kgp:title", literal(f"Wikidata item {self.qid}: {name}"))
        item_block.add("kgp:site", literal("Wikidata"))
        item_block.add("kgp:sourceKind", literal("Wikidata item"))
        item_block.add("kgp:url", f"<https://www.wikidata.org/wiki/{self.qid}>")
        item_block.add("kgp:retrieved", date_literal(self.today.isoformat(), "date"))

        profile = _Block(f"profile:{slug}", "kgp:Profile")
        profile.add("kgp:profileOf", person)
        citations = []
        for number, source in enumerate(self.sources, 1):
            citation = f"profile:{slug}-fn-{number}"
            profile_cites = f"{citation} a kgp:Citation ; kgp:number {number} ; kgp:cites {source} ."
            citations.append(profile_cites)
        profile.add("kgp:citation", *(f"profile:{slug}-fn-{n}" for n in range(1, len(self.sources) + 1)))

        text = self.render(name, person_block, profile, citations, roles, works, item_block, notes)
        return Draft(
            self.qid, person, slug, text, tuple(self.sources), tuple(self.references), tuple(self.todos), tuple(notes)
        )

    def roles(
        self, slug: str, person: str, statements: list[Statement], references: dict[str, list[Reference]]
    ) -> list[_Block]:
        blocks = []
        used: dict[str, int] = defaultdict(int)
        for statement in statements:
            key = f"{'employer' if statement.prop == 'P108' else 'position'}-{statement.value.lower()}"
            used[key] += 1
            suffix = f"-{used[key]}" if used[key] > 1 else ""
            block = _Block(f"claim:{slug}-{key}{suffix}", "kgp:Role")
            block.comments.append(f"{statement.prop} {statement.value_text} ({statement.iri})")
            block.add("kgp:holder", person)
            if statement.prop == "P108":
                block.add("kgp:organization", self.target("organization", statement.value, statement.value_label))
            elif statement.of:
                block.add("kgp:organization", self.target("organization", statement.of, statement.of_label))
                block.add("kgp:title", literal(statement.value_label or statement.value))
            else:
                todo = f"{block.subject}: add kgp:organization (Wikidata names no organisation for this position)"
                self.todos.append(todo)
                block.comments.append(f"TODO: {todo}")
                block.add("kgp:title", literal(statement.value_label or statement.value))
            block.add("kgp:status", "kgp:Former" if statement.end else "kgp:NotConfirmedCurrent")
            if statement.start:
                block.add("kgp:start", date_literal(statement.start.iso, XSD_NAMES[statement.start.precision]))
            else:
                block.add("kgp:startUnknown", "true")
            if statement.end:
                block.add("kgp:end", date_literal(statement.end.iso, XSD_NAMES[statement.end.precision]))
            block.add("kgp:source", *self.statement_sources(statement, references))
            blocks.append(block)
        return blocks

    def works(
        self, slug: str, person: str, statements: list[Statement], references: dict[str, list[Reference]]
    ) -> list[_Block]:
        by_work: dict[str, list[Statement]] = defaultdict(list)
        for statement in statements:
            by_work[statement.value].append(statement)
        blocks = []
        for qid, found in by_work.items():
            first = found[0]
            work = self.target("work", qid, first.value_label, next((s.date for s in found if s.date), None))
            block = _Block(f"claim:{slug}-work-{qid.lower()}", "kgp:Contribution")
            block.comments.append("; ".join(f"{s.prop} {s.value_text} ({s.iri})" for s in found))
            block.add("kgp:contributor", person)
            block.add("kgp:work", work)
            author = any(s.prop == "P50" for s in found)
            block.add("kgp:contributionKind", "kgp:Author" if author else "kgp:Contributor")
            sources: list[str] = []
            for statement in found:
                sources.extend(self.statement_sources(statement, references))
            block.add("kgp:source", *dict.fromkeys(sources))
            blocks.append(block)
        return blocks

    def render(
        self,
        name: str,
        person: _Block,
        profile: _Block,
        citations: list[str],
        roles: list[_Block],
        works: list[_Block],
        item_source: _Block,
        notes: list[str],
    ) -> str:
        pad = max(len(p) for p, _ in PREFIX_LINES) + 2
        out = [
            f"# Draft profile of {name}, imported from Wikidata item {self.qid} "
            f"(http://www.wikidata.org/entity/{self.qid}) on {self.today.isoformat()} by `kgprofiles import wikidata`.",
            "# Every claim cites the Wikidata references of its statement and the item itself (source 1).",
            "# Check each claim against its sources, fill in the TODOs, then run `kgprofiles validate`.",
        ]
        out.extend(f"# Note: {n}" for n in notes)
        out.extend(f"@prefix {(p + ':').ljust(pad)}<{ns}> ." for p, ns in PREFIX_LINES)
        sections: list[tuple[str, list[str]]] = [
            ("the person", [person.render()]),
            ("the page", [profile.render(), "\n".join(citations)]),
            ("roles (P108 employer, P39 position held)", [b.render() for b in roles]),
            ("works and contributions (P50 author, P800 notable work)", [b.render() for b in works]),
            (
                "organisations, works and topics drafted from Wikidata",
                [b.render() for kind in ("organization", "work", "topic") for b in self.blocks[kind]],
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


def _reference_title(reference: Reference) -> str:
    for value, _ in reference.values("P1476"):
        return value
    for value, label in reference.values("P248"):
        return label or f"Stated in {value}"
    for value, _ in reference.values("P854"):
        return value
    for value, label in reference.values("P143"):
        return f"Imported from {label or value}"
    return f"Wikidata reference {reference.hash[:12]}"


def import_person(
    qid: str, local: LocalData, wikidata: Wikidata, today: date | None = None, slug: str | None = None
) -> Draft:
    """The draft profile of Wikidata person ``qid`` (a Q-id)."""
    if not re.fullmatch(r"Q[1-9]\d*", qid):
        raise InputError(f"not a Wikidata item id: {qid!r}", "give a Q-id such as Q42")
    return _Importer(qid, local, wikidata, today or date.today()).build(slug)


def default_path(data_dir: Path, draft: Draft) -> Path:
    return data_dir / "people" / f"{draft.slug}.ttl"
