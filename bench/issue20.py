"""Issue 20's table in one run: every row, kgprofiles beside its baseline, measured one after the
other on the same machine at one size, with the issue's target and whether it is met.

    .venv/bin/python bench/issue20.py --people 10000 [--record]
    .venv/bin/python bench/issue20.py --people 100000 --repeats 3 --record   # ~30 minutes

The rows (``--repeats`` runs of each short command, alternating with its baseline; medians):

* **build**: ``kgprofiles build`` of the generator's data (its IRIs under ``/id/``, as
  ``bench/serve.py`` serves them) into a fresh store, against ``bench/load_baseline.py``
  (pyoxigraph alone bulk-loading the same files, one named graph a file) right after it. Wall
  time of each process; the build's CPU (user + system, its child processes included) beside it.
* **load one edited file**: ``kgprofiles load`` of one existing person's file, the name revised,
  into a fresh copy of the built store (hard links, as ``bench/load.py`` makes them), against a
  Python process that opens such a copy with pyoxigraph, clears the file's graph and bulk-loads the
  file into it. Wall time of each process, start-up included.
* **query person**: ``kgprofiles query person --param person=…`` against ``oxigraph query
  --union-default-graph`` (the Rust command line) with the same query, the person as ``VALUES``.
* **one-shot profile**: ``kgprofiles profile SLUG`` (its ten related people included): no baseline.
* **/sparql**: ``kgprofiles serve --workers 2`` against ``oxigraph serve-read-only
  --union-default-graph`` on the same store: a point query, 100 and 1,000 rows (``bench/serve.py``'s
  cases and timing: each request alone over a kept-alive connection).
* **person pages**: the same server, ``--clients`` threads fetching distinct person pages for
  ``--seconds``, each page for the first time (``bench/serve.py``'s first-visit pass): no baseline.

The store is removed at the end unless ``--keep-store``. The machine is shared: read each ratio
within its run. Raw figures go to ``bench/out/issue20-<time>.json``; ``--record`` appends the table
to ``bench/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
OUT_DIR = BENCH_DIR / "out"
VENV_BIN = Path(sys.executable).parent
Json = dict[str, Any]

#: The pyoxigraph baseline of a one-file load: the file's graph cleared, the file bulk-loaded into it.
LOAD_BASELINE = """
import sys, time
import pyoxigraph as ox
started = time.perf_counter()
store = ox.Store(sys.argv[1])
graph = ox.NamedNode(sys.argv[3])
store.clear_graph(graph)
store.bulk_load(path=sys.argv[2], format=ox.RdfFormat.TURTLE, to_graph=graph)
store.flush()
print(time.perf_counter() - started)
"""


sys.path.insert(0, str(BENCH_DIR))
import serve  # noqa: E402  (bench/serve.py: its servers, cases and page passes)

_module = serve._run_module
load_bench = _module("load")


def timed(argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> tuple[float, float, str]:
    """Run ``argv`` to its end: wall seconds, CPU seconds (its children's too) and its stdout;
    a failure stops the bench with the command's error."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:4])} … failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def alternating(runs: int, first: Callable[[], float], second: Callable[[], float]) -> tuple[list[float], list[float]]:
    """``runs`` figures of each, the order crossed from one round to the next."""
    a: list[float] = []
    b: list[float] = []
    for i in range(runs):
        if i % 2 == 0:
            a.append(first())
            b.append(second())
        else:
            b.append(second())
            a.append(first())
    return a, b


def remove_store(store: Path) -> None:
    """A store as ``kgprofiles build`` publishes it: the link and its generations."""
    if store.is_symlink() or store.is_file():
        store.unlink()
    shutil.rmtree(store, ignore_errors=True)
    shutil.rmtree(store.with_name(store.name + ".generations"), ignore_errors=True)


# ------------------------------------------------------------------------------ the rows


def build_row(data: Path, store: Path, project: Path) -> Json:
    remove_store(store)
    print(f"build: {data} → {store} …", flush=True)
    env = {**os.environ, "KGPROFILES_DATA": str(data)}
    wall, cpu, _ = timed([str(VENV_BIN / "kgprofiles"), "build", "--store", str(store), "-q"], env, project)
    baseline_store = OUT_DIR / "issue20-baseline-store"
    print("build: the baseline, pyoxigraph's bulk load of the same files …", flush=True)
    base_wall, _, said = timed(
        [sys.executable, str(BENCH_DIR / "load_baseline.py"), str(data), "--store", str(baseline_store)]
    )
    shutil.rmtree(baseline_store, ignore_errors=True)
    print(f"  build {wall:.1f} s (CPU {cpu:.1f} s); baseline {base_wall:.1f} s: {said.strip()}", flush=True)
    return {"seconds": wall, "cpu_s": cpu, "baseline_s": base_wall}


def load_row(data: Path, store: Path, people: int, project: Path, runs: int) -> Json:
    generator = _module("generate")
    pid = generator.Namer(people).pid(people // 2)
    i = people // 2
    original = (data / "people" / f"{pid}.ttl").read_text(encoding="utf-8")
    revised = original.replace(f'"Synthetic Person {i}"', f'"Synthetic Person {i} (revised)"')
    assert revised != original, f"no name to revise in {pid}.ttl"
    from kgprofiles.vocab import file_graph_iri

    graph = file_graph_iri(f"people/{pid}.ttl")
    run_dir = OUT_DIR / "issue20-load"

    def fresh() -> tuple[Path, Path]:
        shutil.rmtree(run_dir, ignore_errors=True)
        run_dir.mkdir(parents=True)
        copy = load_bench.fresh_copy(store.resolve(), run_dir)
        file = run_dir / "data" / "people" / f"{pid}.ttl"
        file.parent.mkdir(parents=True)
        file.write_text(revised, encoding="utf-8")
        return copy, file

    def ours() -> float:
        copy, file = fresh()
        env = {**os.environ, "KGPROFILES_DATA": str(run_dir / "data")}
        wall, _, _ = timed([str(VENV_BIN / "kgprofiles"), "load", "--store", str(copy), "-q", str(file)], env, project)
        return wall

    def baseline() -> float:
        copy, file = fresh()
        wall, _, _ = timed([sys.executable, "-c", LOAD_BASELINE, str(copy.resolve()), str(file), graph])
        return wall

    try:
        mine, theirs = alternating(runs, ours, baseline)
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
    print(f"  load: {_runs(mine)}; baseline {_runs(theirs)}", flush=True)
    return {"seconds": statistics.median(mine), "baseline_s": statistics.median(theirs), "runs": [mine, theirs]}


def query_row(store: Path, person: str, project: Path, runs: int) -> Json:
    text = "\n".join(
        line for line in (ROOT / "queries" / "person.rq").read_text().splitlines() if not line.startswith("#")
    )
    text = serve.prologue() + text.replace("WHERE {", f"WHERE {{ VALUES ?person {{ <{person}> }}", 1)
    run_dir = OUT_DIR / "issue20-query"
    shutil.rmtree(run_dir, ignore_errors=True)
    run_dir.mkdir(parents=True)
    copy = load_bench.fresh_copy(store.resolve(), run_dir)  # (oxigraph's command opens a store to write)
    ours = [str(VENV_BIN / "kgprofiles"), "query", "--store", str(store), "person", "--param", f"person={person}"]
    theirs = [str(VENV_BIN / "oxigraph"), "query", "--location", str(copy.resolve()), "--union-default-graph"]
    theirs += ["-q", text, "--results-format", "json"]
    try:
        mine, base = alternating(runs, lambda: timed(ours, cwd=project)[0], lambda: timed(theirs)[0])
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
    print(f"  query person: {_runs(mine)}; oxigraph query {_runs(base)}", flush=True)
    return {"seconds": statistics.median(mine), "baseline_s": statistics.median(base), "runs": [mine, base]}


def profile_row(store: Path, person: str, project: Path, runs: int) -> Json:
    slug = person.rsplit("/", 1)[-1]
    command = [str(VENV_BIN / "kgprofiles"), "profile", "--store", str(store), slug]
    walls = [timed(command, cwd=project)[0] for _ in range(runs)]
    print(f"  one-shot profile: {_runs(walls)}", flush=True)
    return {"seconds": statistics.median(walls), "runs": walls}


def server_rows(store: Path, args: argparse.Namespace) -> Json:
    servers = []
    try:
        oxi = serve.oxigraph_server(store)
        servers.append(oxi)
        ours = serve.kgprofiles_server("kgprofiles", store, ROOT / "src", ["--workers", str(args.workers)])
        servers.append(ours)
        people, org = serve.people_and_org(oxi)
        for server in servers:
            print(f"  {server.name}: idle after {server.wait_idle():.0f} s", flush=True)
        cases = serve.sparql_cases(people, org)
        cases.pop("largest organisation's members")
        sparql = serve.sparql_figures(servers, cases, args.sparql_repeats)
        pages = serve.page_figures(ours, people, args)
    finally:
        for server in servers:
            server.stop()
    return {"sparql": sparql, "pages": pages["first visit"]}


def _runs(values: list[float]) -> str:
    return "median " + f"{statistics.median(values):.3f} s (" + ", ".join(f"{v:.3f}" for v in values) + ")"


# ------------------------------------------------------------------------------ the table


def table(result: Json, people: int) -> list[tuple[str, str, str, str, str, bool | None]]:
    """Each row: what, kgprofiles, baseline, ratio, target, met (None: no target at this size)."""
    rows: list[tuple[str, str, str, str, str, bool | None]] = []
    b = result["build"]
    ratio = b["seconds"] / b["baseline_s"]
    rows.append((
        f"build, {people:,} people", f"{b['seconds']:.1f} s (CPU {b['cpu_s']:.0f} s)",
        f"pyoxigraph bulk load {b['baseline_s']:.1f} s", f"×{ratio:.1f}", "≤ ×3, and < 10 min",
        ratio <= 3 and b["seconds"] < 600,
    ))  # fmt: skip
    for key, what, target in (
        ("load", "`kgprofiles load` one edited file", 0.5),
        ("query", "`kgprofiles query person`", 0.3),
    ):
        r = result[key]
        baseline = "pyoxigraph clear + bulk load" if key == "load" else "`oxigraph query`"
        rows.append((
            what, f"{r['seconds']:.3f} s", f"{baseline} {r['baseline_s']:.3f} s",
            f"×{r['seconds'] / r['baseline_s']:.1f}", f"< {target} s", r["seconds"] < target,
        ))  # fmt: skip
    pages = result["server"]["pages"]
    wanted = 300 if people <= 10_000 else 200  # (issue 20 at 10,000 people; issue 19 at 100,000)
    rows.append((
        "person pages, first visits, 4 clients", f"{pages['per_s']:.0f} pages/s ({pages['cpu_ms']:.1f} ms CPU a page)",
        "—", "—", f"≥ {wanted} pages/s", pages["per_s"] >= wanted,
    ))  # fmt: skip
    for case, fig in result["server"]["sparql"].items():
        mine, theirs = fig["median_ms"]["kgprofiles"], fig["median_ms"]["oxigraph"]
        rows.append((
            f"`/sparql` {case}", f"{mine:.2f} ms (CPU {fig['cpu_ms']['kgprofiles']:.2f})",
            f"`oxigraph serve` {theirs:.2f} ms (CPU {fig['cpu_ms']['oxigraph']:.2f})",
            f"×{mine / theirs:.2f}", "≤ ×1.3", mine / theirs <= 1.3,
        ))  # fmt: skip
    p = result["profile"]["seconds"]
    rows.append((
        "one-shot `profile` with related", f"{p * 1000:.0f} ms", "—", "—",
        "< 50 ms (at 100,000)", p < 0.05 if people >= 100_000 else None,
    ))  # fmt: skip
    return rows


def markdown(result: Json, args: argparse.Namespace, started: datetime) -> str:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    load = os.getloadavg()[0]
    lines = [
        f"## {started:%Y-%m-%d %H:%M} UTC — issue 20's table in one run, {args.people:,} people",
        "",
        f"Command: `python bench/issue20.py {' '.join(sys.argv[1:])}`; code {commit.stdout.strip()}; "
        f"{os.cpu_count()} cores, shared (load average {result['load_before']:.1f} at the start, {load:.1f} at "
        f"the end): read each ratio within this run. {args.repeats} runs of each short command, alternating "
        "with its baseline; medians.",
        "",
        "| row | kgprofiles | baseline | ratio | target | met |",
        "|---|---|---|---|---|---|",
    ]
    for what, ours, baseline, ratio, target, met in table(result, args.people):
        shown = "—" if met is None else ("**yes**" if met else "no")
        lines.append(f"| {what} | {ours} | {baseline} | {ratio} | {target} | {shown} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--people", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=5, help="runs of each short command and its baseline")
    parser.add_argument("--sparql-repeats", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2, help="`kgprofiles serve --workers`")
    parser.add_argument("--seconds", type=float, default=15.0, help="of person pages")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--keep-store", action="store_true")
    parser.add_argument("--record", action="store_true", help="append the table to bench/RESULTS.md")
    args = parser.parse_args()
    args.warmup_s, args.fresh_connections = 2.0, False  # (bench/serve.py's page pass reads them)
    started = datetime.now(UTC)
    result: Json = {"people": args.people, "load_before": os.getloadavg()[0]}
    data = serve.served_data(args.people, args.seed)
    store = OUT_DIR / f"issue20-store-{args.people}-{args.seed}"
    project = serve.bare_project()
    try:
        result["build"] = build_row(data, store, project)
        person = serve.ID + "person/" + _module("generate").Namer(args.people).pid(args.people // 3)
        result["query"] = query_row(store, person, project, args.repeats)
        result["profile"] = profile_row(store, person, project, args.repeats)
        print("serve: /sparql and person pages …", flush=True)
        result["server"] = server_rows(store, args)
        result["load"] = load_row(data, store, args.people, project, args.repeats)
    finally:
        if not args.keep_store:
            remove_store(store)
    OUT_DIR.mkdir(exist_ok=True)
    (OUT_DIR / f"issue20-{started:%Y%m%dT%H%M%S}.json").write_text(json.dumps(result, indent=1))
    text = markdown(result, args, started)
    print(text)
    if args.record:
        with (BENCH_DIR / "RESULTS.md").open("a", encoding="utf-8") as handle:
            handle.write("\n" + text)


if __name__ == "__main__":
    main()
