"""SHACL validation with pyshacl → a typed report whose results point at file:line."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

from rdflib import BNode, Graph, URIRef
from rdflib.compare import to_canonical_graph
from rdflib.namespace import RDF, SH
from rdflib.term import Node

from kgprofiles.budget import Budget
from kgprofiles.config import SearchPath, Settings, search_path
from kgprofiles.errors import ShapesError
from kgprofiles.ingest import RDF_SUFFIXES, SourceFile, collect_files, union_graph
from kgprofiles.rdflib_speedups import prepare_queries_once
from kgprofiles.shapes_check import check_shape_queries
from kgprofiles.vocab import KGS, PREFIXES, curie

SEVERITIES = {SH.Violation: "violation", SH.Warning: "warning", SH.Info: "info"}
_SEVERITY_ORDER = {"violation": 0, "warning": 1, "info": 2}


@dataclass(frozen=True)
class ValidationResult:
    """One SHACL result, with the file and line of its focus node where known."""

    severity: str
    message: str
    focus: str
    path: str | None
    shape: str
    constraint: str
    value: str | None
    file: str | None = None
    line: int | None = None

    def format(self) -> str:
        where = (f"{self.file}:{self.line}" if self.line else self.file) if self.file else "(no file)"
        detail = ", ".join(x for x in (self.focus, self.path, self.shape) if x)
        return f"{where}: {self.severity}: {self.message} ({detail})"


@dataclass(frozen=True)
class ValidationReport:
    """All results of one validation run, in a stable order."""

    results: tuple[ValidationResult, ...]
    files: tuple[str, ...] = ()
    report_graph: Graph | None = None

    @property
    def violations(self) -> tuple[ValidationResult, ...]:
        return tuple(r for r in self.results if r.severity == "violation")

    @property
    def warnings(self) -> tuple[ValidationResult, ...]:
        return tuple(r for r in self.results if r.severity == "warning")

    @property
    def conforms(self) -> bool:
        """True when nothing blocks: warnings and infos never do."""
        return not self.violations

    def files_with_violations(self) -> tuple[str, ...]:
        return tuple(sorted({r.file or "(no file)" for r in self.violations}))

    def summary(self) -> str:
        v, w = len(self.violations), len(self.warnings)
        return f"{len(self.files)} file(s) checked: {v} violation{'s' * (v != 1)}, {w} warning{'s' * (w != 1)}"

    def to_json(self) -> str:
        return json.dumps(
            {
                "conforms": self.conforms,
                "files": list(self.files),
                "violations": len(self.violations),
                "warnings": len(self.warnings),
                "results": [asdict(r) for r in self.results],
            },
            indent=2,
            ensure_ascii=False,
        )


def compact(node: Node | None) -> str | None:
    """A term as a CURIE with the project prefixes, or as <IRI>, or as a literal's text."""
    if node is None:
        return None
    if isinstance(node, URIRef):
        return curie(str(node), {**PREFIXES, "kgs": str(KGS)}) or f"<{node}>"
    if isinstance(node, BNode):
        return f"_:{node}"
    return str(node)


def _path_text(report: Graph, path: Node | None) -> str | None:
    if path is None or not isinstance(path, BNode):
        return compact(path)
    inverse = report.value(path, SH.inversePath)
    if inverse is not None:
        return f"^{compact(inverse)}"
    return "(complex path)"


def _shape_name(shapes: Graph, shape: Node) -> str:
    """The named node shape a (possibly nested, blank) shape belongs to."""
    seen = set()
    while isinstance(shape, BNode) and shape not in seen:
        seen.add(shape)
        parent = next(shapes.subjects(SH.property, shape), None)
        if parent is None:  # inside an sh:or / sh:not list, or a qualified shape
            parent = next((s for s, _, _ in shapes.triples((None, None, shape))), None)
            while parent is not None and ((parent, RDF.first, None) in shapes or (parent, RDF.rest, None) in shapes):
                parent = next((s for s, _, _ in shapes.triples((None, None, parent))), None)
        if parent is None:
            break
        shape = parent
    return compact(shape) or ""


def validate_graph(
    data: Graph,
    shapes: Graph,
    ontology: Graph | None = None,
    locate: dict[str, tuple[str, int | None]] | None = None,
    files: Sequence[str] = (),
    budget: Budget | None = None,
) -> ValidationReport:
    """Validate ``data`` against ``shapes`` with pyshacl (the reference semantics).

    ``locate`` maps a focus node (IRI or ``_:label``) to its file and line. The ontology, when
    given, is mixed in so class hierarchies resolve; nothing is inferred. With a ``budget``,
    pyshacl runs in a child process killed at the budget's deadline (``BudgetExceeded``).
    """
    if budget is not None:
        from kgprofiles.killable import run_killable

        return run_killable(validate_graph, (data, shapes, ontology, locate, files), budget, "pyshacl")
    report = run_pyshacl(data, shapes, ontology)
    results = report_results(report, shapes, locate or {})
    return ValidationReport(tuple(sort_results(results)), tuple(files), report)


def run_pyshacl(data: Graph, shapes: Graph, ontology: Graph | None) -> Graph:
    """pyshacl's report graph for ``data``; a shapes graph whose queries fetch from elsewhere,
    and every failure of pyshacl itself, are a ShapesError."""
    import pyshacl  # ~0.15 s to import: only where it runs (a child process, under a budget)
    from pyshacl.errors import ReportableRuntimeError

    check_shape_queries(shapes)
    prepare_queries_once()  # pyshacl hands rdflib each SPARQL text again for every focus node
    try:
        _, report, _ = pyshacl.validate(
            data,
            shacl_graph=shapes,
            ont_graph=ontology,
            inference="none",
            advanced=True,
            allow_warnings=True,
        )
    except MemoryError:
        raise
    except ReportableRuntimeError as exc:
        raise ShapesError(f"SHACL validation failed: {exc.message}", _PYSHACL_HINT) from exc
    except Exception as exc:  # anything else pyshacl (or rdflib under it) raises on these shapes
        raise ShapesError(f"SHACL validation failed: {type(exc).__name__}: {exc}", _PYSHACL_HINT) from exc
    if not isinstance(report, Graph):  # pyshacl returns its ValidationFailure instead of raising
        raise ShapesError(f"SHACL validation failed: {getattr(report, 'message', report)}", _PYSHACL_HINT)
    return report


_PYSHACL_HINT = "check the shapes (shapes/): the SHACL engine could not run them on this data"


def report_results(
    report: Graph, shapes: Graph, locate: dict[str, tuple[str, int | None]], wanted: set[str] | None = None
) -> list[ValidationResult]:
    """The results of pyshacl's ``report`` (only the report's own results: nested sh:detail
    results of sh:node are not results of their own), of the named shapes in ``wanted`` (all
    when None), each with the file and line ``locate`` gives its focus node."""
    results = []
    for node in (r for top in report.subjects(RDF.type, SH.ValidationReport) for r in report.objects(top, SH.result)):
        source = report.value(node, SH.sourceShape)
        shape = _shape_name(shapes, source) if source is not None else ""
        if wanted is not None and shape not in wanted:
            continue
        focus = report.value(node, SH.focusNode)
        key = str(focus) if isinstance(focus, URIRef) else f"_:{focus}"
        file, line = locate.get(key, (None, None))
        messages = sorted(str(m) for m in report.objects(node, SH.resultMessage))
        component = compact(report.value(node, SH.sourceConstraintComponent)) or ""
        results.append(
            ValidationResult(
                severity=SEVERITIES.get(report.value(node, SH.resultSeverity), "violation"),  # type: ignore[call-overload]
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


def sort_results(results: Iterable[ValidationResult]) -> tuple[ValidationResult, ...]:
    """The one order of results: file, line, severity, focus, path, message."""
    return tuple(
        sorted(
            results,
            key=lambda r: (r.file or "~", r.line or 0, _SEVERITY_ORDER[r.severity], r.focus, r.path or "", r.message),
        )
    )


def locate_subjects(files: Sequence[SourceFile]) -> dict[str, tuple[str, int | None]]:
    """Each subject → the file (first in order) and line where its statements are."""
    where: dict[str, tuple[str, int | None]] = {}
    for f in files:
        for node, line in f.subject_lines.items():
            where.setdefault(node, (f.display, line))
    return where


def validate_files(
    files: Sequence[SourceFile],
    settings: Settings,
    data: Graph | None = None,
    budget: Budget | None = None,
) -> ValidationReport:
    """Validate ``files`` with the project's shapes and ontology.

    ``data``, when given, is the graph to validate: the files' triples plus whatever else they may
    reference (e.g. the rest of the store, for ``load``); only results whose focus node is a
    subject in ``files`` are then reported. ``budget``: see ``validate_graph``."""
    report = validate_graph(
        union_graph(files) if data is None else data,
        load_shapes(settings.shapes_dir),
        load_ontology(settings.ontology_dir),
        locate=locate_subjects(files),
        files=[f.display for f in files],
        budget=budget,
    )
    if data is not None:
        report = ValidationReport(tuple(r for r in report.results if r.file), report.files, report.report_graph)
    return report


def _rdf_files(directory: Path | SearchPath) -> list[Path]:
    """The RDF files on ``directory``, in the order they are read."""
    files = search_path(directory).files("*")
    return collect_files(f for f in files if f.suffix in RDF_SUFFIXES)


def _load_dir(directory: Path | SearchPath, check: Callable[[Graph, str], None] | None = None) -> Graph:
    graph = Graph()
    for path in _rdf_files(directory):
        part = Graph().parse(path)
        if check is not None:
            check(part, str(path))
        graph += part
        for prefix, namespace in part.namespaces():
            graph.bind(prefix, namespace, override=False)
    return graph


@lru_cache(maxsize=4)
def load_shapes(shapes_dir: Path | SearchPath) -> Graph:
    """The SHACL shapes graph from every file on ``shapes_dir`` (kgprofiles' own and a project's,
    a project's file replacing kgprofiles' of the same name); a file whose SPARQL fetches
    from elsewhere (SERVICE, FROM, LOAD) or does not parse is a ShapesError naming it. Made once
    for the files' bytes and kept on disk (``parsed_graphs.py``)."""
    return _kept("shapes", _rdf_files(shapes_dir), lambda: _load_dir(shapes_dir, check_shape_queries))


@lru_cache(maxsize=4)
def load_ontology(ontology_dir: Path) -> Graph:
    """The ontology graph from every file under ``ontology_dir``, its blank nodes labelled the same
    in every process (the compiled rules are cached on disk by the ontology's content); made once
    for the files' bytes and kept on disk (``parsed_graphs.py``)."""
    return _kept("ontology", _rdf_files(ontology_dir), lambda: _canonical_ontology(ontology_dir))


def _kept(kind: str, files: list[Path], make: Callable[[], Graph]) -> Graph:
    """The graph of ``kind`` made of ``files``, read from the disk cache, else made and kept there."""
    from kgprofiles import parsed_graphs

    entry = parsed_graphs.entry_path(kind, files)
    graph = parsed_graphs.read_graph(entry)
    if graph is None:
        graph = make()
        parsed_graphs.write_graph(entry, graph)
    return graph


def _canonical_ontology(ontology_dir: Path) -> Graph:
    parsed = _load_dir(ontology_dir)
    # canonical blank node labels (rdflib's RDF canonicalisation) over the whole graph, so that two
    # files' blank nodes stay apart: the parser's labels are random in each process
    graph = Graph()
    for prefix, namespace in parsed.namespaces():
        graph.bind(prefix, namespace, override=False)
    graph += to_canonical_graph(parsed)
    return graph
