"""The kgprofiles benchmark: build, store, queries, views, related people and export at N people.

For each size N (default 1,000, 10,000 and 100,000) it generates synthetic people
(``bench/generate.py``, cached under ``bench/out/data/``), then, each in a fresh child process so that
peak memory (``ru_maxrss``) is per size and per task:

1. **build**: ``kgprofiles.pipeline.build`` into an on-disk store in a temporary directory, with the
   seconds of each stage (parse, store, validate, infer, compact) from its ``BuildReport``, the wall
   time and the time spent outside any stage. Every stage runs under a budget (``--stage-budget-s``): a stage
   that runs past it is interrupted (SIGALRM) and reported as "> budget", with an extrapolation; the
   build is then repeated without that stage (it is replaced by a no-op in the child only), so the
   later stages are still measured. With ``--skip-slow-stages`` a stage whose extrapolation already
   exceeds the budget is not attempted at all. Extrapolations are power laws ``t = a·N^b`` through the
   two largest smaller sizes measured in this run (``--fit-sizes`` adds small builds for that; linear
   when only one point is known), and say so.
2. **store size**: disk usage of the store directory.
3. **serve**: on the built store, through the Store contract (``kgprofiles.store.open_store``), warm:
   latency of ``queries/person.rq`` (200 random people) and ``queries/org-members.rq`` (200 random
   organisations), ``Views.profile`` with related people (100 people), related people for every
   person (``Views.related``; within ``--related-budget-s``, else extrapolated from a random sample),
   and export of the whole graph as Turtle and N-Quads (``kgprofiles.export.export_store``) against
   pyoxigraph's own serialisation of the same store, interleaved in the same process.

It prints a table and appends the figures, the command, the date and the machine to
``bench/RESULTS.md``; the raw figures go to ``bench/out/results-<time>.json``.

Usage: ``python bench/run.py [--sizes 1000,10000,100000] [--seed 1] [--stage-budget-s 1800]
[--skip-slow-stages] [--fit-sizes 250,500]``
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import itertools
import json
import math
import os
import platform
import random
import resource
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
OUT_DIR = BENCH_DIR / "out"
RESULTS_MD = BENCH_DIR / "RESULTS.md"
STAGES = ("parse", "store", "validate", "infer", "compact")
SKIPPABLE = ("validate", "infer")

Json = dict[str, Any]


def _load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("kgprofiles_bench_generate", BENCH_DIR / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


generator = _load_generator()


# ------------------------------------------------------------------------------------------ helpers


def peak_rss_mb() -> float:
    """This process's peak resident memory in MiB (Linux reports ru_maxrss in KiB)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def latency_summary(seconds: Sequence[float]) -> Json:
    ms = [s * 1000 for s in seconds]
    return {
        "n": len(ms),
        "median_ms": round(statistics.median(ms), 3),
        "p95_ms": round(percentile(ms, 95), 3),
        "min_ms": round(min(ms), 3),
        "max_ms": round(max(ms), 3),
    }


def disk_usage(path: Path) -> tuple[int, int]:
    """(bytes allocated on disk, apparent bytes) of every file under ``path`` (symlinks followed at the top)."""
    path = path.resolve()
    used = apparent = 0
    for directory, _, names in os.walk(path):
        for name in names:
            st = os.lstat(os.path.join(directory, name))
            used += st.st_blocks * 512
            apparent += st.st_size
    return used, apparent


def person_iri(namer: Any, i: int) -> str:
    return generator.BASE + "person/" + namer.pid(i)


def org_iri(namer: Any, k: int) -> str:
    return generator.BASE + namer.org(k).replace("organization:", "organization/")


def data_dir_for(people: int, seed: int) -> Path:
    return OUT_DIR / "data" / f"people-{people}-seed-{seed}"


def ensure_data(people: int, seed: int) -> Json:
    """The generated data set for (people, seed), generated unless a matching one is cached."""
    out = data_dir_for(people, seed)
    manifest = generator.read_manifest(out)
    if (
        manifest
        and manifest.get("people") == people
        and manifest.get("seed") == seed
        and manifest.get("generator_version") == generator.GENERATOR_VERSION
        and (out / "people").is_dir()
    ):
        return {**manifest, "cached": True, "dir": str(out)}
    manifest = generator.generate(people, seed, out)
    return {**manifest, "cached": False, "dir": str(out)}


# ------------------------------------------------------------------------------------- child: build


class StageBudgetExceeded(BaseException):
    """Raised by SIGALRM when a stage runs past its budget (a BaseException, so that no
    ``except Exception`` in the libraries swallows it)."""

    def __init__(self, stage: str, seconds: float) -> None:
        super().__init__(f"{stage} ran past its budget after {seconds:.0f}s")
        self.stage = stage
        self.seconds = seconds


class BudgetProgress:
    """A Progress for ``build`` that logs each stage and arms an alarm for its budget."""

    def __init__(self, budget_s: float, label: str, partial: Path | None = None) -> None:
        self.budget_s = budget_s
        self.label = label
        self.partial = partial
        self.current: str | None = None
        self.started = 0.0
        self.log: list[tuple[str, float]] = []  # (stage, perf_counter at start)

    def stage(self, name: str, total: int | None = None) -> None:
        self._enter(name)
        signal.setitimer(signal.ITIMER_REAL, self.budget_s)

    def _enter(self, name: str) -> None:
        now = time.perf_counter()
        if self.current is not None:
            print(f"[{self.label}] {self.current} done in {now - self.started:.1f}s", file=sys.stderr, flush=True)
        self.current, self.started = name, now
        self.log.append((name, now))
        print(f"[{self.label}] {name}…", file=sys.stderr, flush=True)
        if self.partial is not None:  # what the parent reads if this process dies (e.g. out of memory)
            done = _finished_stages(self.log)
            self.partial.write_text(json.dumps({"ok": False, "stage_seconds": done, "current": name}), "utf-8")

    def advance(self, steps: int = 1) -> None:
        pass

    def grow(self, steps: int) -> None:
        pass

    def on_alarm(self, signum: int, frame: FrameType | None) -> None:
        raise StageBudgetExceeded(self.current or "?", time.perf_counter() - self.started)


def child_build(spec: Json) -> Json:
    """One build (in a fresh process): the pipeline's own stages, less those in ``spec['skip']``."""
    from kgprofiles import fast, pipeline
    from kgprofiles.config import load_settings
    from kgprofiles.validate import ValidationReport

    data = Path(spec["data"])
    settings = load_settings(ROOT).with_overrides(data_dir=data, store=spec["store"])
    skip = set(spec["skip"])
    # The on-disk build imports the fast paths when it runs: replacing them here skips the stage.
    if "validate" in skip:

        def no_gate(*args: object, **kwargs: object) -> fast.FastValidation:
            return fast.FastValidation(ValidationReport(()))

        fast.validate_store = no_gate  # type: ignore[assignment]
    if "infer" in skip:

        def no_infer(*args: object, **kwargs: object) -> fast.FastInference:
            return fast.FastInference(0, ())

        fast.infer_into = no_infer  # type: ignore[assignment]
    partial = Path(spec["partial"]) if spec.get("partial") else None
    progress = BudgetProgress(float(spec["budget_s"]), f"build {spec['people']}", partial)
    signal.signal(signal.SIGALRM, progress.on_alarm)
    result: Json = {"skip": sorted(skip)}
    started = time.perf_counter()
    try:
        report = pipeline.build(settings, [data], progress)
        signal.setitimer(signal.ITIMER_REAL, 0)
        wall = time.perf_counter() - started
        print(f"[build {spec['people']}] {progress.current} done", file=sys.stderr, flush=True)
        result.update(
            ok=True,
            stage_seconds={k: round(v, 3) for k, v in report.stage_seconds.items()},
            wall_s=round(wall, 3),
            unstaged_s=round(wall - sum(report.stage_seconds.values()), 3),
            files=len(report.files),
            triples=report.triples,
            inferred=report.inferred,
            warnings=report.warnings,
        )
    except StageBudgetExceeded as exc:
        signal.setitimer(signal.ITIMER_REAL, 0)
        result.update(ok=False, interrupted=exc.stage, after_s=round(exc.seconds, 1))
        result["stage_seconds"] = _finished_stages(progress.log)
    except Exception as exc:  # report any failure of the pipeline as a figure, not a crash
        signal.setitimer(signal.ITIMER_REAL, 0)
        result.update(ok=False, error=f"{type(exc).__name__}: {exc}"[:2000], failed_stage=progress.current)
        result["stage_seconds"] = _finished_stages(progress.log)
    result["peak_rss_mb"] = peak_rss_mb()
    return result


def _finished_stages(log: list[tuple[str, float]]) -> dict[str, float]:
    """Stage durations from the progress log, for stages that finished (a stage ends when the next
    starts; note that these include any unstaged work between the two)."""
    return {name: round(nxt - start, 3) for (name, start), (_, nxt) in itertools.pairwise(log)}


def child_bulkload(spec: Json) -> Json:
    """Fallback when the pipeline could not store the data: every data file into its own named graph
    and the ontology into the ontology graph, by pyoxigraph's bulk loader in one pass (NOT the
    pipeline: no validation, no inferred graph), so that queries and exports can still be measured."""
    import pyoxigraph as ox

    from kgprofiles.config import load_settings
    from kgprofiles.ingest import collect_files, display_path
    from kgprofiles.vocab import ONTOLOGY_GRAPH, file_graph_iri

    settings = load_settings(ROOT)
    sources = [(p, file_graph_iri(display_path(p, ROOT))) for p in collect_files([Path(spec["data"])])]
    sources += [(p, ONTOLOGY_GRAPH) for p in collect_files([settings.ontology_dir])]

    def quads() -> Iterator[ox.Quad]:
        for path, graph in sources:
            name = ox.NamedNode(graph)
            for q in ox.parse(path=str(path), format=ox.RdfFormat.TURTLE, base_iri=path.resolve().as_uri()):
                yield ox.Quad(q.subject, q.predicate, q.object, name)

    started = time.perf_counter()
    store = ox.Store(str(spec["store"]))
    store.bulk_extend(quads())
    store.flush()
    count = len(store)
    del store
    return {"ok": True, "wall_s": round(time.perf_counter() - started, 3), "quads": count, "peak_rss_mb": peak_rss_mb()}


# ------------------------------------------------------------------------------------- child: serve


def _timed(fn: Callable[[], object]) -> tuple[float, object]:
    started = time.perf_counter()
    value = fn()
    return time.perf_counter() - started, value


def with_values(query: str, name: str, term: object) -> str:
    """The query with ``VALUES ?name { term }`` at the start of its WHERE group (for the raw
    pyoxigraph comparison; the project's queries write ``WHERE {`` on one line)."""
    at = query.index("WHERE {") + len("WHERE {")
    return f"{query[:at]} VALUES ?{name} {{ {term} }} {query[at:]}"


def child_serve(spec: Json) -> Json:
    """Queries, views, related people and export on the built store, warm, through the Store contract."""
    import pyoxigraph as ox

    from kgprofiles.config import load_settings
    from kgprofiles.export import export_store
    from kgprofiles.profiles import Views
    from kgprofiles.queries import get_query
    from kgprofiles.store import open_store
    from kgprofiles.vocab import PREFIXES

    people = int(spec["people"])
    namer = generator.Namer(people)
    rng = random.Random(int(spec["seed"]) * 31 + people)
    settings = load_settings(ROOT).with_overrides(store=spec["store"])
    store = open_store(settings)
    queries_dir = settings.queries_dir
    out: Json = {}
    label = f"serve {people}"

    def log(message: str) -> None:
        print(f"[{label}] {message}", file=sys.stderr, flush=True)

    # Person query: warm up on 20 people, then 200 others.
    person_q = get_query(queries_dir, "person")
    sample = rng.sample(range(people), min(people, spec["queries"] + 20))
    warm, timed = sample[:20], sample[20:]
    for i in warm:
        person_q.run(store, {"person": ox.NamedNode(person_iri(namer, i))})
    seconds = []
    for i in timed:
        dt, result = _timed(lambda i=i: person_q.run(store, {"person": ox.NamedNode(person_iri(namer, i))}))
        assert len(result) == 1, f"person {i}: {len(result)} rows"  # type: ignore[arg-type]
        seconds.append(dt)
    out["person_query"] = latency_summary(seconds)
    # The same query straight on pyoxigraph (VALUES written into the text, as the Store does), to see
    # what the Store contract adds.
    raw_store = getattr(store, "store", None)
    if isinstance(raw_store, ox.Store):
        raw = []
        for i in timed:
            text = with_values(person_q.text, "person", ox.NamedNode(person_iri(namer, i)))

            def run_raw(text: str = text) -> list[object]:
                return list(raw_store.query(text, prefixes=PREFIXES, use_default_graph_as_union=True))

            raw.append(_timed(run_raw)[0])
        out["person_query_raw_pyoxigraph"] = latency_summary(raw)
    log(f"person query {out['person_query']}")

    # Organisation members: 200 random organisations (with replacement when there are fewer).
    org_q = get_query(queries_dir, "org-members")
    orgs = namer.orgs
    picks = (
        rng.sample(range(orgs), spec["queries"])
        if orgs >= spec["queries"]
        else rng.choices(range(orgs), k=spec["queries"])
    )
    for k in picks[:10]:
        org_q.run(store, {"org": ox.NamedNode(org_iri(namer, k))})
    seconds, rows = [], []
    for k in picks:
        dt, result = _timed(lambda k=k: org_q.run(store, {"org": ox.NamedNode(org_iri(namer, k))}))
        seconds.append(dt)
        rows.append(len(result))  # type: ignore[arg-type]
    out["org_query"] = {**latency_summary(seconds), "rows_median": statistics.median(rows), "orgs": orgs}
    log(f"org query {out['org_query']}")

    # The profile with its related people, as a library call.
    views = Views(store, queries_dir, settings.related_weights)
    sample = rng.sample(range(people), min(people, spec["profiles"] + 5))
    for i in sample[:5]:
        views.profile(ox.NamedNode(person_iri(namer, i)))
    seconds, related_counts = [], []
    for i in sample[5:]:
        dt, profile = _timed(lambda i=i: views.profile(ox.NamedNode(person_iri(namer, i))))
        seconds.append(dt)
        related_counts.append(len(profile.related))  # type: ignore[attr-defined]
    out["profile"] = {**latency_summary(seconds), "related_median": statistics.median(related_counts)}
    log(f"profile {out['profile']}")

    # Related people for every person (random order; extrapolated if the budget runs out).
    order = list(range(people))
    rng.shuffle(order)
    budget = float(spec["related_budget_s"])
    seconds = []
    started = time.perf_counter()
    for i in order:
        seconds.append(_timed(lambda i=i: views.related(ox.NamedNode(person_iri(namer, i))))[0])
        if time.perf_counter() - started > budget:
            break
    measured = sum(seconds)
    complete = len(seconds) == people
    out["related_all"] = {
        **latency_summary(seconds),
        "people_measured": len(seconds),
        "measured_s": round(measured, 1),
        "total_s": round(measured if complete else statistics.mean(seconds) * people, 1),
        "extrapolated": not complete,
    }
    log(f"related for all {out['related_all']}")

    # Export: ours (export_store) against pyoxigraph's own serialisation of the same store, interleaved.
    out["export"] = {}
    if isinstance(raw_store, ox.Store):
        union = "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }"
        native: dict[str, Callable[[], bytes]] = {
            "ttl": lambda: ox.serialize(
                raw_store.query(union, use_default_graph_as_union=True),  # type: ignore[arg-type]
                format=ox.RdfFormat.TURTLE,
                prefixes=PREFIXES,
            ),
            "nq": lambda: raw_store.dump(format=ox.RdfFormat.N_QUADS),  # type: ignore[return-value]
        }
        for fmt in ("ttl", "nq"):
            ours_s, native_s, hashes = [], [], set()
            sizes = {"ours": 0, "native": 0}

            def ours(fmt: str = fmt) -> bytes:
                return export_store(store, fmt)

            runners = {"ours": ours, "native": native[fmt]}
            for name in runners:  # one untimed run of each first
                runners[name]()
            for repeat in range(int(spec["export_repeats"])):
                # Alternate which goes first, so neither always runs on a freshly warmed cache.
                for name in ("ours", "native") if repeat % 2 == 0 else ("native", "ours"):
                    dt, data = _timed(runners[name])
                    (ours_s if name == "ours" else native_s).append(dt)
                    sizes[name] = len(data)  # type: ignore[arg-type]
                    if name == "ours":
                        hashes.add(hashlib.sha256(data).hexdigest())  # type: ignore[arg-type]
                    del data
            ours, theirs = statistics.median(ours_s), statistics.median(native_s)
            out["export"][fmt] = {
                "ours_s": [round(x, 3) for x in ours_s],
                "native_s": [round(x, 3) for x in native_s],
                "ours_median_s": round(ours, 3),
                "native_median_s": round(theirs, 3),
                "ratio": round(ours / theirs, 2),
                "ours_bytes": sizes["ours"],
                "native_bytes": sizes["native"],
                "identical_across_runs": len(hashes) == 1,
            }
            log(f"export {fmt} {out['export'][fmt]}")
        out["quads"] = len(raw_store)
    store.close()
    out["peak_rss_mb"] = peak_rss_mb()
    return out


# ------------------------------------------------------------------------------------- the parent


@dataclass
class Estimate:
    seconds: float
    how: str


def fit_estimate(points: list[tuple[int, float]], n: int) -> Estimate | None:
    """A power law through the two largest sizes below ``n`` (linear from one point); several
    measurements at one size count as their median."""
    by_size: dict[int, list[float]] = {}
    for size, seconds in points:
        if size < n and seconds > 0:
            by_size.setdefault(size, []).append(seconds)
    below = sorted((size, statistics.median(times)) for size, times in by_size.items())
    if not below:
        return None
    if len(below) == 1:
        n1, t1 = below[0]
        return Estimate(t1 * n / n1, f"linear from N={n1:,} ({t1:.1f}s); a lower bound if the stage grows faster")
    (n1, t1), (n2, t2) = below[-2], below[-1]
    b = math.log(t2 / t1) / math.log(n2 / n1)
    b = max(b, 1.0)
    return Estimate(
        t2 * (n / n2) ** b,
        f"power law t ∝ N^{b:.2f} through N={n1:,} ({t1:.1f}s) and N={n2:,} ({t2:.1f}s)",
    )


def run_child(task: str, spec: Json, timeout_s: float, memory_limit_gb: float | None = None) -> Json:
    """Run one task in a fresh Python process, its address space capped at ``memory_limit_gb``
    (so that running out of memory fails this process, not others on the machine); its result is the
    JSON it writes. A child that dies leaves what it wrote last (the build writes its stages as it goes)."""
    with tempfile.NamedTemporaryFile("r", suffix=".json", dir=OUT_DIR, delete=False) as handle:
        result_path = Path(handle.name)
    spec = {**spec, "partial": str(result_path)}
    command = [sys.executable, str(Path(__file__).resolve()), "--child", task, "--child-spec", json.dumps(spec)]
    command += ["--child-out", str(result_path)]

    def cap() -> None:
        if memory_limit_gb:
            limit = int(memory_limit_gb * 2**30)
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    started = time.perf_counter()
    try:
        proc = subprocess.run(command, timeout=timeout_s, check=False, preexec_fn=cap)
        text = result_path.read_text(encoding="utf-8")
        result: Json = json.loads(text) if text else {"ok": False}
        if proc.returncode != 0:
            how = f"signal {-proc.returncode}" if proc.returncode < 0 else f"status {proc.returncode}"
            limit = f" (address space capped at {memory_limit_gb:g} GiB)" if memory_limit_gb else ""
            result.update(ok=False, error=f"child {task} died with {how}{limit}")
    except subprocess.TimeoutExpired:
        result = {"ok": False, "error": f"child {task} killed after {timeout_s:.0f}s"}
    finally:
        result_path.unlink(missing_ok=True)
    result["child_wall_s"] = round(time.perf_counter() - started, 1)
    return result


class Bench:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.points: dict[str, list[tuple[int, float]]] = {s: [] for s in STAGES}
        self.lower_bounds: dict[str, list[tuple[int, float]]] = {s: [] for s in STAGES}
        for prior in args.prior or []:
            doc = json.loads(Path(prior).read_text(encoding="utf-8"))
            for r in [*doc.get("fits", []), *doc.get("sizes", [])]:
                self._learn(r)

    def _learn(self, r: Json) -> None:
        for stage, figure in r.get("build", {}).get("stages", {}).items():
            if "seconds" in figure:
                self.points[stage].append((r["people"], figure["seconds"]))
            elif figure.get("after_s"):  # interrupted at the budget: a lower bound
                self.lower_bounds[stage].append((r["people"], figure["after_s"]))

    def estimate(self, stage: str, n: int) -> Estimate | None:
        """The fit of the measured points, raised to a linear scaling of any lower bound (a stage
        interrupted at the budget at a smaller size) when that is larger."""
        est = fit_estimate(self.points[stage], n)
        bounds = [(m, t * n / m) for m, t in self.lower_bounds[stage] if m < n]
        if bounds:
            m, floor = max(bounds, key=lambda b: b[1])
            if est is None or floor > est.seconds:
                t = dict(self.lower_bounds[stage])[m]
                fitted = f"; the fit alone gave {est.seconds:,.0f}s ({est.how})" if est else ""
                return Estimate(floor, f"at least linear from N={m:,}, where it ran past {t:,.0f}s{fitted}")
        return est

    def size(self, people: int, serve: bool = True) -> Json:
        args = self.args
        budget = args.stage_budget_s
        print(f"=== N = {people:,}", file=sys.stderr, flush=True)
        data = ensure_data(people, args.seed)
        result: Json = {"people": people, "seed": args.seed, "data": data}
        store_root = Path(tempfile.mkdtemp(prefix=f"store-{people}-", dir=args.store_dir))
        store = store_root / "store"
        stages: dict[str, Json] = {}
        skip: set[str] = set()
        for stage in SKIPPABLE:
            est = self.estimate(stage, people)
            if args.skip_slow_stages and est and est.seconds > budget:
                skip.add(stage)
                stages[stage] = {
                    "status": "skipped",
                    "estimate_s": round(est.seconds),
                    "how": f"not run: estimated {est.seconds:,.0f}s > budget {budget:,.0f}s ({est.how})",
                }
        attempts: list[Json] = []
        interrupted_at: dict[str, Json] = {}
        while True:
            spec = {
                "people": people,
                "data": data["dir"],
                "store": str(store),
                "skip": sorted(skip),
                "budget_s": budget,
            }
            outcome = run_child("build", spec, budget * 4 + 600, args.memory_limit_gb)
            attempts.append(outcome)
            interrupted = outcome.get("interrupted")
            if outcome.get("ok") or interrupted not in SKIPPABLE:
                break
            interrupted_at[interrupted] = outcome
            # Repeat without the interrupted stage, and without the slow stages already measured.
            skip |= {interrupted} | {s for s in SKIPPABLE if s in outcome.get("stage_seconds", {})}
        final = attempts[-1]
        for stage in STAGES:
            est = self.estimate(stage, people)
            if stage in final.get("stage_seconds", {}):
                stages[stage] = {"seconds": final["stage_seconds"][stage]}
                if not final.get("ok"):
                    stages[stage]["note"] = (
                        "from the progress log of a build that stopped in a later stage (includes any work between"
                        " this stage and the next)"
                    )
                continue
            earlier = next(
                (k for k, a in enumerate(attempts, 1) if stage in a.get("stage_seconds", {})),
                None,
            )
            if earlier is not None and stage in SKIPPABLE:
                stages[stage] = {
                    "seconds": attempts[earlier - 1]["stage_seconds"][stage],
                    "note": f"measured in build attempt {earlier}, from the progress log (the stage ran to its end)",
                }
            elif stage in interrupted_at:
                after = interrupted_at[stage]["after_s"]
                estimate = max(est.seconds, after) if est else None
                how = f"interrupted after {after:,.0f}s (budget {budget:,.0f}s)"
                if est:
                    how += f"; estimated {estimate:,.0f}s ({est.how})"
                stages[stage] = {"status": "over budget", "after_s": after, "estimate_s": estimate, "how": how}
            elif stage == final.get("current") or stage == final.get("failed_stage"):  # the build died here
                done = sum(final.get("stage_seconds", {}).values())
                into = final.get("child_wall_s", 0) - done
                stages[stage] = {
                    "status": "failed",
                    "estimate_s": round(est.seconds) if est else None,
                    "how": f"{final.get('error')} in this stage, about {into:,.0f}s after the previous stage ended "
                    "(child wall time less the finished stages)" + (f"; estimated ({est.how})" if est else ""),
                }
            elif stage not in stages:  # not skipped by estimate either: the build stopped before it
                why = final.get("error") or f"interrupted in {final.get('interrupted')}"
                if final.get("current"):
                    why += f", in {final['current']}"
                stages[stage] = {
                    "status": "not measured",
                    "estimate_s": round(est.seconds) if est else None,
                    "how": why + (f"; estimated ({est.how})" if est else ""),
                }
        result["build"] = {
            "stages": stages,
            "attempts": attempts,
            "complete": final.get("ok", False) and not skip,
            "skipped": sorted(skip),
            **{k: final[k] for k in ("wall_s", "unstaged_s", "files", "triples", "inferred", "warnings") if k in final},
            "peak_rss_mb": max(a.get("peak_rss_mb", 0) for a in attempts),
        }
        self._learn(result)
        if serve:
            if not final.get("ok"):
                print(f"[N={people}] the pipeline did not store the data: bulk loading instead", file=sys.stderr)
                shutil.rmtree(store_root, ignore_errors=True)
                store_root.mkdir(parents=True)
                load_spec = {"data": data["dir"], "store": str(store)}
                result["bulk_load"] = run_child("bulkload", load_spec, 4 * budget, args.memory_limit_gb)
            used, apparent = disk_usage(store)
            result["store_mb"] = round(used / 2**20, 1)
            result["store_apparent_mb"] = round(apparent / 2**20, 1)
            spec = {
                "people": people,
                "seed": args.seed,
                "store": str(store),
                "queries": args.queries,
                "profiles": args.profiles,
                "related_budget_s": args.related_budget_s,
                "export_repeats": args.export_repeats,
            }
            result["serve"] = run_child("serve", spec, args.related_budget_s * 3 + budget * 2, args.memory_limit_gb)
        if not args.keep_stores:
            shutil.rmtree(store_root, ignore_errors=True)
        else:
            result["store_dir"] = str(store_root)
        return result


# ------------------------------------------------------------------------------------- reporting


def _git(*argv: str) -> str:
    try:
        return subprocess.run(["git", *argv], cwd=ROOT, capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return "?"


def code_version() -> str:
    """The commit, and a hash of the uncommitted changes to the code under test (the checkout is
    shared: others' work in progress is what a child process imports)."""
    diff = _git("diff", "HEAD", "--", "src", "queries", "shapes", "ontology")
    commit = _git("rev-parse", "--short", "HEAD")
    return commit + (f"+{hashlib.sha1(diff.encode()).hexdigest()[:8]}" if diff else "")


def machine() -> Json:
    import owlrl
    import pyoxigraph
    import pyshacl
    import rdflib

    with open("/proc/meminfo", encoding="utf-8") as handle:
        mem_kb = int(next(line for line in handle if line.startswith("MemTotal")).split()[1])
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if "model name" in line
        ),
        platform.processor(),
    )

    dirty = _git("status", "--porcelain", "--", "src", "queries", "shapes", "ontology")
    return {
        "nproc": os.cpu_count(),
        "memory_gib": round(mem_kb / 2**20, 1),
        "cpu": cpu,
        "system": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "versions": {
            "pyoxigraph": pyoxigraph.__version__,
            "pyshacl": pyshacl.__version__,
            "owlrl": owlrl.__version__,
            "rdflib": rdflib.__version__,
        },
        "commit": _git("rev-parse", "--short", "HEAD"),
        "code": code_version(),
        "uncommitted_files": len(dirty.splitlines()) if dirty else 0,
    }


def _stage_cell(figure: Json | None) -> str:
    if not figure:
        return "–"
    if "seconds" in figure:
        return f"{figure['seconds']:,.1f}"
    estimate = figure.get("estimate_s")
    marks = {"skipped": "skipped", "over budget": "> budget", "not measured": "not measured", "failed": "failed"}
    mark = marks.get(figure["status"], "?")
    return f"{mark}, est. ~{estimate:,.0f}" if estimate else mark


def _ms(figure: Json | None) -> str:
    return f"{figure['median_ms']:.1f} / {figure['p95_ms']:.1f}" if figure else "–"


def table_rows(results: list[Json]) -> list[list[str]]:
    rows = []
    for r in results:
        build, serve = r.get("build", {}), r.get("serve", {})
        stages = build.get("stages", {})
        ra = serve.get("related_all")
        exp = serve.get("export", {})

        def export_cell(fmt: str, exp: Json = exp) -> str:
            e = exp.get(fmt)
            if not e:
                return "–"
            return f"{e['ours_median_s']:.2f} / {e['native_median_s']:.2f} (×{e['ratio']:.2f})"

        rows.append(
            [
                f"{r['people']:,}",
                f"{r['data']['triples']:,}",
                *(_stage_cell(stages.get(s)) for s in STAGES),
                f"{build['unstaged_s']:.1f}" if "unstaged_s" in build else "–",
                f"{r['store_mb']:,.0f}" if "store_mb" in r else "–",
                _ms(serve.get("person_query")),
                _ms(serve.get("org_query")),
                _ms(serve.get("profile")),
                (f"{ra['total_s']:,.0f}" + (f" (est. from {ra['people_measured']:,})" if ra["extrapolated"] else ""))
                if ra
                else "–",
                export_cell("ttl"),
                export_cell("nq"),
                f"{build.get('peak_rss_mb', 0):,.0f} / {serve.get('peak_rss_mb', 0):,.0f}",
            ]
        )
    return rows


HEADER = [
    "people",
    "triples (files)",
    "parse s",
    "store s",
    "validate s",
    "infer s",
    "compact s",
    "outside stages s",
    "store MB",
    "person q ms (median / p95)",
    "org q ms (median / p95)",
    "profile+related ms (median / p95)",
    "related, all people s",
    "export ttl s (ours / pyoxigraph)",
    "export nq s (ours / pyoxigraph)",
    "peak MB (build / serve)",
]


def print_table(results: list[Json]) -> None:
    rows = [HEADER, *table_rows(results)]
    for column, name in enumerate(HEADER):
        print(f"{name:>34}: " + " | ".join(row[column] for row in rows[1:]))


def markdown(results: list[Json], fits: list[Json], info: Json, command: str, started: str, args: Json) -> str:
    sizes = ", ".join(f"{r['people']:,}" for r in results)
    lines = [
        f"## {started} — {sizes} people",
        "",
        f"Command: `{command}`",
        "",
        f"Machine: {info['nproc']} cores ({info['cpu']}), {info['memory_gib']} GiB memory, {info['system']}, "
        f"Python {info['python']}, "
        + ", ".join(f"{k} {v}" for k, v in info["versions"].items())
        + f". Code: commit {info['commit']}"
        + (
            f" with {info['uncommitted_files']} uncommitted file(s) in src/queries/shapes/ontology (work in progress"
            " in the shared checkout)"
            if info["uncommitted_files"]
            else ""
        )
        + ". The machine is shared and noisy: compare ratios and medians within one run.",
        "",
        f"Data: `bench/generate.py`, seed {args['seed']}, "
        + ", ".join(f"{r['data']['triples_per_person']} triples a person at {r['people']:,}" for r in results)
        + f". Stage budget {args['stage_budget_s']:,.0f} s"
        + (", stages estimated over budget skipped" if args["skip_slow_stages"] else "")
        + f"; each child process's address space capped at {args['memory_limit_gb']:g} GiB.",
        "",
        "| " + " | ".join(HEADER) + " |",
        "|" + "---|" * len(HEADER),
    ]
    lines += ["| " + " | ".join(row) + " |" for row in table_rows(results)]
    notes = []
    for r in results:
        build = r.get("build", {})
        for stage in STAGES:
            figure = build.get("stages", {}).get(stage, {})
            if "how" in figure or "note" in figure:
                notes.append(f"- N={r['people']:,}, {stage}: {figure.get('how') or figure.get('note')}")
        if build.get("skipped"):
            notes.append(
                f"- N={r['people']:,}: the build whose parse/store figures are shown ran without "
                f"{' and '.join(build['skipped'])} (replaced by a no-op in the benchmark's child process); "
                + ("the store therefore has no inferred graph." if "infer" in build["skipped"] else "")
            )
        if "wall_s" in build:
            skipped = build.get("skipped", [])
            inferred = "infer not run" if "infer" in skipped else f"{build['inferred']:,} inferred"
            warnings = "validate not run" if "validate" in skipped else f"{build['warnings']:,} SHACL warnings"
            notes.append(
                f"- N={r['people']:,}: {build['triples']:,} triples asserted, {inferred}, {warnings}; the build "
                f"(last attempt) took {build['wall_s']:,.1f} s wall, {build['unstaged_s']:,.1f} s of it outside any "
                "stage (collecting the files, the lock, publishing)."
            )
        if "bulk_load" in r:
            notes.append(
                f"- N={r['people']:,}: the pipeline did not store the data; the store used for the queries and exports"
                f" was bulk loaded by pyoxigraph directly ({r['bulk_load'].get('wall_s', '?')} s,"
                f" {r['bulk_load'].get('quads', 0):,} quads: every file in its own graph and the ontology graph,"
                " no inferred graph), not by the pipeline."
            )
        serve = r.get("serve", {})
        if serve.get("person_query_raw_pyoxigraph"):
            notes.append(
                f"- N={r['people']:,}: person query straight on pyoxigraph (same text, VALUES inlined): "
                f"{_ms(serve['person_query_raw_pyoxigraph'])} ms; organisation query returned a median of "
                f"{serve['org_query']['rows_median']} rows over {serve['org_query']['orgs']:,} organisations; "
                f"the profile's related people: median {serve['profile']['related_median']} people."
            )
        for fmt, e in serve.get("export", {}).items():
            notes.append(
                f"- N={r['people']:,}, export {fmt}: ours {e['ours_bytes']:,} bytes, pyoxigraph {e['native_bytes']:,}"
                f" bytes; runs ours {e['ours_s']} s, pyoxigraph {e['native_s']} s; ours byte-identical across runs:"
                f" {'yes' if e['identical_across_runs'] else 'NO'}."
            )
        if serve.get("error") or r.get("bulk_load", {}).get("error"):
            notes.append(f"- N={r['people']:,}: {serve.get('error') or r['bulk_load']['error']}")
    if fits:
        fit_text = "; ".join(
            f"N={f['people']:,}: " + ", ".join(f"{s} {_stage_cell(f['build']['stages'].get(s))} s" for s in STAGES)
            for f in fits
        )
        notes.append(f"- Small builds for the extrapolations (build only): {fit_text}.")
    if notes:
        lines += ["", "Notes:", "", *notes]
    return "\n".join(lines) + "\n"


def append_results(text: str) -> None:
    if not RESULTS_MD.exists():
        RESULTS_MD.write_text(
            "# Benchmark results\n\nWritten by `bench/run.py` (see bench/README.md for what each figure means). "
            "Newest last.\n\n",
            encoding="utf-8",
        )
    with RESULTS_MD.open("a", encoding="utf-8") as handle:
        handle.write("\n" + text)


# ------------------------------------------------------------------------------------- main


def _mem_available_gib() -> float:
    with open("/proc/meminfo", encoding="utf-8") as handle:
        return int(next(line for line in handle if line.startswith("MemAvailable")).split()[1]) / 2**20


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="comma-separated N (default 1000,10000,100000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stage-budget-s", type=float, default=1800.0, help="per build stage (default 1800)")
    parser.add_argument(
        "--skip-slow-stages", action="store_true", help="do not attempt a stage whose extrapolation exceeds the budget"
    )
    parser.add_argument("--fit-sizes", default="", help="small N built (not served) only to fit extrapolations")
    parser.add_argument("--prior", action="append", help="an earlier results JSON whose stage times feed the fits")
    parser.add_argument("--queries", type=int, default=200, help="people / organisations per query (default 200)")
    parser.add_argument("--profiles", type=int, default=100, help="profiles timed (default 100)")
    parser.add_argument("--related-budget-s", type=float, default=900.0, help="for related people of everyone")
    parser.add_argument("--export-repeats", type=int, default=3)
    parser.add_argument(
        "--memory-limit-gb",
        type=float,
        default=round(0.8 * _mem_available_gib(), 1),
        help="address-space cap of each child process (default: 80%% of the memory available at start)",
    )
    parser.add_argument("--store-dir", type=Path, default=OUT_DIR, help="where the temporary stores go")
    parser.add_argument("--keep-stores", action="store_true")
    parser.add_argument("--no-record", action="store_true", help="do not append to bench/RESULTS.md")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--child-spec", help=argparse.SUPPRESS)
    parser.add_argument("--child-out", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.child:
        task = {"build": child_build, "serve": child_serve, "bulkload": child_bulkload}[args.child]
        code = code_version()
        result = task(json.loads(args.child_spec))
        result["code"] = code
        Path(args.child_out).write_text(json.dumps(result), encoding="utf-8")
        return
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    args.store_dir.mkdir(parents=True, exist_ok=True)
    command = "python bench/run.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    raw_path = OUT_DIR / f"results-{stamp}.json"
    info = machine()
    bench = Bench(args)
    sizes = [int(x) for x in args.sizes.split(",") if x]
    fit_sizes = [int(x) for x in args.fit_sizes.split(",") if x]
    fits: list[Json] = []
    results: list[Json] = []
    settings = {k: v for k, v in vars(args).items() if not k.startswith("child") and k != "store_dir"}

    def save() -> None:
        doc = {"command": command, "started": started, "machine": info, "args": settings, "fits": fits}
        raw_path.write_text(json.dumps({**doc, "sizes": results}, indent=2, default=str), encoding="utf-8")

    for n in sorted(fit_sizes):
        fits.append(bench.size(n, serve=False))
        save()
    for n in sorted(sizes):
        results.append(bench.size(n))
        save()
        print_table(results)
    text = markdown(results, fits, info, command, started, settings)
    print("\n" + text)
    if not args.no_record:
        append_results(text)
        print(f"appended to {RESULTS_MD}; raw figures in {raw_path}")


if __name__ == "__main__":
    main()
