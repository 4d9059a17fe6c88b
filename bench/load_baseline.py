"""The bar for `kgprofiles build`: pyoxigraph alone loading the same files into a fresh on-disk
store (each file parsed and bulk-loaded into its own named graph; no validation, no inference, no
compaction). Run it right after a build on the same data, and quote the ratio: the machine is
shared, absolute times drift from hour to hour.

    .venv/bin/python bench/load_baseline.py bench/out/data/people-100000-seed-1 --store /tmp/baseline
"""

from __future__ import annotations

import argparse
import resource
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, help="a directory of Turtle files (bench/generate.py's output)")
    parser.add_argument("--store", type=Path, required=True, help="a fresh directory (removed first)")
    args = parser.parse_args()
    files = sorted(args.data.rglob("*.ttl"))
    shutil.rmtree(args.store, ignore_errors=True)

    def quads() -> Iterator[ox.Quad]:
        for path in files:
            graph = ox.NamedNode(path.resolve().as_uri())
            for q in ox.parse(path=str(path), format=ox.RdfFormat.TURTLE, base_iri=graph.value):
                yield ox.Quad(q.subject, q.predicate, q.object, graph)

    started = time.perf_counter()
    store = ox.Store(str(args.store))
    store.bulk_extend(quads())
    store.flush()
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{len(files)} files, {len(store)} quads bulk-loaded in {seconds:.1f} s, peak {peak:,.0f} MiB")


if __name__ == "__main__":
    main()
