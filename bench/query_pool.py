"""What running queries in killable workers costs (store/sandbox.py), on a store built from data/:

* the overhead of the pool for a small query: the median of 200 ASKs (answer serialised as SPARQL
  JSON) run by a worker, against the same job run in this thread on the same directory (the old
  in-thread path);
* the checks every query passes first (store/guard.py), uncached, on a named query;
* worker start: the forkserver and the first worker (cold), then one more worker (a replacement);
* a runaway query stopped at 1 s, then how soon a small query answers.

    .venv/bin/python bench/query_pool.py [--store DIR]     # default: builds data/ into bench/out/
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pyoxigraph as ox

from kgprofiles.errors import LimitHit
from kgprofiles.store.binding import SparqlText
from kgprofiles.store.guard import analyse
from kgprofiles.store.sandbox import QueryJob, QueryPool, execute

ROOT = Path(__file__).resolve().parents[1]
JSON = (("boolean", "application/sparql-results+json"), ("select", "application/sparql-results+json"))
SMALL = "ASK { person:horace-he kgp:name 'Horace He' }"
RUNAWAY = "SELECT (COUNT(*) AS ?n) { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"


def median_ms(run, times: int = 200) -> float:
    samples = []
    for _ in range(times):
        started = time.perf_counter()
        run()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, help="a built store directory (default: build data/ now)")
    args = parser.parse_args()
    store = args.store or ROOT / "bench" / "out" / "query-pool" / "store"
    if args.store is None and not store.exists():
        subprocess.run(
            [sys.executable, "-m", "kgprofiles", "--project", str(ROOT), "build", "--store", str(store), "-q"],
            check=True,
        )
    location = os.path.realpath(store)
    job = QueryJob(location, SparqlText.of(SMALL), media_types=JSON)

    local = ox.Store.read_only(location)
    in_thread = median_ms(lambda: execute(local, job))
    named = (ROOT / "queries" / "person.rq").read_text(encoding="utf-8")
    checks = median_ms(lambda: (analyse.cache_clear(), analyse(named)))

    started = time.perf_counter()
    pool = QueryPool(workers=2, queue=8)
    pool.start(warm=location)
    cold = time.perf_counter() - started
    started = time.perf_counter()
    extra = QueryPool(workers=1, queue=0)
    extra.start()
    one_more = time.perf_counter() - started
    started = time.perf_counter()
    extra.run(job, 10)
    first_query = time.perf_counter() - started
    extra.close()

    in_pool = median_ms(lambda: pool.run(job, 10))

    started = time.perf_counter()
    try:
        pool.run(QueryJob(location, SparqlText.of(RUNAWAY)), 1.0)
    except LimitHit as exc:
        assert exc.which == "time"
    stopped = time.perf_counter() - started
    started = time.perf_counter()
    pool.run(job, 10)
    after = time.perf_counter() - started
    pool.close()

    print(f"store: {location} ({sum(1 for _ in local.quads_for_pattern(None, None, None, None))} quads)")
    print(f"small query, median of 200: in this thread {in_thread:.3f} ms, in a worker {in_pool:.3f} ms")
    print(f"  overhead of the pool: {in_pool - in_thread:.3f} ms a query")
    print(f"checks on queries/person.rq, uncached, median of 200: {checks:.3f} ms")
    print(f"worker start: forkserver + 2 workers, each opening the store {cold * 1000:.0f} ms")
    print(f"  one more worker {one_more * 1000:.1f} ms")
    print(f"  its first query (opens the store) {first_query * 1000:.1f} ms")
    print(f"runaway stopped after {stopped:.3f} s (limit 1 s); the next small query {after * 1000:.1f} ms")


if __name__ == "__main__":
    main()
