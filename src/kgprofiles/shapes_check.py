"""The SPARQL inside a shapes graph, checked before any engine runs it.

An ``sh:select``, ``sh:ask`` or ``sh:construct`` (SPARQL-based constraints, constraint components,
targets, rules) must be a query that reads the data graph and nothing else: no ``SERVICE`` (it
would make the validator fetch from a server), no ``FROM`` / ``FROM NAMED`` (another dataset),
no update such as ``LOAD``. Each text is parsed the way the engines read it (rdflib's SPARQL
parser, after ``\\u`` escapes are applied), never scanned as raw text, so an escape or a comment
cannot hide a keyword. A text that does not parse is refused as well: it would fail later, inside
the engine, with a less helpful message.

Parsing costs tens of milliseconds a query (rdflib's parser), so a text is parsed only when one of
the keywords appears in it after its escapes are applied, both as SPARQL defines ``\\u`` and
``\\U`` (Oxigraph) and as rdflib reads them: a keyword cannot appear in a query otherwise.
"""

from __future__ import annotations

import re
from functools import lru_cache

from rdflib import Graph, Literal
from rdflib.namespace import SH
from rdflib.term import Node

from kgprofiles.errors import ShapesError

#: The shapes-graph predicates whose objects are SPARQL queries.
QUERY_PREDICATES = (SH.select, SH.ask, SH.construct)
_FETCHING = {"ServiceGraphPattern": "SERVICE", "DatasetClause": "FROM", "Load": "LOAD"}
_KEYWORDS = re.compile("SERVICE|FROM|LOAD", re.IGNORECASE)
_SPARQL_ESCAPE = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")
#: rdflib's reading of the same escapes (``parser.expandUnicodeEscapes``): 4 or 8 digits after either.
_RDFLIB_ESCAPE = re.compile(r"\\u([0-9a-f]{4}(?:[0-9a-f]{4})?)", re.IGNORECASE)
_HINT = "a shape may only read the data it validates: remove SERVICE, FROM and LOAD from its SPARQL"


def check_shape_queries(shapes: Graph, source: str = "the shapes graph") -> None:
    """Raise ShapesError naming the shape and ``source`` (the file) for the first query of
    ``shapes`` that fetches from elsewhere or does not parse."""
    for predicate in QUERY_PREDICATES:
        for holder, text in sorted(shapes.subject_objects(predicate), key=lambda pair: str(pair[1])):
            problem = query_problem(str(text)) if isinstance(text, Literal) else "is not a literal"
            if problem is not None:
                where = f"{source}: shape {_owner(shapes, holder)}"
                raise ShapesError(f"{where}: its {predicate.n3(shapes.namespace_manager)} query {problem}", _HINT)


@lru_cache(maxsize=256)
def query_problem(text: str) -> str | None:
    """Why the SPARQL ``text`` may not run inside a shape (None: it may)."""
    for seen in {_sparql_unescaped(text), _rdflib_unescaped(text)}:
        if _KEYWORDS.search(seen):
            problem = _parsed_problem(seen)
            if problem is not None:
                return problem
    return None


def _sparql_unescaped(text: str) -> str:
    """``text`` with ``\\uXXXX`` and ``\\UXXXXXXXX`` applied as SPARQL 1.1 (and Oxigraph) do."""

    def expand(match: re.Match[str]) -> str:
        code = int(match.group(1) or match.group(2), 16)
        return chr(code) if code <= 0x10FFFF else match.group()

    return _SPARQL_ESCAPE.sub(expand, text)


def _rdflib_unescaped(text: str) -> str:
    """``text`` with its escapes applied as rdflib's parser does (it differs on some)."""

    def expand(match: re.Match[str]) -> str:
        code = int(match.group(1), 16)
        return chr(code) if code <= 0x10FFFF else match.group()

    return _RDFLIB_ESCAPE.sub(expand, text)


def _parsed_problem(text: str) -> str | None:
    from pyparsing import ParseException  # rdflib's parser takes ~0.1 s to import: only when needed
    from rdflib.plugins.sparql.parser import parseQuery, parseUpdate

    try:
        parsed = parseQuery(text)
    except (ParseException, RecursionError, ValueError) as query_error:
        try:
            update = parseUpdate(text)
        except (ParseException, RecursionError, ValueError):
            return f"does not parse: {_first_line(query_error)}"
        found = _fetching(update)
        return f"is an update{f' ({found})' if found else ''}, not a query"
    found = _fetching(parsed)
    return f"uses {found}" if found else None


def _fetching(node: object) -> str | None:
    """The first SERVICE, FROM or LOAD in a parse tree (iteratively: trees can be deep)."""
    from rdflib.plugins.sparql.parserutils import CompValue

    todo = [node]
    while todo:
        item = todo.pop()
        if isinstance(item, CompValue):
            if item.name in _FETCHING:
                return _FETCHING[item.name]
            todo.extend(item.values())
        elif isinstance(item, list | tuple) or type(item).__name__ == "ParseResults":
            todo.extend(item)  # type: ignore[arg-type]
    return None


def _owner(shapes: Graph, holder: Node) -> str:
    """The named shape (or component, or target) a query node belongs to."""
    from kgprofiles.validate import _shape_name

    parent = next(iter(shapes.subjects(None, holder)), None)
    return _shape_name(shapes, parent if parent is not None else holder)


def _first_line(error: BaseException) -> str:
    text = str(error) or type(error).__name__
    return text.splitlines()[0][:200]
