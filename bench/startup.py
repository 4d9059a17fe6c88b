"""Start-up of everyday commands against the interpreter's own, in one run (issue: own graph, item 7).

    .venv/bin/python bench/startup.py [--runs 20]

Runs, round-robin so machine noise falls on all alike: ``python -c pass``, ``kgprofiles --version``,
``kgprofiles profile horace-he`` and ``kgprofiles people`` on the seed store (built first if
missing), and prints each command's median wall time and its excess over ``python -c pass``,
beside the targets (``--version`` within +0.15 s, ``profile`` within +0.4 s).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "kgprofiles --version": [str(BIN / "kgprofiles"), "--version"],
    "kgprofiles profile horace-he": [str(BIN / "kgprofiles"), "profile", "horace-he"],
    "kgprofiles people": [str(BIN / "kgprofiles"), "people"],
}
TARGETS = {"kgprofiles --version": 0.15, "kgprofiles profile horace-he": 0.4}


def wall(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    if not (ROOT / ".kgprofiles" / "store").exists():
        subprocess.run([str(BIN / "kgprofiles"), "build", "-q"], cwd=ROOT, check=True)
    for command in COMMANDS.values():  # warm the page cache once
        wall(command)
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(runs):
        for name, command in COMMANDS.items():
            times[name].append(wall(command))
    base = statistics.median(times["python -c pass"])
    print(f"start-up, median of {runs} runs each, round-robin (seconds)")
    print(f"{'command':32} {'median':>8} {'excess':>8} {'target':>8}")
    for name, samples in times.items():
        median = statistics.median(samples)
        target = TARGETS.get(name)
        verdict = "" if target is None else f"+{target:.2f} {'met' if median - base <= target else 'missed'}"
        print(f"{name:32} {median:8.3f} {median - base:+8.3f} {verdict:>8}")


if __name__ == "__main__":
    main()
