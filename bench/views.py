"""View latencies on a store that `kgprofiles build` made: the person query, the organisation
query, a profile with its related people (library call, warm: the in-memory related index, as
`kgprofiles serve` uses it), related people for every person (as `kgprofiles related --all`),
the per-person related queries for a sample (no index, as a one-shot CLI call), and whole-graph
exports against pyoxigraph's own dump. Medians and p95 of one run.

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


def summary(name: str, ms: list[float], width: int = 28) -> str:
    """One line: the name (padded to ``width``), the count, the median and the 95th percentile."""
    ms = sorted(ms)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    return f"{name:<{width}} n={len(ms):<5} median {statistics.median(ms):8.2f} ms   p95 {p95:8.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--people", type=int, default=200)
    parser.add_argument("--related", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-export", action="store_true", help="skip the whole-graph exports (minutes at 100,000)")
    parser.add_argument("--only-export", action="store_true", help="only the whole-graph exports")
    parser.add_argument("--export-repeats", type=int, default=3)
    args = parser.parse_args()
    store = OxigraphStore(args.store, read_only=True)
    if not args.only_export:
        view_figures(store, args)
    if not args.no_export:
        export_figures(store, args.export_repeats)
    store.close()


def view_figures(store: OxigraphStore, args: argparse.Namespace) -> None:
    views = Views(store, QUERIES, stable=True)
    one_shot = Views(store, QUERIES)  # no index: the per-person related queries
    people = [row["person"] for row in views.select("people").rows]
    started = time.perf_counter()
    index = views.related_index()
    print(f"related index: read in {time.perf_counter() - started:.1f} s ({len(index)} people)")
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
    print(summary("profile + 10 related (index)", [timed(lambda p=p: views.profile(p)) for p in sample]))
    print(summary("10 related (index)", [timed(lambda p=p: views.related(p, 10)) for p in sample]))
    print(summary("all related (index)", [timed(lambda p=p: views.related(p)) for p in sample]))
    started = time.perf_counter()
    for p in index.people:
        index.related(p, 10)
    everyone = time.perf_counter() - started
    print(f"10 related for all {len(index.people)} people (index): {everyone:.1f} s")
    queried = [timed(lambda p=p: one_shot.related(p)) for p in rng.sample(people, min(args.related, len(people)))]
    print(summary("related (per-person queries)", queried))
    print(f"  → for all {len(people)} people, extrapolated: {statistics.mean(queried) * len(people) / 60000:.1f} min")


def export_figures(store: OxigraphStore, repeats: int) -> None:
    """Our exports against pyoxigraph's own N-Quads dump of the same store, alternating."""
    for fmt in ("nq", "ttl"):
        ours, theirs = [], []
        for _ in range(repeats):
            ours.append(timed(lambda fmt=fmt: export_store(store, fmt)))
            theirs.append(timed(lambda: store.store.dump(format=ox.RdfFormat.N_QUADS)))
        ratio = statistics.median(ours) / statistics.median(theirs)
        print(
            f"export {fmt}: ours {statistics.median(ours) / 1000:.2f} s, pyoxigraph dump (nq) "
            f"{statistics.median(theirs) / 1000:.2f} s, ×{ratio:.2f} (medians of {repeats})"
        )


if __name__ == "__main__":
    main()
