"""Literal fidelity: where rdflib's view of a literal and Oxigraph's stored form part ways.

The reference engines (pyshacl, owlrl) see the data through rdflib, which normalises a typed
literal when it can parse it (``"01"^^xsd:integer`` → ``"1"``, ``"2019-06-01Z"^^xsd:date`` →
``"2019-06-01"``, ``"1e3"^^xsd:double`` → ``"1000.0"``). An Oxigraph store canonicalises too,
in its own way (``"1.50"^^xsd:decimal`` → ``"1.5"``, ``"1e3"^^xsd:double`` → ``"1000"``) and keeps
no trace of the text it was given. Where the two agree, SPARQL on the store sees exactly the terms
pyshacl sees; where they do not, a fast path must not trust the store for that literal.

``scan_literals`` reads the parsed (raw) triples once and records, for every typed literal that is
not an ``xsd:string``: its rdflib form, its stored form, the predicates it is the object of, and the
triples whose literal the store cannot represent as rdflib does (``LiteralScan.unfaithful``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache

import pyoxigraph as ox
from rdflib import Literal

from kgprofiles.store import engine
from kgprofiles.terms import to_oxigraph, to_rdflib
from kgprofiles.vocab import XSD_NS

XSD_STRING = XSD_NS + "string"
_SCRATCH_SUBJECT = ox.NamedNode("urn:kgprofiles:fast:scratch")


@lru_cache(maxsize=200_000)
def rdflib_form(literal: ox.Literal) -> ox.Literal:
    """The literal as rdflib (hence pyshacl and owlrl) sees it, back in Oxigraph terms."""
    converted = to_oxigraph(to_rdflib(literal))
    assert isinstance(converted, ox.Literal)
    return converted


def rdflib_literal(literal: ox.Literal) -> Literal:
    """The rdflib literal for an Oxigraph one (cached)."""
    return _rdflib_literal(literal)


@lru_cache(maxsize=200_000)
def _rdflib_literal(literal: ox.Literal) -> Literal:
    term = to_rdflib(literal)
    assert isinstance(term, Literal)
    return term


def stored_forms(literals: Iterable[ox.Literal]) -> dict[ox.Literal, ox.Literal]:
    """Each literal → the form an Oxigraph store gives back for it (one scratch store)."""
    unique = list(dict.fromkeys(literals))
    if not unique:
        return {}
    scratch = engine.scratch()
    predicates = [ox.NamedNode(f"urn:kgprofiles:fast:p{i}") for i in range(len(unique))]
    scratch.extend(ox.Quad(_SCRATCH_SUBJECT, p, lit) for p, lit in zip(predicates, unique, strict=True))
    back = {q.predicate: q.object for q in scratch.quads_for_pattern(_SCRATCH_SUBJECT, None, None, None)}
    return {lit: back[p] for p, lit in zip(predicates, unique, strict=True)}  # type: ignore[misc]


def faithful(literals: Iterable[ox.Literal]) -> dict[ox.Literal, bool]:
    """Whether a store holding the rdflib form of each literal gives that same form back."""
    views = {lit: rdflib_form(lit) for lit in literals}
    stored = stored_forms(views.values())
    return {lit: stored[view] == view for lit, view in views.items()}


@dataclass
class LiteralScan:
    """What one pass over the raw triples learned about their typed literals.

    ``typed`` maps each distinct typed literal (not ``xsd:string``, not language-tagged), as
    written, to the IRIs of the predicates it is an object of. ``unfaithful`` holds the raw
    triples whose literal object the store keeps in a different form than rdflib gives it
    (empty for most data: then SPARQL on the store sees exactly what pyshacl sees)."""

    typed: dict[ox.Literal, set[str]] = field(default_factory=dict)
    unfaithful: list[ox.Triple] = field(default_factory=list)
    stored: dict[ox.Literal, ox.Literal] = field(default_factory=dict)
    #: predicate IRI → the kinds of its objects: "iri", "bnode", "@" (language-tagged) or a datatype IRI
    kinds: dict[str, set[str]] = field(default_factory=dict)

    @property
    def unfaithful_literals(self) -> set[ox.Literal]:
        return {t.object for t in self.unfaithful}  # type: ignore[misc]

    def view(self, literal: ox.Literal) -> ox.Literal:
        """The rdflib form of a raw literal."""
        return rdflib_form(literal) if literal in self.typed else literal


def scan_literals(triples: Callable[[], Iterable[ox.Triple | ox.Quad]]) -> LiteralScan:
    """One pass over raw (parsed, not stored) triples; see ``LiteralScan``. ``triples`` makes
    a fresh iterator each call: a second pass runs only when some literal is unfaithful."""
    scanner = LiteralScanner()
    scanner.add(triples())
    return scanner.finish(triples)


class LiteralScanner:
    """``scan_literals`` in steps: ``add`` the triples as they are parsed (no pass of its own),
    then ``finish``."""

    def __init__(self) -> None:
        self.typed: dict[ox.Literal, set[str]] = {}
        self.kinds: dict[str, set[str]] = {}

    def add(self, triples: Iterable[ox.Triple | ox.Quad]) -> None:
        typed, kinds = self.typed, self.kinds
        literal_type, named_type = ox.Literal, ox.NamedNode
        for t in triples:
            o = t.object
            p = t.predicate.value
            seen = kinds.get(p)
            if seen is None:
                seen = kinds[p] = set()
            if type(o) is literal_type:
                if o.language:
                    seen.add("@")
                    continue
                datatype = o.datatype.value
                seen.add(datatype)
                if datatype != XSD_STRING:
                    preds = typed.get(o)
                    if preds is None:
                        preds = typed[o] = set()
                    preds.add(p)
            else:
                seen.add("iri" if type(o) is named_type else "bnode")

    def finish(self, triples: Callable[[], Iterable[ox.Triple | ox.Quad]]) -> LiteralScan:
        """The scan of everything added; ``triples`` (the same triples again) is read only when
        some literal is unfaithful, to collect the triples that hold it."""
        typed, literal_type = self.typed, ox.Literal
        views = {lit: rdflib_form(lit) for lit in typed}
        stored = stored_forms(typed)
        bad = {lit for lit in typed if stored[lit] != views[lit]}
        scan = LiteralScan(typed, [], {lit: stored[lit] for lit in typed}, self.kinds)
        if bad:
            scan.unfaithful = [
                ox.Triple(t.subject, t.predicate, t.object)
                for t in triples()
                if type(t.object) is literal_type and t.object in bad
            ]
        return scan
