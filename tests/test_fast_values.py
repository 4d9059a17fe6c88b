"""The fast validator's copies of pyshacl's value helpers decide as pyshacl's own do.

``kgprofiles.fast.values`` copies three small pyshacl helpers (the datatype check, the string of a
value node, the literal comparison) and ``fast.shapes_model`` writes out pyshacl's list of
constraint parameters, so that a ``load`` does not import pyshacl (~60 ms). Here each copy meets
the original on generated terms: a pyshacl upgrade that changes one fails these tests."""

from __future__ import annotations

import datetime

import pytest
from hypothesis import example, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from pyshacl.constraints import ALL_CONSTRAINT_PARAMETERS
from pyshacl.constraints.core.string_based_constraints import StringBasedConstraintBase
from pyshacl.constraints.core.value_constraints import DatatypeConstraintComponent
from pyshacl.rdfutil import compare_literal as pyshacl_compare
from rdflib import BNode, Literal, URIRef
from rdflib.namespace import RDF, RDFS, XSD

from conftest import examples
from kgprofiles.fast import shapes_model
from kgprofiles.fast.values import actual_datatype_ok, compare_literal, value_string

DATATYPES = [
    XSD.string, RDF.langString, XSD.integer, XSD.int, XSD.decimal, XSD.float, XSD.double, XSD.boolean,
    XSD.date, XSD.dateTime, XSD.time, XSD.gYear, XSD.anyURI, RDFS.Literal, URIRef("http://example.org/dt"),
]  # fmt: skip
LEXICAL = st.one_of(
    st.sampled_from(["0", "-1", "1.5", "1e3", "true", "false", "2024-02-29", "2024-02-30", "2024", "12:30:00",
                     "2024-02-29T12:30:00", "2024-02-29T12:30:00Z", "NaN", "INF", " 7 ", "", "x"]),
    st.text(max_size=8),
)  # fmt: skip
LITERALS = st.one_of(
    st.builds(lambda lex, dt: Literal(lex, datatype=dt), LEXICAL, st.sampled_from(DATATYPES)),
    st.builds(lambda lex, lang: Literal(lex, lang=lang), LEXICAL, st.sampled_from(["en", "de-CH"])),
    st.builds(Literal, LEXICAL),
    st.builds(Literal, st.one_of(st.integers(), st.booleans(), st.floats(allow_nan=False), st.dates())),
)


pytestmark = pytest.mark.filterwarnings("ignore:Parsing weird boolean:UserWarning")


def outcome(compare, a: Literal, b: Literal) -> int | str:  # type: ignore[no-untyped-def]
    """The comparison's result, or the name of the exception it raised."""
    try:
        return compare(a, b)
    except Exception as exc:  # (decimal's InvalidOperation too: NaN)
        return type(exc).__name__


@hypothesis_settings(max_examples=examples(300), deadline=None)
@given(literal=LITERALS, dt=st.sampled_from(DATATYPES))
@example(literal=Literal("1", datatype=XSD.integer), dt=XSD.integer)
@example(literal=Literal("true", datatype=XSD.boolean), dt=XSD.integer)  # (a bool is an int in Python)
@example(literal=Literal("2024-02-30", datatype=XSD.date), dt=XSD.date)  # ill-typed: the value is the text
@example(literal=Literal("2024-02-29T12:30:00", datatype=XSD.dateTime), dt=XSD.date)  # a datetime is a date
def test_the_datatype_check_is_pyshacls(literal: Literal, dt: URIRef) -> None:
    assert actual_datatype_ok(literal, dt) == DatatypeConstraintComponent._assert_actual_datatype(None, literal, dt)  # type: ignore[arg-type]


@hypothesis_settings(max_examples=examples(300), deadline=None)
@given(term=st.one_of(LITERALS, st.builds(URIRef, st.sampled_from(["http://example.org/a", "urn:x:é"]))))
@example(term=Literal("1.50", datatype=XSD.decimal))  # the lexical form, not the value's
@example(term=Literal("chat", lang="fr"))
def test_the_string_of_a_value_is_pyshacls(term: Literal | URIRef) -> None:
    assert value_string(term) == StringBasedConstraintBase.value_node_to_string(term)


def test_the_string_of_a_blank_node_is_pyshacls() -> None:
    node = BNode("b0")
    assert value_string(node) == StringBasedConstraintBase.value_node_to_string(node) == "b0"


@hypothesis_settings(max_examples=examples(300), deadline=None)
@given(a=LITERALS, b=LITERALS)
@example(a=Literal("1", datatype=XSD.integer), b=Literal("1.0", datatype=XSD.decimal))  # equal values
@example(a=Literal("2"), b=Literal(2))  # a string and a number: cannot be compared
@example(  # times and datetimes are compared by value (rdflib's ordering would refuse some)
    a=Literal(datetime.datetime(2024, 1, 1, 12)), b=Literal("2024-01-01T12:00:00Z", datatype=XSD.dateTime)
)
@example(a=Literal(datetime.time(12, 0)), b=Literal(datetime.time(11, 0)))
@example(a=Literal("NaN", datatype=XSD.decimal), b=Literal(0))  # decimal.InvalidOperation in both
def test_comparing_literals_is_pyshacls(a: Literal, b: Literal) -> None:
    assert outcome(compare_literal, a, b) == outcome(pyshacl_compare, a, b)


def test_the_constraint_parameters_are_pyshacls() -> None:
    supported, unsupported = shapes_model._SUPPORTED_PARAMETERS, shapes_model._UNSUPPORTED_PARAMETERS
    assert not supported & unsupported
    assert supported | unsupported == set(ALL_CONSTRAINT_PARAMETERS)


@pytest.mark.parametrize("parameter", sorted(shapes_model._UNSUPPORTED_PARAMETERS))
def test_a_shape_with_an_unsupported_parameter_goes_to_pyshacl(parameter: URIRef) -> None:
    from rdflib import Graph
    from rdflib.namespace import SH

    shapes = Graph()
    shape = URIRef("http://example.org/S")
    shapes.add((shape, RDF.type, SH.NodeShape))
    shapes.add((shape, SH.targetClass, URIRef("http://example.org/C")))
    shapes.add((shape, parameter, Literal(True) if parameter == SH.closed else URIRef("http://example.org/p")))
    plan = shapes_model.read_shapes(shapes)
    assert plan.shapes == []
    named = parameter.n3(shapes.namespace_manager)
    assert list(plan.fallback.values()) in (["sh:node or sh:closed"], [f"constraint {named}"])
