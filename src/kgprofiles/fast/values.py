"""Value-level SHACL tests: whether one RDF term satisfies one constraint, as pyshacl decides it.

These are the constraints whose outcome depends on the value node alone (its kind, datatype,
lexical form, value), so they can be decided once per distinct value in Python instead of once per
focus node. Each test takes the rdflib term pyshacl would see and mirrors the matching pyshacl
component, reusing pyshacl's own helpers where it exposes them (``compare_literal``,
``value_node_to_string``, the datatype check), so the two cannot drift apart unnoticed: the
equivalence tests compare them on generated terms.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from pyshacl.constraints.core.string_based_constraints import StringBasedConstraintBase
from pyshacl.constraints.core.value_constraints import DatatypeConstraintComponent
from pyshacl.rdfutil import compare_literal
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
    check = DatatypeConstraintComponent._assert_actual_datatype

    def test(v: Node) -> bool:
        if not isinstance(v, Literal):
            return False
        if v.datatype == dt:
            if getattr(v, "ill_typed", None) is True:
                return False
            return bool(check(None, v, dt))  # type: ignore[arg-type]
        if dt == RDFS.Literal:
            return True
        if dt == RDFS.Datatype and v.datatype:
            return True
        if v.datatype is None and v.language is None and dt == XSD.string:
            return bool(check(None, v, dt))  # type: ignore[arg-type]
        if dt == RDF.langString and v.language:
            return bool(check(None, v, dt))  # type: ignore[arg-type]
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
    to_string = StringBasedConstraintBase.value_node_to_string

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

    return test


def length(kind: str, limit: int) -> ValueTest:
    """sh:minLength, sh:maxLength (blank nodes never pass, except a minimum of zero)."""
    to_string = StringBasedConstraintBase.value_node_to_string

    def test(v: Node) -> bool:
        if kind == "MinLength" and limit == 0:
            return True
        if isinstance(v, BNode):
            return False
        size = len(to_string(v))
        return size >= limit if kind == "MinLength" else size <= limit

    return test
