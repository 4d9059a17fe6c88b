"""The W3C SHACL core test suite, run through the project's own entry point.

Every `sht:Validate` test reached from tests/core/manifest.ttl (following mf:include) is run through
`kgprofiles.validate.validate_graph(data_graph, shapes_graph)` and its report compared with the
test's expected sh:ValidationReport:

- conformance, in SHACL's sense: a report conforms when it has no result at all;
- the results, as a multiset of (focusNode, resultPath, value, resultSeverity, sourceConstraintComponent,
  sourceShape). Blank nodes (complex paths, blank shapes, blank focus nodes) are compared by what they
  describe: each result is unfolded into a small tree (every blank node copied with its description,
  per result, so sharing does not matter) and the two sets of trees are compared as RDF graphs by
  isomorphism. Messages are not compared: engines word them as they like. This is what pySHACL's own
  runner checks, minus messages, plus result multiplicity.

Every test is also run through the fast validation path ``build`` and ``load`` use
(``kgprofiles.fast.validate_store``: the shapes compiled to SPARQL on a pyoxigraph store, pyshacl
for the shapes the compiler does not support) and its typed results compared with the expected
report's, read the way ``validate_graph`` reads a report: a multiset of (severity, focus node,
path, value, constraint component, shape), blank nodes compared as blank. Where the fast path
differs from the expected report, the test is listed by name in ``FAST_DIFFERENCES`` with why
(a strict xfail: a fixed difference shows up).

The suite is read from ../shared/realdata/w3c-shacl-tests (never copied); without it the test
skips, or fails under KGPROFILES_REQUIRE_REALDATA=1.
"""

from __future__ import annotations

import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

import pyoxigraph as ox
import pytest
from rdflib import BNode, Graph, Namespace, URIRef
from rdflib.collection import Collection
from rdflib.compare import isomorphic
from rdflib.namespace import RDF, SH
from rdflib.term import Node

from conftest import realdata_dir, require_realdata
from kgprofiles.fast import scan_literals, validate_store
from kgprofiles.fast.stores import memory_store
from kgprofiles.validate import (
    SEVERITIES,
    ValidationReport,
    ValidationResult,
    _path_text,
    _shape_name,
    compact,
    validate_graph,
)

MF = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
SHT = Namespace("http://www.w3.org/ns/shacl-test#")
SUITE = ("w3c-shacl-tests", "data-shapes-test-suite", "tests")
RESULT_KEYS = (
    SH.focusNode,
    SH.resultPath,
    SH.value,
    SH.resultSeverity,
    SH.sourceConstraintComponent,
    SH.sourceShape,
)

#: W3C core tests that fail because of pyshacl itself, by test name; each is a strict xfail.
EXPECTED_FAILURES: dict[str, str] = {
    "core/property/uniqueLang-002": (
        'pyshacl activates sh:uniqueLang for "1"^^xsd:boolean; the spec activates it only for true, '
        "so the expected report conforms"
    ),
}

#: W3C core tests the fast validation path answers otherwise than the expected report, by test
#: name, with why; each is a strict xfail.
FAST_DIFFERENCES: dict[str, str] = {
    "core/property/uniqueLang-002": (
        "sh:uniqueLang is not compiled: the fast path runs pyshacl for that shape, and pyshacl activates it for "
        '"1"^^xsd:boolean (as in EXPECTED_FAILURES)'
    ),
}

#: W3C core tests whose typed report differs from pyshacl's raw report (none: the typed report reads
#: only the report's top-level sh:result entries, never the nested sh:detail ones).
TYPED_REPORT_FAILURES: dict[str, str] = {}


@dataclass(frozen=True)
class W3CTest:
    name: str  # the test IRI relative to the suite's tests/ directory, e.g. core/node/and-001
    manifest: Path
    data: Path
    shapes: Path


def file_of(iri: Node) -> Path:
    return Path(unquote(urlparse(str(iri)).path))


def parse(path: Path) -> Graph:
    graph = Graph()
    with warnings.catch_warnings():  # the suite holds deliberately odd literals ("none"^^xsd:boolean)
        warnings.filterwarnings("ignore", "Parsing weird boolean", UserWarning)
        graph.parse(path, format="turtle", publicID=path.resolve().as_uri())
    return graph


def manifest_tests(manifest: Path, root: Path, seen: set[Path] | None = None) -> list[W3CTest]:
    """The tests of ``manifest`` and of every manifest it includes, in manifest order."""
    seen = set() if seen is None else seen
    manifest = manifest.resolve()
    if manifest in seen:
        return []
    seen.add(manifest)
    graph = parse(manifest)
    found: list[W3CTest] = []
    for node in graph.subjects(RDF.type, MF.Manifest):
        for included in sorted(graph.objects(node, MF.include)):
            found += manifest_tests(file_of(included), root, seen)
        for entries in graph.objects(node, MF.entries):
            for test in Collection(graph, entries):
                action = graph.value(test, MF.action)
                found.append(
                    W3CTest(
                        name=str(test).removeprefix(root.resolve().as_uri() + "/"),
                        manifest=manifest,
                        data=file_of(graph.value(action, SHT.dataGraph)),
                        shapes=file_of(graph.value(action, SHT.shapesGraph)),
                    )
                )
    return found


def suite_root() -> Path:
    return realdata_dir().joinpath(*SUITE)


def collect() -> list[W3CTest]:
    root = suite_root()
    if not (root / "core" / "manifest.ttl").exists():
        return []
    return manifest_tests(root / "core" / "manifest.ttl", root)


CORE_TESTS = collect()


def suite_params(xfails: dict[str, str]) -> list[object]:
    if not CORE_TESTS:  # the suite is absent: one test that skips (or fails) and says why
        return [pytest.param(None, id="w3c-shacl-core-suite")]
    return [
        pytest.param(
            t,
            id=t.name,
            marks=[pytest.mark.xfail(strict=True, reason=xfails[t.name])] if t.name in xfails else [],
        )
        for t in CORE_TESTS
    ]


########################################################################### comparing reports


def _copy_tree(source: Graph, node: BNode, target: Graph, copies: dict[BNode, BNode]) -> BNode:
    """Copy ``node`` and everything blank below it into ``target`` under fresh blank nodes."""
    if node in copies:
        return copies[node]
    copy = copies[node] = BNode()
    for p, o in source.predicate_objects(node):
        target.add((copy, p, _copy_tree(source, o, target, copies) if isinstance(o, BNode) else o))
    return copy


def result_trees(graph: Graph, report: Node) -> Graph:
    """The results of ``report``, restricted to RESULT_KEYS, each unfolded into its own tree."""
    trees = Graph()
    for result in graph.objects(report, SH.result):
        node = BNode()
        copies: dict[BNode, BNode] = {}
        for key in RESULT_KEYS:
            for value in graph.objects(result, key):
                trees.add((node, key, _copy_tree(graph, value, trees, copies) if isinstance(value, BNode) else value))
    return trees


def describe(trees: Graph) -> str:
    return trees.serialize(format="turtle") if len(trees) else "(no results)\n"


def raw_report(report: ValidationReport) -> tuple[Graph, Node]:
    assert report.report_graph is not None
    node = report.report_graph.value(predicate=RDF.type, object=SH.ValidationReport)
    assert node is not None
    return report.report_graph, node


########################################################################### the suite


@pytest.mark.realdata
def test_collection_reaches_every_test_file() -> None:
    """Following mf:include from core/manifest.ttl reaches every core test file that has entries."""
    require_realdata(*SUITE, "core", "manifest.ttl")
    with_entries = set()
    for path in (suite_root() / "core").rglob("*.ttl"):
        graph = parse(path)
        if any(graph.objects(None, MF.entries)):
            with_entries.add(path.resolve())
    assert {t.manifest for t in CORE_TESTS} == with_entries
    assert len({t.name for t in CORE_TESTS}) == len(CORE_TESTS)
    assert set(EXPECTED_FAILURES) | set(TYPED_REPORT_FAILURES) | set(FAST_DIFFERENCES) <= {t.name for t in CORE_TESTS}


def run(case: W3CTest | None) -> tuple[Graph, Node, ValidationReport]:
    """The test's manifest graph and expected report node, and the project's report."""
    require_realdata(*SUITE, "core", "manifest.ttl")
    assert case is not None
    manifest = parse(case.manifest)
    expected = manifest.value(URIRef(suite_root().resolve().as_uri() + "/" + case.name), MF.result)
    assert expected is not None
    assert expected != SHT.Failure, "core tests all expect a report; a Failure test would need its own check"
    return manifest, expected, validate_graph(parse(case.data), parse(case.shapes))


@pytest.mark.realdata
@pytest.mark.parametrize("case", suite_params(EXPECTED_FAILURES))
def test_w3c_shacl_core(case: W3CTest | None) -> None:
    manifest, expected, report = run(case)
    graph, node = raw_report(report)
    results = list(graph.objects(node, SH.result))

    # Conformance, in SHACL's sense: no result at all.
    assert (len(results) == 0) is manifest.value(expected, SH.conforms).toPython()
    # The results, blank nodes compared by what they describe.
    want, got = result_trees(manifest, expected), result_trees(graph, node)
    assert isomorphic(want, got), f"expected:\n{describe(want)}\ngot:\n{describe(got)}"


@pytest.mark.realdata
@pytest.mark.parametrize("case", suite_params(TYPED_REPORT_FAILURES))
def test_typed_report_mirrors_the_raw_report(case: W3CTest | None) -> None:
    """ValidationReport.results (what the CLI prints) holds one result per sh:result of the report,
    and ValidationReport.conforms applies the project's rule: only violations block."""
    _, _, report = run(case)
    graph, node = raw_report(report)
    raw = list(graph.objects(node, SH.result))

    assert sorted((r.severity, r.constraint) for r in report.results) == sorted(
        (
            SEVERITIES.get(graph.value(r, SH.resultSeverity), "violation"),
            str(graph.value(r, SH.sourceConstraintComponent)).removeprefix(str(SH)).removesuffix("ConstraintComponent"),
        )
        for r in raw
    )
    assert report.conforms is (not any(graph.value(r, SH.resultSeverity) not in (SH.Warning, SH.Info) for r in raw))


Key = tuple[str, str, str | None, str | None, str, str]


def _blank_as_blank(text: str | None) -> str | None:
    return "_:" if text is not None and text.startswith("_:") else text


def expected_keys(manifest: Graph, expected: Node) -> Counter[Key]:
    """The expected report's results, read as ``validate_graph`` reads pyshacl's report (the
    manifest's file holds the shapes too, so their blank nodes resolve to their named shape)."""
    found: Counter[Key] = Counter()
    for r in manifest.objects(expected, SH.result):
        component = compact(manifest.value(r, SH.sourceConstraintComponent)) or ""
        found[
            (
                SEVERITIES.get(manifest.value(r, SH.resultSeverity), "violation"),  # type: ignore[arg-type]
                _blank_as_blank(compact(manifest.value(r, SH.focusNode))) or "",
                _path_text(manifest, manifest.value(r, SH.resultPath)),
                _blank_as_blank(compact(manifest.value(r, SH.value))),
                component.removeprefix("sh:").removesuffix("ConstraintComponent"),
                _shape_name(manifest, manifest.value(r, SH.sourceShape)),  # type: ignore[arg-type]
            )
        ] += 1
    return found


def typed_keys(results: tuple[ValidationResult, ...]) -> Counter[Key]:
    return Counter(
        (r.severity, _blank_as_blank(r.focus) or "", r.path, _blank_as_blank(r.value), r.constraint, r.shape)
        for r in results
    )


@pytest.mark.realdata
@pytest.mark.filterwarnings("ignore:Parsing weird boolean:UserWarning")  # rdflib, reading for the pyshacl fallback
@pytest.mark.parametrize("case", suite_params(FAST_DIFFERENCES))
def test_w3c_shacl_core_through_the_fast_path(case: W3CTest | None) -> None:
    """As ``build`` validates: the data parsed by pyoxigraph into a store, the parsed triples and
    their literal scan beside it, ``validate_store`` with the test's shapes (read by rdflib)."""
    require_realdata(*SUITE, "core", "manifest.ttl")
    assert case is not None
    manifest = parse(case.manifest)
    expected = manifest.value(URIRef(suite_root().resolve().as_uri() + "/" + case.name), MF.result)
    assert expected is not None
    triples = [q.triple for q in ox.parse(path=case.data, format=ox.RdfFormat.TURTLE, base_iri=case.data.as_uri())]

    fast = validate_store(
        memory_store(triples), parse(case.shapes), raw=lambda: triples, scan=scan_literals(lambda: triples)
    )

    assert (not fast.report.results) is manifest.value(expected, SH.conforms).toPython()
    want, got = expected_keys(manifest, expected), typed_keys(fast.report.results)
    assert got == want, f"expected only: {want - got}\nfast only: {got - want}\nnotes: {fast.notes}"


def test_a_warning_about_a_nested_shape_does_not_block() -> None:
    """The bug above, outside the W3C suite: an sh:node check of severity warning must not block."""
    shapes = Graph().parse(
        format="turtle",
        data="""
        @prefix sh: <http://www.w3.org/ns/shacl#> .
        @prefix ex: <http://example.org/> .
        ex:PersonShape a sh:NodeShape ;
            sh:targetClass ex:Person ;
            sh:property [ sh:path ex:address ; sh:node ex:AddressShape ; sh:severity sh:Warning ] .
        ex:AddressShape a sh:NodeShape ;
            sh:property [ sh:path ex:city ; sh:minCount 1 ] .
        """,
    )
    data = Graph().parse(
        format="turtle",
        data="""
        @prefix ex: <http://example.org/> .
        ex:someone a ex:Person ; ex:address ex:somewhere .
        """,
    )

    report = validate_graph(data, shapes)

    assert [(r.severity, r.focus, r.constraint) for r in report.results] == [
        ("warning", "<http://example.org/someone>", "Node")
    ]
    assert report.conforms
