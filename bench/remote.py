"""Virtuoso 7 against the embedded store, the same synthetic people, in one run (issue 17).

For each backend, through the `kgprofiles` command (wall time, Python's start-up included):
build, a one-file `load`, `profile` of one person (with its related people), `related --all`
and `export --format nq`. Virtuoso runs on 127.0.0.1 with a scratch database, its own ini (the
default ResultSetMaxRows, 10,000; NumberOfBuffers as its documentation advises for 4 GB of free
memory, --virtuoso-buffers) and the update user of tests/servers.py; it is stopped at the end.
The build's own summary (time by step) is printed, and whether both backends exported the same
quads.

    .venv/bin/python bench/remote.py --people 1000
    .venv/bin/python bench/remote.py --people 10000 --repeats 1
    .venv/bin/python bench/remote.py --people 100000 --repeats 1 --backends virtuoso,embedded

Appends a dated section to bench/RESULTS.md unless --no-record.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out"
KGPROFILES = Path(sys.executable).with_name("kgprofiles")
sys.path.insert(0, str(ROOT / "tests"))

from servers import VirtuosoServer  # noqa: E402  (the tests' own server: one way to start one)


def timed(command: list[str], env: dict[str, str], show: bool = False) -> float:
    """The wall time of ``command`` (if ``show``, its time by step and its output's last line are
    printed); a failure is reported and counted as NaN (the run goes on)."""
    started = time.monotonic()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.monotonic() - started
    if done.returncode != 0:
        print(
            f"FAILED ({done.returncode}) after {elapsed:.1f} s: {' '.join(command)}\n{done.stderr[-1500:]}", flush=True
        )
        return float("nan")
    if show:  # the build's time by step ("build: parse done in 102.22s"), then its last line
        steps = [line for line in done.stderr.splitlines() if " done in " in line]
        print(*(f"  {line}" for line in steps), sep="\n", flush=True)
        print(f"  {(done.stdout.strip() or done.stderr.strip()).splitlines()[-1:]}", flush=True)
    return elapsed


def exports_agree(first: Path, second: Path) -> bool:
    """Whether two N-Quads files hold the same lines (in any order), compared sorted on disk (at
    100,000 people each export is 24 M lines: as Python sets, tens of GB); if not, the first few
    lines only one of them holds are printed."""
    sorted_files = []
    bytewise = {**os.environ, "LC_ALL": "C"}
    for path in (first, second):
        target = path.with_name(path.name + ".sorted")
        subprocess.run(["sort", "-u", "-S", "1G", "-o", str(target), str(path)], env=bytewise, check=True)
        sorted_files.append(target)
    only = subprocess.run(["comm", "-3", *map(str, sorted_files)], capture_output=True, env=bytewise, check=True)
    if not only.stdout:
        return True
    print("lines in only one export (second export's indented):", *only.stdout.decode().splitlines()[:10], sep="\n  ")
    return False


def data_for(people: int, seed: int) -> Path:
    data = OUT / "data" / f"people-{people}-seed-{seed}"
    if not (data / "generator.json").exists():
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "bench" / "generate.py"),
                "--people",
                str(people),
                "--seed",
                str(seed),
                "--out",
                str(data),
            ],
            check=True,
        )
    return data


def run(args: argparse.Namespace) -> dict[str, dict[str, list[float]]]:
    data = data_for(args.people, args.seed)
    person = "http://example.org/kgprofiles-synthetic/person/p000007"
    one_file = sorted((data / "people").glob("*.ttl"))[len(list((data / "people").glob("*.ttl"))) // 2]
    scratch = Path(tempfile.mkdtemp(prefix="bench-remote-", dir=OUT))
    figures: dict[str, dict[str, list[float]]] = {}
    server = VirtuosoServer(scratch / "virtuoso", buffers=args.virtuoso_buffers)
    try:
        server.start()
        print(f"virtuoso started in {server.startup_s:.1f} s", flush=True)
        known = {
            "embedded": (["--store", str(scratch / "store")], {}),
            "virtuoso": (
                ["--endpoint", server.query_endpoint, "--server-kind", "virtuoso"],
                server.credentials_env,
            ),
        }
        backends = {name: known[name] for name in args.backends}
        project = scratch / "project"  # the bundled ontology, shapes and queries; a long query timeout
        project.mkdir()
        (project / "kgprofiles.toml").write_text(f'[kgprofiles]\ndata = "{data}"\nquery_timeout_s = {args.timeout}\n')
        for name, (where, extra) in backends.items():
            env = {**os.environ, **extra}
            kg = [str(KGPROFILES), "--project", str(project)]
            steps = {
                "build": [*kg, "build", *where],
                "load 1 file": [*kg, "load", str(one_file), *where],
                "profile with related": [*kg, "profile", person, *where],
                "related --all": [*kg, "related", "--all", "-q", "-o", str(scratch / f"{name}.jsonl"), *where],
                "export nq": [*kg, "export", "--format", "nq", "-o", str(scratch / f"{name}.nq"), *where],
            }
            figures[name] = {}
            for step, command in steps.items():
                if args.steps and step.split()[0] not in args.steps:
                    continue
                repeats = 1 if step == "build" else args.repeats
                figures[name][step] = [timed(command, env, show=step == "build") for _ in range(repeats)]
                print(f"{name} {step}: {', '.join(f'{t:.2f}' for t in figures[name][step])} s", flush=True)
        if len(backends) < 2:
            return figures  # nothing to compare
        outputs = [scratch / f"{name}.jsonl" for name in known]
        same = all(p.exists() for p in outputs) and outputs[0].read_bytes() == outputs[1].read_bytes()
        figures["same related --all"] = {"": [float(same)]}
        print(f"related --all identical on both: {same}", flush=True)
        exports = [scratch / f"{name}.nq" for name in known]
        same = all(p.exists() for p in exports) and exports_agree(*exports)
        figures["same export"] = {"": [float(same)]}
        print(f"export nq, sorted, identical on both: {same}", flush=True)
    finally:
        if args.keep:  # the bench's ini never checkpoints: without one, a restart replays the whole log
            with contextlib.suppress(Exception):  # (minutes at 10,000 people, past the start timeout)
                server.isql("checkpoint;")
        server.stop()
        if args.keep:
            print(f"kept: {scratch}", flush=True)
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    return figures


def record(args: argparse.Namespace, figures: dict[str, dict[str, list[float]]]) -> None:
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"\n## {now} — Virtuoso 7 against the embedded store, {args.people:,} people (issue 17)\n",
        f"Command: `python bench/remote.py --people {args.people} --repeats {args.repeats}`\n",
        "Machine: 2 cores shared with other work; Virtuoso 7.2.5 (Debian), default ResultSetMaxRows 10,000, "
        f"NumberOfBuffers {args.virtuoso_buffers:,}; "
        f"code {commit}. Wall time of each `kgprofiles` command (Python start-up included), median of the "
        "runs (the runs in brackets).\n",
        "| step | embedded, s | Virtuoso, s |",
        "|---|---|---|",
    ]
    for step in figures[args.backends[0]]:  # the steps run (--steps)
        cells = []
        for backend in ("embedded", "virtuoso"):
            runs = figures.get(backend, {}).get(step, [])
            shown = ", ".join("failed" if t != t else f"{t:.2f}" for t in runs)
            done = [t for t in runs if t == t]
            cells.append(
                f"**{statistics.median(done):.2f}** ({shown})" if done else f"failed ({shown})" if runs else "not run"
            )
        lines.append(f"| {step} | {cells[0]} | {cells[1]} |")
    if "same export" in figures:
        same = bool(figures["same related --all"][""][0])
        lines.append(f"\n`related --all` gave the same bytes on both backends: {'yes' if same else 'NO'}.")
        same = bool(figures["same export"][""][0])
        lines.append(f"`export --format nq`, sorted, gave the same quads on both: {'yes' if same else 'NO'}.\n")
    with open(ROOT / "bench" / "RESULTS.md", "a", encoding="utf-8") as results:
        results.write("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--people", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3, help="runs of each step but build (median)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds a query may take (query_timeout_s)")
    parser.add_argument(
        "--virtuoso-buffers", type=int, default=340_000, help="Virtuoso's NumberOfBuffers (8 KB pages it caches)"
    )
    parser.add_argument(
        "--backends",
        type=lambda text: text.split(","),
        default=["embedded", "virtuoso"],
        help="which backends to run, in this order (default: embedded,virtuoso); at 100,000 people "
        "Virtuoso first, so that its figures come first",
    )
    parser.add_argument(
        "--steps",
        type=lambda text: text.split(","),
        default=[],
        help="run only these steps, by first word (build,load,profile,related,export; default: all)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory (stores, outputs)")
    parser.add_argument("--no-record", action="store_true")
    args = parser.parse_args()
    unknown = set(args.backends) - {"embedded", "virtuoso"}
    if unknown:
        parser.error(f"unknown backend(s): {', '.join(sorted(unknown))} (embedded, virtuoso)")
    unknown = set(args.steps) - {"build", "load", "profile", "related", "export"}
    if unknown:
        parser.error(f"unknown step(s): {', '.join(sorted(unknown))} (build, load, profile, related, export)")
    OUT.mkdir(parents=True, exist_ok=True)
    figures = run(args)
    if not args.no_record:
        record(args, figures)


if __name__ == "__main__":
    main()
