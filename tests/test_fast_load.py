"""Loading a changed file incrementally (``fast.incremental.plan_load``) ends where the reference
``load`` ends: the same validation results for the file, and, once the patch is applied, the same
inferred graph as owlrl's closure of all the data after the load (compared as stored).

On the seed data (a profile edited in several ways) and on Hypothesis-generated data split into
files, one of which is replaced by another generated file.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from pathlib import Path

import pyoxigraph as ox
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from rdflib import Graph

from kgprofiles.config import Settings
from kgprofiles.fast.incremental import plan_load
from kgprofiles.fast.stores import ontology_quads
from kgprofiles.infer import closure
from kgprofiles.ingest import SourceFile, parse_files
from kgprofiles.terms import graph_from_triples, triples_from_graph
from kgprofiles.validate import load_ontology, load_shapes, validate_files
from kgprofiles.vocab import FILE_GRAPH_PREFIX, INFERRED_GRAPH
from test_fast_graphs import PEOPLE, SAME_AS, WIKIDATA, graphs, kgp

INFERRED = ox.NamedNode(INFERRED_GRAPH)


@pytest.fixture(scope="module")
def shapes(settings: Settings) -> Graph:
    return load_shapes(settings.shapes_dir)


@pytest.fixture(scope="module")
def ontology(settings: Settings) -> Graph:
    return load_ontology(settings.ontology_dir)


def built_store(files: list[SourceFile], ontology: Graph) -> ox.Store:
    """A store as the reference build leaves it: a graph per file, the ontology, the inferred graph.
    A build stops at an inconsistency, so there is no such store for inconsistent data."""
    store = ox.Store()
    store.extend(ox.Quad(t.subject, t.predicate, t.object, ox.NamedNode(f.graph)) for f in files for t in f.triples)
    store.extend(ontology_quads(ontology))
    data = graph_from_triples(t for f in files for t in f.triples)
    answer = closure(data, ontology)
    if answer.inconsistencies:
        with contextlib.suppress(InvalidArgument):
            assume(False)  # inside Hypothesis: draw another example
        pytest.fail("the base data is inconsistent: no build would have stored it")
    store.extend(ox.Quad(t.subject, t.predicate, t.object, INFERRED) for t in triples_from_graph(answer.triples))
    return store


def reference_load(store: ox.Store, changed: list[SourceFile], settings: Settings, ontology: Graph):
    replaced = {f.graph for f in changed}
    data = graph_from_triples(t for f in changed for t in f.triples)
    for q in store.quads_for_pattern(None, None, None, None):
        g = q.graph_name
        if isinstance(g, ox.NamedNode) and g.value.startswith(FILE_GRAPH_PREFIX) and g.value not in replaced:
            graph_from_triples([q], data)
    report = validate_files(changed, settings, data=data)
    return report, closure(data, ontology)


def apply(store: ox.Store, changed: list[SourceFile], plan) -> set[ox.Triple]:
    for f in changed:
        store.remove_graph(ox.NamedNode(f.graph)) if store.contains_named_graph(ox.NamedNode(f.graph)) else None
        store.extend(ox.Quad(t.subject, t.predicate, t.object, ox.NamedNode(f.graph)) for t in f.triples)
    for t in plan.inferred_remove:
        store.remove(ox.Quad(t.subject, t.predicate, t.object, INFERRED))
    store.extend(ox.Quad(t.subject, t.predicate, t.object, INFERRED) for t in plan.inferred_add)
    return {q.triple for q in store.quads_for_pattern(None, None, None, INFERRED)}


def as_stored(triples: set[ox.Triple]) -> set[ox.Triple]:
    scratch = ox.Store()
    scratch.extend(ox.Quad(t.subject, t.predicate, t.object, ox.DefaultGraph()) for t in triples)
    return {q.triple for q in scratch}


def check_load(
    files: list[SourceFile], changed: list[SourceFile], settings: Settings, shapes: Graph, ontology: Graph
) -> None:
    store = built_store(files, ontology)
    report, answer = reference_load(store, changed, settings, ontology)
    plan = plan_load(store, changed, shapes, ontology)
    assert Counter(plan.report.results) == Counter(report.results)
    with contextlib.suppress(InvalidArgument):  # outside Hypothesis there is nothing to record
        event("inferred graph recomputed in full" if plan.full_inference else "inferred graph patched")
    if plan.full_inference:
        assert plan.notes
        return
    assert plan.inconsistencies == answer.inconsistencies
    after = apply(store, changed, plan)
    expected = as_stored(set(triples_from_graph(answer.triples)))
    missing, extra = sorted(map(str, expected - after)), sorted(map(str, after - expected))
    assert not missing and not extra, f"owlrl only: {missing[:8]}\npatched only: {extra[:8]}\n{plan.notes}"


def edited(f: SourceFile, drop: int = 0, add: tuple[ox.Triple, ...] = ()) -> SourceFile:
    triples = tuple(t for i, t in enumerate(f.triples) if not drop or i % drop) + add
    return SourceFile(f.path, f.display, f.graph, triples, f.subject_lines)


def seed(settings: Settings) -> list[SourceFile]:
    return parse_files([settings.data_dir], settings.root, settings.data_dir)


@pytest.mark.parametrize("drop", [0, 2, 3, 7])
def test_seed_profile_edited(drop: int, settings: Settings, shapes: Graph, ontology: Graph) -> None:
    files = seed(settings)
    target = next(f for f in files if f.display.endswith("people/horace-he.ttl"))
    person = ox.NamedNode("https://w3id.org/kgprofiles/id/person/horace-he")
    extra = (
        ox.Triple(person, kgp("topic"), ox.NamedNode("https://w3id.org/kgprofiles/id/topic/new")),
        ox.Triple(person, SAME_AS, WIKIDATA[0]),
    )
    check_load(files, [edited(target, drop, extra if drop % 2 else ())], settings, shapes, ontology)


def test_seed_file_unchanged(settings: Settings, shapes: Graph, ontology: Graph) -> None:
    files = seed(settings)
    check_load(files, [files[0]], settings, shapes, ontology)


def test_a_new_file(settings: Settings, shapes: Graph, ontology: Graph, tmp_path: Path) -> None:
    files = seed(settings)
    path = tmp_path / "newcomer.ttl"
    path.write_text(
        "@prefix kgp: <https://w3id.org/kgprofiles/ontology#> .\n"
        '<https://w3id.org/kgprofiles/id/person/newcomer> a kgp:Person ; kgp:name "New Comer" ;\n'
        "    kgp:source <https://w3id.org/kgprofiles/id/source/seed-page-horace-he> .\n",
        encoding="utf-8",
    )
    check_load(files, parse_files([path], settings.root), settings, shapes, ontology)


def as_file(name: str, triples: list[ox.Triple]) -> SourceFile:
    lines = {}
    for i, t in enumerate(triples, start=1):
        key = t.subject.value if isinstance(t.subject, ox.NamedNode) else f"_:{t.subject.value}"
        lines.setdefault(key, i)
    return SourceFile(Path(f"{name}.ttl"), f"data/{name}.ttl", f"{FILE_GRAPH_PREFIX}{name}.ttl", tuple(triples), lines)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    parts=st.lists(graphs(max_statements=25), min_size=2, max_size=3),
    replacement=graphs(max_statements=25),
    links=st.lists(st.tuples(st.sampled_from(PEOPLE), st.sampled_from(WIKIDATA[:2])), max_size=2),
)
def test_generated_loads(
    parts: list[list[ox.Triple]],
    replacement: list[ox.Triple],
    links: list[tuple[ox.NamedNode, ox.NamedNode]],
    settings: Settings,
    shapes: Graph,
    ontology: Graph,
) -> None:
    files = [as_file(f"part{i}", triples) for i, triples in enumerate(parts)]
    changed = as_file("part0", replacement + [ox.Triple(a, SAME_AS, b) for a, b in links])
    check_load(files, [changed], settings, shapes, ontology)
