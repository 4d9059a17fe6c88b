"""The SHACL shapes, rule by rule: every fixture under tests/shapes/ is validated the way
`kgprofiles validate` does it (pyshacl), and must give exactly the results its header announces;
the fast path `build` runs must give exactly pyshacl's results on it (messages included).

A fixture states its expectation in header comments (see tests/shapes/README.md):

    # expect: violation kgs:RoleShape focus=claim:example-role path=kgp:holder constraint=MinCount value=- line=10
    # expect: nothing                     (no result at all, not even a warning)
    # covers: kgs:RoleShape kgs:DateShape (conforming fixtures: the shapes it exercises and satisfies)
    # xfail: <why>                        (a known bug: the expectation is right, the shapes are not)

The `expect:` lines are the complete list of results for the file.
"""

from __future__ import annotations

import re
import shlex
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from owlrl.DatatypeHandling import AltXSDToPYTHON
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF, SH
from rdflib.term import XSDToPython, _toPythonMapping

from conftest import ROOT
from kgprofiles.config import Settings
from kgprofiles.infer import closure
from kgprofiles.ingest import display_path, parse_files
from kgprofiles.terms import graph_from_triples
from kgprofiles.validate import ValidationReport, ValidationResult, load_ontology, validate_files
from test_fast_shapes import check_fast_path

FIXTURES = ROOT / "tests" / "shapes"
SHAPES_FILE = ROOT / "shapes" / "kgprofiles-shapes.ttl"
KGS = "https://w3id.org/kgprofiles/shapes#"
RESULT_KEYS = ("focus", "path", "constraint", "value", "line")


@dataclass(frozen=True)
class Expected:
    """One `# expect:` line: a result the fixture must produce."""

    severity: str
    shape: str
    focus: str
    path: str | None
    constraint: str
    value: str | None
    line: int
    message: str | None = None

    def key(self) -> tuple[object, ...]:
        return (self.severity, self.shape, self.focus, self.path, self.constraint, self.value, self.line)


@dataclass(frozen=True)
class Fixture:
    path: Path
    expected: tuple[Expected, ...]
    covers: tuple[str, ...]
    xfail: str | None

    @property
    def name(self) -> str:
        return self.path.relative_to(FIXTURES).with_suffix("").as_posix()

    @property
    def display(self) -> str:
        return display_path(self.path, ROOT)

    @property
    def violations(self) -> tuple[Expected, ...]:
        return tuple(e for e in self.expected if e.severity == "violation")


def _dash(text: str) -> str | None:
    return None if text == "-" else text


def parse_expect(text: str, where: str) -> Expected:
    """``violation kgs:X focus=… path=… constraint=… value=… line=… [message="…"]``"""
    severity, shape, *pairs = shlex.split(text)
    fields = dict(pair.split("=", 1) for pair in pairs)
    missing = [k for k in RESULT_KEYS if k not in fields]
    assert not missing, f"{where}: `expect:` line lacks {missing}"
    assert severity in ("violation", "warning", "info"), f"{where}: unknown severity {severity!r}"
    return Expected(
        severity=severity,
        shape=shape,
        focus=fields["focus"],
        path=_dash(fields["path"]),
        constraint=fields["constraint"],
        value=_dash(fields["value"]),
        line=int(fields["line"]),
        message=fields.get("message"),
    )


def load_fixture(path: Path) -> Fixture:
    expected: list[Expected] = []
    covers: list[str] = []
    xfail = None
    nothing = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.startswith("#"):
            break  # the header ends at the first line that is not a comment
        where = f"{path.relative_to(ROOT)}:{number}"
        directive, _, rest = line.lstrip("# ").partition(":")
        if directive == "expect":
            if rest.strip() == "nothing":
                nothing = True
            else:
                expected.append(parse_expect(rest.strip(), where))
        elif directive == "covers":
            covers.extend(rest.split())
        elif directive == "xfail":
            xfail = rest.strip()
    assert nothing != bool(expected), f"{path}: say `# expect: nothing` or list the results, not both or neither"
    return Fixture(path, tuple(expected), tuple(covers), xfail)


ALL_FIXTURES = tuple(load_fixture(p) for p in sorted(FIXTURES.rglob("*.ttl")))


def fixture_params() -> list[object]:
    return [
        pytest.param(f, id=f.name, marks=[pytest.mark.xfail(strict=True, reason=f.xfail)] if f.xfail else [])
        for f in ALL_FIXTURES
    ]


def validate_fixture(fixture: Fixture, settings: Settings) -> ValidationReport:
    return validate_files(parse_files([fixture.path], ROOT), settings)


def actual_key(result: ValidationResult) -> tuple[object, ...]:
    return (result.severity, result.shape, result.focus, result.path, result.constraint, result.value, result.line)


def explain(report: ValidationReport) -> str:
    return "\n".join(
        f"  {r.severity} {r.shape} focus={r.focus} path={r.path or '-'} constraint={r.constraint} "
        f"value={r.value if r.value is not None else '-'} line={r.line} message={r.message!r}"
        for r in report.results
    )


#: Lexical parsers owlrl registers in rdflib's global table while it infers, and leaves there.
OWLRL_LEFTOVER_PARSERS = frozenset(AltXSDToPYTHON) - frozenset(XSDToPython)


@pytest.fixture(autouse=True)
def datatypes_as_in_a_fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Validate as `kgprofiles validate` does, in a process where no OWL RL inference has run yet.

    Without this, the results for xsd:gYear and xsd:gYearMonth literals would depend on whether an
    earlier test ran inference (see test_validation_is_not_changed_by_an_earlier_inference)."""
    for datatype in OWLRL_LEFTOVER_PARSERS:
        monkeypatch.delitem(_toPythonMapping, datatype, raising=False)


########################################################################### each fixture


@pytest.mark.parametrize("fixture", fixture_params())
def test_fixture_gives_exactly_the_expected_results(fixture: Fixture, settings: Settings) -> None:
    files = parse_files([fixture.path], ROOT)
    report = validate_files(files, settings)
    check_fast_path(files, report, settings)

    actual = Counter(actual_key(r) for r in report.results)
    expected = Counter(e.key() for e in fixture.expected)
    assert actual == expected, f"{fixture.display} gave:\n{explain(report)}"
    assert {r.file for r in report.results} <= {fixture.display}
    for e in fixture.expected:
        if e.message is not None:
            messages = {r.message for r in report.results if actual_key(r) == e.key()}
            assert messages == {e.message}
    # Violations block; warnings never do.
    assert report.conforms is (not fixture.violations)
    assert len(report.violations) == len(fixture.violations)


########################################################################### the fixtures themselves


@pytest.mark.parametrize("fixture", [pytest.param(f, id=f.name) for f in ALL_FIXTURES])
def test_fixture_name_says_what_it_expects(fixture: Fixture) -> None:
    stem = fixture.path.stem
    if stem.startswith("ok-"):
        assert not fixture.expected and fixture.covers, "an ok- fixture expects nothing and says what it covers"
    elif stem.startswith("bad-"):
        assert fixture.violations, "a bad- fixture expects at least one violation"
    elif stem.startswith("warn-"):
        assert fixture.expected and not fixture.violations, "a warn- fixture expects warnings only"
    else:
        pytest.fail(f"{fixture.display}: name it ok-, bad- or warn-")


@cache
def shapes_graph() -> Graph:
    graph = Graph()
    graph.parse(SHAPES_FILE)
    return graph


def compact_shape(node: object) -> str:
    return "kgs:" + str(node).removeprefix(KGS)


TARGETS = (SH.targetClass, SH.targetNode, SH.targetSubjectsOf, SH.targetObjectsOf)


def node_shapes() -> list[str]:
    """The shapes with targets (kgs:GYear and the like are only used inside other shapes)."""
    g = shapes_graph()
    return sorted(
        compact_shape(s)
        for s in g.subjects(RDF.type, SH.NodeShape)
        if str(s).startswith(KGS) and any((s, t, None) in g for t in TARGETS)
    )


def targets_a_node(shape: str, data: Graph) -> bool:
    """Whether ``shape`` has a focus node in ``data`` (class targets follow rdfs:subClassOf)."""
    node = URIRef(KGS + shape.removeprefix("kgs:"))
    g = shapes_graph()
    for cls in g.objects(node, SH.targetClass):
        if data.query("ASK { ?x a/rdfs:subClassOf* ?c }", initBindings={"c": cls}).askAnswer:
            return True
    return any((None, prop, None) in data for prop in g.objects(node, SH.targetSubjectsOf))


@pytest.mark.parametrize("fixture", [pytest.param(f, id=f.name) for f in ALL_FIXTURES if f.covers])
def test_covered_shapes_have_a_focus_node_in_the_fixture(fixture: Fixture, settings: Settings) -> None:
    """`covers:` is only true if the shape has something to check in the file (and then finds nothing wrong)."""
    data = Graph()
    for f in parse_files([fixture.path], ROOT):
        graph_from_triples(f.triples, data)
    data += load_ontology(settings.ontology_dir)
    not_targeted = [s for s in fixture.covers if not targets_a_node(s, data)]
    assert not not_targeted
    assert set(fixture.covers) <= set(node_shapes())


def test_every_node_shape_has_a_conforming_and_a_violating_fixture() -> None:
    shapes = node_shapes()
    assert len(shapes) == 31  # the shapes file as reviewed; a new shape needs fixtures here
    conforming = {s for f in ALL_FIXTURES if not f.violations and not f.xfail for s in f.covers}
    violating = {e.shape for f in ALL_FIXTURES if not f.xfail for e in f.expected}
    assert [s for s in shapes if s not in conforming] == []
    assert [s for s in shapes if s not in violating] == []


def template_pattern(template: str) -> re.Pattern[str]:
    """An sh:message template as a regex: ``{?value}`` and ``{$this}`` match any text."""
    parts = re.split(r"\{[?$]\w+\}", template)
    return re.compile(".+".join(re.escape(p) for p in parts) + "$")


def test_every_sparql_constraint_has_a_violating_fixture() -> None:
    """Each sh:sparql constraint (both of kgs:ProfileShape's, kgs:RoleDatesShape's,
    kgs:SlugWarningShape's, kgs:PartOfCycleShape's and kgs:OrcidShape's) is exercised."""
    g = shapes_graph()
    constraints = [
        (compact_shape(shape), str(g.value(c, SH.message)))
        for shape, c in g.subject_objects(SH.sparql)
        if str(shape).startswith(KGS)
    ]
    assert sorted(s for s, _ in constraints) == [
        "kgs:OrcidShape",
        "kgs:PartOfCycleShape",
        "kgs:ProfileShape",
        "kgs:ProfileShape",
        "kgs:RoleDatesShape",
        "kgs:SlugWarningShape",
    ]
    messages = [(e.shape, e.message or "") for f in ALL_FIXTURES if not f.xfail for e in f.expected]
    unexercised = [
        (shape, template)
        for shape, template in constraints
        if not any(s == shape and template_pattern(template).match(m) for s, m in messages)
    ]
    assert unexercised == []


########################################################################### validation and inference


def test_validation_is_not_changed_by_an_earlier_inference(settings: Settings) -> None:
    fixture = load_fixture(FIXTURES / "date" / "bad-month-13.ttl")

    def judged() -> tuple[list[tuple[object, ...]], bool | None]:
        month_13 = Literal("2019-13", datatype=URIRef("http://www.w3.org/2001/XMLSchema#gYearMonth"))
        return [actual_key(r) for r in validate_fixture(fixture, settings).results], month_13.ill_typed

    before = judged()
    closure(Graph(), load_ontology(settings.ontology_dir))  # any inference, e.g. an earlier `build`
    assert judged() == before
