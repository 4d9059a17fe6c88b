"""Search and static-site figures over a built store (issue 19): the time to write the search
index, the median of two-word searches over it, and `kgprofiles site build` time, stages and memory.

    .venv/bin/python bench/generate.py --people 10000 --seed 1 --out bench/out/people-10000
    KGPROFILES_DATA=bench/out/people-10000 .venv/bin/kgprofiles build --store bench/out/store-10000
    .venv/bin/python bench/search_site.py --store bench/out/store-10000 [--no-site] [--no-record] \
        [--project DIR] [--jobs 1,2] [--data-forms all|none|ttl,...]

Prints the figures and appends a dated section to bench/RESULTS.md (unless --no-record). Each
measurement runs in a fresh child process, so the peak memory is that task's own. A site build's
memory is also given as issue 19 counts it: the proportional set size (PSS, shared pages split
between their processes) of the build and all its workers, summed, sampled every two seconds
(Linux; ``/proc/PID/smaps_rollup``). The site is removed after it is measured (``--keep-site``:
left in ``--out``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kgprofiles.progress import Silent

ROOT = Path(__file__).resolve().parents[1]
QUERIES = ["synthetic person", "person 12", "topic 7", "organization 3", "synthetic paper", "person synthetic"]


def child(task: str, store: str, out: str, *options: str) -> dict[str, Any]:
    """Run ``task`` in a fresh process (with ``options``); its figures, with its peak memory and
    the peak of the summed PSS of it and its descendants (``pss_all_mb``, None where unknown)."""
    process = subprocess.Popen(
        [sys.executable, __file__, "--task", task, "--store", store, "--out", out, *options],
        stdout=subprocess.PIPE,
        text=True,
    )
    peak: list[float | None] = [None]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(2.0):
            now = tree_pss_mb(process.pid)
            if now is not None and (peak[0] is None or now > peak[0]):
                peak[0] = now

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, _ = process.communicate()
    done.set()
    sampler.join()
    if process.returncode != 0:
        raise SystemExit(f"the {task} task failed (exit {process.returncode})")
    figures: dict[str, Any] = json.loads(stdout.strip().splitlines()[-1])
    figures["pss_all_mb"] = peak[0]
    return figures


def tree_pss_mb(root: int) -> float | None:
    """The summed PSS of process ``root`` and its descendants now, in MB (None without /proc)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            parents[int(stat.parent.name)] = int(fields[1])
        except (OSError, IndexError, ValueError):
            continue  # (a process that ended meanwhile)
    tree, grew = {root}, True
    while grew:
        more = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree |= more
        grew = bool(more)
    total, seen = 0, False
    for pid in tree:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
                    seen = True
                    break
        except OSError:
            continue
    return total / 1024 if seen else None


class StageTimes(Silent):
    """A progress that notes when each stage of a site build starts (``kgprofiles.progress``)."""

    def __init__(self) -> None:
        self.started: list[tuple[str, float]] = []

    def stage(self, name: str, total: int | None = None) -> None:
        self.started.append((name, time.perf_counter()))

    def durations(self, end: float) -> dict[str, float]:
        ends = [at for _, at in self.started[1:]] + [end]
        return {name: stop - at for (name, at), stop in zip(self.started, ends, strict=True)}


def task_index(store_path: str, out: str, reuse: bool) -> dict[str, float]:
    """Write the index (or, ``reuse``, take the one the store's build wrote: minutes saved at
    100,000 people), then time the searches."""
    from kgprofiles.config import load_settings
    from kgprofiles.search import SearchIndex, write_index
    from kgprofiles.store.oxigraph import OxigraphStore

    settings = load_settings(ROOT, store="memory:")
    store = OxigraphStore(store_path, read_only=True)
    path = Path(out) / "search.sqlite"
    started, cpu = time.perf_counter(), time.process_time()
    if reuse:  # the index `kgprofiles build` wrote into the store's generation
        path = Path(store.location) / "search.sqlite"
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as connection:
            documents = connection.execute("SELECT count(*) FROM docs").fetchone()[0]
    else:
        documents = write_index(store, settings.queries_dir, path)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    index = SearchIndex.open(path)
    assert index is not None
    times = []
    each: dict[str, list[float]] = {words: [] for words in QUERIES}
    for _ in range(20):
        for words in QUERIES:
            began = time.perf_counter()
            index.search(words)
            times.append(time.perf_counter() - began)
            each[words].append(times[-1])
    two_word = statistics.median(times)
    totals = {words: index.search(words).total for words in QUERIES}
    print(
        "; ".join(f"{w!r}: {totals[w]:,} matches, {statistics.median(s) * 1000:.2f} ms" for w, s in each.items()),
        file=sys.stderr,
    )
    return {
        "documents": documents,
        "index_wall_s": wall,
        "index_cpu_s": cpu,
        "index_mb": path.stat().st_size / 1e6,
        "search_median_ms": two_word * 1000,
        "search_p95_ms": sorted(times)[int(len(times) * 0.95)] * 1000,
        "searches": len(times),
        "matches_min": min(totals.values()),
        "matches_max": max(totals.values()),
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def task_site(store_path: str, out: str, project: str, jobs: int, forms: str, keep: bool) -> dict[str, object]:
    """``site build`` in ``jobs`` processes writing the data ``forms``; CPU, the time of each
    stage, and the peak memory of this process and of its largest worker (a worker's resident
    memory includes pages it shares with this process)."""
    from kgprofiles.config import load_settings
    from kgprofiles.static_site import build_site, data_forms
    from kgprofiles.store.oxigraph import OxigraphStore

    settings = load_settings(Path(project), store="memory:")
    store = OxigraphStore(store_path, read_only=True)
    target = Path(out) / f"site-{jobs}"
    shutil.rmtree(target, ignore_errors=True)
    stages = StageTimes()
    started, cpu = time.perf_counter(), time.process_time()
    report = build_site(settings, store, target, jobs=jobs, progress=stages, data_forms=data_forms(forms))
    ended = time.perf_counter()
    workers = resource.getrusage(resource.RUSAGE_CHILDREN)
    if not keep:
        shutil.rmtree(target, ignore_errors=True)
    return {
        "jobs": jobs,
        "data_forms": forms,
        "pages": report.pages,
        "files": report.files,
        "site_mb": report.bytes / 1e6,
        "site_wall_s": ended - started,
        "site_cpu_s": time.process_time() - cpu + workers.ru_utime + workers.ru_stime,
        "stages_s": stages.durations(ended),
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "worker_peak_mb": workers.ru_maxrss / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--out", default=str(ROOT / "bench" / "out" / "search-site"))
    parser.add_argument("--task", choices=["index", "site"])
    parser.add_argument("--no-site", action="store_true")
    parser.add_argument("--no-record", action="store_true")
    parser.add_argument("--reuse-index", action="store_true", help="search the store's own index (no index written)")
    parser.add_argument(
        "--project",
        default=str(ROOT),
        help="the project whose settings the site uses; synthetic people get pages only under a "
        'kgprofiles.toml with base_iri = "http://example.org/kgprofiles-synthetic/"',
    )
    parser.add_argument("--jobs", default="1,2", help="site builds to run, by processes (e.g. 1,2)")
    parser.add_argument("--data-forms", default="all", help="site build --data-forms (all, none, ttl,jsonld…)")
    parser.add_argument("--keep-site", action="store_true", help="leave the sites in --out")
    args = parser.parse_args()
    Path(args.out).mkdir(parents=True, exist_ok=True)
    if args.task:
        if args.task == "index":
            figures: dict[str, Any] = task_index(args.store, args.out, args.reuse_index)
        else:
            figures = task_site(args.store, args.out, args.project, int(args.jobs), args.data_forms, args.keep_site)
        print(json.dumps(figures))
        return
    index = child("index", args.store, args.out, *(["--reuse-index"] if args.reuse_index else []))
    sites = (
        []
        if args.no_site
        else [
            child(
                "site",
                args.store,
                args.out,
                *("--project", args.project, "--jobs", jobs, "--data-forms", args.data_forms),
                *(["--keep-site"] if args.keep_site else []),
            )
            for jobs in args.jobs.split(",")
        ]
    )
    code = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    lines = [
        f"## {datetime.now(UTC):%Y-%m-%d %H:%M} UTC — search index and static site over {args.store} (issue 19)",
        "",
        f"Command: `python bench/search_site.py --store {args.store} --project {args.project} --jobs {args.jobs}"
        f" --data-forms {args.data_forms}`",
        "",
        f"Machine: 2 cores shared with other work, Python {platform.python_version()}; code {code.stdout.strip()}."
        " Wall times on a busy machine; CPU times are the steadier figure.",
        "",
        f"- search index: {index['documents']:,.0f} documents, "
        + (
            "the store's own (--reuse-index)"
            if args.reuse_index
            else f"written in {index['index_wall_s']:.1f} s wall ({index['index_cpu_s']:.1f} s CPU)"
        )
        + f", {index['index_mb']:.1f} MB, peak {index['peak_mb']:.0f} MB",
        f"- search, two-word queries ({', '.join(repr(q) for q in QUERIES)}; {index['searches']:.0f} runs):"
        f" **median {index['search_median_ms']:.2f} ms**, p95 {index['search_p95_ms']:.2f} ms"
        f" ({index['matches_min']:,.0f} to {index['matches_max']:,.0f} matches; 50 shown)",
    ]
    for site in sites:
        faster = f", ×{sites[0]['site_wall_s'] / site['site_wall_s']:.2f} of the first" if site is not sites[0] else ""
        lines.append(
            f"- `site build --jobs {site['jobs']:.0f} --data-forms {site['data_forms']}`: {site['pages']:,.0f} pages,"
            f" {site['files']:,.0f} files, {site['site_mb']:.0f} MB in **{site['site_wall_s']:.0f} s** wall"
            f" ({site['site_cpu_s']:.0f} s CPU{faster}; "
            + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in site["stages_s"].items())
            + f"), peak **{site['peak_mb']:.0f} MB** (largest worker {site['worker_peak_mb']:.0f} MB), all processes"
            + (f" **{site['pss_all_mb']:.0f} MB** (summed PSS)" if site["pss_all_mb"] is not None else ": unknown")
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_record:
        with open(ROOT / "bench" / "RESULTS.md", "a", encoding="utf-8") as results:
            results.write("\n" + text)


if __name__ == "__main__":
    main()
