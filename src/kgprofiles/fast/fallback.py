"""The reference engines, for what the fast paths do not compile: pyshacl for some shapes."""

from __future__ import annotations

from rdflib import Graph
from rdflib.term import Node

from kgprofiles.budget import Budget
from kgprofiles.validate import ValidationResult, _shape_name, report_results, run_pyshacl
from kgprofiles.vocab import SH


def pyshacl_results(
    data: Graph,
    shapes: Graph,
    ontology: Graph | None,
    only: list[Node],
    locate: dict[str, tuple[str, int | None]],
    budget: Budget | None = None,
) -> list[ValidationResult]:
    """pyshacl's results (as ``validate_graph`` builds them) for the top-level shapes ``only``;
    with a ``budget``, in a child process killed at its deadline."""
    if not only:
        return []
    if budget is not None:
        from kgprofiles.killable import run_killable

        return run_killable(pyshacl_results, (data, shapes, ontology, only, locate), budget, "pyshacl")
    # Not pyshacl's use_shapes: it also filters out the shapes used inside sh:or, sh:not…, which then
    # silently conform. All shapes run; the results of the others are dropped.
    report = run_pyshacl(data, shapes, ontology)
    wanted = {_shape_name(shapes, n) for n in _with_property_shapes(shapes, only)}
    return report_results(report, shapes, locate, wanted=wanted)


def _with_property_shapes(shapes: Graph, only: list[Node]) -> set[Node]:
    """``only`` and the property shapes under them, however nested: a result names the shape it
    comes from (a named property shape under its own name, a blank one under its parent's)."""
    found = set(only)
    todo = list(only)
    while todo:
        for p in shapes.objects(todo.pop(), SH.property):
            if p not in found:
                found.add(p)
                todo.append(p)
    return found


__all__ = ["pyshacl_results"]
