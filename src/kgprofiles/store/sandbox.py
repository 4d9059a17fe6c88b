"""Where user SPARQL runs so that it can be stopped: a pool of worker processes.

pyoxigraph cannot cancel a query, and a thread cannot be killed: a runaway query in the server
would compute on after its client got the time-limit answer, and the next ones would pile up.
Here each query runs in a worker process that is killed (SIGKILL) at the time limit and replaced:

* **Workers** are started through the ``forkserver`` context (never a fork of the threaded
  server), open the store directory READ-ONLY (``pyoxigraph.Store.read_only``) and keep it open
  per directory. ``QueryJob.location`` must be a directory nothing writes: an immutable store
  generation, or, for a store this process writes, a snapshot of it (``WorkerCopy``): opening a
  directory another process writes is undefined behaviour in pyoxigraph (seen: "Corruption:
  MANIFEST … no such file"). A new generation or snapshot is just a new path.
* **Limits.** The time limit counts from when ``run`` is called: waiting for a free worker, then
  running, then the worker is killed. The address space of each worker is capped
  (``RLIMIT_AS``, ``memory_mb``): a query over it fails with a message, its worker replaced. A
  result is read up to the row limit and serialised in the worker; bytes travel back. SELECT
  results are written by pyoxigraph itself, no row made a Python object (``solutions.py``).
* **Queue.** ``workers`` queries run at once and ``queue`` more may wait; past that, ``run``
  refuses at once (LimitHit "busy": the endpoint answers 503 with Retry-After).
* **No network.** Before it opens anything, a worker moves into new user and network namespaces
  (Linux ``unshare(CLONE_NEWUSER | CLONE_NEWNET)``): it has no route anywhere, not even to
  127.0.0.1, so SERVICE or LOAD cannot reach a server even if the text checks (``guard.py``)
  were fooled. Where the kernel refuses, ``QueryPool.isolation`` says why and the text checks are
  the only layer.

Workers start from a forkserver that has this module, ``kgprofiles.export`` and
``kgprofiles.cli`` loaded (a new worker, as after a kill, starts in about 15 ms). Unlike
multiprocessing's usual way, neither the forkserver nor a worker imports the program's main script
again (``_main_script_left_alone``): a script needs no ``if __name__ == "__main__":`` guard.

An in-memory store cannot be shared with another process: ``run_in_thread`` runs a job on it in
the calling thread, with the same reading, row limit and serialisation, but nothing can stop it at
the time limit. It is for tests of views over small in-memory stores, never for serving.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import resource
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, TypeVar

import pyoxigraph as ox

from kgprofiles.config import MEMORY
from kgprofiles.errors import KgError, LimitHit, QueryError, StoreError
from kgprofiles.killable import die_with_parent
from kgprofiles.result_formats import content_type, serialize
from kgprofiles.scratch import make_scratch_dir
from kgprofiles.store.base import QueryResult, SelectResult, Store, Term, solution_rows
from kgprofiles.store.binding import SparqlText
from kgprofiles.store.guard import MAX_DEPTH, names_dataset
from kgprofiles.store.oxigraph import OxigraphStore, prefixes_in
from kgprofiles.store.solutions import media_format, write_capped
from kgprofiles.vocab import ids, use_base_iri

DEFAULT_WORKERS = 2
DEFAULT_QUEUE = 8
DEFAULT_MEMORY_MB = 2048
#: What a 503 tells the client to wait before trying again, in seconds.
RETRY_AFTER_S = 2
START_TIMEOUT_S = 30.0
_STORES_KEPT = 2  # store directories a worker keeps open (the current generation and the last)
#: How often (seconds) a worker without a job looks whether a generation it holds was removed.
IDLE_CHECK_S = 2.0
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000
T = TypeVar("T")


@dataclass(frozen=True)
class QueryJob:
    """One query for a worker: the store directory, the text, the protocol's dataset (none: the
    union of the named graphs), the row limit, and the media type to serialise each kind of result
    in ("select", "boolean", "graph"; a kind not named comes back as a QueryResult)."""

    location: str
    sparql: SparqlText
    base_iri: str | None = None
    default_graphs: tuple[str, ...] = ()
    named_graphs: tuple[str, ...] = ()
    max_rows: int | None = None
    media_types: tuple[tuple[str, str], ...] = ()
    #: The most bytes the answer may take (serialised, or the rows' values), None for no limit: a
    #: few rows of long values built by the query (CONCAT, REPLACE) can make an answer of hundreds
    #: of megabytes, which the server, not the worker, would hold and send.
    max_bytes: int | None = None
    #: The project's base IRI where the job was made: a worker resolves ``person:`` and the other
    #: project prefixes under it (workers start from a forkserver that never read the project).
    project_base: str = field(default_factory=lambda: ids().base)


@dataclass(frozen=True)
class Serialised:
    """A result as bytes, with its Content-Type header."""

    body: bytes
    content_type: str


Answer = Serialised | QueryResult


def time_limit_hit(timeout_s: float) -> LimitHit:
    return LimitHit(
        "time",
        f"time limit hit: the query ran for more than {timeout_s:g} s",
        "narrow the query (more specific patterns, LIMIT), or allow it more time "
        "(kgprofiles query --timeout, kgprofiles serve --query-timeout)",
    )


def row_limit_hit(max_rows: int) -> LimitHit:
    return LimitHit(
        "rows",
        f"row limit hit: the result has more than {max_rows} rows",
        "add LIMIT (and OFFSET to page through), or use the whole-graph downloads at /downloads",
    )


def size_limit_hit(max_bytes: int) -> LimitHit:
    return LimitHit(
        "size",
        "size limit hit: the answer is larger than "
        + (f"{max_bytes // 2**20} MiB" if max_bytes % 2**20 == 0 else f"{max_bytes:,} bytes"),
        "ask for fewer rows (LIMIT) or shorter values, or use the whole-graph downloads at /downloads",
    )


def busy(workers: int) -> LimitHit:
    return LimitHit(
        "busy",
        f"the server is busy: all {workers} query workers are taken and the queue is full",
        f"try again in {RETRY_AFTER_S} s",
    )


def memory_limit_hit(memory_mb: int | None, how: str) -> LimitHit:
    return LimitHit(
        "memory",
        f"memory limit hit: the query {how}, over the limit of {memory_mb} MiB",
        "narrow the query (more specific patterns, LIMIT, no ORDER BY or DISTINCT over huge results)",
    )


# -- running a job (in a worker, or in the calling thread) --------------------------------------


def execute(store: ox.Store, job: QueryJob) -> Answer:
    """The job's answer from ``store``; raises what pyoxigraph raises, or LimitHit (rows)."""
    use_base_iri(job.project_base)
    options: dict[str, Any] = {"base_iri": job.base_iri, "prefixes": prefixes_in(job.sparql.original)}
    if job.default_graphs or job.named_graphs:
        options["default_graph"] = [ox.NamedNode(g) for g in job.default_graphs]
        options["named_graphs"] = [ox.NamedNode(g) for g in job.named_graphs]
    elif not names_dataset(job.sparql.original):
        # the union default graph only when neither the request nor the query (FROM, FROM
        # NAMED) names a dataset: pyoxigraph's union option would override the query's FROM
        options["use_default_graph_as_union"] = True
    raw = store.query(job.sparql.sent, **options)
    media_type = dict(job.media_types).get(_KINDS[type(raw)])
    if media_type is not None and isinstance(raw, ox.QuerySolutions):
        # Written by pyoxigraph, no row made a Python object (``solutions.py``).
        body = write_capped(raw, lambda: _solutions(store.query(job.sparql.sent, **options)), media_type, job.max_rows)
        if body is None:
            assert job.max_rows is not None
            raise row_limit_hit(job.max_rows)
        return _sized(Serialised(body, content_type(media_format(media_type))), job.max_bytes)
    result = _read(raw, job.max_rows, job.max_bytes)
    return result if media_type is None else _sized(Serialised(*serialize(result, media_type)), job.max_bytes)


def _sized(answer: Serialised, max_bytes: int | None) -> Serialised:
    if max_bytes is not None and len(answer.body) > max_bytes:
        raise size_limit_hit(max_bytes)
    return answer


_KINDS = {ox.QuerySolutions: "select", ox.QueryBoolean: "boolean", ox.QueryTriples: "graph"}


def _solutions(raw: ox.QuerySolutions | ox.QueryBoolean | ox.QueryTriples) -> ox.QuerySolutions:
    assert isinstance(raw, ox.QuerySolutions)
    return raw


def _read(
    raw: ox.QuerySolutions | ox.QueryBoolean | ox.QueryTriples, max_rows: int | None, max_bytes: int | None
) -> QueryResult:
    if isinstance(raw, ox.QueryBoolean):
        return bool(raw)
    if isinstance(raw, ox.QueryTriples):
        return _bounded(raw, max_rows, max_bytes, lambda t: len(t.subject.value) + len(t.object.value))
    names = tuple(v.value for v in raw.variables)
    rows = _bounded(solution_rows(raw, names), max_rows, max_bytes, lambda row: sum(len(t.value) for t in row.values()))
    return SelectResult(names, tuple(rows))


def _bounded(items: Iterable[T], max_rows: int | None, max_bytes: int | None, size: Callable[[T], int]) -> list[T]:
    """``items`` up to ``max_rows`` of them and ``max_bytes`` of their values (LimitHit past either)."""
    out: list[T] = []
    total = 0
    for item in items:
        if max_rows is not None and len(out) >= max_rows:
            raise row_limit_hit(max_rows)
        if max_bytes is not None:
            total += size(item)
            if total > max_bytes:
                raise size_limit_hit(max_bytes)
        out.append(item)
    return out


def _reply(work: Any) -> tuple[Any, ...]:
    """``("ok", answer)`` or ``("error", kind, message, hint)``: what travels back to the pool."""
    try:
        return ("ok", work())
    except LimitHit as exc:
        return ("error", exc.which, exc.message, exc.hint)
    except StoreError as exc:
        return ("error", "store", exc.message, exc.hint)
    except KgError as exc:
        return ("error", "query", exc.message, exc.hint)
    except SyntaxError as exc:
        return ("error", "syntax", str(exc), None)
    except MemoryError:
        return ("error", "memory", "", None)
    except Exception as exc:  # pyoxigraph's evaluation errors (RuntimeError, OSError from SERVICE…)
        return ("error", "query", f"the query failed: {exc}", None)


def _outcome(reply: tuple[Any, ...], job: QueryJob, memory_mb: int | None) -> Answer:
    """The answer of a reply, or the KgError it stands for."""
    if reply[0] == "ok":
        return reply[1]  # type: ignore[no-any-return]
    _, kind, message, hint = reply
    if kind == "syntax":
        raise QueryError(job.sparql.locate(message))
    if kind in ("rows", "size"):
        raise LimitHit(kind, message, hint)
    if kind == "memory":
        raise memory_limit_hit(memory_mb, "ran out of memory")
    if kind == "store":
        raise StoreError(message, hint)
    raise QueryError(message, hint)


class WorkerCopy:
    """The directory the query workers read ``store`` from: its own when it is open read-only (an
    immutable generation), else a snapshot taken now and again after each write (``refresh``),
    beside it so that pyoxigraph's backup can hard-link its files. ``close`` removes the
    snapshots."""

    KEPT = 3  # snapshots kept: queries still running may read the ones before the last

    def __init__(self, store: OxigraphStore) -> None:
        self.store = store
        self._taken: list[Path] = []
        self._count = 0
        self._base: Path | None = None
        if not store.read_only:
            parent = Path(store.location).parent
            try:
                self._base = Path(tempfile.mkdtemp(prefix=f".{Path(store.location).name}.snapshots-", dir=parent))
            except OSError:
                self._base = make_scratch_dir("snapshots")
            self.refresh()

    @property
    def location(self) -> str:
        return str(self._taken[-1]) if self._taken else self.store.location

    def refresh(self) -> None:
        """Take a new snapshot (after a write); nothing for a read-only store."""
        if self._base is None:
            return
        self._count += 1
        target = self._base / str(self._count)
        self.store.snapshot(target)
        self._taken.append(target)
        while len(self._taken) > self.KEPT:
            shutil.rmtree(self._taken.pop(0), ignore_errors=True)

    def close(self) -> None:
        if self._base is not None:
            shutil.rmtree(self._base, ignore_errors=True)
            self._base, self._taken = None, []


def query_once(
    store: Store,
    sparql: str,
    bindings: Mapping[str, Term] | None = None,
    *,
    timeout_s: float,
    memory_mb: int | None = DEFAULT_MEMORY_MB,
    max_depth: int = MAX_DEPTH,
    pool: QueryPool | None = None,
) -> QueryResult:
    """One query, for a one-off command, run where it can be stopped: over an on-disk embedded
    store in a worker process killed at ``timeout_s``; over a remote store by ``store.query``
    (its own HTTP timeout), passing on an answer the server cut at its cap with ``capped_at``
    set; over an in-memory store in this thread. ``pool``: the caller's, with one worker (else
    one is started and stopped here, with ``memory_mb``)."""
    remote = sys.modules.get("kgprofiles.store.remote")  # loaded if the store is remote (50 ms otherwise)
    if remote is not None and isinstance(store, remote.RemoteStore):
        return store.query_as_answered(sparql, bindings)  # a cut answer says so (capped_at)
    if not isinstance(store, OxigraphStore) or store.location == MEMORY:
        return store.query(sparql, bindings)
    sent = store.prepared(sparql, bindings, max_depth)
    copy = WorkerCopy(store)
    try:
        with contextlib.ExitStack() as stack:
            if pool is None:
                pool = stack.enter_context(QueryPool(workers=1, queue=0, memory_mb=memory_mb))
            pool.start()  # before the clock starts: the time limit is the query's
            answer = pool.run(QueryJob(copy.location, sent), timeout_s)
    finally:
        copy.close()
    assert not isinstance(answer, Serialised)  # no media type asked
    return answer


def run_in_thread(store: OxigraphStore, job: QueryJob) -> Answer:
    """The job run on ``store`` (in memory) in this thread: the same answer as a worker's, but
    nothing stops it at a time limit (module docstring)."""
    return _outcome(_reply(lambda: execute(store.store, job)), job, None)


# -- the worker process -------------------------------------------------------------------------


#: glibc's mallopt parameter for the most malloc arenas.
_M_ARENA_MAX = -8


def _libc() -> Any:
    return ctypes.CDLL(None, use_errno=True)


def isolate_network() -> str | None:
    """Move this (single-threaded) process into new user and network namespaces, where nothing
    is reachable; None when done, else why it could not be."""
    try:
        libc = _libc()
        if libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNET) != 0:
            return f"unshare(CLONE_NEWUSER | CLONE_NEWNET) failed: {os.strerror(ctypes.get_errno())}"
    except (OSError, AttributeError) as exc:  # no libc, no unshare (not Linux)
        return f"no unshare on this system ({exc})"
    return None


def _quiet_stderr() -> None:
    """Nothing the worker writes reaches the terminal of the server or of ``kgprofiles query``: a
    query over the memory cap makes the engine print "memory allocation of … bytes failed" and a
    backtrace header before it aborts, while the caller already says what happened (its death:
    "memory limit hit"). Every answer and error travels back through the pipe."""
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.close(devnull)


def _worker(conn: Connection, memory_mb: int | None, isolate: bool) -> None:
    """A worker's life: isolate, cap, say ready, then answer jobs until the pool hangs up."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C on the server is the server's to handle
    die_with_parent()  # gone with the forkserver (or the server that forked it), gone with us
    _quiet_stderr()  # (before the new user namespace: in it, /dev/null cannot be opened)
    problem = isolate_network() if isolate else "the pool was asked not to isolate its workers"
    if memory_mb:
        with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to cap
            # glibc gives each thread that allocates its own arena, reserving 64 MB of address
            # space: RocksDB's threads took a worker to 1.2 GB of RLIMIT_AS before any query
            # (300 MB with two arenas), and a thread that could not start aborted the worker
            # ("std::system_error: Resource temporarily unavailable", exit -6)
            _libc().mallopt(_M_ARENA_MAX, 2)
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    conn.send(("ready", problem))
    stores: dict[str, ox.Store] = {}
    while True:
        try:
            while not conn.poll(IDLE_CHECK_S):  # idle: let go of what gc has removed meanwhile
                _forget_removed(stores)
            job = conn.recv()
        except (EOFError, OSError):
            return
        conn.send(_reply(lambda job=job: execute(_open(stores, job), job)))


def _forget_removed(stores: dict[str, ox.Store]) -> None:
    """Close the stores whose generation is gone (removed by gc once no reader held it): their
    files, deleted but still open here, kept the disk space of a replaced generation taken for as
    long as the worker waited for its next query."""
    for location in [where for where in stores if not os.path.isdir(where)]:
        del stores[location]  # (closed with its last reference)


def _open(stores: dict[str, ox.Store], job: QueryJob) -> ox.Store:
    """The store at the job's location, opened read-only once."""
    if job.location in stores:
        return stores[job.location]
    while len(stores) >= _STORES_KEPT:
        stores.pop(next(iter(stores)))
    try:
        store = ox.Store.read_only(job.location)
    except OSError as exc:
        raise StoreError(f"cannot open the store at {job.location}: {exc}") from exc
    stores[job.location] = store
    return store


class _Worker:
    """One worker process and the pipe to it."""

    def __init__(self, context: Any, memory_mb: int | None, isolate: bool) -> None:
        ours, theirs = context.Pipe()
        self.process = context.Process(target=_worker, args=(theirs, memory_mb, isolate), daemon=True)
        with _main_script_left_alone():
            self.process.start()
        theirs.close()
        self.conn: Connection = ours
        if not ours.poll(START_TIMEOUT_S):
            self.kill()
            raise StoreError(f"a query worker did not start within {START_TIMEOUT_S:g} s")
        try:
            _, self.isolation = ours.recv()
        except (EOFError, OSError) as exc:
            self.kill()
            raise StoreError(f"a query worker stopped while starting (exit code {self.process.exitcode})") from exc

    def ask(self, job: QueryJob, timeout_s: float) -> tuple[Any, ...] | None:
        """The worker's reply, or None if it did not come within ``timeout_s``; raises EOFError
        (or OSError) if the worker is gone."""
        self.conn.send(job)
        if not self.conn.poll(max(0.0, timeout_s)):
            return None
        return self.conn.recv()  # type: ignore[no-any-return]

    def death(self, memory_mb: int | None) -> KgError:
        """What to tell the client when this worker died on a query."""
        self.process.join(timeout=5)
        code = self.process.exitcode
        if code is not None and -code in (signal.SIGABRT, signal.SIGKILL, signal.SIGBUS):
            return memory_limit_hit(memory_mb, f"stopped its worker ({signal.Signals(-code).name})")
        what = signal.Signals(-code).name if code is not None and code < 0 else f"exit code {code}"
        return QueryError(f"the query engine stopped on this query ({what}); the server is fine", "simplify the query")

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.process.kill()
        self.process.join(timeout=5)
        self.conn.close()


_MAIN_HIDDEN = threading.Lock()


@contextlib.contextmanager
def _main_script_left_alone() -> Iterator[None]:
    """While a worker starts, the program's main module says neither its file nor its name: a
    forkserver (and its workers) would import it again, as ``__mp_main__``, and a script without
    an ``if __name__ == "__main__":`` guard would run again in them, top to bottom (a script that
    builds its project and then queries it through the Python API built it a second time, in the
    worker). A worker needs nothing of it: its job is this module's function."""
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    with _MAIN_HIDDEN:
        hidden: dict[str, object] = {n: main.__dict__.pop(n) for n in ("__file__", "__spec__") if n in main.__dict__}
        if "__spec__" in hidden:
            main.__spec__ = None  # (spawn reads it with getattr: None is "no name")
        try:
            yield
        finally:
            main.__dict__.pop("__spec__", None)
            main.__dict__.update(hidden)


def _single_threaded() -> bool:
    """Whether this process has one thread (Linux: one task), so that a fork of it is safe."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def _context() -> Any:
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["kgprofiles.store.sandbox", "kgprofiles.export", "kgprofiles.cli"])
    return context


class QueryPool:
    """A fixed number of worker processes for queries (module docstring). ``start()`` starts them
    and tells, through ``isolation``, whether they run without a network (None) or why not.
    ``fork``: a worker started while this process has a single thread is forked from it (about
    10 ms, where the forkserver's first worker takes 0.1–0.15 s to start a new interpreter); for a
    one-shot command that starts its worker before it opens a store or a thread."""

    def __init__(
        self,
        workers: int = DEFAULT_WORKERS,
        queue: int = DEFAULT_QUEUE,
        memory_mb: int | None = DEFAULT_MEMORY_MB,
        *,
        isolate_network: bool = True,
        fork: bool = False,
    ) -> None:
        if workers < 1 or queue < 0:
            raise ValueError("a query pool needs at least one worker and a queue of zero or more")
        self.workers = workers
        self.queue = queue
        self.memory_mb = memory_mb
        self.isolate_network = isolate_network
        self.fork = fork
        self.isolation: str | None = None
        #: How the last worker was started: "fork" (from this process) or "forkserver".
        self.start_method = "forkserver"
        self._context = _context()
        self._changed = threading.Condition()
        self._idle: list[_Worker] = []
        self._alive = 0  # workers started or starting
        self._inside = 0  # calls of run() now: running or waiting
        self._closed = False
        self._warm: str | None = None  # the store a replacement worker opens before it is used
        self._replacing: list[threading.Thread] = []

    def __enter__(self) -> QueryPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self, warm: str | None = None) -> None:
        """Start every worker now (else each starts when first needed), each with the store at
        ``warm`` open if given."""
        with self._changed:
            missing = self.workers - self._alive
            self._alive += missing
        self._warm = warm or self._warm
        started: list[_Worker] = []
        try:
            for _ in range(missing):
                started.append(self._spawn())
        finally:
            with self._changed:
                self._alive -= missing - len(started)
                self._idle += started
                self._changed.notify_all()

    @property
    def full(self) -> bool:
        """Whether a query now would be refused as busy."""
        with self._changed:
            return self._inside >= self.workers + self.queue

    def run(self, job: QueryJob, timeout_s: float, started: float | None = None) -> Answer:
        """The job's answer within ``timeout_s`` of ``started`` (a ``time.monotonic()``, default
        now), waiting for a worker included; raises LimitHit (time, rows, memory, busy),
        QueryError or StoreError."""
        deadline = (time.monotonic() if started is None else started) + timeout_s
        with self._changed:
            if self._closed:
                raise StoreError("the query workers are shut down", "open the graph (or start the server) again")
            if self._inside >= self.workers + self.queue:
                raise busy(self.workers)
            self._inside += 1
        self._warm = job.location
        try:
            worker = self._take(deadline)
            return self._ask(worker, job, deadline, timeout_s)
        finally:
            with self._changed:
                self._inside -= 1

    async def run_async(self, job: QueryJob, timeout_s: float, started: float | None = None) -> Answer:
        """``run`` for an event loop: the job is sent to an idle worker and its answer awaited on
        the pipe, with no thread in between (a thread waits only when no worker is idle). The
        same limits, errors and worker replacement as ``run``; a caller cancelled while waiting
        (its client gone) kills the worker, whose answer nobody would read."""
        import anyio  # (not in query workers, which never run this)

        deadline = (time.monotonic() if started is None else started) + timeout_s
        with self._changed:
            if self._closed:
                raise StoreError("the query workers are shut down", "open the graph (or start the server) again")
            if self._inside >= self.workers + self.queue:
                raise busy(self.workers)
            self._inside += 1
            worker = self._idle.pop() if self._idle else None
        self._warm = job.location
        try:
            if worker is None:
                worker = await anyio.to_thread.run_sync(self._take, deadline)
            return await self._ask_async(worker, job, deadline, timeout_s)
        finally:
            with self._changed:
                self._inside -= 1

    async def _ask_async(self, worker: _Worker, job: QueryJob, deadline: float, timeout_s: float) -> Answer:
        import anyio

        try:
            worker.conn.send(job)
            with anyio.fail_after(max(0.0, deadline - time.monotonic())):
                await anyio.wait_readable(worker.conn.fileno())
            # uvloop (which uvicorn runs on when it is installed) leaves a descriptor it watched
            # non-blocking: an answer longer than the pipe holds would then stop the read half-way
            # (BlockingIOError, taken for the worker's death). The rest is on its way: wait for it.
            os.set_blocking(worker.conn.fileno(), True)
            reply = worker.conn.recv()
        except TimeoutError:  # (before OSError, of which it is a kind)
            self._discard(worker)
            raise time_limit_hit(timeout_s) from None
        except (EOFError, OSError):
            error = await anyio.to_thread.run_sync(worker.death, self.memory_mb)
            self._discard(worker)
            raise error from None
        except BaseException:  # cancelled: the answer would stay in the pipe
            self._discard(worker)
            raise
        if reply[:2] == ("error", "memory"):
            self._discard(worker)
        else:
            self._give_back(worker)
        return _outcome(reply, job, self.memory_mb)

    def _take(self, deadline: float) -> _Worker:
        with self._changed:
            while not self._idle:
                if self._alive < self.workers:
                    self._alive += 1
                    break
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise busy(self.workers)
                self._changed.wait(remaining)
            else:
                return self._idle.pop()
        try:
            return self._spawn()
        except BaseException:
            self._lost()
            raise

    def _ask(self, worker: _Worker, job: QueryJob, deadline: float, timeout_s: float) -> Answer:
        try:
            reply = worker.ask(job, deadline - time.monotonic())
        except (EOFError, OSError):
            error = worker.death(self.memory_mb)
            self._discard(worker)
            raise error from None
        if reply is None:
            self._discard(worker)
            raise time_limit_hit(timeout_s)
        if reply[:2] == ("error", "memory"):
            self._discard(worker)  # a worker that ran out of memory may be in any state
        else:
            self._give_back(worker)
        return _outcome(reply, job, self.memory_mb)

    def _spawn(self) -> _Worker:
        self.start_method = "fork" if self.fork and _single_threaded() else "forkserver"
        context = multiprocessing.get_context("fork") if self.start_method == "fork" else self._context
        worker = _Worker(context, self.memory_mb, self.isolate_network)
        self.isolation = worker.isolation
        if self._warm is not None:
            try:
                reply = worker.ask(QueryJob(self._warm, SparqlText.of("ASK {}")), START_TIMEOUT_S)
            except (EOFError, OSError) as exc:
                worker.kill()
                raise StoreError(
                    f"a query worker stopped while opening {self._warm} (exit code {worker.process.exitcode})"
                ) from exc
            if reply is None:  # its late answer would be read as the next query's
                worker.kill()
                raise StoreError(f"a query worker did not open {self._warm} within {START_TIMEOUT_S:g} s")
        return worker

    def _give_back(self, worker: _Worker) -> None:
        with self._changed:
            if not self._closed:
                self._idle.append(worker)
                self._changed.notify()
                return
        worker.kill()
        self._lost()

    def _discard(self, worker: _Worker) -> None:
        """Kill ``worker`` and start its replacement in the background."""
        worker.kill()
        self._lost()
        with self._changed:
            if self._closed or self._alive >= self.workers:
                return
            self._alive += 1
            self._replacing = [t for t in self._replacing if t.is_alive()]
            thread = threading.Thread(target=self._replace, name="kgprofiles-query-worker", daemon=True)
            self._replacing.append(thread)
        thread.start()

    def _replace(self) -> None:
        try:
            worker = self._spawn()
        except Exception:  # (the process is shutting down, or workers cannot start): the next run tries again
            self._lost()
            return
        self._give_back(worker)

    def _lost(self) -> None:
        with self._changed:
            self._alive -= 1
            self._changed.notify()

    def pids(self) -> list[int]:
        """The process ids of the idle workers (for tests and diagnostics)."""
        with self._changed:
            return [w.process.pid for w in self._idle if w.process.pid is not None]

    def close(self) -> None:
        """Stop every idle worker now (and those starting); busy ones stop when their query ends."""
        with self._changed:
            self._closed = True
            idle, self._idle = self._idle, []
            replacing = list(self._replacing)
            self._changed.notify_all()
        for thread in replacing:  # a worker half started when this process exits prints a traceback
            thread.join(timeout=START_TIMEOUT_S)
        for worker in idle:
            worker.kill()
            self._lost()
