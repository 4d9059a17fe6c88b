"""How `kgprofiles load` grows with the number of files it loads (issue 13: linear, not quadratic).

On a store built from N synthetic people (``bench/generate.py``; built once with ``kgprofiles
build``, or reused with ``--store``), it loads k person files for each k of ``--sizes`` (default 1,
50 and 500): half of them new people (the generator's people N, N+1, …, who cite works of the
people before them), half replacements of existing people (their own file with the name revised).
Each load runs in a fresh child process on a fresh copy of the store (pyoxigraph's backup: hard
links, so a copy costs nothing), timing the library call ``kgprofiles.pipeline.load``: *warm*, as a
long-lived process calls it (the store open, one load done before), and *cold*, as the command
does (it opens the store; the process compiles the shapes and rules first); medians of
``--repeats`` runs; and once the ``kgprofiles load`` command (wall time of the process, start-up
included). It prints a least-squares fit of the warm time against k: the slope is the cost of one
more file, and a linear load has a fit that holds at every size.

``--against REV`` also measures the code of another revision (``git archive`` of its ``src/``,
imported by the child instead of the working tree's) for ``--against-files`` files on a store of
``--against-people`` people, alternating with the current code in the same run, and prints the ratio.

    .venv/bin/python bench/load.py --people 10000 --against 1781d07
    .venv/bin/python bench/load.py --people 100000 --store /tmp/s100k --sizes 1,50,500

Figures go to stdout, and to ``bench/RESULTS.md`` unless ``--no-record``; raw figures to
``bench/out/load-<time>.json``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
OUT_DIR = BENCH_DIR / "out"
Json = dict[str, Any]


def _bench_module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"kgprofiles_bench_{name}", BENCH_DIR / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------------------- the files to load


def load_files(data: Path, people: int, seed: int, count: int) -> Path:
    """``count`` person files laid out like data/ (``people/pNNNNNN.ttl``) under bench/out: the
    first half (rounded up) new people N, N+1, …; the rest existing people, spread over the
    index, each with their name revised. Written once per (N, seed, count)."""
    generator = _bench_module("generate")
    out = OUT_DIR / "load-files" / f"people-{people}-seed-{seed}" / f"k{count}"
    done = out / "done"
    if done.exists():
        return out
    shutil.rmtree(out, ignore_errors=True)
    (out / "people").mkdir(parents=True)
    namer = generator.Namer(people)
    new = (count + 1) // 2
    for i in range(people, people + new):
        text, _ = generator.person_file(namer, seed, i)
        (out / "people" / f"{namer.pid(i)}.ttl").write_text(text, encoding="utf-8")
    replaced = count - new
    for j in range(replaced):
        i = (j * people) // replaced
        source = data / "people" / f"{namer.pid(i)}.ttl"
        text = source.read_text(encoding="utf-8")
        revised = text.replace(f'"Synthetic Person {i}"', f'"Synthetic Person {i} (revised)"')
        assert revised != text, f"no name to revise in {source}"
        (out / "people" / f"{namer.pid(i)}.ttl").write_text(revised, encoding="utf-8")
    warm = out.parent / "warm" / "people"
    if not warm.exists():  # the last person, revised: loaded first by a "warm" child
        warm.mkdir(parents=True)
        last = people - 1
        text = (data / "people" / f"{namer.pid(last)}.ttl").read_text(encoding="utf-8")
        revised = text.replace(f'"Synthetic Person {last}"', f'"Synthetic Person {last} (warm-up)"')
        (warm / f"{namer.pid(last)}.ttl").write_text(revised, encoding="utf-8")
    done.write_text("", encoding="utf-8")
    return out


# ------------------------------------------------------------------------------- stores


def base_store(args: argparse.Namespace, people: int, data: Path) -> Path:
    """The published generation of the store to load into: ``--store``, or a build of ``data``."""
    store = Path(args.store) if args.store and people == args.people else OUT_DIR / f"load-store-{people}-{args.seed}"
    if not store.exists():
        print(f"building {store} from {data} …", flush=True)
        env = {**os.environ, "KGPROFILES_DATA": str(data)}
        subprocess.run(
            [str(Path(sys.executable).parent / "kgprofiles"), "build", "--store", str(store), "-q"],
            cwd=ROOT,
            env=env,
            check=True,
        )
    return store.resolve()


def fresh_copy(base: Path, run_dir: Path) -> Path:
    """A store laid out as ``kgprofiles build`` publishes one (a link to a generation), holding
    a backup of ``base`` (hard links to its immutable files) and a copy of its search index
    (without it, a load writes the whole index: 5 s at 10,000 people)."""
    import pyoxigraph as ox

    generation = run_dir / "store.generations" / "copy"
    generation.parent.mkdir(parents=True)
    source = ox.Store.read_only(str(base))
    source.backup(str(generation))
    del source
    for kept in base.iterdir():  # what the generation keeps beside the store's own files: its search index
        if kept.suffix == ".sqlite":
            shutil.copyfile(kept, generation / kept.name)
    (run_dir / "store").symlink_to(os.path.relpath(generation, run_dir))
    return run_dir / "store"


# ------------------------------------------------------------------------------- one load (child)


def child(argv: list[str]) -> None:
    """``load.py child MODE STORE DATA_DIR WARM_FILE FILE…``: time ``pipeline.load`` of the files
    once and print JSON. MODE ``cold``: the call as the command makes it (it opens the store, and
    the process compiles the shapes and rules first). MODE ``warm``: as a long-lived process makes
    it, a first load (of WARM_FILE) done, so shapes and rules are compiled. Each load writes a new
    generation (a hard-linked copy of the published one) and publishes it, as the command does."""
    mode, store, data, warm, *files = argv
    import kgprofiles
    from kgprofiles.config import load_settings
    from kgprofiles.pipeline import load

    settings = load_settings(ROOT).with_overrides(data_dir=Path(data), store=store)
    if mode == "warm":
        load(settings, [Path(warm)])
    started = time.perf_counter()
    report = load(settings, [Path(f) for f in files])
    seconds = time.perf_counter() - started
    print(
        json.dumps(
            {
                "seconds": seconds,
                "stages": {k: round(v, 3) for k, v in report.stage_seconds.items()},
                "triples": report.triples,
                "notes": list(report.notes)[:5],
                "code": str(Path(kgprofiles.__file__).parent),
            }
        )
    )


def run_load(base: Path, files: Path, mode: str, src: Path | None = None) -> Json:
    """One load of every file under ``files`` into a fresh copy of ``base``, in a child process:
    through the library (``mode`` "cold" or "warm", see ``child``), or through the ``kgprofiles
    load`` command ("cli": wall time of the process)."""
    run_dir = OUT_DIR / "load-run"
    shutil.rmtree(run_dir, ignore_errors=True)
    run_dir.mkdir(parents=True)
    try:
        store = fresh_copy(base, run_dir)
        data = run_dir / "data"
        shutil.copytree(files / "people", data / "people")  # at the paths of the graphs they replace
        paths = sorted(str(p) for p in (data / "people").glob("*.ttl"))
        (warm,) = (files.parent / "warm" / "people").glob("*.ttl")
        warm = Path(shutil.copy(warm, data / "people" / warm.name))  # not among the paths loaded
        env = dict(os.environ)
        if src is not None:
            env["PYTHONPATH"] = str(src)
        if mode != "cli":
            done = subprocess.run(
                [sys.executable, __file__, "child", mode, str(store), str(data), str(warm), *paths],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            if done.returncode != 0:
                raise SystemExit(f"the {mode} load failed (exit {done.returncode}):\n{done.stderr[-4000:]}")
            return json.loads(done.stdout.strip().splitlines()[-1])
        env["KGPROFILES_DATA"] = str(data)
        command = [str(Path(sys.executable).parent / "kgprofiles"), "load", "--store", str(store), "-q", *paths]
        started = time.perf_counter()
        subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
        return {"seconds": time.perf_counter() - started}
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)


def exported_src(rev: str) -> Path:
    """``src/`` of revision ``rev``, exported once under bench/out, with that revision's own
    queries, shapes and ontology where an installed wheel keeps them (``kgprofiles/resources/``),
    so the old code runs its own queries, not the checkout's."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    out = OUT_DIR / f"src-{commit}"
    resources = out / "kgprofiles" / "resources"
    if not resources.exists():
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        archive = subprocess.run(["git", "archive", commit, "src"], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "--strip-components=1", "-C", str(out)], input=archive, check=True)
        parts = ["queries", "shapes", "ontology"]
        archive = subprocess.run(["git", "archive", commit, *parts], cwd=ROOT, capture_output=True, check=True).stdout
        resources.mkdir()
        subprocess.run(["tar", "-x", "-C", str(resources)], input=archive, check=True)
    return out


# ------------------------------------------------------------------------------- figures


def fit(points: list[tuple[int, float]]) -> Json:
    """Least squares ``t = a + b·k`` through the points, with R² and each point's residual."""
    ks = [k for k, _ in points]
    ts = [t for _, t in points]
    mk, mt = statistics.fmean(ks), statistics.fmean(ts)
    sxx = sum((k - mk) ** 2 for k in ks)
    b = sum((k - mk) * (t - mt) for k, t in points) / sxx if sxx else 0.0
    a = mt - b * mk
    total = sum((t - mt) ** 2 for t in ts)
    residual = sum((t - (a + b * k)) ** 2 for k, t in points)
    return {"a": a, "b": b, "r2": 1 - residual / total if total else 1.0}


def measure(args: argparse.Namespace, run: ModuleType) -> Json:
    manifest = run.ensure_data(args.people, args.seed)
    data = Path(manifest["dir"])
    base = base_store(args, args.people, data)
    result: Json = {"people": args.people, "store": str(base), "sizes": []}
    for k in args.sizes:
        files = load_files(data, args.people, args.seed, k)
        runs = [run_load(base, files, "warm") for _ in range(args.repeats)]
        cold = [run_load(base, files, "cold") for _ in range(args.repeats)]
        cli = run_load(base, files, "cli")
        seconds = [r["seconds"] for r in runs]
        middle = sorted(runs, key=lambda r: r["seconds"])[len(runs) // 2]
        entry = {
            "files": k,
            "library_s": seconds,
            "median_s": statistics.median(seconds),
            "cold_s": [r["seconds"] for r in cold],
            "cold_median_s": statistics.median(r["seconds"] for r in cold),
            "cli_s": cli["seconds"],
            "stages": middle["stages"],
            "triples": runs[0]["triples"],
            "notes": runs[0]["notes"],
        }
        result["sizes"].append(entry)
        print(
            f"  {k:>4} files ({entry['triples']:,} triples): warm median {entry['median_s']:.2f} s "
            f"(runs {', '.join(f'{s:.2f}' for s in seconds)}), cold median {entry['cold_median_s']:.2f} s, "
            f"CLI {cli['seconds']:.2f} s, stages {entry['stages']}",
            flush=True,
        )
    result["fit"] = fit([(e["files"], e["median_s"]) for e in result["sizes"]])
    if args.against:
        result["against"] = against(args, run)
    return result


def against(args: argparse.Namespace, run: ModuleType) -> Json:
    """The other revision and the current code, alternating, on the same files and store."""
    manifest = run.ensure_data(args.against_people, args.seed)
    data = Path(manifest["dir"])
    base = base_store(args, args.against_people, data)
    files = load_files(data, args.against_people, args.seed, args.against_files)
    old_src = exported_src(args.against)
    old: list[float] = []
    new: list[float] = []
    for _ in range(args.against_repeats):
        old.append(run_load(base, files, "warm", src=old_src)["seconds"])
        new.append(run_load(base, files, "warm")["seconds"])
        print(f"  against {args.against}: old {old[-1]:.2f} s, new {new[-1]:.2f} s", flush=True)
    return {
        "rev": args.against,
        "people": args.against_people,
        "files": args.against_files,
        "old_s": old,
        "new_s": new,
        "ratio": statistics.median(old) / statistics.median(new),
    }


def markdown(result: Json, info: Json, command: str, started: str) -> str:
    f = result["fit"]
    lines = [
        f"## {started} — `kgprofiles load` of k person files into {result['people']:,} people (issue 13)",
        "",
        f"Command: `{command}`",
        "",
        f"Machine: {info['nproc']} cores ({info['cpu']}), {info['memory_gib']} GiB, Python {info['python']}, "
        f"pyoxigraph {info['versions']['pyoxigraph']}; code {info['code']} ({info['uncommitted_files']} "
        "uncommitted files under src/queries/shapes/ontology). The machine is shared: read medians and ratios.",
        "",
        "| files (half new people, half revised) | triples | `pipeline.load` warm, median s (runs) "
        "| cold, median s | `kgprofiles load`, wall s | stages of the median warm run, s |",
        "|---|---|---|---|---|---|",
    ]
    for e in result["sizes"]:
        runs = ", ".join(f"{s:.2f}" for s in e["library_s"])
        stages = ", ".join(f"{k} {v:.2f}" for k, v in e["stages"].items())
        lines.append(
            f"| {e['files']} | {e['triples']:,} | **{e['median_s']:.2f}** ({runs}) | {e['cold_median_s']:.2f} "
            f"| {e['cli_s']:.2f} | {stages} |"
        )
    lines += [
        "",
        f"Least-squares fit of the warm medians: t ≈ {f['a']:.2f} s + {f['b'] * 1000:.1f} ms × files "
        f"(R² = {f['r2']:.4f}).",
    ]
    for e in result["sizes"]:
        predicted = f["a"] + f["b"] * e["files"]
        lines.append(f"- {e['files']} files: measured {e['median_s']:.2f} s, fit {predicted:.2f} s")
    if "against" in result:
        a = result["against"]
        lines += [
            "",
            f"Before/after, {a['files']} files into {a['people']:,} people, warm, alternating in this run: "
            f"{a['rev']} {', '.join(f'{s:.2f}' for s in a['old_s'])} s, this code "
            f"{', '.join(f'{s:.2f}' for s in a['new_s'])} s: **×{a['ratio']:.1f}** faster (medians).",
        ]
    return "\n".join(lines) + "\n"


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--people", type=int, default=10_000, help="people in the store (default 10,000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--store", help="a store `kgprofiles build` made from bench/generate.py's data (else built)")
    parser.add_argument("--sizes", default="1,50,500", help="files per load (default 1,50,500)")
    parser.add_argument("--repeats", type=int, default=3, help="library runs per size (median)")
    parser.add_argument("--against", help="also time this git revision's code (before/after)")
    parser.add_argument("--against-people", type=int, default=1000)
    parser.add_argument("--against-files", type=int, default=50)
    parser.add_argument("--against-repeats", type=int, default=3)
    parser.add_argument("--no-record", action="store_true", help="do not append to bench/RESULTS.md")
    args = parser.parse_args(argv)
    args.sizes = [int(s) for s in args.sizes.split(",")]
    return args


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["child"]:
        child(argv[1:])
        return
    args = parse_args(argv)
    run = _bench_module("run")
    started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    command = "python bench/load.py " + shlex.join(argv)
    print(f"{command} ({started})", flush=True)
    result = measure(args, run)
    f = result["fit"]
    print(f"fit: t ≈ {f['a']:.2f} s + {f['b'] * 1000:.1f} ms × files (R² = {f['r2']:.4f})")
    if "against" in result:
        print(f"against {result['against']['rev']}: ×{result['against']['ratio']:.1f}")
    OUT_DIR.mkdir(exist_ok=True)
    raw = OUT_DIR / f"load-{datetime.now(UTC).strftime('%Y%m%dT%H%M%S')}.json"
    raw.write_text(json.dumps(result, indent=2), encoding="utf-8")
    if not args.no_record:
        run.append_results(markdown(result, run.machine(), command, started))


if __name__ == "__main__":
    main()
