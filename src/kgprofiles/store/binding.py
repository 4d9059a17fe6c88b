"""Parameters bound as RDF terms: a ``VALUES`` block placed at the start of the query's outermost
WHERE group. Terms are written in N-Triples syntax by pyoxigraph, which escapes them, so a value
can never change the query's structure (no SPARQL injection).

Both backends use this one mechanism, so a query means the same on the embedded store and on a
remote server. (pyoxigraph's own ``substitutions`` only accept variables that are projected, which
aggregating queries cannot do.) Queries use a parameter only where the outermost group, or a
triple pattern of the same group, binds it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import pyoxigraph as ox

from kgprofiles.errors import QueryError

Term = ox.NamedNode | ox.BlankNode | ox.Literal
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SKIP = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*"""'  # long strings
    r"|'''(?:[^'\\]|\\.|'(?!''))*'''"
    r'|"(?:[^"\\\n]|\\.)*"'  # short strings
    r"|'(?:[^'\\\n]|\\.)*'"
    r"|<[^<>\"{}|^`\\\s]*>"  # IRIs (a '<' followed by a space is the less-than operator)
    r"|#[^\n]*",  # comments
)
_KEYWORD = re.compile(r"(?i)\b(WHERE|SELECT|ASK|CONSTRUCT|DESCRIBE)\b")


def _group_start(sparql: str) -> int:
    """The offset just after the '{' that opens the outermost WHERE group."""
    position = 0
    form_seen = False
    while position < len(sparql):
        skip = _SKIP.match(sparql, position)
        if skip:
            position = skip.end()
            continue
        keyword = _KEYWORD.match(sparql, position)
        if keyword and (position == 0 or not (sparql[position - 1].isalnum() or sparql[position - 1] in "?$:_")):
            word = keyword.group(1).upper()
            if word == "WHERE":
                brace = sparql.find("{", keyword.end())
                if brace < 0:
                    break
                return brace + 1
            form_seen = True
            position = keyword.end()
            if word == "CONSTRUCT":
                # CONSTRUCT { template } WHERE { … }: skip the template.
                rest = sparql[position:].lstrip()
                if rest.startswith("{"):
                    position = _matching_brace(sparql, sparql.index("{", position)) + 1
            continue
        if sparql[position] == "{" and form_seen:
            return position + 1
        position += 1
    raise QueryError("cannot find the query's WHERE group to bind parameters into")


def _matching_brace(sparql: str, start: int) -> int:
    depth = 0
    position = start
    while position < len(sparql):
        skip = _SKIP.match(sparql, position)
        if skip:
            position = skip.end()
            continue
        if sparql[position] == "{":
            depth += 1
        elif sparql[position] == "}":
            depth -= 1
            if depth == 0:
                return position
        position += 1
    raise QueryError("unbalanced braces in the query")


def bind_values(sparql: str, bindings: Mapping[str, Term] | None) -> str:
    """``sparql`` with ``VALUES (?a ?b) { (<term> "term") }`` at the start of its WHERE group."""
    if not bindings:
        return sparql
    names = sorted(bindings)
    for name in names:
        if not _NAME.fullmatch(name):
            raise QueryError(f"not a variable name: {name!r}")
        term = bindings[name]
        if not isinstance(term, ox.NamedNode | ox.BlankNode | ox.Literal):
            raise QueryError(f"parameter {name} is not an RDF term: {term!r}")
    head = " ".join(f"?{n}" for n in names)
    row = " ".join(str(bindings[n]) for n in names)
    at = _group_start(sparql)
    return f"{sparql[:at]} VALUES ({head}) {{ ({row}) }} {sparql[at:]}"
