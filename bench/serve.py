"""`kgprofiles serve` against `oxigraph serve-read-only` on the same store, and against an older
revision of kgprofiles, in one run: `/sparql` latency (point queries, 100 and 1,000 rows, the
largest organisation's members) and person pages a second with concurrent clients.

    .venv/bin/python bench/serve.py --people 10000 --against main [--new-args "--workers 2"]

The store is built once (``kgprofiles build``) under ``bench/out/serve-store-N-S`` from the
generator's data with its IRIs moved under the project's ``/id/`` namespace (a copy under
``bench/out/data/``, never ``data/``): only those IRIs have pages at ``/id/person/…``.

* **SPARQL**: the same query texts (every prefix declared, as oxigraph has none predeclared) sent
  to each server in turn over kept-alive connections, ``Accept: application/sparql-results+json``,
  each request timed alone (request and whole body); medians and the ratio to oxigraph's median.
* **Pages**: ``--clients`` threads fetch ``/id/person/…`` (HTML) from a shared list of distinct
  people for ``--seconds``: pages a second the first time each page is asked for ("first visit"),
  then the same pages again ("again", the cache of a generation, if any), then again with the
  ETag each answer gave (``If-None-Match``: 304 when the server revalidates).

The machine is shared: read the ratios within a run.
"""

from __future__ import annotations

import argparse
import atexit
import http.client
import json
import os
import random
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
OUT_DIR = BENCH_DIR / "out"
VENV_BIN = Path(sys.executable).parent
SYNTHETIC = "http://example.org/kgprofiles-synthetic/"
ID = "https://w3id.org/kgprofiles/id/"
JSON_RESULTS = "application/sparql-results+json"


def _run_module(name: str) -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH_DIR / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------------------ the store


def served_data(people: int, seed: int) -> Path:
    """The generator's data with its IRIs under /id/ (written once)."""
    source = Path(_run_module("run").ensure_data(people, seed)["dir"])
    target = OUT_DIR / "data" / f"people-{people}-seed-{seed}-served"
    if (target / "generator.json").exists():
        return target
    for path in sorted(source.rglob("*")):
        out = target / path.relative_to(source)
        if path.is_dir():
            out.mkdir(parents=True, exist_ok=True)
        elif path.suffix == ".ttl":
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(path.read_text(encoding="utf-8").replace(SYNTHETIC, ID), encoding="utf-8")
    (target / "generator.json").write_text((source / "generator.json").read_text())
    return target


def served_store(people: int, seed: int) -> Path:
    store = OUT_DIR / f"serve-store-{people}-{seed}"
    if not store.exists():
        data = served_data(people, seed)
        print(f"building {store} from {data} …", flush=True)
        env = {**os.environ, "KGPROFILES_DATA": str(data)}
        subprocess.run([str(VENV_BIN / "kgprofiles"), "build", "--store", str(store), "-q"], env=env, check=True)
    return store


def exported_src(rev: str) -> Path:
    return _run_module("load").exported_src(rev)  # type: ignore[no-any-return]


# ------------------------------------------------------------------------------ servers


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    def __init__(
        self, name: str, argv: list[str], port: int, env: dict[str, str] | None = None, cwd: Path | None = None
    ) -> None:
        self.name, self.port = name, port
        self.process = subprocess.Popen(
            argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{name} stopped: {self.process.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
            try:
                status, _, _ = self.get("/sparql?" + urllib.parse.urlencode({"query": "ASK {}"}), JSON_RESULTS)
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"{name} did not answer within 120 s")

    def cpu_s(self) -> float:
        """CPU seconds of the server and every process under it (web and query workers)."""
        stats = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            stats[int(stat.parent.name)] = (int(fields[1]), int(fields[11]) + int(fields[12]))
        family, total = {self.process.pid}, 0
        for _ in range(4):  # children, grandchildren…
            family |= {pid for pid, (parent, _) in stats.items() if parent in family}
        total = sum(ticks for pid, (_, ticks) in stats.items() if pid in family)
        return total / os.sysconf("SC_CLK_TCK")

    def wait_idle(self, limit_s: float = 180.0) -> float:
        """Wait until the server uses under 5% of a core for a second (its background warm-up
        done); the seconds waited."""
        started = time.monotonic()
        while time.monotonic() - started < limit_s:
            before = self.cpu_s()
            time.sleep(1.0)
            if self.cpu_s() - before < 0.05:
                break
        return time.monotonic() - started

    def connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)

    def get(
        self, path: str, accept: str, conn: http.client.HTTPConnection | None = None, etag: str | None = None
    ) -> tuple[int, bytes, str | None]:
        own = conn is None
        conn = conn or self.connection()
        headers = {"Accept": accept}
        if etag:
            headers["If-None-Match"] = etag
        try:
            conn.request("GET", path, headers=headers)
            response = conn.getresponse()
            body = response.read()
            return response.status, body, response.getheader("ETag")
        finally:
            if own:
                conn.close()

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def kgprofiles_server(name: str, store: Path, src: Path, extra: list[str], path: str = "") -> Server:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(src), path]))}
    argv = [sys.executable, "-m", "kgprofiles", "serve", "--store", str(store.resolve()), "--port", str(port), *extra]
    return Server(name, argv, port, env, cwd=bare_project())


def bare_project() -> Path:
    """A project of the checkout's settings without its ``queries/``, ``shapes/`` or
    ``ontology/``: served from the checkout, a server would take those over its own code's (the
    project's override the bundled ones) and an older revision would run the newer queries."""
    project = Path(tempfile.mkdtemp(prefix="kgprofiles-serve-"))
    shutil.copy(ROOT / "kgprofiles.toml", project / "kgprofiles.toml")
    atexit.register(shutil.rmtree, project, True)
    return project


def oxigraph_server(store: Path) -> Server:
    port = free_port()
    generation = store.resolve()
    argv = [
        str(VENV_BIN / "oxigraph"),
        "serve-read-only",
        "--location",
        str(generation),
        "--bind",
        f"127.0.0.1:{port}",
        "--union-default-graph",
    ]
    return Server("oxigraph", argv, port)


# ------------------------------------------------------------------------------ SPARQL


def prologue() -> str:
    from kgprofiles.vocab import PREFIXES

    return "".join(f"PREFIX {p}: <{ns}>\n" for p, ns in PREFIXES.items())


def sparql_cases(people: list[str], largest_org: str) -> dict[str, list[str]]:
    head = prologue()
    members = (ROOT / "queries" / "org-members.rq").read_text()
    members = "\n".join(line for line in members.splitlines() if not line.startswith("#"))
    members = members.replace("?org", f"<{largest_org}>")
    rng = random.Random(7)
    return {
        "point (a person's name)": [
            head + f"SELECT ?name WHERE {{ <{p}> kgp:name ?name }}" for p in rng.sample(people, 50)
        ],
        "100 rows": [
            head + f"SELECT ?person ?name WHERE {{ ?person kgp:name ?name }} LIMIT 100 # {i}" for i in range(50)
        ],
        "1,000 rows": [
            head + f"SELECT ?person ?name WHERE {{ ?person kgp:name ?name }} LIMIT 1000 # {i}" for i in range(50)
        ],
        "largest organisation's members": [head + members],
    }


def sparql_figures(servers: list[Server], cases: dict[str, list[str]], repeats: int) -> dict[str, Any]:
    conns = {s.name: s.connection() for s in servers}
    out: dict[str, Any] = {}
    for case, texts in cases.items():
        times: dict[str, list[float]] = {s.name: [] for s in servers}
        rows: dict[str, int] = {}
        cpu_before: dict[str, float] = {}
        for i in range(repeats + 5):
            if i == 5:
                cpu_before = {s.name: s.cpu_s() for s in servers}
            text = texts[i % len(texts)]
            path = "/sparql?" + urllib.parse.urlencode({"query": text})
            order = servers if i % 2 == 0 else list(reversed(servers))
            for server in order:
                started = time.perf_counter()
                status, body, _ = server.get(path, JSON_RESULTS, conns[server.name])
                elapsed = (time.perf_counter() - started) * 1000
                if status != 200:
                    raise RuntimeError(f"{server.name}: {status} {body[:300]!r}")
                if i >= 5:
                    times[server.name].append(elapsed)
                rows[server.name] = len(json.loads(body)["results"]["bindings"])
        cpu = {s.name: (s.cpu_s() - cpu_before[s.name]) / repeats * 1000 for s in servers}
        medians = {name: statistics.median(t) for name, t in times.items()}
        out[case] = {"median_ms": medians, "rows": rows, "cpu_ms": cpu}
        shown = "  ".join(f"{n} {m:.2f} ms (CPU {cpu[n]:.2f})" for n, m in medians.items())
        print(f"  {case:<32} rows {rows.get('oxigraph')}: {shown}", flush=True)
    for conn in conns.values():
        conn.close()
    return out


# ------------------------------------------------------------------------------ pages


def page_pass(
    server: Server, paths: list[str], seconds: float, clients: int, etags: dict[str, str] | None, fresh: bool = False
) -> Json:
    """Pages a second, and each request's latency (median, 95th percentile), while ``clients``
    threads walk ``paths`` (each at most once) for ``seconds``; each thread keeps one connection,
    or (``fresh``) makes a new one for every request: with ``serve --workers N`` a kept connection
    stays with one process, a new one reaches any."""
    lock = threading.Lock()
    at = [0]
    done: list[tuple[str, int, str | None]] = []
    latencies: list[float] = []
    stop = time.monotonic() + seconds
    failures: list[str] = []

    def client() -> None:
        conn = server.connection()
        try:
            while time.monotonic() < stop:
                with lock:
                    if at[0] >= len(paths):
                        return
                    path = paths[at[0]]
                    at[0] += 1
                asked = time.perf_counter()
                status, _body, etag = server.get(path, "text/html", None if fresh else conn, (etags or {}).get(path))
                took = time.perf_counter() - asked
                if status not in (200, 304):
                    failures.append(f"{path}: {status}")
                with lock:
                    done.append((path, status, etag))
                    latencies.append(took * 1000)
        finally:
            conn.close()

    cpu_before = server.cpu_s()
    started = time.monotonic()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    cpu_s = server.cpu_s() - cpu_before
    if failures:
        raise RuntimeError(f"{server.name}: {failures[:3]}")
    statuses = {s: sum(1 for _, got, _ in done if got == s) for s in {got for _, got, _ in done}}
    return {
        "pages": len(done),
        "seconds": elapsed,
        "per_s": len(done) / elapsed,
        "cpu_ms": cpu_s * 1000 / max(1, len(done)),  # the server's processes' CPU a page (less noisy)
        "median_ms": statistics.median(latencies) if latencies else 0.0,
        "p95_ms": statistics.quantiles(latencies, n=20)[-1] if len(latencies) > 1 else 0.0,
        "statuses": statuses,
        "etags": {p: e for p, _, e in done if e},
        "paths": [p for p, _, _ in done],
    }


Json = dict[str, Any]


def page_figures(server: Server, people: list[str], args: argparse.Namespace) -> Json:
    rng = random.Random(11)
    paths = ["/id/person/" + p.rsplit("/", 1)[-1] for p in rng.sample(people, len(people))]
    warm, paths = paths[:20], paths[20:]
    for path in warm:  # untimed: the first pages (and the related index read in the background)
        server.get(path, "text/html")
    time.sleep(args.warmup_s)
    server.wait_idle()
    fresh = args.fresh_connections
    first = page_pass(server, paths, args.seconds, args.clients, None, fresh)
    again = page_pass(server, first["paths"], args.seconds, args.clients, None, fresh)
    revalidated = page_pass(server, first["paths"], args.seconds, args.clients, first["etags"] or None, fresh)
    out = {}
    for name, figures in (("first visit", first), ("again", again), ("again, If-None-Match", revalidated)):
        out[name] = {k: v for k, v in figures.items() if k not in ("etags", "paths")}
        print(
            f"  {server.name:<10} {name:<22} {figures['per_s']:7.1f} pages/s "
            f"({figures['pages']} in {figures['seconds']:.1f} s, {figures['statuses']}), "
            f"server CPU {figures['cpu_ms']:.2f} ms a page, latency median {figures['median_ms']:.1f} ms, "
            f"p95 {figures['p95_ms']:.1f} ms",
            flush=True,
        )
    return out


# ------------------------------------------------------------------------------ main


def people_and_org(server: Server) -> tuple[list[str], str]:
    head = prologue()
    q = head + "SELECT ?p WHERE { ?p a kgp:Person } ORDER BY ?p"
    _, body, _ = server.get("/sparql?" + urllib.parse.urlencode({"query": q}), JSON_RESULTS)
    people = [b["p"]["value"] for b in json.loads(body)["results"]["bindings"]]
    q = head + (
        "SELECT ?org (COUNT(?role) AS ?n) WHERE { ?role a kgp:Role ; kgp:organization ?org } "
        "GROUP BY ?org ORDER BY DESC(?n) ?org LIMIT 1"
    )
    _, body, _ = server.get("/sparql?" + urllib.parse.urlencode({"query": q}), JSON_RESULTS)
    return people, json.loads(body)["results"]["bindings"][0]["org"]["value"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--people", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--store", help="a store built from served data (default: built under bench/out)")
    parser.add_argument("--against", help="also serve this git revision's code (before/after)")
    parser.add_argument("--new-args", default="", help="extra `kgprofiles serve` options for this code")
    parser.add_argument("--new-path", default="", help="more import paths for this code's server (e.g. httptools)")
    parser.add_argument("--old-args", default="", help="extra `kgprofiles serve` options for the --against code")
    parser.add_argument(
        "--fresh-connections",
        action="store_true",
        help="pages: a new connection for every request (with --workers, so that any process may answer)",
    )
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--warmup-s", type=float, default=2.0)
    parser.add_argument("--skip-pages", action="store_true")
    parser.add_argument("--skip-sparql", action="store_true")
    parser.add_argument("--record", action="store_true", help="append the figures to bench/RESULTS.md")
    args = parser.parse_args()
    store = Path(args.store) if args.store else served_store(args.people, args.seed)
    started = datetime.now(UTC)
    src = ROOT / "src"
    servers: list[Server] = []
    result: Json = {"people": args.people, "against": args.against, "new_args": args.new_args}
    try:
        oxi = oxigraph_server(store)
        servers.append(oxi)
        new = kgprofiles_server("new", store, src, shlex.split(args.new_args), args.new_path)
        servers.append(new)
        if args.against:
            old = exported_src(args.against)
            servers.append(kgprofiles_server(f"old {args.against}", store, old, shlex.split(args.old_args)))
        people, org = people_and_org(oxi)
        for server in servers:
            print(f"{server.name}: idle after {server.wait_idle():.0f} s", flush=True)
        if not args.skip_sparql:
            print(f"/sparql, {args.repeats} requests each, medians:", flush=True)
            result["sparql"] = sparql_figures(servers, sparql_cases(people, org), args.repeats)
        if not args.skip_pages:
            print(f"person pages, {args.clients} clients:", flush=True)
            result["pages"] = {s.name: page_figures(s, people, args) for s in servers if s is not oxi}
    finally:
        for server in servers:
            server.stop()
    OUT_DIR.mkdir(exist_ok=True)
    raw = OUT_DIR / f"serve-{started:%Y%m%dT%H%M%S}.json"
    raw.write_text(json.dumps(result, indent=1))
    text = markdown(result, args, started)
    print(text)
    if args.record:
        with (BENCH_DIR / "RESULTS.md").open("a", encoding="utf-8") as handle:
            handle.write("\n" + text)


def markdown(result: Json, args: argparse.Namespace, started: datetime) -> str:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    lines = [
        f"## {started:%Y-%m-%d %H:%M} UTC — `kgprofiles serve` at {args.people:,} people (issue 20)",
        "",
        f"Command: `python bench/serve.py {' '.join(sys.argv[1:])}`; code {commit.stdout.strip()}; "
        f"{os.cpu_count()} cores, shared: read the ratios.",
        "",
    ]
    if "sparql" in result:
        names = list(next(iter(result["sparql"].values()))["median_ms"])
        others = [n for n in names if n != "oxigraph"]
        lines += [
            "| `/sparql`, median ms | rows | "
            + " | ".join(names)
            + " | "
            + " | ".join(f"{n} / oxigraph" for n in others)
            + " |",
            "|---|---|" + "---|" * (len(names) + len(others)),
        ]
        for case, fig in result["sparql"].items():
            m = fig["median_ms"]
            cells = " | ".join(f"{m[n]:.2f}" for n in names)
            ratios = " | ".join(f"×{m[n] / m['oxigraph']:.2f}" for n in others)
            lines.append(f"| {case} | {fig['rows'].get('oxigraph')} | {cells} | {ratios} |")
        lines += [
            "",
            "| `/sparql`, CPU ms a request (server and its workers) | " + " | ".join(names) + " |",
            "|---|" + "---|" * len(names),
        ]
        for case, fig in result["sparql"].items():
            lines.append(f"| {case} | " + " | ".join(f"{fig['cpu_ms'][n]:.2f}" for n in names) + " |")
        lines.append("")
    if "pages" in result:
        names = list(result["pages"])
        lines += [
            f"| person pages/s, {args.clients} clients | " + " | ".join(names) + " |",
            "|---|" + "---|" * len(names),
        ]
        for case in next(iter(result["pages"].values())):
            cells = " | ".join(f"{result['pages'][n][case]['per_s']:.0f}" for n in names)
            lines.append(f"| {case} | {cells} |")
        lines += ["", "| server CPU ms a page | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
        for case in next(iter(result["pages"].values())):
            cells = " | ".join(f"{result['pages'][n][case]['cpu_ms']:.2f}" for n in names)
            lines.append(f"| {case} | {cells} |")
        lines += ["", "| latency, median / p95 ms | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
        for case in next(iter(result["pages"].values())):
            got = [result["pages"][n][case] for n in names]
            lines.append(f"| {case} | " + " | ".join(f"{g['median_ms']:.1f} / {g['p95_ms']:.1f}" for g in got) + " |")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
