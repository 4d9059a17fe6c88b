"""The reference engines, for what the fast paths do not compile: pyshacl for some shapes."""

from __future__ import annotations

import pyshacl
from rdflib import Graph, URIRef
from rdflib.namespace import RDF, SH
from rdflib.term import Node

from kgprofiles.validate import SEVERITIES, ValidationResult, _path_text, _shape_name, compact


def pyshacl_results(
    data: Graph,
    shapes: Graph,
    ontology: Graph | None,
    only: list[Node],
    locate: dict[str, tuple[str, int | None]],
) -> list[ValidationResult]:
    """pyshacl's results (as ``validate_graph`` builds them) for the top-level shapes ``only``."""
    if not only:
        return []
    # Not pyshacl's use_shapes: it also filters out the shapes used inside sh:or, sh:not…, which then
    # silently conform. All shapes run; the results of the others are dropped.
    _, report, _ = pyshacl.validate(
        data,
        shacl_graph=shapes,
        ont_graph=ontology,
        inference="none",
        advanced=True,
        allow_warnings=True,
    )
    wanted = {_shape_name(shapes, n) for n in _with_property_shapes(shapes, only)}
    results = []
    # As validate_graph: only the report's own results (not nested sh:detail ones).
    for node in (r for top in report.subjects(RDF.type, SH.ValidationReport) for r in report.objects(top, SH.result)):
        shape = _shape_name(shapes, report.value(node, SH.sourceShape))
        if shape not in wanted:
            continue
        focus = report.value(node, SH.focusNode)
        key = str(focus) if isinstance(focus, URIRef) else f"_:{focus}"
        file, line = locate.get(key, (None, None))
        messages = sorted(str(m) for m in report.objects(node, SH.resultMessage))
        component = compact(report.value(node, SH.sourceConstraintComponent)) or ""
        results.append(
            ValidationResult(
                severity=SEVERITIES.get(report.value(node, SH.resultSeverity), "violation"),  # type: ignore[arg-type]
                message=messages[0] if messages else component,
                focus=compact(focus) or "",
                path=_path_text(report, report.value(node, SH.resultPath)),
                shape=shape,
                constraint=component.removeprefix("sh:").removesuffix("ConstraintComponent"),
                value=compact(report.value(node, SH.value)),
                file=file,
                line=line,
            )
        )
    return results


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
