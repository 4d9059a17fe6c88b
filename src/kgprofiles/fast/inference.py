"""The fast inference path: owlrl's closure (as ``kgprofiles.infer.closure`` defines it) computed by
the compiled rules (``rules.py``) in linear passes (``linear.py``), with owlrl as the fallback.

``infer_triples`` returns the new triples as a list (small inputs, tests); ``infer_into`` writes
them straight into a named graph of a store through Oxigraph's bulk loader (builds at scale).
Either way ``FastInference.notes`` says when, and why, owlrl did the work instead.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox
from rdflib import Graph

from kgprofiles.budget import Budget
from kgprofiles.fast.linear import Closure, text_triples
from kgprofiles.fast.literals import LiteralScan
from kgprofiles.fast.rules import compile_rules
from kgprofiles.infer import closure
from kgprofiles.ingest import TripleSpill
from kgprofiles.killable import Killable
from kgprofiles.scratch import scratch_dir
from kgprofiles.store import engine, rdf_syntax
from kgprofiles.terms import graph_from_triples, triples_from_graph

log = logging.getLogger("kgprofiles.fast")
Triples = Callable[[], Iterable[ox.Triple | ox.Quad]]


@dataclass
class FastInference:
    """The inferred triples (or how many were written), owlrl's inconsistencies, and notes."""

    count: int
    inconsistencies: tuple[str, ...]
    notes: tuple[str, ...] = ()
    triples: list[ox.Triple] | None = None
    seconds: dict[str, float] = field(default_factory=dict)


class _FileSink:
    def __init__(self, handle: object) -> None:
        self.handle = handle

    def write(self, text: str) -> None:
        self.handle.write(text)  # type: ignore[attr-defined]


def _run_to_file(
    data: Triples, ontology: Graph, scan: LiteralScan | None, path: str, budget: Budget | None
) -> tuple[list[str], tuple[str, ...]]:
    plan = compile_rules(ontology, budget)
    text = data.text if isinstance(data, TripleSpill) else lambda: text_triples(data())
    with open(path, "w", encoding="utf-8", buffering=1 << 20) as handle:
        result = Closure(plan, text, _FileSink(handle), scan, budget=budget).run()
    return result.unsupported, result.inconsistencies


def _reference(data: Triples, ontology: Graph, budget: Budget | None) -> tuple[list[ox.Triple], tuple[str, ...]]:
    answer = closure(graph_from_triples(data()), ontology, budget)
    return list(triples_from_graph(answer.triples)), answer.inconsistencies


def infer_triples(
    data: Triples, ontology: Graph, *, scan: LiteralScan | None = None, budget: Budget | None = None
) -> FastInference:
    """The new triples owlrl's closure of ``data()`` (raw parsed triples) with ``ontology`` gives,
    less what either asserts: exactly ``infer.closure(...)``, as Oxigraph triples. With a
    ``budget``, the passes check it as they go and owlrl (the fallback) runs in a child process
    killed at its deadline: BudgetExceeded."""
    started = time.perf_counter()
    with scratch_dir("fast") as tmp:
        path = os.path.join(tmp, "inferred.nt")
        unsupported, errors = _run_to_file(data, ontology, scan, path, budget)
        if unsupported:
            notes = tuple(f"owlrl: {reason}" for reason in unsupported)
            for note in notes:
                log.warning("fast inference: %s", note)
            triples, errors = _reference(data, ontology, budget)
            return FastInference(len(triples), errors, notes, triples)
        parsed = rdf_syntax.parse(path=path, format=rdf_syntax.RdfFormat.N_TRIPLES)
        triples = list(dict.fromkeys(q.triple for q in parsed))
    return FastInference(len(triples), errors, (), triples, {"total": time.perf_counter() - started})  # type: ignore[arg-type]


def infer_into(
    store: object,
    graph: str,
    data: Triples,
    ontology: Graph,
    *,
    scan: LiteralScan | None = None,
    budget: Budget | None = None,
) -> FastInference:
    """Write the new triples into the named graph ``graph`` of ``store`` (emptied first) with the
    bulk loader: not one transaction, so meant for a store being built (a fresh generation).
    ``data()`` gives the raw parsed data triples (the store's content is not read). ``budget``:
    as for ``infer_triples``."""
    started = time.perf_counter()
    with scratch_dir("fast") as tmp:
        path = os.path.join(tmp, "inferred.nt")
        unsupported, errors = _run_to_file(data, ontology, scan, path, budget)
        return _load(store, graph, path, (unsupported, errors), (data, ontology, budget), started)


class ClosureAhead:
    """``infer_into`` in two steps: ``start`` the passes as soon as the data is parsed (the spill
    closed, the scan finished), then ``into`` loads what they wrote. ``in_child``: the passes run
    in a child process (``killable.Killable``: killed at the budget's deadline, capped at its
    memory), on the other core while the build stores and validates the data, and ``into`` waits
    for them; ``data`` must then be picklable (the build's ``TripleSpill``). A context manager:
    leaving it kills passes still running (a build that stopped, or whose data was refused)."""

    def __init__(self) -> None:
        self._child: Killable | None = None
        self._passed: tuple[list[str], tuple[str, ...]] | None = None
        self._job: tuple[Triples, Graph, Budget] | None = None
        self._path = ""
        self._started = 0.0

    def start(
        self,
        data: Triples,
        ontology: Graph,
        scan: LiteralScan | None,
        budget: Budget,
        directory: Path,
        *,
        in_child: bool,
    ) -> None:
        self._started = time.perf_counter()
        self._job, self._path = (data, ontology, budget), str(directory / "inferred.nt")
        arguments = (data, ontology, scan, self._path, budget)
        if in_child:
            self._child = Killable(_run_to_file, arguments, budget, "the OWL RL closure")
        else:
            self._passed = _run_to_file(*arguments)

    def __enter__(self) -> ClosureAhead:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._child is not None:
            self._child.__exit__(*exc)
        if self._path:
            Path(self._path).unlink(missing_ok=True)

    def into(self, store: object, graph: str) -> FastInference:
        """Wait for the passes, then write their triples into ``graph`` of ``store`` (as ``infer_into``)."""
        assert self._job is not None, "start the passes first"
        passed = self._child.result() if self._child is not None else self._passed
        assert passed is not None
        return _load(store, graph, self._path, passed, self._job, self._started)


def _load(
    store: object,
    graph: str,
    path: str,
    passed: tuple[list[str], tuple[str, ...]],
    job: tuple[Triples, Graph, Budget | None],
    started: float,
) -> FastInference:
    """The passes' file (``path``) bulk-loaded into ``graph``, emptied first; or, when the passes
    could not do the work (``passed``: what they did not support, the inconsistencies), owlrl's
    closure of the ``job``'s data."""
    ox_store = engine.engine_of(store)
    target = ox.NamedNode(graph)
    ox_store.clear_graph(target) if ox_store.contains_named_graph(target) else None
    unsupported, errors = passed
    seconds: dict[str, float] = {"passes": time.perf_counter() - started}
    notes: tuple[str, ...] = ()
    if unsupported:
        notes = tuple(f"owlrl: {reason}" for reason in unsupported)
        for note in notes:
            log.warning("fast inference: %s", note)
        triples, errors = _reference(*job)
        ox_store.bulk_extend(ox.Quad(t.subject, t.predicate, t.object, target) for t in triples)
    else:
        loading = time.perf_counter()
        ox_store.bulk_load(path=path, format=rdf_syntax.RdfFormat.N_TRIPLES, to_graph=target)
        seconds["load"] = time.perf_counter() - loading
    counted = ox_store.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH {target} {{ ?s ?p ?o }} }}")
    count = int(next(iter(counted))["n"].value)  # type: ignore[arg-type, index, union-attr]
    seconds["total"] = time.perf_counter() - started
    return FastInference(count, errors, notes, None, seconds)
