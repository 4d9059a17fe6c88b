"""Person pages over HTTP: `kgprofiles serve` in its own process on 127.0.0.1, N clients (threads)
fetching the person pages the site lists at /people (its first 100), round robin, for a while:
pages a second and latency (median, p95). The project's base IRI must be the people's: for the
synthetic people of bench/generate.py, a project directory whose kgprofiles.toml says
``base_iri = "http://example.org/kgprofiles-synthetic/"`` (and names their data and store).

    .venv/bin/kgprofiles build --store /tmp/seed
    .venv/bin/python bench/http_pages.py --store /tmp/seed [--clients 4] [--seconds 15] [--port 8765]
    .venv/bin/python bench/http_pages.py --project /tmp/synthetic-10k --store /tmp/syn10k --warm-s 60
"""

from __future__ import annotations

import argparse
import itertools
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]


def wait_for(base: str, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while True:
        try:
            if httpx.get(base + "/", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline or server.poll() is not None:
            raise SystemExit("the server did not start")
        time.sleep(0.3)


def run(base: str, paths: list[str], clients: int, seconds: float) -> list[float]:
    latencies: list[float] = []
    lock = threading.Lock()
    until = time.monotonic() + seconds

    def client(offset: int) -> None:
        mine: list[float] = []
        with httpx.Client(base_url=base, timeout=60) as c:
            for path in itertools.islice(itertools.cycle(paths), offset, None):
                if time.monotonic() >= until:
                    break
                started = time.perf_counter()
                response = c.get(path, headers={"Accept": "text/html"})
                mine.append((time.perf_counter() - started) * 1000)
                if response.status_code != 200:
                    raise SystemExit(f"{path}: {response.status_code}")
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--warm-s", type=float, default=5.0)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--project", default=str(ROOT), help="the project directory (default: this repository)")
    args = parser.parse_args()
    command = [sys.executable, "-m", "kgprofiles", "--project", args.project, "serve", "--store", args.store]
    server = subprocess.Popen(
        [*command, "--port", str(args.port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    base = f"http://127.0.0.1:{args.port}"
    try:
        wait_for(base, server)
        paths = sorted(set(re.findall(r'href="(/id/person/[^"#]+)"', httpx.get(base + "/people", timeout=30).text)))
        run(base, paths, args.clients, args.warm_s)
        ms = sorted(run(base, paths, args.clients, args.seconds))
        p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
        print(f"{len(paths)} person pages, {args.clients} clients, {args.seconds:g} s")
        rate = len(ms) / args.seconds
        print(f"pages a second: {rate:.0f}; latency median {statistics.median(ms):.2f} ms, p95 {p95:.2f} ms")
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
