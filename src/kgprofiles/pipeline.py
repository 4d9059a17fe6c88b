"""The build: ingest → validate (SHACL gate) → infer (OWL RL) → store, atomically. The only
orchestration in kgprofiles; the CLI and the web call it."""

from __future__ import annotations

import fcntl
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox
from rdflib import Graph

from kgprofiles.config import MEMORY, Settings
from kgprofiles.errors import ValidationFailed
from kgprofiles.infer import infer
from kgprofiles.ingest import SourceFile, collect_files, parse_file, union_graph
from kgprofiles.progress import Progress, Silent
from kgprofiles.store import generations
from kgprofiles.store.base import Store
from kgprofiles.terms import graph_from_triples, triples_from_graph
from kgprofiles.validate import ValidationReport, load_ontology, validate_files
from kgprofiles.vocab import FILE_GRAPH_PREFIX, INFERRED_GRAPH, ONTOLOGY_GRAPH

STAGES = ("parse", "validate", "infer", "store")


class DataRejected(ValidationFailed):
    """The SHACL gate refused the data: nothing was stored. Carries the report."""

    def __init__(self, report: ValidationReport) -> None:
        lines = [r.format() for r in report.violations]
        files = ", ".join(report.files_with_violations())
        super().__init__(
            f"{len(report.violations)} violation(s) in {files}; nothing was stored\n" + "\n".join(lines),
            "fix the lines above, then run the command again (`kgprofiles validate` shows warnings too)",
        )
        self.report = report


@dataclass
class BuildReport:
    """What a build or load did, and how long each stage took."""

    files: list[str]
    triples: int
    inferred: int
    warnings: int
    store: str
    stage_seconds: dict[str, float] = field(default_factory=dict)

    def summary(self) -> str:
        timing = ", ".join(f"{k} {v:.2f}s" for k, v in self.stage_seconds.items())
        return (
            f"{len(self.files)} file(s), {self.triples} triples, {self.inferred} inferred, "
            f"{self.warnings} warning(s) → {self.store} ({timing})"
        )


class _Timer:
    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.seconds: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str, total: int | None = None) -> Iterator[None]:
        self.progress.stage(name, total)
        started = time.perf_counter()
        yield
        self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - started


def _parse(paths: Sequence[Path], settings: Settings, timer: _Timer) -> list[SourceFile]:
    found = collect_files(paths)
    with timer.stage("parse", len(found)):
        files = []
        for path in found:
            files.append(parse_file(path, settings.root, settings.data_dir))
            timer.progress.advance()
    return files


def _gate(files: list[SourceFile], settings: Settings, data: Graph, timer: _Timer, scoped: bool) -> ValidationReport:
    with timer.stage("validate"):
        report = validate_files(files, settings, data=data if scoped else None)
    if not report.conforms:
        raise DataRejected(report)
    return report


def _infer(data: Graph, settings: Settings, timer: _Timer) -> list[ox.Triple]:
    with timer.stage("infer"):
        return list(triples_from_graph(infer(data, load_ontology(settings.ontology_dir))))


def _ontology_triples(settings: Settings) -> list[ox.Triple]:
    return [t for f in collect_files([settings.ontology_dir]) for t in parse_file(f, settings.root).triples]


@contextmanager
def _build_lock(store_path: Path) -> Iterator[None]:
    """One build or load at a time per store location."""
    store_path.parent.mkdir(parents=True, exist_ok=True)
    with open(store_path.parent / f".{store_path.name}.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def build(
    settings: Settings,
    paths: Sequence[Path] | None = None,
    progress: Progress | None = None,
    store: Store | None = None,
) -> BuildReport:
    """Build the whole graph from ``paths`` (default: the data directory) into the configured store.

    Nothing is written unless every stage succeeds. On disk, the store is built in a fresh
    directory and swapped in by one rename; remotely, graphs are staged then moved by one update;
    an open ``store`` given by the caller gets one ``replace_graphs`` transaction."""
    timer = _Timer(progress or Silent())
    files = _parse(paths or [settings.data_dir], settings, timer)
    data = union_graph(files)
    report = _gate(files, settings, data, timer, scoped=False)
    inferred = _infer(data, settings, timer)
    graphs: dict[str, list[ox.Triple]] = {f.graph: list(f.triples) for f in files}
    graphs[ONTOLOGY_GRAPH] = _ontology_triples(settings)
    graphs[INFERRED_GRAPH] = inferred
    with timer.stage("store", len(graphs)):
        location = _write_all(settings, graphs, store)
    return BuildReport(
        [f.display for f in files],
        sum(len(f.triples) for f in files),
        len(inferred),
        len(report.warnings),
        location,
        timer.seconds,
    )


def _write_all(settings: Settings, graphs: dict[str, list[ox.Triple]], store: Store | None) -> str:
    from kgprofiles.store import open_store
    from kgprofiles.store.oxigraph import OxigraphStore

    if store is not None:
        stale = [g for g in store.graphs() if g not in graphs]
        store.replace_graphs(graphs, drop=stale)
        return "the given store"
    if settings.endpoint:
        remote = open_store(settings)
        try:
            stale = [g for g in remote.graphs() if g not in graphs]
            remote.replace_graphs(graphs, drop=stale)
        finally:
            remote.close()
        return settings.endpoint
    if settings.store == MEMORY:
        raise ValidationFailed("cannot build into memory: from the command line", "give --store PATH")
    store_path = Path(settings.store)
    with _build_lock(store_path):
        generation = generations.new_generation(store_path)
        fresh = OxigraphStore(str(generation))
        try:
            fresh.replace_graphs(graphs)
        finally:
            fresh.close()
        generations.publish(store_path, generation)
    return str(store_path)


def load(
    settings: Settings,
    paths: Sequence[Path],
    progress: Progress | None = None,
    store: Store | None = None,
) -> BuildReport:
    """Add or replace single files in the built store without a full rebuild: the files are
    validated against the rest of the store's data, inference is recomputed, and the files'
    graphs and the inferred graph are replaced in one transaction."""
    from kgprofiles.store import open_store

    timer = _Timer(progress or Silent())
    files = _parse(paths, settings, timer)
    own = store is None
    target = open_store(settings) if own else store
    try:
        replaced = {f.graph for f in files}
        data = union_graph(files)
        for quad in target.quads():
            graph = quad.graph_name
            if (
                isinstance(graph, ox.NamedNode)
                and graph.value.startswith(FILE_GRAPH_PREFIX)
                and graph.value not in replaced
            ):
                graph_from_triples([quad], data)
        report = _gate(files, settings, data, timer, scoped=True)
        inferred = _infer(data, settings, timer)
        graphs: dict[str, list[ox.Triple]] = {f.graph: list(f.triples) for f in files}
        graphs[INFERRED_GRAPH] = inferred
        with timer.stage("store", len(graphs)):
            target.replace_graphs(graphs)
    finally:
        if own:
            target.close()
    return BuildReport(
        [f.display for f in files],
        sum(len(f.triples) for f in files),
        len(inferred),
        len(report.warnings),
        settings.endpoint or settings.store,
        timer.seconds,
    )
