"""A resource's data forms (Turtle, N-Triples, JSON-LD, RDF/XML) on a store that `kgprofiles
build` made: for a sample of people (their profile export) and of sources (their description),
the median time of each form, and of JSON-LD both ways (``kgprofiles.jsonld_nodes`` against
rdflib's graph, alternating, the outputs asserted equal). Medians of one run.

    .venv/bin/python bench/data_forms.py --store /tmp/s10k [--people 200]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import pyoxigraph as ox

from kgprofiles.export import _rdflib_context, jsonld_document, rdflib_nodes, serialize_triples, to_rdfxml
from kgprofiles.profiles import Views
from kgprofiles.queries import get_query
from kgprofiles.store.oxigraph import OxigraphStore
from kgprofiles.vocab import ids

QUERIES = Path(__file__).resolve().parents[1] / "queries"


def median_ms(make: Callable[[], object], samples: list[list[ox.Triple]]) -> float:
    times = []
    for triples in samples:
        started = time.perf_counter()
        make(triples)  # type: ignore[call-arg]
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", required=True, type=Path)
    parser.add_argument("--people", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    store = OxigraphStore(args.store, read_only=True)
    views = Views(store, QUERIES)
    rng = random.Random(args.seed)
    people = [row["person"] for row in views.select("people").rows]
    export = get_query(QUERIES, "person-export")
    key = lambda t: (str(t.subject), str(t.predicate), str(t.object))  # noqa: E731
    kinds: dict[str, list[list[ox.Triple]]] = {
        "person (profile export)": [
            sorted(set(export.run(store, {"person": p})), key=key)  # type: ignore[arg-type]
            for p in rng.sample(people, min(args.people, len(people)))
        ]
    }
    sources = [r["s"] for r in store.query("SELECT DISTINCT ?s WHERE { ?c kgp:source ?s }").rows]  # type: ignore[union-attr]
    kinds["source (description)"] = [
        sorted(views.description(s.value), key=key) for s in rng.sample(sources, min(args.people, len(sources)))
    ]
    context = _rdflib_context(ids().base)
    for kind, samples in kinds.items():
        for triples in samples:  # the two JSON-LD paths give the same bytes
            assert serialize_triples(triples, "jsonld") == jsonld_document(rdflib_nodes(triples, context))
        figures = {
            "ttl": median_ms(lambda t: serialize_triples(t, "ttl"), samples),
            "nt": median_ms(lambda t: serialize_triples(t, "nt"), samples),
            "jsonld": median_ms(lambda t: serialize_triples(t, "jsonld"), samples),
            "jsonld via rdflib's graph": median_ms(lambda t: jsonld_document(rdflib_nodes(t, context)), samples),
            "rdf": median_ms(to_rdfxml, samples),
        }
        triples = statistics.median(len(s) for s in samples)
        print(f"{kind}: {len(samples)} resources, {triples:.0f} triples (median)")
        for form, ms in figures.items():
            print(f"  {form:28s} {ms:7.2f} ms")
    store.close()


if __name__ == "__main__":
    main()
