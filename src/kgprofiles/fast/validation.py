"""The fast validation path: the project's SHACL shapes on an Oxigraph store, exactly as pyshacl.

``validate_store`` runs the compiled shapes (``shapes_sparql``) on a store and pyshacl on the
shapes the compiler does not support (``fallback``); ``validate_triples`` does the same for a
handful of triples through a fresh in-memory store. Both return a ``FastValidation``: the
``ValidationReport`` ``kgprofiles.validate.validate_graph`` would return (without its report graph),
plus notes that say what fell back to pyshacl and why.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import cast

import pyoxigraph as ox
from rdflib import Graph

from kgprofiles.budget import Budget
from kgprofiles.fast.fallback import pyshacl_results
from kgprofiles.fast.literals import LiteralScan, scan_literals
from kgprofiles.fast.results import to_result
from kgprofiles.fast.shapes_model import Constraint, Shape, ShapesPlan, Unsupported, read_shapes
from kgprofiles.fast.shapes_sparql import Evaluator
from kgprofiles.fast.sparql_text import RewrittenSelect
from kgprofiles.fast.stores import memory_store
from kgprofiles.killable import Killable
from kgprofiles.scratch import scratch_dir
from kgprofiles.shapes_check import check_shape_queries
from kgprofiles.sparql_runs import Row, SparqlRun, TriplesSource, run_queries
from kgprofiles.store import engine, rdf_syntax
from kgprofiles.terms import graph_from_triples, triples_from_graph
from kgprofiles.validate import ValidationReport, ValidationResult, sort_results

log = logging.getLogger("kgprofiles.fast")
RawTriples = Callable[[], Iterable[ox.Triple | ox.Quad]]


@dataclass(frozen=True)
class FastValidation:
    """A validation report, and what the fast path could not do itself (and why)."""

    report: ValidationReport
    notes: tuple[str, ...] = ()
    seconds: dict[str, float] = field(default_factory=dict)


_PLANS: dict[str, ShapesPlan] = {}


def compile_shapes(shapes: Graph) -> ShapesPlan:
    """The shapes read for the compiler (cached by the shapes graph's content). Shapes whose
    SPARQL fetches from elsewhere are refused (``shapes_check``: a ShapesError)."""
    key = hashlib.sha256("\n".join(sorted(f"{s.n3()} {p.n3()} {o.n3()}" for s, p, o in shapes)).encode()).hexdigest()
    if key not in _PLANS:
        check_shape_queries(shapes)
        _PLANS[key] = read_shapes(shapes)
    return _PLANS[key]


def validate_store(
    store: object,
    shapes: Graph,
    ontology: Graph | None = None,
    *,
    locate: dict[str, tuple[str, int | None]] | None = None,
    files: Sequence[str] = (),
    scan: LiteralScan | None = None,
    raw: RawTriples | None = None,
    budget: Budget | None = None,
) -> FastValidation:
    """Validate the data in ``store`` (an engine of ``store.engine`` or an ``OxigraphStore``)
    against ``shapes``. The union of the store's named graphs must be the data plus the ontology,
    and nothing else (no inferred graph). ``locate`` maps focus keys (IRI or ``_:label``) to
    file and line, as for ``validate_graph``.

    ``raw`` (a function returning the parsed triples, before storage) and ``scan`` (its
    ``scan_literals``) let the fast path check that the store keeps every literal as rdflib reads
    it; without them, the store's content is taken as the data. ``ontology`` is only used by
    shapes that fall back to pyshacl (the store already holds it).

    With a ``budget``, the compiled queries check its clock as they go, and the sh:sparql
    constraints and the pyshacl fallback run in child processes killed at its deadline, reading
    ``raw`` (the build's spill file) rather than the store: ``BudgetExceeded``."""
    started = time.perf_counter()
    ox_store = engine.engine_of(store)
    plan = compile_shapes(shapes)
    locate = locate or {}
    notes = list(plan.explain()[len(plan.shapes) :])
    if raw is not None and scan is None:
        scan = scan_literals(raw)
    if scan is not None and scan.unfaithful:
        sample = ", ".join(sorted({str(t.object) for t in scan.unfaithful})[:3])
        notes.append(
            f"pyshacl for every shape: {len(scan.unfaithful)} literal(s) that rdflib and the store write "
            f"differently ({sample})"
        )
        everything = [s.node for s in plan.shapes] + list(plan.fallback)
        data = _raw_graph(raw) if raw is not None else _store_graph(ox_store)
        everyone = pyshacl_results(data, shapes, ontology, everything, locate, budget)
        return FastValidation(ValidationReport(sort_results(everyone), tuple(files)), tuple(notes))
    ontology_triples = list(triples_from_graph(ontology)) if ontology is not None else []
    evaluator = Evaluator(ox_store, plan, ontology_triples, scan.kinds if scan is not None else None, budget)
    fallback = list(plan.fallback)
    sparql: list[tuple[Shape, Constraint, RewrittenSelect, SparqlRun]] = []
    compiled: list[Shape] = []
    wanted = any(c.kind == "Sparql" for shape in plan.shapes for c in shape.constraints)
    source = _source(raw if ontology is not None else None, ox_store) if wanted else TriplesSource()
    narrow = source.estimated_triples() > NARROW_ABOVE
    for shape in plan.shapes:
        try:
            constraints = [c for c in shape.constraints if c.kind == "Sparql"]
            runs = [(shape, c, *evaluator.sparql_run(shape, c, narrow)) for c in constraints]
        except Unsupported as exc:
            fallback.append(shape.node)
            notes.append(f"pyshacl: {shape.name}: {exc}")
            continue
        sparql.extend(runs)
        compiled.append(shape)
    results: list[ValidationResult] = []
    with _SparqlRuns([run for *_, run in sparql], source, ontology_triples, budget) as running:
        for shape in compiled:  # meanwhile, the compiled core constraints, here
            try:
                findings = list(evaluator.run([shape]))
            except Unsupported as exc:
                fallback.append(shape.node)
                notes.append(f"pyshacl: {shape.name}: {exc}")
                continue
            results.extend(to_result(f, evaluator.view, locate) for f in findings)
        answers = running.rows()
    failed = set(fallback)
    for (shape, c, rewritten, run), rows in zip(sparql, answers, strict=True):
        if shape.node not in failed:
            results.extend(
                to_result(f, evaluator.view, locate)
                for f in evaluator.sparql_findings(shape, c, rewritten, run.names, rows)
            )
    if fallback:
        data = _raw_graph(raw) if raw is not None else _store_graph(ox_store)
        results.extend(pyshacl_results(data, shapes, ontology, fallback, locate, budget))
    seconds = dict(evaluator.stats.seconds)
    seconds["total"] = time.perf_counter() - started
    for note in notes:
        log.warning("fast validation: %s", note)
    return FastValidation(ValidationReport(sort_results(results), tuple(files)), tuple(notes), seconds)


class _SparqlRuns:
    """The sh:sparql queries of a validation: in a child process under the budget, started at
    once so that they run while the compiled constraints do; without a budget, here, when their
    rows are asked for."""

    def __init__(
        self, runs: list[SparqlRun], source: TriplesSource, ontology: list[ox.Triple], budget: Budget | None
    ) -> None:
        self.runs = runs
        self.source = source
        self.ontology = ontology
        self.budget = budget
        self.child: Killable | None = None
        self._scratch: tempfile.TemporaryDirectory[str] | None = None
        if runs and budget is not None:
            arguments = (runs, self._as_file(source), ontology, budget)
            self.child = Killable(run_queries, arguments, budget, "the sh:sparql constraints")

    def _as_file(self, source: TriplesSource) -> TriplesSource:
        """``source`` as the child reads it best: a file. Triples in memory are written as N-Quads
        by the store's engine (1 s for a million) instead of pickled into the child's job (14 s,
        and 3 s more to read back, at `kgprofiles validate` of 10,000 people; at 100,000 the child
        ran out of its memory budget)."""
        if source.path is not None:
            return source
        self._scratch = scratch_dir("sparql")
        path = os.path.join(self._scratch.name, "data.nq")
        with open(path, "wb") as handle:
            # (a quad format takes triples too, in the default graph, as run_queries reads them)
            rdf_syntax.serialize(cast("Iterable[ox.Quad]", source.triples), handle, format=rdf_syntax.RdfFormat.N_QUADS)
        return TriplesSource(path=path)

    def __enter__(self) -> _SparqlRuns:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.child is not None:
            self.child.__exit__()
        if self._scratch is not None:
            self._scratch.cleanup()

    def rows(self) -> list[list[Row]]:
        if self.child is not None:
            return self.child.result()  # type: ignore[no-any-return]
        return run_queries(self.runs, self.source, self.ontology)


#: Above this many triples of data, each sh:sparql query gets a copy of only what it can match
#: (their predicates and their targets' types); below, the copy of all of it costs less than
#: finding out (rdflib parses the queries: ~0.2 s for the project's).
NARROW_ABOVE = 100_000


def _source(raw: RawTriples | None, store: engine.Engine) -> TriplesSource:
    """The data as a child process can read it: the build's spill file, or the triples; without
    ``raw``, the store's (the data and the ontology)."""
    path = getattr(raw, "path", None)
    if path is not None:
        return TriplesSource(path=str(path))
    if raw is not None:
        return TriplesSource(triples=tuple(raw()))
    return TriplesSource(triples=tuple(store.quads_for_pattern(None, None, None, None)))


def validate_triples(
    triples: Sequence[ox.Triple | ox.Quad],
    shapes: Graph,
    ontology: Graph,
    *,
    locate: dict[str, tuple[str, int | None]] | None = None,
    files: Sequence[str] = (),
    budget: Budget | None = None,
) -> FastValidation:
    """``validate_store`` on a fresh in-memory store holding ``triples`` and the ontology."""
    store = memory_store(triples, ontology)
    return validate_store(
        store,
        shapes,
        ontology,
        locate=locate,
        files=files,
        raw=lambda: triples,
        scan=scan_literals(lambda: triples),
        budget=budget,
    )


def _raw_graph(raw: RawTriples) -> Graph:
    return graph_from_triples(raw())


def _store_graph(store: engine.Engine) -> Graph:
    return graph_from_triples(store.quads_for_pattern(None, None, None, None))
