"""Rewriting an ``sh:sparql`` SELECT so that it runs once over all focus nodes instead of once per
focus node: ``$this`` becomes the variable ``?this`` bound by the shape's targets, joined inside
the query's outermost WHERE group, and the projection gains ``DISTINCT`` and ``?this``.

pyshacl pre-binds ``$this`` per focus node (rdflib ``initBindings``) and drops duplicate solution
rows; for a query made of basic graph patterns, FILTER, BIND, OPTIONAL, UNION and (NOT) EXISTS this
is the same as joining on ``?this`` at the top of the group and projecting distinct rows. Queries
with sub-SELECTs, aggregation, solution modifiers, MINUS, VALUES, SERVICE or other pre-bound
variables are not rewritten (``Unsupported``): their meaning per focus node differs.

A ``FILTER NOT EXISTS { P }`` at the top of the group, where P is a basic graph pattern, becomes
``MINUS { P }`` at the end of the group when one of P's variables is bound in every solution of
the group (``$this``, or a variable of the group's own top-level triple patterns). The two differ
only for a solution that shares no variable with P (MINUS keeps it, NOT EXISTS drops it when P
matches anything), and there is none then. The engine answers MINUS with one hash anti-join
instead of evaluating P once per row: the profile's missing-source constraint takes 5 s instead
of more than 10 minutes at 100,000 people. SHACL forbids MINUS in the shapes themselves; this is
only how the fast path runs them.
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
    closing = next(
        (t for t in lexed if t.kind == "brace" and t.text == "}" and t.depth == 1 and t.start > opening.start), None
    )
    if closing is None:
        raise Unsupported("an sh:sparql query whose WHERE group does not close")
    _check_this_positions(lexed, opening, closing)
    body = re.sub(r"\$this\b", "?this", _not_exists_as_minus(select, lexed, opening, closing))
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


def _not_exists_as_minus(select: str, lexed: list[Token], opening: Token, closing: Token) -> str:
    """The text of the WHERE group between ``opening`` and ``closing``, with each top-level
    ``FILTER NOT EXISTS`` that means the same as a MINUS moved to the end as one (module
    docstring); the rest as written."""
    top = opening.depth + 1
    body = [t for t in lexed if opening.end <= t.start < closing.start and t.kind != "comment"]
    candidates: list[tuple[int, int, int, int]] = []  # (FILTER's start, end of group, P's start, P's end)
    bound = {"this"}  # bound in every solution: by the targets, or by the group's own triple patterns
    parens = 0
    for at, t in enumerate(body):
        if t.kind == "var":
            if t.depth == top and parens == 0:
                bound.add(t.text[1:])
        elif t.kind == "punct" and t.text in ("(", ")"):
            parens += 1 if t.text == "(" else -1
        elif (
            t.keyword == "FILTER"
            and t.depth == top
            and parens == 0
            and [u.text.upper() for u in body[at + 1 : at + 4]] == ["NOT", "EXISTS", "{"]
        ):
            group_open = body[at + 3]
            group_close = next(
                (u for u in body[at + 4 :] if u.kind == "brace" and u.text == "}" and u.depth == top + 1), None
            )
            if group_close is not None:  # (else not a group: left as written, for the parser to refuse)
                candidates.append((t.start, group_close.end, group_open.end, group_close.start))
    kept: list[str] = []
    moved: list[str] = []
    cursor = opening.end
    for start, end, p_start, p_end in candidates:
        inside = [t for t in body if p_start <= t.start < p_end]
        plain = all(t.kind != "brace" and (t.kind != "keyword" or t.text == "a") for t in inside)
        if plain and bound.intersection(t.text[1:] for t in inside if t.kind == "var"):
            kept.append(select[cursor:start])
            moved.append(f"MINUS {{{select[p_start:p_end]}}}")
            cursor = end
    kept.append(select[cursor : closing.start])
    return "".join(kept) + "".join(f"\n  {m}" for m in moved) + ("\n" if moved else "")
