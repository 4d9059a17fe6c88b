"""The query workers (store/sandbox.py), real processes over the seed store on disk: killed at the
time limit and replaced, capped in memory, a fixed number with a queue, without a network, and a
crash of the engine costs one worker, not the server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pyoxigraph as ox
import pytest

from kgprofiles.errors import LimitHit, QueryError
from kgprofiles.store.base import SelectResult
from kgprofiles.store.binding import SparqlText
from kgprofiles.store.oxigraph import OxigraphStore
from kgprofiles.store.sandbox import QueryJob, QueryPool, Serialised, WorkerCopy, run_in_thread
from test_query_guard import Canary

CARTESIAN = "SELECT (COUNT(*) AS ?n) { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"  # 1,599³ rows on the seed
SORTED_PAIRS = "SELECT * { ?a ?b ?c . ?d ?e ?f } ORDER BY ?c ?f"  # 2.5 million rows, held to sort


def job(location: Path | str, text: str, **options: object) -> QueryJob:
    return QueryJob(os.path.realpath(location), SparqlText.of(text), **options)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def pool() -> Iterator[QueryPool]:
    with QueryPool(workers=2, queue=2) as started:
        started.start()
        yield started


def is_alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_a_small_query_comes_back_serialised_or_as_a_result(pool: QueryPool, seed_store_dir: Path) -> None:
    media = (("boolean", "application/sparql-results+json"), ("select", "text/csv"))
    assert pool.run(job(seed_store_dir, "ASK { ?s a kgp:Person }", media_types=media), 10) == Serialised(
        b'{"head": {}, "boolean": true}', "application/sparql-results+json; charset=utf-8"
    )
    rows = pool.run(job(seed_store_dir, "SELECT ?n { person:horace-he kgp:name ?n }", media_types=media), 10)
    assert rows == Serialised(b"n\r\nHorace He\r\n", "text/csv; charset=utf-8")
    typed = pool.run(job(seed_store_dir, "SELECT ?n { person:horace-he kgp:name ?n }"), 10)
    assert isinstance(typed, SelectResult) and typed.rows[0]["n"] == ox.Literal("Horace He")


def test_a_runaway_query_is_killed_at_the_time_limit(pool: QueryPool, seed_store_dir: Path) -> None:
    before = set(pool.pids())
    started = time.monotonic()
    with pytest.raises(LimitHit, match="time limit hit: the query ran for more than 1 s") as hit:
        pool.run(job(seed_store_dir, CARTESIAN), 1.0)
    assert hit.value.which == "time" and time.monotonic() - started < 2.5
    gone = [pid for pid in before if not is_alive(pid)]
    assert len(gone) == 1  # the worker that ran it, killed; the other one untouched
    started = time.monotonic()
    assert pool.run(job(seed_store_dir, "ASK { ?s ?p ?o }"), 10) is True
    assert time.monotonic() - started < 1.0  # measured: bench/query_pool.py


def test_the_async_path_answers_under_the_same_limits(pool: QueryPool, seed_store_dir: Path) -> None:
    """run_async (the endpoint's way, no thread): answers, row and time limits, and a caller
    cancelled mid-query (its client gone) costs the worker that ran it, not the pool."""
    media = (("select", "text/csv"),)

    async def main() -> None:
        names = job(seed_store_dir, "SELECT ?n { person:horace-he kgp:name ?n }", media_types=media)
        assert await pool.run_async(names, 10) == Serialised(b"n\r\nHorace He\r\n", "text/csv; charset=utf-8")
        with pytest.raises(LimitHit, match="more than 10 rows"):
            await pool.run_async(job(seed_store_dir, "SELECT * { ?s ?p ?o }", max_rows=10, media_types=media), 10)
        started = time.monotonic()
        with pytest.raises(LimitHit, match="time limit hit") as hit:
            await pool.run_async(job(seed_store_dir, CARTESIAN), 0.5)
        assert hit.value.which == "time" and time.monotonic() - started < 2.0
        before = set(pool.pids())
        with anyio.move_on_after(0.3):
            await pool.run_async(job(seed_store_dir, CARTESIAN), 30)
        assert [pid for pid in before if not is_alive(pid)]  # the one that ran it
        assert await pool.run_async(job(seed_store_dir, "ASK { ?s ?p ?o }"), 10) is True

    anyio.run(main)


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_the_async_path_reads_an_answer_longer_than_the_pipe_holds(
    pool: QueryPool, seed_store_dir: Path, loop: str
) -> None:
    """Under uvloop too (uvicorn's loop when it is installed), which leaves the pipe it watched
    non-blocking: a 1,000-row answer was reported as "the query engine stopped on this query"."""
    media = (("select", "application/sparql-results+json"),)
    every = job(seed_store_dir, "SELECT * { ?s ?p ?o } ORDER BY ?s ?p ?o", media_types=media)

    async def main() -> list[Serialised]:
        return [await pool.run_async(every, 30) for _ in range(3)]  # type: ignore[misc]

    before = set(pool.pids())
    answers = anyio.run(main, backend_options={"use_uvloop": loop == "uvloop"})
    expected = pool.run(every, 30)
    assert isinstance(expected, Serialised) and len(expected.body) > 400_000  # (a socket holds ~200 KB)
    assert answers == [expected] * 3
    assert before <= set(pool.pids())  # no worker was taken for dead (and killed)


@pytest.mark.parametrize(
    ("text", "media"),
    [
        ("SELECT * { ?s ?p ?o }", (("select", "application/sparql-results+json"),)),  # written by pyoxigraph
        ("SELECT * { ?s ?p ?o }", ()),  # rows for the caller
        ("CONSTRUCT WHERE { ?s ?p ?o }", (("graph", "application/n-triples"),)),
        ("CONSTRUCT WHERE { ?s ?p ?o }", ()),
    ],
    ids=["select serialised", "select rows", "construct serialised", "construct triples"],
)
def test_an_answer_past_its_size_limit_is_refused_in_the_worker(
    pool: QueryPool, seed_store_dir: Path, text: str, media: tuple[tuple[str, str], ...]
) -> None:
    """A few rows of long values can make an answer of hundreds of megabytes (measured: 290 MB
    from 400 rows built with CONCAT took the server to 670 MB): the worker refuses to send one
    past ``max_bytes``. Under it, the same answer comes back."""
    with pytest.raises(LimitHit, match="size limit hit: the answer is larger than 10,000 bytes") as hit:
        pool.run(job(seed_store_dir, text, media_types=media, max_bytes=10_000), 10)
    assert hit.value.which == "size"
    assert pool.run(job(seed_store_dir, text, media_types=media, max_bytes=100_000_000), 10)


def test_a_query_over_the_memory_cap_fails_cleanly(seed_store_dir: Path) -> None:
    with QueryPool(workers=1, queue=0, memory_mb=700) as small:
        small.start()
        with pytest.raises(LimitHit, match="memory limit hit") as hit:
            small.run(job(seed_store_dir, SORTED_PAIRS), 60)
        assert hit.value.which == "memory" and "700 MiB" in hit.value.message
        assert small.run(job(seed_store_dir, "ASK { ?s ?p ?o }"), 10) is True


def test_a_capped_worker_keeps_its_address_space_for_queries(seed_store_dir: Path) -> None:
    """The cap is address space (RLIMIT_AS): glibc's per-thread malloc arenas (64 MB reserved
    each) once took a worker past 1 GB with no query running, and under a 700 MiB cap a thread
    of the store could not start and aborted the worker. The worker caps its arenas."""
    with QueryPool(workers=1, queue=0, memory_mb=700) as small:
        small.start()
        for _ in range(3):
            assert small.run(job(seed_store_dir, "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }"), 10)
        pid = small._idle[0].process.pid
        peak_kb = next(
            int(line.split()[1])
            for line in Path(f"/proc/{pid}/status").read_text().splitlines()
            if line.startswith("VmPeak:")
        )
        assert peak_kb < 400 * 1024, f"the worker reserved {peak_kb // 1024} MiB of its 700"


def test_a_full_pool_refuses_at_once_and_a_queued_query_waits(seed_store_dir: Path) -> None:
    with QueryPool(workers=1, queue=1) as one:
        one.start()
        outcomes: list[object] = []
        runaway = threading.Thread(target=lambda: outcomes.append(_run(one, job(seed_store_dir, CARTESIAN), 1.5)))
        runaway.start()
        time.sleep(0.3)
        queued = threading.Thread(target=lambda: outcomes.append(_run(one, job(seed_store_dir, "ASK {}"), 10)))
        queued.start()
        time.sleep(0.3)
        assert one.full
        started = time.monotonic()
        with pytest.raises(LimitHit, match="the server is busy") as hit:
            one.run(job(seed_store_dir, "ASK {}"), 10)
        assert hit.value.which == "busy" and time.monotonic() - started < 0.5
        runaway.join(10)
        queued.join(10)
        assert outcomes == ["time", True]  # the queued ASK ran once the runaway was killed


def _run(pool: QueryPool, work: QueryJob, timeout_s: float) -> object:
    try:
        return pool.run(work, timeout_s)
    except LimitHit as exc:
        return exc.which


def test_a_crash_in_the_engine_costs_one_worker_not_the_caller(pool: QueryPool, seed_store_dir: Path) -> None:
    """3,000 nested groups overflow the parser's stack (SIGSEGV): sent past the checks on purpose."""
    deep = "SELECT * WHERE " + "{" * 3000 + "}" * 3000
    with pytest.raises(QueryError, match=r"the query engine stopped on this query \(SIGSEGV\)"):
        pool.run(job(seed_store_dir, deep), 10)
    assert pool.run(job(seed_store_dir, "ASK { ?s ?p ?o }"), 10) is True


def test_rows_past_the_limit_and_malformed_queries(pool: QueryPool, seed_store_dir: Path) -> None:
    with pytest.raises(LimitHit, match="more than 10 rows"):
        pool.run(job(seed_store_dir, "SELECT * { ?s ?p ?o }", max_rows=10), 10)
    with pytest.raises(QueryError, match=r"^line 2, column \d+: "):
        pool.run(job(seed_store_dir, "SELECT *\nWHERE { ?s ?p }"), 10)
    with pytest.raises(QueryError, match="the query failed: "):
        pool.run(job(seed_store_dir, "SELECT * { ?s ?p ?o FILTER(<urn:no-such-function>(?o)) }"), 10)


FORKED = """
import json, sys
from kgprofiles.errors import LimitHit
from kgprofiles.store.binding import SparqlText
from kgprofiles.store.sandbox import QueryJob, QueryPool

store, cartesian, sorted_pairs = sys.argv[1:]
seen = {}
with QueryPool(workers=1, queue=0, memory_mb=700, fork=True) as pool:
    pool.start()
    seen["how"], seen["isolation"] = pool.start_method, pool.isolation
    seen["ask"] = pool.run(QueryJob(store, SparqlText.of("ASK { ?s ?p ?o }")), 10)
    for name, text, seconds in (("time", cartesian, 1), ("memory", sorted_pairs, 60)):
        try:
            pool.run(QueryJob(store, SparqlText.of(text)), seconds)
        except LimitHit as hit:
            seen[name] = hit.message
    seen["after"] = pool.run(QueryJob(store, SparqlText.of("ASK { ?s ?p ?o }")), 10)
print(json.dumps(seen))
"""


def test_a_one_shot_worker_forked_from_a_single_threaded_process_keeps_every_limit(seed_store_dir: Path) -> None:
    """``kgprofiles query`` forks its worker (milliseconds, not a new interpreter's 0.1 s) while
    it has one thread; the worker has the same time and memory limits and network isolation."""
    with QueryPool(workers=1, queue=0) as served:
        served.start()
        isolation = served.isolation
    run = subprocess.run(
        [sys.executable, "-c", FORKED, str(seed_store_dir), CARTESIAN, SORTED_PAIRS],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    # the engine's "memory allocation of … bytes failed" and backtrace header stay in the worker
    assert run.stderr == "", run.stderr
    seen = json.loads(run.stdout)
    assert seen["how"] == "fork" and seen["isolation"] == isolation
    assert seen["ask"] is True and seen["after"] is True
    assert "time limit hit" in seen["time"] and "memory limit hit" in seen["memory"] and "700 MiB" in seen["memory"]


def test_workers_cannot_reach_the_network(seed_store_dir: Path) -> None:
    """The second layer: SERVICE sent past the text checks on purpose gets nowhere."""
    canary = Canary()
    service = f"SELECT * {{ SERVICE <http://127.0.0.1:{canary.port}/sparql> {{ ?s ?p ?o }} }}"
    try:
        with QueryPool(workers=1, queue=0) as isolated:
            isolated.start()
            if isolated.isolation is not None:
                pytest.skip(f"this kernel cannot isolate workers: {isolated.isolation}")
            with pytest.raises(QueryError, match="Network is unreachable"):
                isolated.run(job(seed_store_dir, service), 10)
        assert canary.connections == 0
        with QueryPool(workers=1, queue=0, isolate_network=False) as open_pool:
            open_pool.start()
            open_pool.run(job(seed_store_dir, service), 10)  # the control: without isolation it connects
        assert canary.connections == 1
    finally:
        canary.close()


def test_workers_read_a_store_this_process_writes_from_snapshots(tmp_path: Path) -> None:
    """A writable server's workers never open the directory it writes: they read a snapshot,
    taken again after each write."""
    writer = OxigraphStore(tmp_path / "store")
    count = "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }"
    try:
        writer.update("INSERT DATA { GRAPH <urn:g> { <urn:a> <urn:b> 1 } }")
        copy = WorkerCopy(writer)
        first = copy.location
        assert first != writer.location and Path(first).parent.parent == tmp_path
        with QueryPool(workers=1, queue=0) as one:
            one.start()
            before = one.run(job(copy.location, count), 10)
            writer.update("INSERT DATA { GRAPH <urn:g> { <urn:a> <urn:b> 2 } }")
            copy.refresh()
            after = one.run(job(copy.location, count), 10)
            still = one.run(job(first, count), 10)
        assert [r.rows[0]["n"].value for r in (before, after, still)] == ["1", "2", "1"]  # type: ignore[union-attr]
        copy.close()
        assert not Path(first).exists() and [p.name for p in tmp_path.iterdir()] == ["store"]
    finally:
        writer.close()


def test_an_in_memory_store_answers_in_the_thread(seed_store: OxigraphStore) -> None:
    media = (("boolean", "application/sparql-results+json"),)
    answer = run_in_thread(seed_store, QueryJob("memory:", SparqlText.of("ASK { ?s a kgp:Person }"), media_types=media))
    assert answer == Serialised(b'{"head": {}, "boolean": true}', "application/sparql-results+json; charset=utf-8")


def test_the_limits_come_from_kgprofiles_toml(tmp_path: Path, disk_seed_store: OxigraphStore) -> None:
    from kgprofiles.config import load_settings
    from kgprofiles.web import create_app

    (tmp_path / "kgprofiles.toml").write_text(
        "[kgprofiles]\nquery_workers = 1\nquery_queue = 0\nquery_memory_mb = 1024\nquery_max_depth = 16\n"
        "[kgprofiles.limits]\nmax_answer_bytes = 3000000\n",
        encoding="utf-8",
    )
    settings = load_settings(tmp_path)
    assert (settings.query_workers, settings.query_queue, settings.query_memory_mb, settings.query_max_depth) == (
        1,
        0,
        1024,
        16,
    )
    site = create_app(settings, disk_seed_store).state.site
    try:
        assert site.pool is not None and (site.pool.workers, site.pool.queue, site.pool.memory_mb) == (1, 0, 1024)
        assert site.limits.max_bytes == 3_000_000
        with pytest.raises(QueryError, match="at most 16 are allowed"):
            site.engine.query("SELECT * WHERE " + "{" * 17 + "}" * 17)
    finally:
        site.close()


@pytest.mark.parametrize(
    "line",
    [
        "query_workers = 0",
        "query_queue = -1",
        "query_memory_mb = 'lots'",
        "query_max_depth = true",
    ],
)
def test_a_bad_limit_in_kgprofiles_toml_is_an_input_error(tmp_path: Path, line: str) -> None:
    from kgprofiles.config import load_settings
    from kgprofiles.errors import InputError

    (tmp_path / "kgprofiles.toml").write_text(f"[kgprofiles]\n{line}\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"kgprofiles.toml: query_\w+ = .* is not a whole number of at least"):
        load_settings(tmp_path)


def test_an_idle_worker_lets_go_of_a_generation_gc_removed(tmp_path: Path) -> None:
    """A worker kept the generations it had read open (the current and the last) until its next
    query: after a build and the gc that removed the old generation, its files (deleted, still
    open) kept their disk space taken for as long as the server had no query. An idle worker now
    closes a removed generation within a few seconds."""
    from kgprofiles.store import generations
    from kgprofiles.store.writer import GenerationWriter

    store = tmp_path / "store"
    with GenerationWriter(store) as writer:
        fresh = writer.fresh()
        fresh.update("INSERT DATA { GRAPH <urn:g> { <urn:a> <urn:b> 1 } }")
        writer.publish(fresh)
    first = generations.current(store)
    assert first is not None
    with QueryPool(workers=1, queue=0) as one:
        assert one.run(job(store, "ASK { ?s ?p ?o }"), 30) is True
        (pid,) = one.pids()

        def open_in_first() -> list[str]:
            names = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
            return [name for name in names if name.startswith(str(first))]

        assert open_in_first()
        with GenerationWriter(store) as writer:  # a new generation published; gc removes the first
            writer.publish(writer.copy_of_current())
        assert not first.exists()
        deadline = time.monotonic() + 20
        while open_in_first():
            assert time.monotonic() < deadline, f"the idle worker still holds {open_in_first()[:3]}"
            time.sleep(0.2)
        assert one.run(job(store, "ASK { ?s ?p ?o }"), 30) is True  # (and answers from the new one)
