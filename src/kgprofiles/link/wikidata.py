"""Their side: the ``queries/wikidata-*.rq`` files sent to the Wikidata endpoint, and the answers read
into plain records.

A query's parameter is bound to many values at once as one ``VALUES`` block at the start of its
WHERE group (``store.binding.bind_rows``; at most ``batch_size`` rows, 200 by default, per request).
The terms are written by Oxigraph in N-Triples syntax, so a value can never change the query's
structure.

The answers are untrusted: a row without a value it needs (a text the client left out for its
length, or a broken server) is skipped, and an item, redirect, organisation or statement value that
is not a Wikidata item IRI with a Q-id is not taken for one.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

from kgprofiles.config import SearchPath
from kgprofiles.errors import QueryError
from kgprofiles.link.client import WikidataClient
from kgprofiles.link.local import WIKIDATA_ENTITY, is_qid, qid_of
from kgprofiles.link.wikidata_dates import Date
from kgprofiles.queries import NamedQuery, get_query
from kgprofiles.store.base import Term
from kgprofiles.store.binding import bind_rows
from kgprofiles.vocab import WD_REFERENCE_NS as PROP

HUMAN = "Q5"
DEPRECATED = "http://wikiba.se/ontology#DeprecatedRank"


def values_query(query: NamedQuery, variable: str, terms: Sequence[Term]) -> str:
    """``query``'s text with ``VALUES ?variable { t1 t2 … }`` at the start of its WHERE group."""
    if variable not in {p.name for p in query.params}:
        raise QueryError(f"query {query.name!r} has no parameter {variable}")
    return bind_rows(query.text, variable, list(terms))


def item_iri(qid: str) -> ox.NamedNode:
    return ox.NamedNode(WIKIDATA_ENTITY + qid)


@dataclass(frozen=True)
class Item:
    """What `link check` needs to know of an item. ``exists`` is False for an unknown id."""

    qid: str
    exists: bool
    redirect: str | None = None
    labels: tuple[str, ...] = ()  # English first, then "mul"
    aliases: tuple[str, ...] = ()
    description: str | None = None
    types: tuple[str, ...] = ()

    @property
    def label(self) -> str | None:
        return self.labels[0] if self.labels else None


@dataclass(frozen=True)
class Statement:
    """One statement of an item (for P50, the statement on the work that names the item)."""

    item: str
    prop: str  # P108, P39, P101, P800, P50
    iri: str
    value: str  # a Q-id, or the text of a literal value
    value_label: str | None
    start: Date | None = None
    end: Date | None = None
    of: str | None = None  # the organisation of a position
    of_label: str | None = None
    date: Date | None = None  # the value's publication date (works)
    preferred: bool = False

    @property
    def value_text(self) -> str:
        """ "Fixture Institute (Q99900000021)", or the Q-id alone when Wikidata gave no English label."""
        return f"{self.value_label} ({self.value})" if self.value_label else self.value


@dataclass(frozen=True)
class Reference:
    """One Wikidata reference: its node, its snaks (property, value, value label) and its P813 date."""

    iri: str
    snaks: tuple[tuple[str, str, str | None], ...]
    retrieved: Date | None

    @property
    def hash(self) -> str:
        return self.iri.rsplit("/", 1)[-1]

    def values(self, prop: str) -> list[tuple[str, str | None]]:
        return [(value, label) for p, value, label in self.snaks if p == prop]


class Wikidata:
    """The Wikidata queries, run through one client."""

    def __init__(self, client: WikidataClient, queries_dir: Path | SearchPath) -> None:
        self.client = client
        self.queries_dir = queries_dir

    def _rows(self, name: str, variable: str, terms: Iterable[Term], needs: tuple[str, ...]) -> list[dict[str, Term]]:
        """The answer rows of query ``name`` for ``terms``, batched; rows without every one of ``needs`` skipped."""
        unique = sorted(set(terms), key=str)
        query = get_query(self.queries_dir, name)
        size = self.client.config.batch_size
        rows: list[dict[str, Term]] = []
        for start in range(0, len(unique), size):
            answer = self.client.select(values_query(query, variable, unique[start : start + size]))
            rows.extend(row for row in answer.rows if all(n in row for n in needs))
        return rows

    def items(self, qids: Iterable[str]) -> dict[str, Item]:
        """Each id's item; redirect targets are not followed here."""
        wanted = sorted(set(qids))
        found: dict[str, dict[str, set[str]]] = {q: defaultdict(set) for q in wanted}
        languages: dict[str, str] = {}
        for row in self._rows("wikidata-entities", "item", [item_iri(q) for q in wanted], ("item", "kind", "value")):
            qid = item_qid(row["item"])
            value = row["value"]
            kind = row["kind"].value
            text = qid_of(value.value) if isinstance(value, ox.NamedNode) else value.value
            if qid not in found or (kind == "redirect" and item_qid(value) is None):
                continue
            found[qid][kind].add(text)
            if kind == "label" and isinstance(value, ox.Literal) and value.language:
                languages[text] = value.language
        out = {}
        for qid, kinds in found.items():
            exists = any(kinds.values())
            labels = sorted(kinds["label"], key=lambda t: (languages.get(t) != "en", t))
            redirects = sorted(kinds["redirect"])
            out[qid] = Item(
                qid,
                exists,
                redirects[0] if redirects else None,
                tuple(labels),
                tuple(sorted(kinds["alias"])),
                min(kinds["description"]) if kinds["description"] else None,
                tuple(sorted(kinds["type"])),
            )
        return out

    def search(self, names: Iterable[str]) -> dict[str, list[tuple[str, str]]]:
        """For each name, the items whose English (or "mul") label or alias it is exactly: (Q-id, how)."""
        wanted = sorted({n.strip() for n in names if n.strip()})
        terms = [ox.Literal(n, language=lang) for n in wanted for lang in ("en", "mul")]
        found: dict[str, dict[str, str]] = {n: {} for n in wanted}
        for row in self._rows("wikidata-search", "name", terms, ("name", "item", "how")):
            name, qid, how = row["name"].value, item_qid(row["item"]), row["how"].value
            if name not in found or qid is None:
                continue
            best = found[name]
            if best.get(qid) != "label":
                best[qid] = how
        return {n: sorted(m.items(), key=lambda kv: _qnum(kv[0])) for n, m in found.items()}

    def statements(self, qids: Iterable[str]) -> dict[str, list[Statement]]:
        """Each item's employers, positions, fields of work and works; deprecated ones left out."""
        wanted = sorted(set(qids))
        merged: dict[str, dict[str, list[Term]]] = defaultdict(lambda: defaultdict(list))
        for row in self._rows("wikidata-statements", "item", [item_iri(q) for q in wanted], ("statement",)):
            node = merged[row["statement"].value]
            for name, value in row.items():
                node[name].append(value)
        out: dict[str, list[Statement]] = {q: [] for q in wanted}
        for iri, fields in merged.items():
            statement = _statement(iri, fields)
            if statement is not None:
                out.setdefault(statement.item, []).append(statement)
        for statements in out.values():
            statements.sort(key=lambda s: (s.prop, _qnum(s.value), s.iri))
        return out

    def references(self, statements: Iterable[str]) -> dict[str, list[Reference]]:
        """Each statement's references, in a stable order (by hash)."""
        snaks: dict[str, set[tuple[str, str, str | None]]] = defaultdict(set)
        precision: dict[str, str] = {}
        of_statement: dict[str, set[str]] = defaultdict(set)
        needs = ("statement", "reference", "property", "value")
        for row in self._rows("wikidata-references", "statement", [ox.NamedNode(s) for s in statements], needs):
            ref = row["reference"].value
            of_statement[row["statement"].value].add(ref)
            prop = row["property"].value[len(PROP) :]
            value = row["value"]
            text = qid_of(value.value) if isinstance(value, ox.NamedNode) else value.value
            label = row["valueLabel"].value if "valueLabel" in row else None
            snaks[ref].add((prop, text, label))
            if "retrievedPrecision" in row:
                precision[ref] = row["retrievedPrecision"].value
        references = {}
        for ref, found in snaks.items():
            retrieved = next((v for p, v, _ in sorted(found, key=str) if p == "P813"), None)
            date = Date.from_wikidata(retrieved, precision.get(ref)) if retrieved else None
            references[ref] = Reference(ref, tuple(sorted(found, key=lambda s: (s[0], s[1], s[2] or ""))), date)
        return {s: [references[r] for r in sorted(refs)] for s, refs in of_statement.items()}


def item_qid(term: Term) -> str | None:
    """``Q42`` for ``wd:Q42``; None for any other term (a property, a blank node, a foreign IRI)."""
    if not isinstance(term, ox.NamedNode) or not term.value.startswith(WIKIDATA_ENTITY):
        return None
    qid = term.value[len(WIKIDATA_ENTITY) :]
    return qid if is_qid(qid) else None


def _first(fields: dict[str, list[Term]], name: str) -> Term | None:
    values = fields.get(name) or []
    return min(values, key=str) if values else None


def _text(term: Term | None) -> str | None:
    if term is None:
        return None
    return qid_of(term.value) if isinstance(term, ox.NamedNode) else term.value


def _item(fields: dict[str, list[Term]], name: str) -> str | None:
    """The Q-id of the first item IRI among ``name``'s values."""
    qids = (item_qid(t) for t in sorted(fields.get(name) or [], key=str))
    return next((q for q in qids if q is not None), None)


def _date(fields: dict[str, list[Term]], name: str) -> Date | None:
    term = _first(fields, name)
    if term is None:
        return None
    return Date.from_wikidata(term.value, _text(_first(fields, name + "Precision")))


def _statement(iri: str, fields: dict[str, list[Term]]) -> Statement | None:
    rank = _first(fields, "rank")
    if rank is not None and rank.value == DEPRECATED:
        return None
    value = _item(fields, "value")  # a "some value" or "no value" node is not an item: left out
    item = _item(fields, "item")
    prop = _text(_first(fields, "prop"))
    if value is None or item is None or prop is None or not re.fullmatch(r"P[1-9][0-9]*", prop):
        return None
    return Statement(
        item,
        prop,
        iri,
        value,
        _text(_first(fields, "valueLabel")),
        _date(fields, "start"),
        _date(fields, "end"),
        _item(fields, "of"),
        _text(_first(fields, "ofLabel")),
        _date(fields, "date"),
        rank is not None and rank.value.endswith("PreferredRank"),
    )


def _qnum(qid: str) -> tuple[int, str]:
    return (int(qid[1:]), qid) if qid[1:].isdigit() else (10**18, qid)
