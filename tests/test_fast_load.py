"""Loading changed files incrementally (``fast.incremental.plan_load``) ends where a reference
build of the same files ends: the same validation results for the files (pyshacl), and, once the
plan is applied as ``pipeline.load`` applies it (the graphs replaced; the inferred graph patched,
or recomputed in full where the plan says so), the same WHOLE store as a reference build of the
files after the load: every file graph, the ontology graph and the inferred graph (owlrl's
closure), compared quad for quad as stored.

On the seed data (a profile edited in several ways, deep blank nodes, a long list) and on
Hypothesis-generated data split into files, one of which is replaced by another generated file.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path

import pyoxigraph as ox
import pytest
from hypothesis import assume, event, example, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from rdflib import Graph

from conftest import examples
from kgprofiles.config import Settings
from kgprofiles.fast import infer_triples
from kgprofiles.fast.incremental import LoadPlan, plan_load
from kgprofiles.fast.reach import plan_edges
from kgprofiles.fast.stores import ontology_quads
from kgprofiles.fast.validation import compile_shapes
from kgprofiles.infer import Inference, closure
from kgprofiles.ingest import SourceFile, parse_files
from kgprofiles.terms import graph_from_triples, triples_from_graph
from kgprofiles.validate import ValidationReport, load_ontology, load_shapes, validate_files
from kgprofiles.vocab import FILE_GRAPH_PREFIX, INFERRED_GRAPH
from test_fast_graphs import CONTRIBUTIONS, ORGS, PEOPLE, SAME_AS, WIKIDATA, WORKS, graphs, kgp, node
from test_ingest_lines import long_list, nested_brackets

INFERRED = ox.NamedNode(INFERRED_GRAPH)


@pytest.fixture(scope="module")
def shapes(settings: Settings) -> Graph:
    return load_shapes(settings.shapes_dir)


@pytest.fixture(scope="module")
def ontology(settings: Settings) -> Graph:
    return load_ontology(settings.ontology_dir)


def store_of(files: Iterable[SourceFile], inferred: Iterable[ox.Triple], ontology: Graph) -> ox.Store:
    """A store laid out as a build leaves it: a graph per file, the ontology, the inferred graph."""
    store = ox.Store()
    store.extend(ox.Quad(t.subject, t.predicate, t.object, ox.NamedNode(f.graph)) for f in files for t in f.triples)
    store.extend(ontology_quads(ontology))
    store.extend(ox.Quad(t.subject, t.predicate, t.object, INFERRED) for t in inferred)
    return store


def built_store(files: list[SourceFile], ontology: Graph) -> ox.Store:
    """The store a reference build (owlrl) of ``files`` leaves. A build stops at an
    inconsistency, so there is no such store for inconsistent data."""
    answer = reference_closure(tuple(t for f in files for t in f.triples), ontology)
    if answer.inconsistencies:
        with contextlib.suppress(InvalidArgument):
            assume(False)  # inside Hypothesis: draw another example
        pytest.fail("the base data is inconsistent: no build would have stored it")
    return store_of(files, triples_from_graph(answer.triples), ontology)


@cache
def reference_closure(triples: tuple[ox.Triple, ...], ontology: Graph) -> Inference:
    """owlrl's closure, once per input: the seed tests all start from the seed data's build."""
    return closure(graph_from_triples(triples), ontology)


def after_load(files: list[SourceFile], changed: list[SourceFile]) -> list[SourceFile]:
    """The files after the load: each changed file replaces the one with its graph, or is added."""
    by_graph = {f.graph: f for f in files}
    by_graph.update((f.graph, f) for f in changed)
    return list(by_graph.values())


def reference_load(
    files: list[SourceFile], changed: list[SourceFile], settings: Settings, ontology: Graph
) -> tuple[ValidationReport, Inference]:
    """pyshacl on the changed files against all the data after the load; owlrl's closure of it."""
    data = graph_from_triples(t for f in after_load(files, changed) for t in f.triples)
    return validate_files(changed, settings, data=data), closure(data, ontology)


def apply(store: ox.Store, changed: list[SourceFile], plan: LoadPlan, ontology: Graph) -> tuple[str, ...]:
    """What ``pipeline.load`` does with the plan: replace the files' graphs, then patch the
    inferred graph, or recompute it from all the file graphs (``full_inference``). Returns the
    inconsistencies the full recomputation found (the patch's are ``plan.inconsistencies``)."""
    for f in changed:
        graph = ox.NamedNode(f.graph)
        store.remove_graph(graph) if store.contains_named_graph(graph) else None
        store.extend(ox.Quad(t.subject, t.predicate, t.object, graph) for t in f.triples)
    if not plan.full_inference:
        for t in plan.inferred_remove:
            store.remove(ox.Quad(t.subject, t.predicate, t.object, INFERRED))
        store.extend(ox.Quad(t.subject, t.predicate, t.object, INFERRED) for t in plan.inferred_add)
        return plan.inconsistencies
    replaced = {f.graph for f in changed}

    def raw() -> Iterator[ox.Triple]:
        for q in store.quads_for_pattern(None, None, None, None):
            graph = q.graph_name
            kept = isinstance(graph, ox.NamedNode) and graph.value.startswith(FILE_GRAPH_PREFIX)
            if kept and graph.value not in replaced:
                yield q.triple
        yield from (t for f in changed for t in f.triples)

    result = infer_triples(raw, ontology)
    store.remove_graph(INFERRED) if store.contains_named_graph(INFERRED) else None
    store.extend(ox.Quad(t.subject, t.predicate, t.object, INFERRED) for t in result.triples or ())
    return result.inconsistencies


def check_load(
    files: list[SourceFile], changed: list[SourceFile], settings: Settings, shapes: Graph, ontology: Graph
) -> None:
    store = built_store(files, ontology)
    report, answer = reference_load(files, changed, settings, ontology)
    plan = plan_load(store, changed, shapes, ontology)
    assert Counter(plan.report.results) == Counter(report.results)
    with contextlib.suppress(InvalidArgument):  # outside Hypothesis there is nothing to record
        event("inferred graph recomputed in full" if plan.full_inference else "inferred graph patched")
    assert not plan.full_inference or plan.notes, "a full recomputation always says why"
    inconsistencies = apply(store, changed, plan, ontology)
    assert inconsistencies == answer.inconsistencies
    if answer.inconsistencies:
        return  # the load stops there: nothing is stored
    expected = store_of(after_load(files, changed), triples_from_graph(answer.triples), ontology)
    missing = sorted(str(q) for q in expected if q not in store)
    extra = sorted(str(q) for q in store if q not in expected)
    assert not missing and not extra, f"reference only: {missing[:8]}\nload only: {extra[:8]}\n{plan.notes}"


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


def test_every_project_shape_is_validated_on_its_neighbourhood(shapes: Graph) -> None:
    """No shape makes a load validate on all the data (the kgp:partOf cycle shape's ``*`` path
    used to: 6 s for a one-file load at 1,000 people)."""
    assert plan_edges(compile_shapes(shapes)).unscoped == {}


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


P0, P1, P2 = PEOPLE
Q42 = WIKIDATA[0]


def chain(contribution: ox.NamedNode, contributors: list[ox.NamedNode], work: ox.NamedNode) -> list[ox.Triple]:
    """A contribution's links: the middle of kgp:authorOf's chain from each contributor to the work."""
    return [
        *(ox.Triple(contribution, kgp("contributor"), p) for p in contributors),
        ox.Triple(contribution, kgp("work"), work),
    ]


#: Links that make people one node for owlrl: people owl:sameAs the same Wikidata item.
same_as_links = st.lists(
    st.builds(ox.Triple, st.sampled_from(PEOPLE), st.just(SAME_AS), st.sampled_from(WIKIDATA[:2])), max_size=2
)
#: People in the middle of kgp:authorOf's chain (``[ owl:inverseOf kgp:contributor ] kgp:work``).
chain_links = st.lists(
    st.builds(
        ox.Triple,
        st.sampled_from(PEOPLE),
        st.sampled_from([kgp("contributor"), kgp("work")]),
        st.sampled_from([*PEOPLE, *WORKS[:2]]),
    ),
    max_size=2,
)
files_drawn = st.builds(
    lambda g, a, b: list(dict.fromkeys(g + a + b)), graphs(max_statements=25), same_as_links, chain_links
)


@settings(max_examples=examples(3))  # each example builds and loads a store (~3-7 s); the nightly profile runs 30
@given(parts=st.lists(files_drawn, min_size=2, max_size=3), replacement=files_drawn)
@example(  # issue 15: p0 sameAs Q42 loaded beside p1 sameAs Q42; authorOf's chain runs through them
    parts=[[], [ox.Triple(P1, SAME_AS, Q42), ox.Triple(P1, kgp("work"), WORKS[0])]],
    replacement=[ox.Triple(P0, kgp("contributor"), P2), ox.Triple(P0, SAME_AS, Q42)],
)
@example(  # the same, the other way: the link removed, the chain's triples must go
    parts=[
        [ox.Triple(P0, kgp("contributor"), P2), ox.Triple(P0, SAME_AS, Q42)],
        [ox.Triple(P1, SAME_AS, Q42), ox.Triple(P1, kgp("work"), WORKS[0])],
    ],
    replacement=[ox.Triple(P0, kgp("contributor"), P2)],
)
@example(  # a kgp:partOf cycle the loaded file closes through another file's links (a * path)
    parts=[[], [ox.Triple(PEOPLE[0], kgp("partOf"), ORGS[1]), ox.Triple(ORGS[1], kgp("partOf"), ORGS[0])]],
    replacement=[ox.Triple(ORGS[0], kgp("partOf"), PEOPLE[0])],
)
@example(  # the nightly profile's: a link to a literal; the triple through it removed, its inferences must go
    parts=[
        [ox.Triple(node("claim", "id0"), kgp("cites"), ox.Literal("Example"))],
        [],
        [ox.Triple(node("profile", "f0"), SAME_AS, ox.Literal("Example"))],
    ],
    replacement=[],
)
@example(  # authorOf's chain between two nodes the load reaches, through a contribution it does not
    parts=[
        [ox.Triple(P0, kgp("name"), ox.Literal("p zero"))],
        [
            *chain(CONTRIBUTIONS[0], [P0, P1], WORKS[1]),  # P0 -> C0 -> P1: P1 two links away
            *chain(CONTRIBUTIONS[1], [P0], WORKS[0]),  # P0 -> C1 -> W0: W0 two links away
            *chain(CONTRIBUTIONS[2], [P1], WORKS[0]),  # C2 three links away: P1 authorOf W0 only through it
        ],
    ],
    replacement=[ox.Triple(P0, kgp("name"), ox.Literal("p zero, renamed"))],
)
def test_generated_loads(
    parts: list[list[ox.Triple]], replacement: list[ox.Triple], settings: Settings, shapes: Graph, ontology: Graph
) -> None:
    files = [as_file(f"part{i}", triples) for i, triples in enumerate(parts)]
    check_load(files, [as_file("part0", replacement)], settings, shapes, ontology)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(nested_brackets(1000, innermost="[ a kgp:Role ]"), id="1000 nested [ ], a bad role innermost"),
        pytest.param(long_list(300), id="a 300-item list"),
    ],
)
def test_a_file_of_deep_blank_nodes(
    text: str, settings: Settings, shapes: Graph, ontology: Graph, tmp_path: Path
) -> None:
    files = seed(settings)
    path = tmp_path / "deep.ttl"
    path.write_text(text, encoding="utf-8")
    check_load(files, parse_files([path], settings.root), settings, shapes, ontology)
