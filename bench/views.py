"""View latencies on a store that `kgprofiles build` made: the person query, the organisation
query, a profile with related people (library call, warm), related people for a sample of
people, and whole-graph exports against pyoxigraph's own dump. Medians and p95 of one run.

    .venv/bin/python bench/views.py --store /tmp/s10k [--people 200] [--related 500]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

import pyoxigraph as ox

from kgprofiles.export import export_store
from kgprofiles.profiles import Views
from kgprofiles.queries import get_query
from kgprofiles.store.oxigraph import OxigraphStore

QUERIES = Path(__file__).resolve().parents[1] / "queries"


def timed(call) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def summary(name: str, ms: list[float]) -> str:
    ms = sorted(ms)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    return f"{name:<28} n={len(ms):<5} median {statistics.median(ms):8.2f} ms   p95 {p95:8.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--people", type=int, default=200)
    parser.add_argument("--related", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    store = OxigraphStore(args.store, read_only=True)
    views = Views(store, QUERIES)
    people = [row["person"] for row in views.select("people").rows]
    orgs = [r["o"] for r in store.query("SELECT DISTINCT ?o WHERE { ?r kgp:organization ?o }").rows]
    rng = random.Random(args.seed)
    sample = rng.sample(people, min(args.people, len(people)))
    person_q, org_q = get_query(QUERIES, "person"), get_query(QUERIES, "org-members")
    for p in sample[:20]:  # warm up
        views.profile(p)
    print(f"{len(people)} people, {len(orgs)} organisations")
    print(summary("person query", [timed(lambda p=p: person_q.run(store, {"person": p})) for p in sample]))
    org_sample = [rng.choice(orgs) for _ in sample]
    print(summary("org-members query", [timed(lambda o=o: org_q.run(store, {"org": o})) for o in org_sample]))
    print(summary("profile + related", [timed(lambda p=p: views.profile(p)) for p in sample]))
    related = [timed(lambda p=p: views.related(p)) for p in rng.sample(people, min(args.related, len(people)))]
    print(summary("related people", related))
    print(
        f"related for all {len(people)} people, extrapolated: {statistics.mean(related) * len(people) / 60000:.1f} min"
    )
    for fmt, native in (("nq", ox.RdfFormat.N_QUADS), ("ttl", ox.RdfFormat.N_QUADS)):
        ours = statistics.median(timed(lambda fmt=fmt: export_store(store, fmt)) for _ in range(3))
        theirs = statistics.median(timed(lambda native=native: store.store.dump(format=native)) for _ in range(3))
        print(
            f"export {fmt}: ours {ours / 1000:.2f} s, pyoxigraph dump (nq) {theirs / 1000:.2f} s, ×{ours / theirs:.2f}"
        )
    store.close()


if __name__ == "__main__":
    main()
