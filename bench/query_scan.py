"""Every named query with parameters, bound as the views bind them, timed warm on a built store:
the slowest first, with their rows, so that a query that reads the whole graph for one thing
stands out.

    .venv/bin/python bench/query_scan.py --store bench/out/serve-store-10000-1 [--top 25] [--whole]

Each parameter gets a sample of its kind read from the store (a person, the organisation with
the most roles, a topic, a work, a source, a claim, a statement); each query runs once untimed
and then ``--runs`` times, the best kept. pyoxigraph joins a UNION branch's patterns in the order
written when the parameter comes from a VALUES block outside it, and joins an inner VALUES block
before the outer binding: such a query reads every role, birth or contribution of the graph for
one person (``search-index-linked.rq`` took 0.55 s instead of 1 ms, ``wikidata-local-claims.rq``
95 ms instead of 2, at 10,000 people). ``--whole`` lists the queries that answer for the whole
graph (no parameter) after them, for scale. Queries sent to Wikidata (``# endpoint: wikidata``) are left out.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent

#: The sample each parameter name takes (a kind below), where its type alone does not say.
KIND_OF = {"org": "org", "organization": "org", "part": "org", "resource": "claim", "item": "person", "thing": "person"}
SAMPLES = {
    "person": "SELECT ?x WHERE { ?x a kgp:Person } LIMIT 1",
    "org": "SELECT ?x (COUNT(*) AS ?n) WHERE { ?r kgp:organization ?x } GROUP BY ?x ORDER BY DESC(?n) LIMIT 1",
    "topic": "SELECT ?x WHERE { ?x a kgp:Topic } LIMIT 1",
    "work": "SELECT ?x WHERE { ?x a kgp:Work } LIMIT 1",
    "source": "SELECT ?x WHERE { ?x a kgp:Source } LIMIT 1",
    "claim": "SELECT ?x WHERE { ?x kgp:holder ?who } LIMIT 1",
    "statement": "SELECT ?x WHERE { ?x a kgp:Statement } LIMIT 1",
    "other": "SELECT ?x WHERE { ?x a kgp:Person } OFFSET 1 LIMIT 1",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", required=True, help="a store `kgprofiles build` made")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--whole", action="store_true", help="also time the queries without parameters")
    args = parser.parse_args()
    from kgprofiles.config import load_settings
    from kgprofiles.errors import KgError
    from kgprofiles.queries import load_queries, select_rows
    from kgprofiles.store.oxigraph import OxigraphStore

    store = OxigraphStore(args.store, read_only=True)
    queries = load_queries(load_settings(ROOT).queries_dir)
    samples = {}
    for kind, text in SAMPLES.items():
        rows = store.query(text).rows  # type: ignore[union-attr]
        if rows:
            samples[kind] = rows[0]["x"]
    found = []
    for name, query in sorted(queries.items()):
        if "# endpoint: wikidata" in query.text:
            continue
        wanted = [p for p in query.params if p.type != "string" and not p.optional]
        kinds = {p.name: KIND_OF.get(p.name, p.name if p.name in SAMPLES else p.type) for p in wanted}
        if any(kind not in samples for kind in kinds.values()) or any(
            p.type == "string" and not p.optional for p in query.params
        ):
            continue
        values = {param: samples[kind] for param, kind in kinds.items()}
        if not values and not args.whole:
            continue
        try:
            select_rows(store, query, values)
            best, rows = float("inf"), 0
            for _ in range(args.runs):
                started = time.perf_counter()
                rows = len(select_rows(store, query, values).rows)
                best = min(best, time.perf_counter() - started)
        except KgError:  # (a CONSTRUCT or ASK named query: not rows)
            continue
        found.append((bool(values), best, name, rows, sorted(values)))
    for bound_to_one, title in ((True, "bound to one thing"), (False, "the whole graph")):
        listed = sorted((x for x in found if x[0] is bound_to_one), reverse=True)[: args.top]
        if listed:
            print(f"{title}:\n{'ms':>9}  {'query':32} {'rows':>7}  parameters")
        for _, seconds, name, rows, bound in listed:
            print(f"{1000 * seconds:9.1f}  {name:32} {rows:7d}  {', '.join(bound)}")


if __name__ == "__main__":
    main()
