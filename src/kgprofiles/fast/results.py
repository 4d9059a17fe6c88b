"""Findings of the compiled shapes, and the ``ValidationResult`` each becomes: exactly what
``kgprofiles.validate.validate_graph`` builds from pyshacl's report for the same result (message
chosen and formatted as pyshacl does, terms written by ``validate.compact``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import pyoxigraph as ox
from rdflib import Literal, URIRef
from rdflib.term import Node

from kgprofiles.fast.shapes_model import Path, Shape
from kgprofiles.validate import SEVERITIES, ValidationResult, compact

Term = ox.NamedNode | ox.BlankNode | ox.Literal


@dataclass(frozen=True)
class Finding:
    """One result before formatting: the source shape, the component, focus and value."""

    shape: Shape
    component: str
    focus: Term
    value: Term | None
    path: Path | None
    bound: dict[str, Term] | None = None  # SPARQL rows: variables for message templates
    extra_messages: tuple[Literal, ...] = ()
    focus_projected: bool = True


# -- formatting findings as pyshacl reports them --------------------------------------------------


def _format_sparql_message(template: str, bound: dict[str, str]) -> str:
    for var, val in bound.items():
        template = re.sub(f"{{[?$]{var}}}", val, template)
    return template


def to_result(
    finding: Finding, view: Callable[[Term], Node], locate: dict[str, tuple[str, int | None]]
) -> ValidationResult:
    """The ``ValidationResult`` validate.py builds from pyshacl's report for the same result."""
    shape = finding.shape
    focus = view(finding.focus)
    value = view(finding.value) if finding.value is not None else None
    if finding.component == "SPARQL":
        bound_names: dict[str, str] = {k: str(view(v)) for k, v in (finding.bound or {}).items()}
        if finding.focus_projected:
            bound_names["this"] = str(focus)
        if finding.path is not None:
            bound_names["path"] = str(finding.path.predicate)
        bound_names["value"] = str(value)
        texts = [_format_sparql_message(str(m.value), bound_names) for m in shape.messages]
        texts += [
            _format_sparql_message(str(m.value), bound_names) for m in finding.extra_messages if m not in shape.messages
        ]
    else:
        texts = [str(m) for m in shape.messages]
    component = f"sh:{finding.component}ConstraintComponent"
    key = str(focus) if isinstance(focus, URIRef) else f"_:{focus}"
    file, line = locate.get(key, (None, None))
    path_text = None
    if finding.path is not None:
        path_text = ("^" if finding.path.inverse else "") + (compact(finding.path.predicate) or "")
    return ValidationResult(
        severity=SEVERITIES.get(shape.severity, "violation"),
        message=sorted(texts)[0] if texts else component,
        focus=compact(focus) or "",
        path=path_text,
        shape=shape.name,
        constraint=finding.component,
        value=compact(value),
        file=file,
        line=line,
    )
