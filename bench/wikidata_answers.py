"""Benchmark of reading a Wikidata endpoint's SPARQL JSON answer (issue 14): the client's reader
(``kgprofiles.link.answers.read_select``: ``json`` with each term made a pyoxigraph term as it is
read, and every value capped) beside pyoxigraph's own results parser (``parse_query_results`` then
``SelectResult.from_solutions``), on a synthetic answer of ROWS rows shaped like the answer to
``queries/wikidata-entities.rq``; then both on one row with a value of BIG characters.

Each reader runs in its own child process, so its peak memory (``ru_maxrss``) is its own.
Timings are wall clock on a shared machine: compare within a run.

Usage: ``python bench/wikidata_answers.py [--rows 300000] [--big 10000000]``
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def write_answer(path: Path, rows: int, label: str | None = None) -> int:
    """An answer with ``rows`` rows (item, kind, value), ``label`` as every value when given,
    written row by row (so this process stays small: a child inherits its peak memory); its size."""
    with path.open("w", encoding="utf-8") as out:
        out.write('{"head": {"vars": ["item", "kind", "value"]}, "results": {"bindings": [')
        for i in range(rows):
            binding = {
                "item": {"type": "uri", "value": f"http://www.wikidata.org/entity/Q{900000000 + i}"},
                "kind": {"type": "literal", "value": "label"},
                "value": {"type": "literal", "value": label or f"Synthetic Label {i}", "xml:lang": "en"},
            }
            out.write(("," if i else "") + json.dumps(binding))
        out.write("]}}")
    return path.stat().st_size


def read(reader: str, path: str) -> None:
    """Child process: read the answer at ``path`` with ``reader``, print one JSON line of figures."""
    body = Path(path).read_bytes()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    outcome = "ok"
    try:
        if reader == "read_select":
            from kgprofiles.link.answers import read_select

            result, notes = read_select(body, 1000, "bench")
            rows = len(result.rows)
            if notes:
                outcome = f"{len(notes)} value(s) left out"
        else:
            import pyoxigraph as ox

            from kgprofiles.store.base import SelectResult

            parsed = ox.parse_query_results(body, format=ox.QueryResultsFormat.JSON)
            rows = len(SelectResult.from_solutions(parsed).rows)  # type: ignore[arg-type]
    except MemoryError as error:
        rows, outcome = 0, f"MemoryError: {error}"
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        json.dumps(
            {
                "rows": rows,
                "s": round(seconds, 2),
                "peak_mb": peak // 1024,
                "grew_mb": (peak - before) // 1024,
                "outcome": outcome,
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--big", type=int, default=10_000_000)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        read(*args.child)
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "answer.json"
        cases = {f"{args.rows:,} rows": (args.rows, None), f"one value of {args.big:,} characters": (1, "A" * args.big)}
        for name, (rows, label) in cases.items():
            size = write_answer(path, rows, label)
            print(f"{name} ({size / 1e6:.1f} MB):")
            for reader in ("read_select", "pyoxigraph"):
                done = subprocess.run(
                    [sys.executable, __file__, "--child", reader, str(path)], capture_output=True, text=True, check=True
                )
                print(f"  {reader:<12} {done.stdout.strip()}")


if __name__ == "__main__":
    main()
