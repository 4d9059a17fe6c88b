"""Rewriting an ``sh:sparql`` SELECT so that it runs once over all focus nodes instead of once per
focus node: ``$this`` becomes the variable ``?this`` bound by the shape's targets, joined inside
the query's outermost WHERE group, and the projection gains ``DISTINCT`` and ``?this``.

pyshacl pre-binds ``$this`` per focus node (rdflib ``initBindings``) and drops duplicate solution
rows; for a query made of basic graph patterns, FILTER, BIND, OPTIONAL, UNION and (NOT) EXISTS this
is the same as joining on ``?this`` at the top of the group and projecting distinct rows. Queries
with sub-SELECTs, aggregation, solution modifiers, MINUS, VALUES, SERVICE or other pre-bound
variables are not rewritten (``Unsupported``): their meaning per focus node differs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rdflib import Graph

from kgprofiles.fast.shapes_model import Unsupported
from kgprofiles.sparql_lexer import Token, tokens

_FORBIDDEN = {"MINUS", "VALUES", "SERVICE", "GROUP", "HAVING", "LIMIT", "OFFSET", "ORDER", "GRAPH", "FROM"}
_PREBOUND = {"$currentshape", "$shapesgraph", "$path", "$value", "?currentshape", "?shapesgraph", "?path"}


def default_prefixes() -> dict[str, str]:
    """The prefixes rdflib's ``Graph.query`` knows without declaration (pyshacl's data graph)."""
    return {name: str(ns) for name, ns in Graph().namespaces()}


@dataclass(frozen=True)
class RewrittenSelect:
    """A SELECT over all focus nodes; ``projects_this`` tells whether the original projected $this."""

    text: str
    variables: tuple[str, ...]  # the original projection, without '?'
    projects_this: bool


def rewrite_select(select: str, prefixes: dict[str, str], target: str) -> RewrittenSelect:
    """``select`` (an sh:select text) as one query over all focus nodes bound by ``target`` (a
    group graph pattern binding ``?this``), with ``prefixes`` declared before it."""
    lexed = tokens(select)
    words = [t for t in lexed if t.is_word]
    uppers = [w.text.upper() for w in words]
    found = sorted(_FORBIDDEN.intersection(uppers))
    if found:
        raise Unsupported(f"an sh:sparql query with {', '.join(found)}")
    if uppers.count("SELECT") != 1 or "WHERE" not in uppers:
        raise Unsupported("an sh:sparql query with sub-SELECTs or without WHERE")
    if any(w.text.lower() in _PREBOUND for w in words) or "?failure" in (w.text for w in words):
        raise Unsupported("an sh:sparql query using $path, $value, $currentShape, $shapesGraph or ?failure")
    select_at = uppers.index("SELECT")
    where_at = uppers.index("WHERE")
    head = words[select_at + 1 : where_at]
    if any(
        t.kind == "punct" and t.text == "(" for t in lexed if words[select_at].end <= t.start < words[where_at].start
    ):
        raise Unsupported("an sh:sparql query with expressions in its projection")
    modifiers = [w for w in head if not w.text.startswith(("?", "$"))]
    if any(m.text.upper() not in ("DISTINCT", "REDUCED") for m in modifiers):
        raise Unsupported("an sh:sparql query with an unusual projection")
    names = tuple(w.text[1:] for w in head if w.text.startswith(("?", "$")))
    if not names:
        raise Unsupported("an sh:sparql query with SELECT *")
    opening = next((t for t in lexed if t.kind == "brace" and t.text == "{" and t.start > words[where_at].start), None)
    if opening is None or opening.depth != 0:
        raise Unsupported("an sh:sparql query whose WHERE group cannot be found")
    body_start = opening.end
    closing = next(t for t in lexed if t.kind == "brace" and t.text == "}" and t.depth == 1 and t.start > opening.start)
    _check_this_positions(lexed, opening, closing)
    body = re.sub(r"\$this\b", "?this", select[body_start : closing.start])
    projection = " ".join(["?this", *(f"?{n}" for n in names if n != "this")])
    declared = dict(default_prefixes())
    declared.update(prefixes)
    prologue = "".join(f"PREFIX {p}: <{ns}>\n" for p, ns in declared.items())
    text = f"{prologue}SELECT DISTINCT {projection} WHERE {{\n  {{ {target} }}\n  {body}\n}}"
    return RewrittenSelect(text, names, "this" in names)


def _check_this_positions(lexed: list[Token], opening: Token, closing: Token) -> None:
    """``$this`` must be bound wherever it is used once it is joined at the top of the group: at
    the group's top level, or inside a FILTER [NOT] EXISTS group opened at the top level."""
    top = opening.depth + 1
    body = [t for t in lexed if opening.end <= t.start < closing.start and (t.is_word or t.kind == "brace")]
    exists_depths: list[int] = []
    previous: list[str] = []
    for t in body:
        if t.kind == "brace":
            if t.text == "{" and previous[-1:] == ["EXISTS"] and t.depth == top:
                exists_depths.append(t.depth)
            elif t.text == "}" and exists_depths and t.depth == exists_depths[-1] + 1:
                exists_depths.pop()
            previous.append(t.text)
            continue
        previous.append(t.text.upper())
        if t.text.lower() in ("$this", "?this") and t.depth != top and not exists_depths:
            raise Unsupported("an sh:sparql query using $this inside a nested group")
