"""Reading a CONSTRUCT from a server that cuts answers at a row cap, without losing triples.

Virtuoso cuts a CONSTRUCT answer at its ``ResultSetMaxRows`` like a SELECT, but says so only for a
SELECT (``X-SPARQL-MaxRows``): a cut graph looks whole. So where a server may cut, the CONSTRUCT
is sent as the SELECT of its template's variables (``as_select``): that answer is read whole page
by page (``paging.py``) or passed on with its cap, as every SELECT is; the template is then filled
in here, row by row (``fill``), as the SPARQL spec builds a CONSTRUCT's graph: a triple with an
unbound variable, a literal subject or a non-IRI predicate is left out; a template's blank node
is a new one for each row. A query rdflib cannot parse, or whose template has no variable, is sent
as written (``as_select`` gives None).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import pyoxigraph as ox

from kgprofiles.sparql_lexer import scan
from kgprofiles.store.base import Term

__all__ = ["ConstructAsSelect", "as_select", "fill"]

#: A template position: a variable's name (str) or a constant term; a blank node label as a
#: ``_Fresh`` (a new blank node for each row).
Slot = Any


@dataclass(frozen=True)
class _Fresh:
    label: str


@dataclass(frozen=True)
class ConstructAsSelect:
    """The SELECT that gives a CONSTRUCT's solutions (``text``), and the template to fill."""

    text: str
    template: tuple[tuple[Slot, Slot, Slot], ...]


def as_select(sent: str, unbound: str | None = None) -> ConstructAsSelect | None:
    """``sent`` (a CONSTRUCT, as it would be sent) as the SELECT of its template's variables:
    DISTINCT unless each solution counts (a LIMIT or OFFSET of its own; a blank node in the
    template, a new one for each solution). None when it cannot be read so (module docstring).
    ``unbound``: the same query before its bindings were written into it, whose template is
    the same; parsed once per text (``_template``)."""
    template = _template(unbound if unbound is not None else sent)
    if template is None:
        return None
    variables = tuple(dict.fromkeys(s for triple in template for s in triple if isinstance(s, str)))
    words = list(scan(sent))
    at = next((i for i, t in enumerate(words) if t.keyword == "CONSTRUCT" and t.depth == 0), None)
    if not variables or at is None or at + 1 >= len(words):
        return None
    construct = words[at]
    end = construct.end
    if words[at + 1].text == "{":  # CONSTRUCT { template } WHERE …; else CONSTRUCT WHERE { … }
        close = next((t for t in words[at + 2 :] if t.kind == "brace" and t.text == "}" and t.depth == 1), None)
        if close is None:
            return None
        end = close.end
    # each solution counts: for a LIMIT or OFFSET, and for a template blank node (new in each)
    distinct = not any(t.keyword in ("LIMIT", "OFFSET") and t.depth == 0 for t in words) and not any(
        isinstance(slot, _Fresh) for triple in template for slot in triple
    )
    head = f"SELECT {'DISTINCT ' if distinct else ''}{' '.join(f'?{v}' for v in variables)} "
    return ConstructAsSelect(f"{sent[: construct.start]}{head}{sent[end:]}", template)


@lru_cache(maxsize=128)
def _template(query: str) -> tuple[tuple[Slot, Slot, Slot], ...] | None:
    """The template of a CONSTRUCT (of the short form: its basic graph pattern), read by rdflib:
    about 35 ms for queries/person-export.rq, so cached by text (the views send the same query
    with other bindings). None when rdflib cannot read it or pyoxigraph cannot hold a term."""
    from rdflib.plugins.sparql.algebra import translateQuery
    from rdflib.plugins.sparql.parser import parseQuery

    try:
        algebra = translateQuery(parseQuery(query)).algebra
    except Exception:  # anything rdflib cannot read is sent as written
        return None
    template_triples = algebra.get("template")
    if template_triples is None:  # CONSTRUCT WHERE { a basic graph pattern }: it is the template
        node = algebra.get("p")
        while node is not None and getattr(node, "name", None) != "BGP":
            node = node.get("p")
        template_triples = node.get("triples") if node is not None else None
    try:
        return tuple(tuple(_slot(term) for term in triple) for triple in template_triples or ())
    except (TypeError, ValueError):  # a term pyoxigraph cannot hold: sent as written
        return None


def _slot(term: Any) -> Slot:
    from rdflib import BNode, Variable

    from kgprofiles.terms import to_oxigraph

    if isinstance(term, Variable):
        return str(term)
    if isinstance(term, BNode):
        return _Fresh(str(term))
    return to_oxigraph(term)


def fill(template: Iterable[tuple[Slot, Slot, Slot]], rows: Iterable[Mapping[str, Term]]) -> list[ox.Triple]:
    """The graph a CONSTRUCT with ``template`` builds from ``rows`` (its solutions), each triple
    once, in the order first built."""
    triples = tuple(template)
    out: dict[ox.Triple, None] = {}
    for row in rows:
        fresh: dict[str, ox.BlankNode] = {}
        for slots in triples:
            terms = [_term(slot, row, fresh) for slot in slots]
            subject, predicate, obj = terms
            if (
                isinstance(subject, ox.NamedNode | ox.BlankNode)
                and isinstance(predicate, ox.NamedNode)
                and obj is not None
            ):
                out[ox.Triple(subject, predicate, obj)] = None
    return list(out)


def _term(slot: Slot, row: Mapping[str, Term], fresh: dict[str, ox.BlankNode]) -> Term | None:
    if isinstance(slot, str):
        return row.get(slot)
    if isinstance(slot, _Fresh):
        return fresh.setdefault(slot.label, ox.BlankNode())
    return slot  # type: ignore[no-any-return]
