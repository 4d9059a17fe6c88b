"""The build: ingest → validate (SHACL gate) → infer (OWL RL) → store, atomically. The only
orchestration in kgprofiles; the CLI and the web call it."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pyoxigraph as ox
from rdflib import Graph

from kgprofiles.budget import Budget
from kgprofiles.config import MEMORY, Settings
from kgprofiles.errors import InputError, ValidationFailed
from kgprofiles.fast import FastValidation, LiteralScan
from kgprofiles.fast.inference import ClosureAhead
from kgprofiles.fast.literals import LiteralScanner
from kgprofiles.fast.validation import RawTriples
from kgprofiles.inconsistency import ill_typed_results, inconsistent, inference_results, store_uses_axioms, uses_axioms
from kgprofiles.infer import closure
from kgprofiles.ingest import SourceFile, TripleSpill, collect_files, parse_file, union_graph
from kgprofiles.progress import Progress, Silent
from kgprofiles.scratch import scratch_dir
from kgprofiles.search import INDEX_FILE, IndexCopy, index_path, remote_index_path, update_index, write_index
from kgprofiles.store import engine, generations
from kgprofiles.store.base import Store
from kgprofiles.store.generations import fsync_dir
from kgprofiles.store.oxigraph import OxigraphStore
from kgprofiles.store.staging import GenerationStaging, Staging, generation_staging, replacement_staging
from kgprofiles.store.writer import GenerationWriter, updates_kept
from kgprofiles.terms import graph_from_triples, triples_from_graph
from kgprofiles.validate import (
    ValidationReport,
    ValidationResult,
    load_ontology,
    load_shapes,
    locate_subjects,
    sort_results,
    validate_files,
    validate_graph,
)
from kgprofiles.vocab import FILE_GRAPH_PREFIX, INFERRED_GRAPH, ONTOLOGY_GRAPH

if TYPE_CHECKING:
    from kgprofiles.fast.incremental import LoadPlan

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
    #: parse, validate, infer (the OWL RL closure), store (every write: on disk the bulk loads of the
    #: data and of the inferred graph), compact (on disk)
    stage_seconds: dict[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()  # where the fast paths fell back to pyshacl or owlrl, and why

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


def _parse(found: Sequence[Path], settings: Settings, timer: _Timer) -> list[SourceFile]:
    with timer.stage("parse", len(found)):
        files = []
        for path in found:
            files.append(_parse_one(path, settings))
            timer.progress.advance()
    return files


def _parse_one(path: Path, settings: Settings) -> SourceFile:
    return parse_file(path, settings.root, settings.data_dir, settings.limits.max_literal_bytes)


def _gate(
    files: Sequence[SourceFile], settings: Settings, data: Graph, timer: _Timer, scoped: bool
) -> ValidationReport:
    with timer.stage("validate"):
        budget = Budget.for_validation(settings.limits)
        report = validate_files(files, settings, data=data if scoped else None, budget=budget)
    if not report.conforms:
        raise DataRejected(report)
    return report


def _infer_closure(data: Graph, files: Sequence[SourceFile], settings: Settings, timer: _Timer) -> list[ox.Triple]:
    """owlrl's closure of ``data`` (the reference path); its inconsistencies refused."""
    with timer.stage("infer"):
        ontology = load_ontology(settings.ontology_dir)
        budget = Budget.for_inference(settings.limits, len(data) + len(ontology))
        result = closure(data, ontology, budget)
    _refuse_inconsistent(result.inconsistencies, files, settings)
    return list(triples_from_graph(result.triples))


def _ontology_triples(settings: Settings) -> list[ox.Triple]:
    return [
        t
        for f in collect_files([settings.ontology_dir], empty_dirs=True)
        for t in parse_file(f, settings.root, None, settings.limits.max_literal_bytes).triples
    ]


def _inference_budget(settings: Settings, files: Sequence[SourceFile], ontology: Graph) -> Budget:
    """Inference may produce ``inferred_triples_factor`` times the asserted triples (the files'
    and the ontology's)."""
    return Budget.for_inference(settings.limits, sum(f.count for f in files) + len(ontology))


@dataclass(frozen=True)
class WriteOptions:
    """How a writing command meets another writer of the same on-disk store: wait for it (telling
    ``on_wait``), or fail at once with StoreBusy (``wait=False``). ``command`` names the writer to
    the processes that wait for it."""

    wait: bool = True
    on_wait: Callable[[str], None] | None = None
    command: str = "kgprofiles"
    #: A build may replace a store holding SPARQL updates sent to `serve` (they are dropped).
    discard_updates: bool = False

    def writer(self, store_path: str | Path) -> GenerationWriter:
        return GenerationWriter(store_path, command=self.command, wait=self.wait, on_wait=self.on_wait)


#: Above this many parsed triples, a build's closure runs in a child process, on the other core
#: while the data is stored and validated (10,000 people: 32–35 s against 40–43 s); below, starting
#: the child (~0.1 s of CPU: an interpreter, rdflib and owlrl) costs more than it hides.
CLOSURE_IN_CHILD_ABOVE = 50_000


def build(
    settings: Settings,
    paths: Sequence[Path] | None = None,
    progress: Progress | None = None,
    store: Store | None = None,
    reference: bool = False,
    writing: WriteOptions | None = None,
) -> BuildReport:
    """Build the whole graph from ``paths`` (default: the data directory) into the configured store:
    parse → validate → infer → stage → publish, the same way for every store.

    Validation and inference take the fast paths (``kgprofiles.fast``: the shapes compiled to
    SPARQL over the loaded data, the ontology's OWL RL rules in linear passes), which give exactly
    pyshacl's results and owlrl's triples and fall back to them, saying so, for what they do not
    compile; ``reference=True`` runs pyshacl and owlrl themselves. Each runs under the budgets of
    ``settings.limits``: breaking one raises BudgetExceeded.

    Nothing is written unless every stage succeeds (``store/staging.py``): on disk the graph is
    built in a fresh generation and published atomically and durably; on a remote server, or an
    open ``store`` given by the caller, its graphs replace the old ones in one transaction.
    ``writing``: what to do when another process writes the same on-disk store (default: wait)."""
    timer = _Timer(progress or Silent())
    with _staging(settings, store, writing or WriteOptions()) as staged:
        # listed holding the writer lock, as the files are read: a file removed or added while
        # this build waited for another writer (a checkout) is not read, or is
        found = collect_files(paths or [settings.data_dir])
        spill = TripleSpill(staged.scratch / "data.nt")
        with ClosureAhead() as passes:

            def parsed(files: Sequence[SourceFile], scan: LiteralScan) -> None:
                """Every file parsed: the fast closure starts (it reads only the spill), in a
                child process beside storing and validating when the data is large enough."""
                if not reference:
                    ontology = load_ontology(settings.ontology_dir)
                    budget = _inference_budget(settings, files, ontology)
                    in_child = sum(f.count for f in files) > CLOSURE_IN_CHILD_ABOVE
                    started = time.perf_counter()  # "infer" time, not a stage of the bar: the loader's goes on
                    passes.start(spill, ontology, scan, budget, staged.scratch, in_child=in_child)
                    timer.seconds["infer"] = time.perf_counter() - started

            files, scan = _parse_into(staged.work, found, spill, settings, timer, parsed)
            report, notes = _validate(staged.work, files, spill, scan, settings, timer, reference)
            inferred, more = _infer(staged.work, files, spill, passes, settings, timer, reference)
        generation = Path(staged.work.location) if isinstance(staged, GenerationStaging) else None
        # A new generation is compacted while its search index is read and written (two cores);
        # "compact" is then the time the publish waits for the compaction after the index.
        with staged.compacting(), _search_index(settings, staged.work, store, timer, generation) as place_index:
            # a server is written graph by graph: a bar (100,000 people take hours into Virtuoso),
            # and a stage of its own ("store" is the loader's, before validation)
            total = staged.graphs_to_hand_over()
            with timer.stage("compact" if isinstance(staged, GenerationStaging) else "publish", total):
                staged.publish(advance=timer.progress.advance)
            place_index()
    return BuildReport(
        [f.display for f in files],
        sum(f.count for f in files),
        inferred,
        len(report.warnings),
        staged.location,
        timer.seconds,
        notes + more,
    )


@contextmanager
def _staging(settings: Settings, store: Store | None, writing: WriteOptions) -> Iterator[Staging]:
    """Where this build stages its graph (``store/staging.py``)."""
    from kgprofiles.store import open_store

    if store is not None:
        with replacement_staging(store, "the given store") as staged:
            yield staged
    elif settings.endpoint:
        remote = open_store(settings)
        try:
            with replacement_staging(remote, settings.endpoint) as staged:
                yield staged
        finally:
            remote.close()
    elif settings.store == MEMORY:
        raise InputError(
            "a build into memory: keeps nothing (the store is gone when the build ends)",
            "give the store a directory: --store PATH, or Project(store=PATH)",
        )
    else:
        with writing.writer(settings.store) as writer:
            _refuse_dropping_updates(settings.store, writing.discard_updates)
            with generation_staging(writer) as staged:
                yield staged


def _refuse_dropping_updates(store: str, discard: bool) -> None:
    """An InputError, before anything is read, when the published store holds SPARQL updates sent
    to ``serve --write-token`` and ``discard`` is not given: a build makes the store from data/
    alone, and the gc after it removes the generation that held them."""
    kept = updates_kept(store)
    if kept and not discard:
        raise InputError(
            f"the store at {store} holds {len(kept)} SPARQL update(s) sent to `kgprofiles serve` since its last "
            f"build (the last: {kept[-1].split(' ', 1)[0]}), which a build from data/ would drop",
            "keep them first (`kgprofiles export -o updated.nq`, then move what you keep into data/), or "
            "build with --discard-updates",
        )


@contextmanager
def _search_index(
    settings: Settings, source: Store, target: Store | None, timer: _Timer, generation: Path | None = None
) -> Iterator[Callable[[], None]]:
    """Write the search index (``search.py``) of ``source``'s graph before that graph is
    published; yields what places the index once the graph is published.

    Into a new ``generation``: the index is written into it, and published with it (nothing to
    place). Otherwise beside where ``target``'s index lives (``target`` None: the remote server
    of the settings), renamed into place by what is yielded, and removed if never placed; an
    in-memory store has none (it indexes on first search)."""
    if generation is not None:
        with timer.stage("index"):
            write_index(source, settings.queries_dir, generation / INDEX_FILE)
        yield lambda: None
        return
    path = remote_index_path(settings) if target is None else index_path(settings, target)
    if path is None:
        yield lambda: None
        return
    pending = path.with_name(path.name + ".pending")
    with timer.stage("index"):
        path.parent.mkdir(parents=True, exist_ok=True)
        write_index(source, settings.queries_dir, pending)

    def place() -> None:
        os.replace(pending, path)
        fsync_dir(path.parent)

    try:
        yield place
    finally:
        pending.unlink(missing_ok=True)


def _validate(
    work: OxigraphStore,
    files: Sequence[SourceFile],
    spill: TripleSpill,
    scan: LiteralScan,
    settings: Settings,
    timer: _Timer,
    reference: bool,
) -> tuple[ValidationReport, tuple[str, ...]]:
    """The SHACL gate: the fast path over the work store, or pyshacl itself (``reference``)."""
    if not reference:
        checked = _validate_fast(work.store, files, spill, settings, timer, scan)
        _prepare_loads(settings)
        return checked.report, checked.notes
    with timer.stage("validate"):
        data = graph_from_triples(spill())
        report = validate_graph(
            data,
            load_shapes(settings.shapes_dir),
            load_ontology(settings.ontology_dir),
            locate=locate_subjects(files),
            files=[f.display for f in files],
            budget=Budget.for_validation(settings.limits),
        )
    if not report.conforms:
        raise DataRejected(report)
    return report, ()


def _prepare_loads(settings: Settings) -> None:
    """What a later ``load`` needs of the shapes and would otherwise make at its first run: the
    edges their SPARQL constraints follow (parsed by rdflib, ~0.2 s with its parser's import;
    kept in the disk cache, ``fast/reach.py``)."""
    from kgprofiles.fast.reach import plan_edges
    from kgprofiles.fast.validation import compile_shapes

    plan_edges(compile_shapes(load_shapes(settings.shapes_dir)))


def _infer(
    work: OxigraphStore,
    files: Sequence[SourceFile],
    spill: TripleSpill,
    passes: ClosureAhead,
    settings: Settings,
    timer: _Timer,
    reference: bool,
) -> tuple[int, tuple[str, ...]]:
    """The OWL RL closure into the work store's inferred graph: the fast passes started when the
    files were parsed (``passes``), or owlrl itself (``reference``). Returns the number of
    inferred triples and notes."""
    if reference:
        ontology = load_ontology(settings.ontology_dir)
        with timer.stage("infer"):
            result = closure(graph_from_triples(spill()), ontology, _inference_budget(settings, files, ontology))
        _refuse_inconsistent(result.inconsistencies, files, settings, work)
        inferred = list(triples_from_graph(result.triples))
        with timer.stage("store"):
            work.bulk_load(_quads({INFERRED_GRAPH: inferred}))
        return len(inferred), ()
    with timer.stage("infer"):
        # Written straight into the work store by the bulk loader, never held in Python.
        inference = passes.into(work.store, INFERRED_GRAPH)
    # "infer" is the closure's time that storing and validating did not hide (a child ran it
    # beside them), or all of it (it ran here, once the files were parsed); writing its triples
    # (the bulk loader again) counts as "store".
    written = inference.seconds.get("load", 0.0)
    timer.seconds["infer"] -= written
    timer.seconds["store"] = timer.seconds.get("store", 0.0) + written
    _refuse_inconsistent(inference.inconsistencies, files, settings, work)
    return inference.count, inference.notes


def _quads(graphs: Mapping[str, Sequence[ox.Triple]]) -> Iterator[ox.Quad]:
    for name, triples in graphs.items():
        graph = ox.NamedNode(name)
        for t in triples:
            yield ox.Quad(t.subject, t.predicate, t.object, graph)


def _validate_fast(
    data: engine.Engine,
    files: Sequence[SourceFile],
    raw: RawTriples,
    settings: Settings,
    timer: _Timer,
    scan: LiteralScan,
) -> FastValidation:
    """The fast SHACL gate over ``data`` (the files' graphs and the ontology, nothing else), with
    the ``scan`` of the files' literals (``raw``: their parsed triples)."""
    from kgprofiles.fast import validate_store

    with timer.stage("validate"):
        checked = validate_store(
            data,
            load_shapes(settings.shapes_dir),
            load_ontology(settings.ontology_dir),
            locate=locate_subjects(files),
            files=[f.display for f in files],
            scan=scan,
            raw=raw,
            budget=Budget.for_validation(settings.limits),
        )
    if not checked.report.conforms:
        raise DataRejected(checked.report)
    return checked


def _refuse_inconsistent(
    inconsistencies: Sequence[str], files: Sequence[SourceFile], settings: Settings, store: Store | None = None
) -> None:
    if inconsistencies:
        raise inconsistent(inconsistencies, files, settings.queries_dir, store)


def _parse_into(
    store: OxigraphStore,
    found: Sequence[Path],
    spill: TripleSpill,
    settings: Settings,
    timer: _Timer,
    then: Callable[[Sequence[SourceFile], LiteralScan], None],
    each: Callable[[SourceFile], None] = lambda parsed: None,
) -> tuple[list[SourceFile], LiteralScan]:
    """Parse ``found`` file by file into ``store`` (one named graph each, then the ontology's) with
    the bulk loader, into ``spill`` and into a scan of their literals; the files come back without
    their triples, with the scan. ``each(file)`` sees each file with its triples, in order, before
    they are let go; ``then(files, scan)`` is called as soon as the last file is parsed (the spill
    closed), before the loader's own work ends. The stages overlap: "parse" is the time spent
    parsing, spilling and scanning, "store" the rest of the load (not ``then``'s)."""
    files: list[SourceFile] = []
    scanner = LiteralScanner()
    scan: LiteralScan | None = None
    parsing = handed = 0.0

    def quads() -> Iterator[ox.Quad]:
        nonlocal parsing, handed, scan
        for path in found:
            started = time.perf_counter()
            parsed = _parse_one(path, settings)
            spill.add(parsed.triples)
            scanner.add(parsed.triples)
            each(parsed)
            files.append(parsed.without_triples())
            parsing += time.perf_counter() - started
            timer.progress.advance()
            yield from _quads({parsed.graph: parsed.triples})
        started = time.perf_counter()
        spill.close()
        scan = scanner.finish(spill)
        handing = time.perf_counter()
        parsing += handing - started
        then(files, scan)
        handed = time.perf_counter() - handing
        timer.progress.stage("store")  # every file parsed: what remains is the loader's own work
        yield from _quads({ONTOLOGY_GRAPH: _ontology_triples(settings)})

    started = time.perf_counter()
    timer.progress.stage("parse", len(found))
    # The bulk loader (no transaction needed: the generation is not published yet); like extend,
    # it keeps the blank-node labels ingest gave.
    timer.seconds.update(parse=0.0, store=0.0)  # the report's order: these stages first
    store.bulk_load(quads())
    timer.seconds["parse"] = parsing
    timer.seconds["store"] = time.perf_counter() - started - parsing - handed
    assert scan is not None  # (the loader read every quad)
    return files, scan


def validate(settings: Settings, paths: Sequence[Path] | None = None, *, reference: bool = False) -> ValidationReport:
    """The SHACL report of ``paths`` (default: the whole data directory) *in context*: the named
    files are validated together with the rest of the project's data (a role pointing at an
    organisation defined in another file is fine), and only results whose focus node is defined
    in the named files are reported, as ``load`` does. The fast path, with pyshacl's findings;
    ``reference``: pyshacl itself. Under the validation budget.

    The fast path reads the data as ``build`` does: parsed file by file into a scratch store on
    disk and a spill, never all of it held as Python objects (100,000 people: 9 GB before)."""
    from kgprofiles.fast import validate_store

    named = collect_files(paths) if paths else []
    rest = collect_files([settings.data_dir], empty_dirs=True) if settings.data_dir.is_dir() else []
    chosen = {path.resolve() for path in named}
    ordered = [*named, *(p for p in rest if p.resolve() not in chosen)]
    if reference:
        return _validate_in_memory(settings, [_parse_one(path, settings) for path in ordered], len(named))
    budget = Budget.for_validation(settings.limits)
    shown: set[str] = set()
    located: dict[str, tuple[str, int | None]] = {}  # as locate_subjects(files), made as they come
    ill_typed: list[ValidationResult] = []  # before the shapes' findings are known: filtered below
    axiom_user: str | None = None  # the first shown file that uses an axiom

    def each(parsed: SourceFile) -> None:
        nonlocal axiom_user
        if not named or len(shown) < len(named):
            shown.add(parsed.display)
        for node, line in parsed.subject_lines.items():
            located.setdefault(node, (parsed.display, line))  # (a subject's first file is this one or earlier)
        if parsed.display in shown:
            ill_typed.extend(ill_typed_results([parsed], shown, located))
            if axiom_user is None and uses_axioms(parsed.triples):
                axiom_user = parsed.display

    with scratch_dir("validate") as scratch:
        spill = TripleSpill(Path(scratch) / "data.nt")
        store = OxigraphStore(Path(scratch) / "store")
        try:
            files, scan = _parse_into(store, ordered, spill, settings, _Timer(Silent()), lambda *_: None, each)
            report = validate_store(
                store,
                load_shapes(settings.shapes_dir),
                load_ontology(settings.ontology_dir),
                locate=located,
                files=[f.display for f in files],
                scan=scan,
                raw=spill,
                budget=budget,
            ).report
            axioms = store_uses_axioms(store)  # (the files and the ontology)
        finally:
            store.close()
        # (axioms that data can break: what build would refuse, the inference alone finds)
        inconsistencies = _owl_rl_inconsistencies(settings, files, spill) if axioms else ()
    return _as_validated(report, shown, located, ill_typed, inconsistencies, axiom_user)


def _validate_in_memory(settings: Settings, files: list[SourceFile], named: int) -> ValidationReport:
    """``validate`` with pyshacl and owlrl themselves (``reference``), the files' triples in memory;
    the first ``named`` files are those asked about (none: all)."""
    shown = {f.display for f in files[:named]} if named else {f.display for f in files}
    budget = Budget.for_validation(settings.limits)
    located = locate_subjects(files)
    report = validate_files(files, settings, data=union_graph(files), budget=budget)
    axioms = any(uses_axioms(f.triples) for f in files) or uses_axioms(_ontology_triples(settings))
    inconsistencies: Sequence[str] = ()
    using = None
    if axioms:
        inconsistencies = _owl_rl_inconsistencies(settings, files, lambda: (t for f in files for t in f.triples))
        using = next((f.display for f in files if f.display in shown and uses_axioms(f.triples)), None)
    return _as_validated(report, shown, located, ill_typed_results(files, shown, located), inconsistencies, using)


def _owl_rl_inconsistencies(settings: Settings, files: Sequence[SourceFile], data: RawTriples) -> Sequence[str]:
    """What OWL RL finds inconsistent in ``data`` (the triples of ``files``), under the inference
    budget."""
    from kgprofiles.fast import infer_triples

    ontology = load_ontology(settings.ontology_dir)
    return infer_triples(data, ontology, budget=_inference_budget(settings, files, ontology)).inconsistencies


def _as_validated(
    shapes: ValidationReport,
    shown: set[str],
    located: dict[str, tuple[str, int | None]],
    ill_typed: Sequence[ValidationResult],
    inconsistencies: Sequence[str],
    axiom_user: str | None,
) -> ValidationReport:
    """``validate``'s report: the shapes' results about the files ``shown``, the literals OWL RL
    refuses (``ill_typed_results``) at a (focus, path) no shape reports a violation of, and the
    inference's ``inconsistencies`` (``inference_results``: ``axiom_user`` is the first shown file
    that uses an axiom)."""
    results = [r for r in shapes.results if r.file in shown]
    reported = {(r.focus, r.path) for r in results if r.severity == "violation"}
    results += [r for r in ill_typed if (r.focus, r.path) not in reported]
    results += inference_results(inconsistencies, axiom_user, shown, located)
    return ValidationReport(sort_results(results), tuple(sorted(shown)), shapes.report_graph)


def load(
    settings: Settings,
    paths: Sequence[Path],
    progress: Progress | None = None,
    store: Store | None = None,
    reference: bool = False,
    writing: WriteOptions | None = None,
) -> BuildReport:
    """Add or replace single files in the built store without a full rebuild, all or nothing.

    Only what the files touch is validated and re-inferred (``fast.plan_load``: the neighbourhood
    the shapes can read, and a patch of the inferred graph). On a remote store the plan asks
    the server for each quad pattern it looks up (``RemoteStore.quads_for_pattern``: what the
    load touches, never the whole graph), the server gets the files' graphs and the patch in one
    ``replace_graphs``, and the search index kept for it re-indexes what the files touch. With
    ``reference=True``, the files are validated with pyshacl against the
    rest of the store's data and the whole closure is recomputed with owlrl.

    On disk, the load writes a new generation (a copy of the published one: hard links, not
    bytes) and publishes it like a build, so readers never see a half-done load; ``writing`` says
    what to do when another process writes the store. An open ``store`` given by the caller gets
    one ``replace_graphs`` transaction."""
    from kgprofiles.store import open_store
    from kgprofiles.store.oxigraph import OxigraphStore

    timer = _Timer(progress or Silent())
    found = collect_files(paths)
    if store is None and not settings.endpoint and settings.store != MEMORY:
        with (writing or WriteOptions()).writer(settings.store) as writer:
            # parsed holding the lock: a file saved again while this load waited for another
            # writer is stored as it is now (waiting writers are not served in the order they came:
            # the load of an earlier save, parsed before it waited, could publish last)
            files = _parse(found, settings, timer)
            target = writer.copy_of_current()
            previous = generations.current(Path(settings.store))  # the writer lock holds it still
            previous_index = previous / INDEX_FILE if previous is not None else None
            index = Path(target.location) / INDEX_FILE
            with IndexCopy(previous_index, index) as copy:  # copied while the load validates
                changed, rewritten = _things_in(target, files)  # what the files said before the load, and say now
                loader = _load_reference if reference else _load_fast
                report, inferred_count, notes = loader(target, files, settings, timer)
                with timer.stage("index"):
                    update_index(target, settings.queries_dir, previous_index, index, changed, rewritten, copy)
            writer.publish(target)
    else:
        files = _parse(found, settings, timer)
        own = store is None
        other = open_store(settings) if store is None else store
        try:
            if reference or isinstance(other, OxigraphStore):
                loader = _load_reference if reference else _load_fast
                report, inferred_count, notes = loader(other, files, settings, timer)
                with _search_index(settings, other, other, timer) as place_index:
                    place_index()
            else:
                # a server: only what the load touches is read (each pattern the plan looks up, a query)
                changed, rewritten = _things_in(other, files)
                report, inferred_count, notes = _load_fast(other, files, settings, timer)
                with timer.stage("index"):
                    _update_remote_index(settings, other, changed, rewritten)
        finally:
            if own:
                other.close()
    return BuildReport(
        [f.display for f in files],
        sum(len(f.triples) for f in files),
        inferred_count,
        len(report.warnings),
        settings.endpoint or settings.store,
        timer.seconds,
        notes,
    )


def check_load(
    settings: Settings, paths: Sequence[Path], progress: Progress | None = None
) -> tuple[ValidationReport, tuple[str, ...]]:
    """What a ``load`` of ``paths`` would say, and nothing written: the files validated against
    the built store as a load validates them (their neighbourhood; what OWL RL would refuse
    raised as the load raises it), with every warning. Returns the report (its ``conforms``: the
    load would go through) and the fast paths' notes. A second or so at 100,000 people, where
    ``validate`` of one file checks the whole data directory for its context (minutes)."""
    from kgprofiles.store import open_store

    if settings.store == MEMORY and not settings.endpoint:
        raise InputError("an in-memory store holds nothing to check against", "give --store DIR or --endpoint URL")
    timer = _Timer(progress or Silent())
    files = _parse(collect_files(paths), settings, timer)
    store = open_store(settings, read_only=True)
    try:
        plan = _plan_load(store, files, settings, timer)
        _refuse_inconsistent(plan.inconsistencies, files, settings)
        if plan.full_inference and plan.report.conforms:  # (what the load would do: its budget, its refusals)
            with timer.stage("infer"):
                _infer_in_full(store, files, settings, load_ontology(settings.ontology_dir))
    finally:
        store.close()
    return plan.report, tuple(plan.notes)


def _update_remote_index(settings: Settings, server: Store, changed: set[str], rewritten: set[str]) -> None:
    """The search index of a server's graph after a load: the index kept beside the project's
    store with what the load touched re-indexed (the whole index if there was none)."""
    path = remote_index_path(settings)
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    update_index(server, settings.queries_dir, path if path.exists() else None, path, changed, rewritten)


def _things_in(store: Store, files: Sequence[SourceFile]) -> tuple[set[str], set[str]]:
    """(every IRI the files' graphs name, in the store now and in the files; the IRIs whose own
    triples the load changes: the subjects of the triples it adds or removes, and, for a blank
    node subject, the IRIs that point to it)."""
    things: set[str] = set()
    rewritten: set[str] = set()
    for file in files:
        before = {q.triple for q in store.quads(file.graph)}
        after = set(file.triples)
        both = before | after
        for triple in both:
            things.update(t.value for t in (triple.subject, triple.object) if isinstance(t, ox.NamedNode))
        subjects = {t.subject for t in before ^ after}
        blank = {s for s in subjects if isinstance(s, ox.BlankNode)}
        while blank:  # up from each changed blank node to the IRIs that hold it
            owners = {t.subject for t in both if t.object in blank} - subjects
            subjects |= owners
            blank = {s for s in owners if isinstance(s, ox.BlankNode)}
        rewritten.update(s.value for s in subjects if isinstance(s, ox.NamedNode))
    return things, rewritten


def _load_reference(
    target: Store, files: Sequence[SourceFile], settings: Settings, timer: _Timer
) -> tuple[ValidationReport, int, tuple[str, ...]]:
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
    inferred = _infer_closure(data, files, settings, timer)
    graphs: dict[str, list[ox.Triple]] = {f.graph: list(f.triples) for f in files}
    graphs[INFERRED_GRAPH] = inferred
    with timer.stage("store", len(graphs)):
        target.replace_graphs(graphs)
    return report, len(inferred), ()


def _plan_load(target: Store, files: Sequence[SourceFile], settings: Settings, timer: _Timer) -> LoadPlan:
    """The fast load's plan on ``target``: the files validated on their neighbourhood, the
    inferred graph's patch (``fast.incremental.plan_load``)."""
    from kgprofiles.fast.incremental import plan_load

    with timer.stage("validate"):
        return plan_load(
            target,
            files,
            load_shapes(settings.shapes_dir),
            load_ontology(settings.ontology_dir),
            validation_budget=Budget.for_validation(settings.limits),
            inference_budget=Budget.for_inference(settings.limits, None),
        )


def _infer_in_full(target: Store, files: Sequence[SourceFile], settings: Settings, ontology: Graph) -> list[ox.Triple]:
    """The closure of the data after a load of ``files`` into ``target``, under build's budget;
    what OWL RL finds inconsistent refused."""
    from kgprofiles.fast import infer_triples

    replaced = {f.graph for f in files}
    kept = [
        q.triple
        for q in target.quads()
        if isinstance(q.graph_name, ox.NamedNode)
        and q.graph_name.value.startswith(FILE_GRAPH_PREFIX)
        and q.graph_name.value not in replaced
    ]

    def raw() -> Iterator[ox.Triple]:
        yield from kept
        yield from (t for f in files for t in f.triples)

    asserted = len(kept) + sum(len(f.triples) for f in files) + len(ontology)
    budget = Budget.for_inference(settings.limits, asserted)
    inference = infer_triples(raw, ontology, budget=budget)
    _refuse_inconsistent(inference.inconsistencies, files, settings)
    return list(inference.triples or ())


def _load_fast(
    target: Store, files: Sequence[SourceFile], settings: Settings, timer: _Timer
) -> tuple[ValidationReport, int, tuple[str, ...]]:
    """The fast load planned on ``target`` (embedded, or a server: each quad pattern the plan
    looks up, a query) and written to it in one ``replace_graphs``."""
    from kgprofiles.store.oxigraph import has_blank_nodes

    ontology = load_ontology(settings.ontology_dir)
    plan = _plan_load(target, files, settings, timer)
    if not plan.report.conforms:
        raise DataRejected(plan.report)
    _refuse_inconsistent(plan.inconsistencies, files, settings)
    graphs: dict[str, list[ox.Triple]] = {f.graph: list(f.triples) for f in files}
    patch = [*plan.inferred_remove, *plan.inferred_add]
    with timer.stage("infer"):
        if plan.full_inference:
            graphs[INFERRED_GRAPH] = _infer_in_full(target, files, settings, ontology)
        elif has_blank_nodes(patch):
            current = {q.triple for q in target.quads(INFERRED_GRAPH)}
            current.difference_update(plan.inferred_remove)
            current.update(plan.inferred_add)
            graphs[INFERRED_GRAPH] = sorted(current, key=str)
    with timer.stage("store", len(graphs)):
        whole = INFERRED_GRAPH in graphs or not patch
        patched = None if whole else (INFERRED_GRAPH, plan.inferred_remove, plan.inferred_add)
        target.replace_graphs(graphs, patch=patched)
    changed = len(graphs.get(INFERRED_GRAPH, patch))
    return plan.report, changed, tuple(plan.notes)
