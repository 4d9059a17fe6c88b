"""Our side: the data files, read into an in-memory store and asked through named queries.

The Wikidata commands read the curator's working files, not a built store: `link suggest --apply`
edits those files, and `link check` must see a link the moment it is written. Nothing is
validated or inferred here; the queries read the asserted triples (and the ontology, for classes).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

from kgprofiles import queries, vocab
from kgprofiles.config import Settings
from kgprofiles.errors import InputError
from kgprofiles.ingest import SourceFile, collect_files, parse_file, parse_files
from kgprofiles.queries import resolve_iri
from kgprofiles.store.base import SelectResult, Term
from kgprofiles.store.oxigraph import OxigraphStore
from kgprofiles.vocab import FILE_GRAPH_PREFIX, ONTOLOGY_GRAPH, WD, ids

WIKIDATA_ENTITY = str(WD)
QID = re.compile(r"Q[1-9][0-9]{0,11}")


def is_qid(text: str) -> bool:
    """``Q42``: a Wikidata item id, nothing else."""
    return QID.fullmatch(text) is not None


def qid_of(iri: str) -> str:
    """``Q42`` from ``http://www.wikidata.org/entity/Q42`` (the IRI itself if it is not one)."""
    return iri[len(WIKIDATA_ENTITY) :] if iri.startswith(WIKIDATA_ENTITY) else iri


def curie(iri: str) -> str:
    """``person:horace-he`` for an IRI in a project namespace, else ``<iri>``."""
    return vocab.curie(iri) or f"<{iri}>"


@dataclass(frozen=True)
class LocalEntity:
    """One of our people, organisations, works or topics."""

    iri: str
    kind: str  # person, organization, work, topic ("" when untyped)
    name: str
    file: Path | None  # the data file that holds the link (linked) or types it (unlinked)
    wikidata: str | None = None  # the linked item's IRI
    alt_names: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return curie(self.iri)


@dataclass(frozen=True)
class LocalClaim:
    """A role, contribution or topic of a person, as `link diff` and `suggest` compare it."""

    section: str  # role, work, topic
    claim: str | None
    target: str
    target_name: str | None
    target_alt_names: tuple[str, ...]
    target_link: str | None  # Wikidata IRI of the organisation, work or topic
    title: str | None = None
    start: ox.Literal | None = None  # a role's start, or a work's date
    end: ox.Literal | None = None
    status: str | None = None
    contribution: str | None = None


class LocalData:
    """The data directory in an in-memory store, with the ontology for class hierarchy."""

    def __init__(self, settings: Settings, data_dir: Path | None = None) -> None:
        self.settings = settings
        self.data_dir = (data_dir or settings.data_dir).resolve()
        if not self.data_dir.is_dir():
            raise InputError(f"{self.data_dir}: no such data directory", "give --data DIR or run in a project")
        files = parse_files([self.data_dir], settings.root, self.data_dir)
        self.files: dict[str, SourceFile] = {f.graph: f for f in files}
        ontology = [
            t
            for p in collect_files([settings.ontology_dir], empty_dirs=True)
            for t in parse_file(p, settings.root).triples
        ]
        self.store = OxigraphStore("memory:")
        graphs: dict[str, list[ox.Triple]] = {f.graph: list(f.triples) for f in files}
        graphs[ONTOLOGY_GRAPH] = ontology
        self.store.replace_graphs(graphs)

    def close(self) -> None:
        self.store.close()

    def select(self, name: str, **values: str | Term) -> SelectResult:
        return queries.select(self.store, self.settings.queries_dir, name, **values)

    def ask(self, name: str, **values: str | Term) -> bool:
        return queries.ask(self.store, self.settings.queries_dir, name, **values)

    def file_of(self, graph: str) -> Path | None:
        if graph.startswith(FILE_GRAPH_PREFIX):
            relative = graph[len(FILE_GRAPH_PREFIX) :]
            path = self.data_dir / relative
            if path.exists():
                return path
            if Path("/" + relative).exists():
                return Path("/" + relative)
        return None

    # -------------------------------------------------------------------- what is linked

    def links(self) -> list[LocalEntity]:
        """Every link into Wikidata, one entry per (entity, item)."""
        out = []
        for row in self.select("wikidata-local-links").rows:
            out.append(
                LocalEntity(
                    row["entity"].value,
                    _text(row, "kind") or "",
                    _text(row, "name") or curie(row["entity"].value),
                    self.file_of(row["graph"].value),
                    row["wikidata"].value,
                )
            )
        return out

    def unlinked(self, entity: str | None = None) -> list[LocalEntity]:
        """People and organisations with no Wikidata link (or just ``entity``, if it has none)."""
        values: dict[str, Term] = {"entity": ox.NamedNode(entity)} if entity else {}
        grouped: dict[str, list[dict[str, Term]]] = defaultdict(list)
        for row in self.select("wikidata-local-unlinked", **values).rows:
            grouped[row["entity"].value].append(row)
        out = []
        for iri, rows in grouped.items():
            first = rows[0]
            alt = tuple(sorted({r["altName"].value for r in rows if "altName" in r}))
            out.append(
                LocalEntity(
                    iri, first["kind"].value, first["name"].value, self.file_of(first["graph"].value), None, alt
                )
            )
        return out

    def claims(self, person: str) -> list[LocalClaim]:
        """A person's roles, works and topics."""
        grouped: dict[tuple[str, str | None, str], list[dict[str, Term]]] = defaultdict(list)
        for row in self.select("wikidata-local-claims", person=ox.NamedNode(person)).rows:
            key = (row["section"].value, _iri(row, "claim"), row["target"].value)
            grouped[key].append(row)
        out = []
        for (section, claim, target), rows in grouped.items():
            first = rows[0]
            start, end = first.get("start"), first.get("end")
            out.append(
                LocalClaim(
                    section,
                    claim,
                    target,
                    _text(first, "targetName"),
                    tuple(sorted({r["targetAltName"].value for r in rows if "targetAltName" in r})),
                    _iri(first, "targetLink"),
                    _text(first, "title"),
                    start if isinstance(start, ox.Literal) else None,
                    end if isinstance(end, ox.Literal) else None,
                    _iri(first, "status"),
                    _iri(first, "contribution"),
                )
            )
        return out

    # -------------------------------------------------------------------- resolving names

    def resolve(self, text: str) -> str:
        """A person or organisation IRI from a slug, CURIE, IRI, name or Wikidata Q-id."""
        from kgprofiles.profiles import Views

        text = text.strip()
        organizations = ids().namespace("organization")
        if text.startswith("organization:") or text.startswith(organizations):
            return resolve_iri(text, organizations)
        views = Views(self.store, self.settings.queries_dir)
        try:
            return views.resolve_person(text).value
        except InputError:
            candidate = resolve_iri(text, organizations) if re.fullmatch(r"[a-z0-9][a-z0-9._-]*", text) else None
            if candidate and self.store.query("ASK { ?o a kgp:Organization }", {"o": ox.NamedNode(candidate)}):
                return candidate
            raise

    def person_name(self, person: str) -> str | None:
        rows = self.select("person", person=ox.NamedNode(person)).rows
        return rows[0]["name"].value if rows else None


def _text(row: dict[str, Term], name: str) -> str | None:
    value = row.get(name)
    return value.value if value is not None else None


def _iri(row: dict[str, Term], name: str) -> str | None:
    value = row.get(name)
    return value.value if isinstance(value, ox.NamedNode) else None
