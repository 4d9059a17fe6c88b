"""Benchmark of the fast paths (issue 7): validation, inference, a whole build and ``load`` of one
changed profile, on N synthetic people from ``bench/generate.py``, with an on-disk store.

The build is the one ``kgprofiles.fast`` proposes (see ``src/kgprofiles/fast/__init__.py``):

1. **parse**: ``kgprofiles.ingest.parse_files`` (the pipeline's own parse, with file:line maps);
2. **store data**: every file's graph and the ontology graph into a fresh on-disk pyoxigraph store
   (N-Quads written by pyoxigraph, then ``Store.bulk_load``);
3. **validate**: ``fast.validate_store`` on that store (literal fidelity scan included);
4. **infer**: ``fast.infer_into`` the inferred graph of that store (passes, then bulk load);
5. **load**: ``fast.incremental.plan_load`` for one edited profile (its headline changed, a topic
   swapped, a role dropped), then the patch applied as one SPARQL update (one transaction);
   ``--loads`` different people, median and max.

``--reference`` also runs pyshacl and owlrl (``validate_files``, ``infer.closure``) on the same data
and checks that the fast results are the same (only sensible up to a few thousand people).
Peak memory is ``ru_maxrss`` of this process. Timings are wall clock on a shared machine: compare
within a run.

Usage: ``python bench/fast_paths.py --people 10000 [--seed 7] [--repeats 3] [--loads 7] [--reference]``
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from kgprofiles.config import load_settings
from kgprofiles.fast import infer_into, scan_literals, validate_store
from kgprofiles.fast.incremental import LoadPlan, plan_load
from kgprofiles.fast.stores import ontology_quads
from kgprofiles.ingest import SourceFile, parse_files
from kgprofiles.validate import load_ontology, load_shapes, locate_subjects
from kgprofiles.vocab import INFERRED_GRAPH

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
KGP = "https://w3id.org/kgprofiles/ontology#"


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = fn()
    return time.perf_counter() - started, result


def say(name: str, value: object) -> None:
    """One figure as soon as it is known (a long run that fails later still tells something),
    with the peak memory so far."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(f"{name}: {value} (peak so far {peak} MB)", file=sys.stderr, flush=True)


def generate(people: int, seed: int, out: Path) -> Path:
    target = out / f"people-{people}-seed-{seed}"
    if not (target / "generator.json").exists():
        subprocess.run(
            [
                sys.executable,
                str(BENCH / "generate.py"),
                "--people",
                str(people),
                "--seed",
                str(seed),
                "--out",
                str(target),
            ],
            check=True,
        )
    return target


def store_data(path: Path, files: Sequence[SourceFile], ontology: Any) -> ox.Store:
    if path.exists():
        shutil.rmtree(path)
    store = ox.Store(str(path))
    with tempfile.NamedTemporaryFile(suffix=".nq", dir=path.parent) as handle:
        for f in files:
            graph = ox.NamedNode(f.graph)
            handle.write(
                ox.serialize(
                    (ox.Quad(t.subject, t.predicate, t.object, graph) for t in f.triples), format=ox.RdfFormat.N_QUADS
                )
            )
        handle.write(ox.serialize(ontology_quads(ontology), format=ox.RdfFormat.N_QUADS))
        handle.flush()
        store.bulk_load(path=handle.name, format=ox.RdfFormat.N_QUADS)
    return store


def edited_profile(f: SourceFile, rng: random.Random) -> SourceFile:
    """The person's file with the headline changed, one topic swapped and one role dropped."""
    topic = ox.NamedNode(f"{KGP}topic")
    headline = ox.NamedNode(f"{KGP}headline")
    holder = ox.NamedNode(f"{KGP}holder")
    triples = list(f.triples)
    roles = sorted({t.subject for t in triples if t.predicate == holder}, key=str)
    dropped = roles[-1] if len(roles) > 1 else None
    out = []
    person = None
    for t in triples:
        if dropped is not None and t.subject == dropped:
            continue
        if t.predicate == headline:
            t = ox.Triple(t.subject, t.predicate, ox.Literal(f"Edited headline {rng.random():.6f}"))
        if t.predicate == topic:
            person = t.subject
            continue
        out.append(t)
    if person is not None:
        n = rng.randrange(50)
        out.append(ox.Triple(person, topic, ox.NamedNode(f"http://example.org/kgprofiles-synthetic/topic/t{n:02d}")))
    return SourceFile(f.path, f.display, f.graph, tuple(out), f.subject_lines)


def apply_plan(store: ox.Store, files: Sequence[SourceFile], plan: LoadPlan) -> None:
    """The load as one SPARQL update (one transaction): the files' graphs, then the inferred patch."""
    parts = []
    for f in files:
        body = "\n".join(f"{t.subject} {t.predicate} {t.object} ." for t in f.triples)
        parts.append(f"DROP SILENT GRAPH <{f.graph}> ;\nINSERT DATA {{ GRAPH <{f.graph}> {{\n{body}\n}} }}")
    if plan.inferred_remove:
        body = "\n".join(f"{t.subject} {t.predicate} {t.object} ." for t in plan.inferred_remove)
        parts.append(f"DELETE DATA {{ GRAPH <{INFERRED_GRAPH}> {{\n{body}\n}} }}")
    if plan.inferred_add:
        body = "\n".join(f"{t.subject} {t.predicate} {t.object} ." for t in plan.inferred_add)
        parts.append(f"INSERT DATA {{ GRAPH <{INFERRED_GRAPH}> {{\n{body}\n}} }}")
    store.update(" ;\n".join(parts))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--people", type=int, required=True)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeats", type=int, default=1, help="validation runs (median)")
    parser.add_argument("--loads", type=int, default=7, help="profiles loaded incrementally (median)")
    parser.add_argument("--reference", action="store_true", help="also run pyshacl and owlrl and compare")
    parser.add_argument("--workdir", type=Path, default=BENCH / "out" / "fast")
    args = parser.parse_args(argv)
    args.workdir.mkdir(parents=True, exist_ok=True)
    settings = load_settings(ROOT, store="memory:")
    shapes, ontology = load_shapes(settings.shapes_dir), load_ontology(settings.ontology_dir)
    data = generate(args.people, args.seed, args.workdir)
    figures: dict[str, Any] = {"people": args.people, "seed": args.seed}

    figures["parse_s"], files = timed(lambda: parse_files([data], ROOT))
    say("parse_s", figures["parse_s"])
    figures["triples"] = sum(len(f.triples) for f in files)
    store_path = args.workdir / f"store-{args.people}"
    figures["store_data_s"], store = timed(lambda: store_data(store_path, files, ontology))
    say("store_data_s", figures["store_data_s"])

    def raw() -> Any:
        return (t for f in files for t in f.triples)

    figures["scan_s"], scan = timed(lambda: scan_literals(raw))
    locate = locate_subjects(files)
    runs = []
    for _ in range(args.repeats):
        seconds, validation = timed(lambda: validate_store(store, shapes, ontology, locate=locate, scan=scan, raw=raw))
        runs.append(seconds)
    figures["validate_s"] = statistics.median(runs)
    say("validate_s", runs)
    figures["validate_runs_s"] = runs
    figures["results"] = {
        f"{severity} {shape} {constraint}": n
        for (severity, shape, constraint), n in Counter(
            (r.severity, r.shape, r.constraint) for r in validation.report.results
        ).items()
    }
    figures["validate_notes"] = list(validation.notes)
    figures["infer_s"], inference = timed(lambda: infer_into(store, INFERRED_GRAPH, raw, ontology, scan=scan))
    figures["infer_passes_s"] = inference.seconds.get("passes")
    figures["infer_bulk_load_s"] = inference.seconds.get("load")
    figures["inferred"] = inference.count
    figures["inconsistencies"] = list(inference.inconsistencies)
    figures["infer_notes"] = list(inference.notes)
    for key in ("scan_s", "infer_s", "infer_passes_s", "infer_bulk_load_s"):
        say(key, figures[key])
    figures["build_s"] = sum(figures[k] for k in ("parse_s", "store_data_s", "scan_s", "infer_s")) + runs[0]
    if args.reference:
        figures.update(reference(files, settings, shapes, ontology, validation.report.results, store))

    rng = random.Random(args.seed)
    people = [f for f in files if "/people/" in f.display]
    loads = []
    for f in rng.sample(people, min(args.loads, len(people))):
        changed = edited_profile(f, rng)
        plan_s, plan = timed(lambda changed=changed: plan_load(store, [changed], shapes, ontology))
        apply_s, _ = timed(lambda changed=changed, plan=plan: apply_plan(store, [changed], plan))
        say("load", (f.display, round(plan_s, 3), round(apply_s, 3), plan.full_inference))
        loads.append(
            {"file": f.display, "plan_s": plan_s, "apply_s": apply_s, "total_s": plan_s + apply_s,
             "removed": len(plan.inferred_remove), "added": len(plan.inferred_add), "full": plan.full_inference,
             "violations": len(plan.report.violations), "notes": plan.notes}
        )  # fmt: skip
    figures["loads"] = loads
    if loads:
        figures["load_median_s"] = statistics.median(x["total_s"] for x in loads)
        figures["load_max_s"] = max(x["total_s"] for x in loads)
    figures["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    if args.reference and loads:
        figures["inference_same_after_loads"] = inferred_matches_owlrl(store, ontology)

    print(json.dumps(figures, indent=2, default=str))
    (args.workdir / f"fast-{args.people}.json").write_text(json.dumps(figures, indent=2, default=str))


def inferred_matches_owlrl(store: ox.Store, ontology: Any) -> bool:
    """Whether the store's inferred graph, patched by the loads, is owlrl's closure of its data."""
    from kgprofiles.infer import closure
    from kgprofiles.terms import graph_from_triples, triples_from_graph
    from kgprofiles.vocab import FILE_GRAPH_PREFIX

    data = graph_from_triples(
        q
        for q in store.quads_for_pattern(None, None, None, None)
        if isinstance(q.graph_name, ox.NamedNode) and q.graph_name.value.startswith(FILE_GRAPH_PREFIX)
    )
    scratch = ox.Store()
    scratch.extend(
        ox.Quad(t.subject, t.predicate, t.object, ox.DefaultGraph())
        for t in triples_from_graph(closure(data, ontology).triples)
    )
    stored = {q.triple for q in store.quads_for_pattern(None, None, None, ox.NamedNode(INFERRED_GRAPH))}
    return {q.triple for q in scratch} == stored


def reference(files, settings, shapes, ontology, results, store) -> dict[str, Any]:
    """pyshacl and owlrl on the same files, compared with the fast results (before any load)."""
    from kgprofiles.infer import closure
    from kgprofiles.ingest import union_graph
    from kgprofiles.terms import triples_from_graph
    from kgprofiles.validate import validate_files

    out: dict[str, Any] = {}
    out["pyshacl_s"], report = timed(lambda: validate_files(files, settings))
    out["validation_same"] = Counter(report.results) == Counter(results)
    data = union_graph(files)
    out["owlrl_s"], answer = timed(lambda: closure(data, ontology))
    scratch = ox.Store()
    scratch.extend(
        ox.Quad(t.subject, t.predicate, t.object, ox.DefaultGraph()) for t in triples_from_graph(answer.triples)
    )
    expected = {q.triple for q in scratch}
    stored = {q.triple for q in store.quads_for_pattern(None, None, None, ox.NamedNode(INFERRED_GRAPH))}
    out["inference_same"] = expected == stored
    out["owlrl_inferred"] = len(expected)
    return out


if __name__ == "__main__":
    main()
