"""A SELECT's final ORDER BY evaluated in Python, for whole-graph listings.

pyoxigraph compares strings of more than 16 bytes by reading both from the store, each time it
compares them: sorting the 100,000 names of a 100,000-person graph took 8–9 s of a 12 s query
(``bench/RESULTS.md``, 2026-12-06), the rows themselves 3 s. Sorted here, by the same order, they
take 0.3 s. Views use it for the few queries that list the whole graph (``Views.select``); the
query files keep their ORDER BY, so ``kgprofiles query`` and a remote server answer in the same
order.

``split_order_by`` takes the ORDER BY off a query (only a last, top-level one whose keys are
plain variables, ``ASC(?v)`` or ``DESC(?v)``: anything else, or a LIMIT or OFFSET after it, is
left to the engine), and projects the keys the query does not (where that cannot change its rows:
not under DISTINCT, REDUCED or GROUP BY); the caller drops them again (``without``).
``sorted_rows`` sorts rows by those keys in SPARQL's order (§15.1): unbound, then IRIs, then
literals; IRIs by their text; literals when a key's literals are all ``xsd:string`` (by code
point, as pyoxigraph does) or all ``xsd:integer`` (by value). Where a key's values are anything
else (blank nodes, language-tagged strings, dates, a mix), it answers None and the caller asks
the engine.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyoxigraph as ox

from kgprofiles.sparql_lexer import scan
from kgprofiles.store.binding import Term, projection

_XSD = "http://www.w3.org/2001/XMLSchema#"
_STRING, _INTEGER = _XSD + "string", _XSD + "integer"

#: One key of an ORDER BY: the variable, and whether it is descending.
OrderKey = tuple[str, bool]


def split_order_by(sparql: str) -> tuple[str, tuple[OrderKey, ...], tuple[str, ...]] | None:
    """``sparql`` without its final ORDER BY, that ORDER BY's keys, and the keys it projects only
    for the sort; None where it has no ORDER BY this module can evaluate.

    >>> split_order_by("SELECT ?a ?b WHERE { ?a ?p ?b } ORDER BY ?b DESC(?a)")
    ('SELECT ?a ?b WHERE { ?a ?p ?b } ', (('b', False), ('a', True)), ())
    >>> split_order_by("SELECT ?a WHERE { ?a ?p ?b } ORDER BY ?b ?a")
    ('SELECT ?b ?a WHERE { ?a ?p ?b } ', (('b', False), ('a', False)), ('b',))
    >>> split_order_by("SELECT DISTINCT ?a WHERE { ?a ?p ?b } ORDER BY ?b") is None  # more rows with ?b
    True
    >>> split_order_by("SELECT ?a WHERE { ?a ?p ?b } ORDER BY ?a LIMIT 3") is None  # the first three
    True
    >>> split_order_by("SELECT ?a WHERE { ?a ?p ?b } ORDER BY STR(?a)") is None  # an expression
    True
    """
    tokens = [t for t in scan(sparql) if t.kind != "comment"]
    at = next(
        (
            i
            for i in range(len(tokens) - 1, 0, -1)
            if tokens[i].keyword == "BY" and tokens[i - 1].keyword == "ORDER" and tokens[i].depth == 0
        ),
        None,
    )
    if at is None or any(t.text == "}" for t in tokens[at:]):
        return None
    keys: list[OrderKey] = []
    rest = tokens[at + 1 :]
    while rest:
        if rest[0].kind == "var":
            keys.append((rest[0].text[1:], False))
            rest = rest[1:]
        elif (
            len(rest) >= 4
            and rest[0].keyword in ("ASC", "DESC")
            and rest[1].text == "("
            and rest[2].kind == "var"
            and rest[3].text == ")"
        ):
            keys.append((rest[2].text[1:], rest[0].keyword == "DESC"))
            rest = rest[4:]
        else:
            return None  # an expression, LIMIT, OFFSET, VALUES: the engine's
    if not keys:
        return None
    text = sparql[: tokens[at - 1].start]
    select = next((i for i, t in enumerate(tokens) if t.keyword == "SELECT"), None)
    if select is None or select + 1 >= len(tokens):
        return None
    projected = projection(text)
    if tokens[select + 1].text == "*":
        return text, tuple(keys), ()
    added = tuple(dict.fromkeys(name for name, _ in keys if name not in projected))
    if not added:
        return text, tuple(keys), ()
    outer = [t for t in tokens[:at] if t.depth == 0]
    grouped = any(t.keyword == "GROUP" for t in outer)
    if grouped or tokens[select + 1].keyword in ("DISTINCT", "REDUCED"):
        return None
    cut = tokens[select].end
    return f"{text[:cut]} {' '.join('?' + name for name in added)}{text[cut:]}", tuple(keys), added


def without(rows: Sequence[dict[str, Term]], names: Sequence[str]) -> tuple[dict[str, Term], ...]:
    """``rows`` without the variables ``names`` (those ``split_order_by`` projected to sort by),
    taken out of each row in place."""
    for name in names:
        for row in rows:
            row.pop(name, None)
    return tuple(rows)


def sorted_rows(rows: Sequence[dict[str, Term]], keys: Sequence[OrderKey]) -> tuple[dict[str, Term], ...] | None:
    """``rows`` in the order of ``keys`` (stable), or None where a key's values are of a kind
    whose order this module does not know.

    >>> rows = [{"n": ox.Literal("b")}, {}, {"n": ox.NamedNode("http://x/z")}, {"n": ox.Literal("a")}]
    >>> [str(r.get("n")) for r in sorted_rows(rows, [("n", False)])]
    ['None', '<http://x/z>', '"a"', '"b"']
    >>> sorted_rows([{"n": ox.Literal("a", language="en")}], [("n", False)]) is None
    True
    """
    ordered = list(rows)
    for name, descending in reversed(keys):  # stable sorts, the last key first
        literal_type = None
        for row in ordered:
            value = row.get(name)
            if isinstance(value, ox.Literal):
                datatype = value.datatype.value
                if value.language is not None or datatype not in (_STRING, _INTEGER):
                    return None
                if literal_type not in (None, datatype):
                    return None
                literal_type = datatype
            elif value is not None and not isinstance(value, ox.NamedNode):
                return None
        if literal_type == _INTEGER:
            try:
                ordered.sort(key=lambda row: _integer_key(row.get(name)), reverse=descending)
            except ValueError:  # an ill-typed integer literal: the engine's
                return None
        else:
            ordered.sort(key=lambda row: _text_key(row.get(name)), reverse=descending)
    return tuple(ordered)


def _text_key(value: Term | None) -> tuple[int, str]:
    if value is None:
        return (0, "")
    return (1 if isinstance(value, ox.NamedNode) else 2, value.value)


def _integer_key(value: Term | None) -> tuple[int, int | str]:
    if value is None:
        return (0, 0)
    if isinstance(value, ox.NamedNode):
        return (1, value.value)
    return (2, int(value.value))
