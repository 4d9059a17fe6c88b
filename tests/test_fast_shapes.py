"""The fast validation path (SHACL compiled to SPARQL on pyoxigraph) gives exactly pyshacl's results.

Result for result (severity, message, focus node, path, shape, constraint component, value, file and
line), as multisets, on:
- every fixture under tests/shapes/ (each breaks, or satisfies, some shape),
- the seed data, and a synthetic dataset from bench/generate.py,
- Hypothesis-generated graphs in the project's vocabulary (wrong classes, kinds, counts, datatypes,
  dates, Wikidata links, footnotes, missing sources…),
- shapes the compiler does not support, which must fall back to pyshacl and say so,
- literals that rdflib and the store write differently, which must fall back too.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pyoxigraph as ox
import pytest
from hypothesis import example, given, settings
from rdflib import Graph

from conftest import ROOT, examples
from kgprofiles.budget import Budget
from kgprofiles.config import Settings
from kgprofiles.fast.validation import compile_shapes, validate_store, validate_triples
from kgprofiles.ingest import SourceFile, parse_files
from kgprofiles.terms import graph_from_triples, to_rdflib
from kgprofiles.validate import (
    ValidationReport,
    ValidationResult,
    compact,
    load_ontology,
    load_shapes,
    locate_subjects,
    validate_files,
    validate_graph,
)
from test_fast_graphs import UNFAITHFUL, graphs, kgp, node, typed

#: The real-lives views' graph. The fixtures under tests/shapes/ are checked against the fast path
#: in test_shapes.py, beside their expected results, with the one pyshacl run each needs.
FIXTURES = sorted((ROOT / "tests" / "fixtures" / "lives").rglob("*.ttl"))


def same(fast: tuple[ValidationResult, ...], reference: tuple[ValidationResult, ...]) -> bool:
    return Counter(fast) == Counter(reference)


def explain(fast: tuple[ValidationResult, ...], reference: tuple[ValidationResult, ...]) -> str:
    only_fast = Counter(fast) - Counter(reference)
    only_reference = Counter(reference) - Counter(fast)
    return "\n".join([*(f"fast only: {r}" for r in only_fast), *(f"pyshacl only: {r}" for r in only_reference)])


@pytest.fixture(scope="module")
def shapes(settings: Settings) -> Graph:
    return load_shapes(settings.shapes_dir)


@pytest.fixture(scope="module")
def ontology(settings: Settings) -> Graph:
    return load_ontology(settings.ontology_dir)


def test_every_project_shape_compiles(shapes: Graph) -> None:
    plan = compile_shapes(shapes)
    assert plan.fallback == {}
    assert plan.global_reason is None
    assert len(plan.shapes) >= 19


def check_fast_path(files: list[SourceFile], reference: ValidationReport, settings: Settings) -> None:
    """The fast path (what ``build`` runs) gives exactly pyshacl's ``reference`` for ``files``:
    every result with its message, file and line, and says nothing unless a literal forces it."""
    triples = [t for f in files for t in f.triples]
    fast = validate_triples(
        triples,
        load_shapes(settings.shapes_dir),
        load_ontology(settings.ontology_dir),  # cached by validate
        locate=locate_subjects(files),
        files=[f.display for f in files],
    )
    assert same(fast.report.results, reference.results), explain(fast.report.results, reference.results)
    assert fast.report.files == reference.files
    assert fast.report.conforms == reference.conforms
    if not any(t.object in UNFAITHFUL for t in triples):
        assert fast.notes == ()


@pytest.mark.parametrize("path", FIXTURES, ids=[p.relative_to(ROOT / "tests").as_posix() for p in FIXTURES])
def test_fixture(path: Path, settings: Settings) -> None:
    files = parse_files([path], ROOT)
    check_fast_path(files, validate_files(files, settings), settings)


def test_seed_data_on_a_store_with_a_graph_per_file(settings: Settings, shapes: Graph, ontology: Graph) -> None:
    files = parse_files([settings.data_dir], settings.root, settings.data_dir)
    reference = validate_files(files, settings)
    store = ox.Store()
    store.extend(ox.Quad(t.subject, t.predicate, t.object, ox.NamedNode(f.graph)) for f in files for t in f.triples)
    from kgprofiles.fast.stores import ontology_quads

    store.extend(ontology_quads(ontology))
    fast = validate_store(
        store, shapes, ontology, locate=locate_subjects(files), files=[f.display for f in files],
        raw=lambda: (t for f in files for t in f.triples),
    )  # fmt: skip
    assert fast.notes == ()
    assert same(fast.report.results, reference.results), explain(fast.report.results, reference.results)


def test_synthetic_profiles(tmp_path: Path, settings: Settings, shapes: Graph, ontology: Graph) -> None:
    generator = ROOT / "bench" / "generate.py"
    out = tmp_path / "synthetic"
    subprocess.run(
        [sys.executable, str(generator), "--people", "40", "--seed", "3", "--out", str(out)],
        check=True,
        capture_output=True,
    )
    files = parse_files([out], ROOT)
    reference = validate_files(files, settings)
    triples = [t for f in files for t in f.triples]
    fast = validate_triples(triples, shapes, ontology, locate=locate_subjects(files), files=[f.display for f in files])
    assert fast.notes == ()
    assert same(fast.report.results, reference.results), explain(fast.report.results, reference.results)
    assert reference.results  # the synthetic people have no Wikidata links: warnings to compare


def without_rdflib_falsy_literal_cycles(
    results: tuple[ValidationResult, ...], triples: list[ox.Triple]
) -> tuple[ValidationResult, ...]:
    """pyshacl's ``results`` less what rdflib's path code gets wrong: it takes a literal Python finds
    false (``""``, ``0``, ``false``: ``if subj and obj`` in ``rdflib.paths``) as no start at all, so
    ``x kgp:partOf 0`` matches ``?value kgp:partOf* $this`` and pyshacl reports x as part of itself.
    Oxigraph, hence the fast path, does not (both found by Hypothesis, pinned in
    ``test_generated_graphs``)."""
    falsy = {
        compact(to_rdflib(t.subject))
        for t in triples
        if t.predicate == kgp("partOf") and isinstance(t.object, ox.Literal) and not to_rdflib(t.object)
    }
    return tuple(r for r in results if not (r.shape == "kgs:PartOfCycleShape" and r.focus in falsy))


@settings(max_examples=examples(12))
@given(triples=graphs())
@example(triples=[ox.Triple(node("person", "p0"), kgp("partOf"), ox.Literal(""))])
@example(triples=[ox.Triple(node("person", "p0"), kgp("partOf"), typed("0", "integer"))])
def test_generated_graphs(triples: list[ox.Triple], shapes: Graph, ontology: Graph) -> None:
    """Every fast path gives pyshacl's results on the same graph: from the parsed triples, and, as
    at scale, with the sh:sparql queries run on a copy of only the triples they can read (taken
    from the parsed data, or from the store). One pyshacl run a graph serves all three."""
    from kgprofiles.fast import validation
    from kgprofiles.fast.stores import memory_store

    reference = validate_graph(graph_from_triples(triples), shapes, ontology)
    reference = ValidationReport(without_rdflib_falsy_literal_cycles(reference.results, triples), reference.files)
    fast = validate_triples(triples, shapes, ontology)
    assert fast.notes == ()
    assert same(fast.report.results, reference.results), explain(fast.report.results, reference.results)
    narrow_above = validation.NARROW_ABOVE
    validation.NARROW_ABOVE = -1
    try:
        for from_raw in (True, False):
            narrow = validate_store(
                memory_store(triples, ontology),
                shapes,
                ontology if from_raw else None,
                raw=(lambda: triples) if from_raw else None,
            )
            assert same(narrow.report.results, reference.results), (
                from_raw,
                explain(narrow.report.results, reference.results),
            )
    finally:
        validation.NARROW_ABOVE = narrow_above


@settings(max_examples=examples(4))
@given(triples=graphs(unfaithful=True, max_statements=15))
def test_literals_the_store_rewrites_fall_back(triples: list[ox.Triple], shapes: Graph, ontology: Graph) -> None:
    reference = validate_graph(graph_from_triples(triples), shapes, ontology)
    fast = validate_triples(triples, shapes, ontology)
    if any(t.object in UNFAITHFUL for t in triples):
        assert any("write differently" in n for n in fast.notes)
    assert same(fast.report.results, reference.results), explain(fast.report.results, reference.results)


UNSUPPORTED_SHAPES = """
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix kgp: <https://w3id.org/kgprofiles/ontology#> .
@prefix ex: <http://example.org/shapes#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .

ex:Closed a sh:NodeShape ; sh:targetClass kgp:Topic ; sh:closed true ;
    sh:ignoredProperties ( <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> ) ;
    sh:property [ sh:path kgp:name ] ; sh:message "closed" .
ex:Node a sh:NodeShape ; sh:targetClass kgp:Role ;
    sh:property [ sh:path kgp:holder ; sh:node ex:Named ; sh:message "holder not named" ] .
ex:Named a sh:NodeShape ; sh:property [ sh:path kgp:name ; sh:minCount 1 ] .
ex:NoMessage a sh:NodeShape ; sh:targetClass kgp:Person ;
    sh:property [ sh:path kgp:name ; sh:maxCount 1 ] .
ex:Supported a sh:NodeShape ; sh:targetClass kgp:Person ;
    sh:property [ sh:path kgp:name ; sh:minCount 1 ; sh:datatype xsd:string ; sh:message "name" ] .
"""


@settings(max_examples=examples(8))
@given(triples=graphs(max_statements=25))
def test_unsupported_shapes_fall_back_to_pyshacl(triples: list[ox.Triple], ontology: Graph) -> None:
    shapes = Graph().parse(data=UNSUPPORTED_SHAPES, format="turtle")
    plan = compile_shapes(shapes)
    assert {s.name for s in plan.shapes} == {"<http://example.org/shapes#Supported>"}
    assert len(plan.fallback) == 3
    reference = validate_graph(graph_from_triples(triples), shapes, ontology)
    fast = validate_triples(triples, shapes, ontology)
    assert len(fast.notes) == 3 and all(n.startswith("pyshacl: ") for n in fast.notes)
    assert same(fast.report.results, reference.results), explain(fast.report.results, reference.results)


def test_a_store_rewriting_a_literal_is_noticed(shapes: Graph, ontology: Graph) -> None:
    """ "1.50"^^xsd:decimal is "1.5" in the store but "1.50" for rdflib: the fast path says so."""
    role = ox.NamedNode("https://w3id.org/kgprofiles/id/claim/r")
    triples = [
        ox.Triple(role, ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"), kgp("Role")),
        ox.Triple(role, kgp("start"), typed("1.50", "decimal")),
    ]
    fast = validate_triples(triples, shapes, ontology)
    reference = validate_graph(graph_from_triples(triples), shapes, ontology)
    assert any("write differently" in n for n in fast.notes)
    assert same(fast.report.results, reference.results)
    assert "1.50" in {r.value for r in fast.report.results}


def test_every_sparql_footprint_comes_from_one_pass_over_the_data(
    settings: Settings, shapes: Graph, ontology: Graph
) -> None:
    """At 100,000 people a pass over the parsed data costs 10-30 s: the project's sh:sparql
    constraints share one, and still give pyshacl's results."""
    from kgprofiles.fast import validation
    from kgprofiles.fast.literals import scan_literals
    from kgprofiles.fast.stores import memory_store

    sparql = [c for shape in compile_shapes(shapes).shapes for c in shape.constraints if c.kind == "Sparql"]
    assert len(sparql) == 6
    files = parse_files([settings.data_dir], settings.root, settings.data_dir)
    triples = [t for f in files for t in f.triples]
    passes = 0

    def raw() -> list[ox.Triple]:
        nonlocal passes
        passes += 1
        return triples

    scan = scan_literals(lambda: triples)
    narrow_above = validation.NARROW_ABOVE
    validation.NARROW_ABOVE = -1
    try:
        fast = validate_store(
            memory_store(triples, ontology), shapes, ontology, raw=raw, scan=scan,
            locate=locate_subjects(files), files=[f.display for f in files],
        )  # fmt: skip
    finally:
        validation.NARROW_ABOVE = narrow_above
    assert passes == 1
    reference = validate_files(files, settings)
    assert same(fast.report.results, reference.results), explain(fast.report.results, reference.results)


NAMED_PROPERTY_SHAPES = """
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix ex: <http://example.org/shapes#> .
ex:Person a sh:NodeShape ; sh:targetClass ex:P ;
    sh:property ex:Person-name ;
    sh:property [ sh:path ex:address ; sh:property ex:Person-address-city ] .
ex:Person-name sh:path ex:name ; sh:maxCount 1 .
ex:Person-address-city sh:path ex:city ; sh:minCount 1 .
"""


def test_a_shape_that_falls_back_keeps_the_results_of_its_named_property_shapes(ontology: Graph) -> None:
    """pyshacl names a named property shape as the source of its results, nested or not; the
    fallback keeps them (it used to keep only results named after the top-level shape)."""
    ex = "http://example.org/shapes#"
    someone, home = ox.NamedNode(ex + "someone"), ox.NamedNode(ex + "home")
    triples = [
        ox.Triple(someone, ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"), ox.NamedNode(ex + "P")),
        ox.Triple(someone, ox.NamedNode(ex + "name"), ox.Literal("A")),
        ox.Triple(someone, ox.NamedNode(ex + "name"), ox.Literal("B")),
        ox.Triple(someone, ox.NamedNode(ex + "address"), home),
    ]
    shapes = Graph().parse(data=NAMED_PROPERTY_SHAPES, format="turtle")

    fast = validate_triples(triples, shapes, ontology)

    assert fast.notes, "the shapes have no sh:message: pyshacl runs them"
    reference = validate_graph(graph_from_triples(triples), shapes, ontology)
    assert {(r.shape, r.constraint) for r in fast.report.results} == {
        (f"<{ex}Person-name>", "MaxCount"),
        (f"<{ex}Person-address-city>", "MinCount"),
    }
    assert same(fast.report.results, reference.results), explain(fast.report.results, reference.results)


def test_the_sparql_constraints_in_a_child_read_the_data_from_a_file(
    settings: Settings, shapes: Graph, ontology: Graph
) -> None:
    """Under a budget the sh:sparql queries run in a child process, which reads the data from an
    N-Quads file pyoxigraph wrote (pickling a million triples into its job took 14 s): the same
    results as in this process, over every fixture under tests/shapes/ at once (blank nodes,
    literals of every kind)."""
    files = parse_files(sorted((ROOT / "tests" / "shapes").rglob("*.ttl")), ROOT)
    triples = [t for f in files for t in f.triples]
    located = locate_subjects(files)
    shown = [f.display for f in files]
    in_process = validate_triples(triples, shapes, ontology, locate=located, files=shown)
    in_child = validate_triples(
        triples, shapes, ontology, locate=located, files=shown, budget=Budget.for_validation(settings.limits)
    )
    assert in_child.report.results == in_process.report.results
    assert any(r.constraint == "SPARQL" for r in in_child.report.results)  # the child's findings are among them
