"""The fast validation path: the project's SHACL shapes on a pyoxigraph store, exactly as pyshacl.

``validate_store`` runs the compiled shapes (``shapes_sparql``) on a store and pyshacl on the
shapes the compiler does not support (``fallback``); ``validate_triples`` does the same for a
handful of triples through a fresh in-memory store. Both return a ``FastValidation``: the
``ValidationReport`` ``kgprofiles.validate.validate_graph`` would return (without its report graph),
plus notes that say what fell back to pyshacl and why.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import pyoxigraph as ox
from rdflib import Graph

from kgprofiles.fast.fallback import pyshacl_results
from kgprofiles.fast.literals import LiteralScan, scan_literals
from kgprofiles.fast.results import to_result
from kgprofiles.fast.shapes_model import ShapesPlan, Unsupported, read_shapes
from kgprofiles.fast.shapes_sparql import Evaluator
from kgprofiles.fast.stores import as_ox_store, memory_store
from kgprofiles.terms import graph_from_triples, triples_from_graph
from kgprofiles.validate import _SEVERITY_ORDER, ValidationReport, ValidationResult

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
    """The shapes read for the compiler (cached by the shapes graph's content)."""
    key = hashlib.sha256("\n".join(sorted(f"{s.n3()} {p.n3()} {o.n3()}" for s, p, o in shapes)).encode()).hexdigest()
    if key not in _PLANS:
        _PLANS[key] = read_shapes(shapes)
    return _PLANS[key]


def sort_results(results: Iterable[ValidationResult]) -> tuple[ValidationResult, ...]:
    """validate.py's order: file, line, severity, focus, path, message."""
    return tuple(
        sorted(
            results,
            key=lambda r: (r.file or "~", r.line or 0, _SEVERITY_ORDER[r.severity], r.focus, r.path or "", r.message),
        )
    )


def validate_store(
    store: object,
    shapes: Graph,
    ontology: Graph | None = None,
    *,
    locate: dict[str, tuple[str, int | None]] | None = None,
    files: Sequence[str] = (),
    scan: LiteralScan | None = None,
    raw: RawTriples | None = None,
) -> FastValidation:
    """Validate the data in ``store`` (a ``pyoxigraph.Store`` or kgprofiles' ``OxigraphStore``)
    against ``shapes``. The union of the store's named graphs must be the data plus the ontology,
    and nothing else (no inferred graph). ``locate`` maps focus keys (IRI or ``_:label``) to
    file and line, as for ``validate_graph``.

    ``raw`` (a function returning the parsed triples, before storage) and ``scan`` (its
    ``scan_literals``) let the fast path check that the store keeps every literal as rdflib reads
    it; without them, the store's content is taken as the data. ``ontology`` is only used by
    shapes that fall back to pyshacl (the store already holds it)."""
    started = time.perf_counter()
    ox_store = as_ox_store(store)
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
        results = pyshacl_results(data, shapes, ontology, everything, locate)
        return FastValidation(ValidationReport(sort_results(results), tuple(files)), tuple(notes))
    ontology_triples = list(triples_from_graph(ontology)) if ontology is not None else None
    evaluator = Evaluator(ox_store, plan, raw, ontology_triples, scan.kinds if scan is not None else None)
    results: list[ValidationResult] = []
    fallback = list(plan.fallback)
    for shape in plan.shapes:
        try:
            findings = list(evaluator.run([shape]))
        except Unsupported as exc:
            fallback.append(shape.node)
            notes.append(f"pyshacl: {shape.name}: {exc}")
            continue
        results.extend(to_result(f, evaluator.view, locate) for f in findings)
    if fallback:
        data = _raw_graph(raw) if raw is not None else _store_graph(ox_store)
        results.extend(pyshacl_results(data, shapes, ontology, fallback, locate))
    seconds = dict(evaluator.stats.seconds)
    seconds["total"] = time.perf_counter() - started
    for note in notes:
        log.warning("fast validation: %s", note)
    return FastValidation(ValidationReport(sort_results(results), tuple(files)), tuple(notes), seconds)


def validate_triples(
    triples: Sequence[ox.Triple | ox.Quad],
    shapes: Graph,
    ontology: Graph,
    *,
    locate: dict[str, tuple[str, int | None]] | None = None,
    files: Sequence[str] = (),
) -> FastValidation:
    """``validate_store`` on a fresh in-memory store holding ``triples`` and the ontology."""
    store = memory_store(triples, ontology)
    return validate_store(
        store, shapes, ontology, locate=locate, files=files, raw=lambda: triples, scan=scan_literals(lambda: triples)
    )


def _raw_graph(raw: RawTriples) -> Graph:
    return graph_from_triples(raw())


def _store_graph(store: ox.Store) -> Graph:
    return graph_from_triples(store.quads_for_pattern(None, None, None, None))
