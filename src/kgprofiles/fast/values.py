"""Value-level SHACL tests: whether one RDF term satisfies one constraint, as pyshacl decides it.

These are the constraints whose outcome depends on the value node alone (its kind, datatype,
lexical form, value), so they can be decided once per distinct value in Python instead of once per
focus node. Each test takes the rdflib term pyshacl would see and mirrors the matching pyshacl
component. pyshacl's three helpers for this (the datatype check, ``value_node_to_string``,
``compare_literal``) are copied here (from pyshacl 0.40.1) rather than imported: importing pyshacl
costs ~60 ms, a tenth of a one-file ``load``. ``tests/test_fast_values.py`` holds each copy to
pyshacl's own helper on generated literals, so the two cannot drift apart unnoticed.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Sequence
from decimal import Decimal

from rdflib import BNode, Literal, URIRef
from rdflib.namespace import RDF, RDFS, SH, XSD
from rdflib.term import Node

ValueTest = Callable[[Node], bool]

NODE_KINDS = {
    SH.BlankNode: (BNode,),
    SH.IRI: (URIRef,),
    SH.Literal: (Literal,),
    SH.BlankNodeOrIRI: (BNode, URIRef),
    SH.BlankNodeOrLiteral: (BNode, Literal),
    SH.IRIOrLiteral: (URIRef, Literal),
}


def node_kind(kind: Node) -> ValueTest:
    """sh:nodeKind (an unknown kind matches nothing, as in pyshacl)."""
    allowed = NODE_KINDS.get(kind, ())  # type: ignore[call-overload]

    def test(v: Node) -> bool:
        if isinstance(v, BNode):
            return BNode in allowed
        if isinstance(v, Literal):
            return Literal in allowed
        return URIRef in allowed

    return test


def datatype(dt: Node) -> ValueTest:
    """sh:datatype: a literal of that datatype that rdflib does not find ill-typed."""
    check = actual_datatype_ok

    def test(v: Node) -> bool:
        if not isinstance(v, Literal):
            return False
        if v.datatype == dt:
            if getattr(v, "ill_typed", None) is True:
                return False
            return bool(check(v, dt))
        if dt == RDFS.Literal:
            return True
        if dt == RDFS.Datatype and v.datatype:
            return True
        if v.datatype is None and v.language is None and dt == XSD.string:
            return bool(check(v, dt))
        if dt == RDF.langString and v.language:
            return bool(check(v, dt))
        return False

    return test


def one_of(values: Sequence[Node]) -> ValueTest:
    """sh:in (rdflib term equality, as pyshacl's ``v in in_vals``)."""
    members = list(values)
    return lambda v: v in members


def equals(value: Node) -> ValueTest:
    """A node shape's sh:hasValue: the value node is the value."""
    return lambda v: bool(v == value)


def patterns(regexes: Sequence[Literal], flags: Literal | None) -> list[ValueTest]:
    """sh:pattern: one test per pattern (pyshacl reports each failing pattern)."""
    re_flags = 0
    if flags is not None:
        text = str(flags.value).lower()
        if "i" in text:
            re_flags |= re.I
        if "m" in text:
            re_flags |= re.M
    tests = []
    for p in regexes:
        source = str(p.value) if p.value is not None and len(p.value) > 1 else str(p)
        tests.append(_pattern_test(re.compile(source, re_flags)))
    return tests


def _pattern_test(matcher: re.Pattern[str]) -> ValueTest:
    to_string = value_string

    def test(v: Node) -> bool:
        if isinstance(v, BNode):
            return False
        text = to_string(v)
        return bool(matcher.match(text) or matcher.search(text))

    return test


def value_range(kind: str, bound: Literal) -> ValueTest:
    """sh:minExclusive, sh:minInclusive, sh:maxExclusive, sh:maxInclusive."""
    accept = {
        "MinExclusive": lambda c: c > 0,
        "MinInclusive": lambda c: c >= 0,
        "MaxExclusive": lambda c: c < 0,
        "MaxInclusive": lambda c: c <= 0,
    }[kind]
    bound_is_string = isinstance(bound.value, str)

    def test(v: Node) -> bool:
        if not isinstance(v, Literal):
            return False
        if isinstance(v.value, str) != bound_is_string:
            return False
        try:
            return bool(accept(compare_literal(v, bound)))
        except (TypeError, NotImplementedError):
            return False
        except ArithmeticError:  # "NaN"^^xsd:decimal, which rdflib accepts: a value no bound can
            return False  # hold (pyshacl itself stops with decimal.InvalidOperation)

    return test


def length(kind: str, limit: int) -> ValueTest:
    """sh:minLength, sh:maxLength (blank nodes never pass, except a minimum of zero)."""
    to_string = value_string

    def test(v: Node) -> bool:
        if kind == "MinLength" and limit == 0:
            return True
        if isinstance(v, BNode):
            return False
        size = len(to_string(v))
        return size >= limit if kind == "MinLength" else size <= limit

    return test


# ---------------------------------------------------------------- pyshacl's helpers, copied


#: The Python value pyshacl's datatype check expects rdflib to make of a literal of each datatype.
_VALUE_KINDS: dict[Node, type | tuple[type, ...]] = {
    XSD.string: (str, bytes),
    RDF.langString: (str, bytes),
    XSD.integer: int,
    XSD.float: float,
    XSD.decimal: Decimal,
    XSD.boolean: bool,
    XSD.date: datetime.date,
    XSD.time: datetime.time,
    XSD.dateTime: datetime.datetime,
}


def actual_datatype_ok(v: Literal, dt: Node) -> bool:
    """pyshacl's ``DatatypeConstraintComponent._assert_actual_datatype``: whether the Python
    value rdflib made of the literal is of the kind its datatype promises (other datatypes pass)."""
    kind = _VALUE_KINDS.get(dt)
    return True if kind is None else isinstance(v.value, kind)


def value_string(v: Node) -> str:
    """pyshacl's ``StringBasedConstraintBase.value_node_to_string``: a plain or language-tagged
    literal's value, any other term's lexical form."""
    if isinstance(v, Literal) and v.value is not None and v.datatype in (None, RDF.langString, XSD.string):
        return str(v.value)
    return str(v)


def compare_literal(a: Literal, b: Literal) -> int:
    """pyshacl's ``rdfutil.compare_literal``: 0 when equal, 1 when ``a`` is greater, else -1
    (TypeError or NotImplementedError when the two cannot be compared)."""
    if a.eq(b):
        return 0
    if a.value.__class__ in (datetime.datetime, datetime.time):
        if a.value == b.value:
            return 0
        if a.value > b.value:
            return 1
    elif a > b:
        return 1
    return -1
