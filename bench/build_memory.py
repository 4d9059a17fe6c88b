"""Peak client memory of `kgprofiles build`: into the embedded store and into Virtuoso 7, the same
synthetic people, one after the other (issue 17).

Each build runs under `/usr/bin/time -v`; its "Maximum resident set size" is the peak. Virtuoso
runs on 127.0.0.1 with a scratch database (tests/servers.py, the buffers of --virtuoso-buffers)
and is stopped at the end; nothing is kept. Wall times are printed too, but the figure here is the
memory: the client's, not the server's.

    .venv/bin/python bench/build_memory.py --people 10000
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out"
KGPROFILES = Path(sys.executable).with_name("kgprofiles")
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from remote import data_for  # noqa: E402  (the same synthetic data as bench/remote.py)
from servers import VirtuosoServer  # noqa: E402  (the tests' own server: one way to start one)


def peak_build(project: Path, where: list[str], env: dict[str, str]) -> tuple[int, float, float]:
    """(exit code, wall seconds, peak resident MB) of one build."""
    started = time.monotonic()
    done = subprocess.run(
        ["/usr/bin/time", "-v", str(KGPROFILES), "--project", str(project), "build", "--quiet", *where],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        check=False,
    )
    found = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    if done.returncode != 0:
        print(done.stderr[-1500:], flush=True)
    return done.returncode, time.monotonic() - started, int(found.group(1)) / 1024 if found else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--people", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--virtuoso-buffers", type=int, default=340_000, help="Virtuoso's NumberOfBuffers")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    data = data_for(args.people, args.seed)
    scratch = Path(tempfile.mkdtemp(prefix="bench-memory-", dir=OUT))
    try:
        project = scratch / "project"
        project.mkdir()
        (project / "kgprofiles.toml").write_text(f'[kgprofiles]\ndata = "{data}"\nquery_timeout_s = 600\n')
        code, wall, peak = peak_build(project, ["--store", str(scratch / "store")], {})
        print(f"embedded: exit {code}, {wall:.0f} s, peak client memory {peak:,.0f} MB", flush=True)
        with VirtuosoServer(scratch / "virtuoso", buffers=args.virtuoso_buffers) as server:
            where = ["--endpoint", server.query_endpoint, "--server-kind", "virtuoso"]
            code, wall, peak = peak_build(project, where, server.credentials_env)
        print(f"virtuoso: exit {code}, {wall:.0f} s, peak client memory {peak:,.0f} MB", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
