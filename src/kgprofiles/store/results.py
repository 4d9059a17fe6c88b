"""Reading a server's SPARQL JSON results, and giving every answer one meaning.

``read_json_results`` is a lenient but correct reader of SPARQL 1.1 Query Results JSON: keys in
any order and keys it does not know are ignored (pyoxigraph's parser rejects a key after
``bindings``, which Comunica sends), Virtuoso's ``typed-literal`` is a literal, and every term is
still checked (an IRI must be an IRI, a literal's datatype too); what is not SPARQL JSON raises
ValueError with what is wrong.

``boolean_variables`` finds the variables a query binds to a boolean expression (``(?a = ?b AS
?x)``, ``BIND(BOUND(?y) AS ?z)``, ``(true AS ?t)``), so that a server that answers booleans as
``"1"^^xsd:integer`` (Virtuoso) can be read back as the canonical ``"true"^^xsd:boolean``
(``normalise_booleans``), and a stored ``true`` given back as ``"1"^^xsd:boolean`` is read as
``"true"^^xsd:boolean`` (``canonical``): every caller sees the same RDF term from every store.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import pyoxigraph as ox

from kgprofiles.sparql_lexer import Token, scan
from kgprofiles.store.base import SelectResult, Term
from kgprofiles.vocab import XSD_NS

__all__ = ["boolean_variables", "normalise_booleans", "read_json_results"]

_XSD_BOOLEAN = ox.NamedNode(XSD_NS + "boolean")
_XSD_INTEGER = XSD_NS + "integer"
_TRUE = ox.Literal("true", datatype=_XSD_BOOLEAN)
_FALSE = ox.Literal("false", datatype=_XSD_BOOLEAN)

# -- the JSON reader ----------------------------------------------------------------------------


def read_json_results(body: bytes) -> SelectResult | bool:
    """The SELECT rows or the ASK answer in ``body`` (module docstring); ValueError if it is not
    SPARQL JSON results."""
    try:
        doc = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not JSON: {exc}") from exc
    if not isinstance(doc, dict):
        raise ValueError("not a JSON object")
    if "boolean" in doc:
        if not isinstance(doc["boolean"], bool):
            raise ValueError(f"'boolean' is {doc['boolean']!r}, not true or false")
        return doc["boolean"]
    head, results = doc.get("head"), doc.get("results")
    if not isinstance(head, dict) or not isinstance(results, dict):
        raise ValueError("no 'head' and 'results' objects")
    names = head.get("vars", [])
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ValueError("'head.vars' is not a list of names")
    bindings = results.get("bindings")
    if not isinstance(bindings, list):
        raise ValueError("'results.bindings' is not a list")
    variables = list(dict.fromkeys(names))
    rows = []
    for binding in bindings:
        if not isinstance(binding, dict):
            raise ValueError(f"a binding is {type(binding).__name__}, not an object")
        row = {}
        for name, value in binding.items():
            row[name] = _term(value)
            if name not in variables:
                variables.append(name)
        rows.append(row)
    return SelectResult(tuple(variables), tuple(rows))


def _term(value: Any) -> Term:
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        raise ValueError(f"a bound value is not a term: {value!r:.200}")
    kind = value["type"]
    if kind == "triple":
        inner = value.get("value")
        if not isinstance(inner, dict):
            raise ValueError("a triple term without subject, predicate and object")
        parts = [_term(inner.get(k)) for k in ("subject", "predicate", "object")]
        return ox.Triple(*parts)  # type: ignore[return-value, arg-type]
    text = value.get("value")
    if not isinstance(text, str):
        raise ValueError(f"a {kind} term without a string value: {value!r:.200}")
    try:
        if kind == "uri":
            return ox.NamedNode(text)
        if kind == "bnode":
            return ox.BlankNode(text)
        if kind in ("literal", "typed-literal"):
            language, datatype = value.get("xml:lang"), value.get("datatype")
            if isinstance(language, str) and language:
                return ox.Literal(text, language=language)
            if isinstance(datatype, str) and datatype:
                return canonical(ox.Literal(text, datatype=ox.NamedNode(datatype)))
            return ox.Literal(text)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"a {kind} term that is not valid RDF ({exc}): {text!r:.200}") from exc
    raise ValueError(f"unknown term type {kind!r}")


# -- booleans -----------------------------------------------------------------------------------

#: Built-in functions whose value is a boolean.
_BOOLEAN_CALLS = frozenset(
    {"BOUND", "ISIRI", "ISURI", "ISBLANK", "ISLITERAL", "ISNUMERIC", "ISTRIPLE", "REGEX", "SAMETERM"}
    | {"LANGMATCHES", "CONTAINS", "STRSTARTS", "STRENDS", "EXISTS", "NOT", "TRUE", "FALSE"}
)
_BOOLEAN_OPERATORS = frozenset({"=", "!=", "<", ">", "<=", ">=", "&&", "||", "!"})


@lru_cache(maxsize=1024)
def boolean_variables(sparql: str) -> frozenset[str]:
    """The variables (without ``?``) that ``sparql`` binds to a boolean expression, in a
    projection ``(expr AS ?v)`` or a ``BIND(expr AS ?v)``."""
    found: set[str] = set()
    words = list(scan(sparql))
    opened: list[int] = []
    for at, token in enumerate(words):
        if token.text == "(":
            opened.append(at)
        elif token.text == ")" and opened:
            start = opened.pop()
            aliased = at >= start + 4 and words[at - 2].keyword == "AS" and words[at - 1].kind == "var"
            if aliased and _is_boolean(words[start + 1 : at - 2]):
                found.add(words[at - 1].text[1:])
    return frozenset(found)


def _is_boolean(expression: list[Token]) -> bool:
    """Whether an expression's value is a boolean: an operator at its top level that gives one,
    or a single call of a boolean function (or the constant true/false)."""
    depth = 0
    for token in expression:
        if token.text == "(":
            depth += 1
        elif token.text == ")":
            depth -= 1
        elif depth == 0 and (token.text in _BOOLEAN_OPERATORS or token.keyword == "IN"):
            return True
    return bool(expression) and expression[0].keyword in _BOOLEAN_CALLS


def normalise_booleans(result: SelectResult, variables: frozenset[str]) -> SelectResult:
    """``result`` with ``"1"``/``"0"^^xsd:integer`` in the boolean ``variables`` read as
    ``"true"``/``"false"^^xsd:boolean`` (servers that answer booleans as integers)."""
    if not variables or not any(name in variables for name in result.variables):
        return result
    rows = tuple(
        {name: _as_boolean(term) if name in variables else term for name, term in row.items()} for row in result
    )
    return SelectResult(result.variables, rows, result.capped_at)


def _as_boolean(term: Term) -> Term:
    if isinstance(term, ox.Literal) and term.datatype.value == _XSD_INTEGER and term.value in ("0", "1"):
        return _TRUE if term.value == "1" else _FALSE
    return term


def canonical(term: Term) -> Term:
    """``term``, with an ``xsd:boolean`` in its canonical form: ``"1"^^xsd:boolean`` (how
    Virtuoso gives back a stored ``true``) is ``"true"^^xsd:boolean``, the same value."""
    if isinstance(term, ox.Literal) and term.datatype == _XSD_BOOLEAN and term.value in ("0", "1"):
        return _TRUE if term.value == "1" else _FALSE
    return term


def canonical_triple(triple: ox.Triple) -> ox.Triple:
    """The triple with its object in canonical form (``canonical``)."""
    value = canonical(triple.object)  # type: ignore[arg-type]
    return triple if value is triple.object else ox.Triple(triple.subject, triple.predicate, value)


def ask_answer(result: SelectResult | bool) -> SelectResult | bool:
    """An ASK answered as one row of one integer 0/1 (seen from Virtuoso), as a boolean."""
    if isinstance(result, SelectResult) and len(result.rows) == 1 and len(result.rows[0]) == 1:
        (term,) = result.rows[0].values()
        value = _as_boolean(term)
        if value in (_TRUE, _FALSE):
            return value == _TRUE
    return result
