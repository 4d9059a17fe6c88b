"""Related people per person on a synthetic graph: the per-person queries (one-shot views) and the
in-memory index, each the median of three passes over every fifth person.

Usage: ``PYTHONPATH=src python bench/related_evidence.py --data bench/out/people-300-seed-5 [--root .]``
(make the data with ``python bench/generate.py --people 300 --seed 5``). ``--root`` is the checkout
whose queries are used, so two checkouts can be compared on the same data.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import pyoxigraph as ox

from kgprofiles.config import load_settings
from kgprofiles.pipeline import build
from kgprofiles.queries import load_queries
from kgprofiles.related import related_people
from kgprofiles.related_index import RelatedIndex
from kgprofiles.store.oxigraph import OxigraphStore


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    args = parser.parse_args()
    settings = load_settings(args.root, store="memory:")
    store = OxigraphStore("memory:")
    build(settings, [args.data], store=store)
    queries = load_queries(settings.queries_dir)
    people = sorted(
        {
            q.subject.value
            for q in store.quads()
            if q.subject.value.startswith("http://example.org/kgprofiles-synthetic/person/")
            and q.predicate.value.endswith("#name")
        }
    )[::5]
    nodes = [ox.NamedNode(p) for p in people]

    def per_person(run) -> float:
        passes = []
        for _ in range(3):
            started = time.perf_counter()
            for node in nodes:
                run(node)
            passes.append((time.perf_counter() - started) / len(nodes) * 1000)
        return statistics.median(passes)

    queries_ms = per_person(lambda node: related_people(store, queries, node, None, 10))
    index = RelatedIndex(store, queries)
    index_ms = per_person(lambda node: index.related(node, 10))
    print(
        f"{len(nodes)} people: queries {queries_ms:.1f} ms a person, index {index_ms:.2f} ms a person "
        f"(index read in {index.seconds:.2f} s)"
    )


if __name__ == "__main__":
    main()
