"""Running SPARQL for the endpoint: every text is checked first (``store/guard.py``: nesting, no
SERVICE or LOAD, no FROM outside the store, unless fetching is allowed), then

* a query over the embedded store on disk runs in a query worker (``store/sandbox.py``): killed at
  the time limit, its memory capped, its result read up to the row limit and serialised there; the
  protocol's ``default-graph-uri`` / ``named-graph-uri`` become the query's dataset;
* a query over an in-memory store runs in the calling thread (``sandbox.run_in_thread``; nothing
  stops it at the time limit: for tests of small stores, never for serving);
* a query over a remote SPARQL server goes through the Store contract (its HTTP timeout); it has
  no dataset parameters, so a request with them is refused with a hint;
* an update runs on the store itself, as one transaction (no time limit: a write is never cut
  short); the workers then read a new snapshot of the store (``sandbox.WorkerCopy``).

Everything here blocks: the endpoint runs it in a thread (``kgprofiles.web.sparql``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from dataclasses import dataclass

import pyoxigraph as ox

from kgprofiles.config import MEMORY
from kgprofiles.errors import InputError
from kgprofiles.sparql_lexer import scan
from kgprofiles.store.base import SelectResult, Store
from kgprofiles.store.binding import SparqlText
from kgprofiles.store.guard import MAX_DEPTH, analyse, check_query
from kgprofiles.store.oxigraph import OxigraphStore
from kgprofiles.store.remote import RemoteStore
from kgprofiles.store.sandbox import (
    Answer,
    QueryJob,
    QueryPool,
    WorkerCopy,
    row_limit_hit,
    run_in_thread,
    time_limit_hit,
)
from kgprofiles.store.writer import update_published

#: Queries up to this long are checked in the event loop (well under a millisecond); longer ones in a thread.
INLINE_CHECK_CHARS = 4_000


@dataclass(frozen=True)
class Dataset:
    """A protocol-specified dataset: ``default-graph-uri`` and ``named-graph-uri`` for a query,
    ``using-graph-uri`` and ``using-named-graph-uri`` for an update."""

    default_graphs: tuple[str, ...] = ()
    named_graphs: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.default_graphs or self.named_graphs)


@dataclass(frozen=True)
class Limits:
    """How long a query may run, how many rows (or triples) it may return, how deeply its
    brackets may nest, and how many bytes its answer may take (None: no limit)."""

    timeout_s: float = 30.0
    max_rows: int = 100_000
    max_depth: int = MAX_DEPTH
    max_bytes: int | None = None


def check_update_dataset(text: str) -> None:
    """An update sent with using-graph-uri / using-named-graph-uri must not also say USING or WITH."""
    for token in scan(text):
        if token.depth == 0 and token.keyword in ("USING", "WITH"):
            raise InputError(
                f"the update has a {token.keyword} clause and the request gives using-graph-uri or "
                "using-named-graph-uri; the protocol allows only one of them",
                "drop the parameters or the clause",
            )


def with_using(text: str, dataset: Dataset) -> str:
    """The update with ``USING <g>`` / ``USING NAMED <g>`` before the WHERE of each DELETE/INSERT
    operation: the meaning the protocol gives to using-graph-uri and using-named-graph-uri."""
    if not dataset:
        return text
    check_update_dataset(text)
    clause = " ".join(
        [f"USING {ox.NamedNode(g)}" for g in dataset.default_graphs]
        + [f"USING NAMED {ox.NamedNode(g)}" for g in dataset.named_graphs]
    )
    tokens = list(scan(text))
    at = [
        token.start
        for previous, token in zip([None, *tokens], tokens, strict=False)
        if token.depth == 0 and token.keyword == "WHERE" and (previous is None or previous.keyword != "DELETE")
    ]
    for start in reversed(at):
        text = f"{text[:start]}{clause} {text[start:]}"
    return text


class Engine:
    """Runs the endpoint's queries and updates against one store; ``pool`` runs the queries over
    an on-disk embedded store (required for one). ``local_graphs`` gives the graphs FROM may name
    (default: the store's, asked each time)."""

    def __init__(
        self,
        store: Store,
        limits: Limits,
        allow_fetch: bool = False,
        pool: QueryPool | None = None,
        local_graphs: Callable[[], Collection[str]] | None = None,
        prepare: Callable[[OxigraphStore], None] | None = None,
    ) -> None:
        if isinstance(store, OxigraphStore) and store.location != MEMORY and pool is None:
            raise ValueError("queries over an on-disk store run in a QueryPool")
        self.store = store
        self.limits = limits
        self.allow_fetch = allow_fetch
        self.pool = pool
        self.local_graphs = local_graphs or store.graphs
        self.prepare = prepare  # what an update does to the new generation before publishing it
        self.copy = WorkerCopy(store) if pool is not None and isinstance(store, OxigraphStore) else None

    def check(self, sparql: str) -> None:
        check_query(
            sparql, allow_fetch=self.allow_fetch, local_graphs=self.local_graphs, max_depth=self.limits.max_depth
        )

    def query(
        self,
        sparql: str,
        dataset: Dataset | None = None,
        base_iri: str | None = None,
        media_types: tuple[tuple[str, str], ...] = (),
    ) -> Answer:
        """The answer: bytes in the media type ``media_types`` gives for its kind of result
        ("select", "boolean", "graph"), else the result itself. Raises QueryError (malformed,
        too deep), Forbidden, LimitHit or StoreError."""
        started = time.monotonic()
        self.check(sparql)
        if not isinstance(self.store, OxigraphStore):
            return self._query_contract(sparql, dataset, started)
        job = self._job(self.store, sparql, dataset, base_iri, media_types)
        if self.pool is None:
            return run_in_thread(self.store, job)
        return self.pool.run(job, self.limits.timeout_s, started)

    def runs_in_loop(self, sparql: str) -> bool:
        """Whether ``query_async`` takes ``sparql`` without blocking an event loop: a query for
        the workers, short enough to check at once, naming no FROM graph (whose check may list the
        store's graphs)."""
        return (
            self.pool is not None
            and isinstance(self.store, OxigraphStore)
            and len(sparql) <= INLINE_CHECK_CHARS
            and not analyse(sparql).graphs
        )

    async def query_async(
        self,
        sparql: str,
        dataset: Dataset | None = None,
        base_iri: str | None = None,
        media_types: tuple[tuple[str, str], ...] = (),
    ) -> Answer:
        """``query`` in an event loop, for a text ``runs_in_loop`` accepts: checked here, then
        answered by a query worker awaited on its pipe (``QueryPool.run_async``)."""
        started = time.monotonic()
        self.check(sparql)
        assert self.pool is not None and isinstance(self.store, OxigraphStore)
        job = self._job(self.store, sparql, dataset, base_iri, media_types)
        return await self.pool.run_async(job, self.limits.timeout_s, started)

    def _job(
        self,
        store: OxigraphStore,
        sparql: str,
        dataset: Dataset | None,
        base_iri: str | None,
        media_types: tuple[tuple[str, str], ...],
    ) -> QueryJob:
        dataset = dataset or Dataset()
        return QueryJob(
            store.location if self.copy is None else self.copy.location,
            SparqlText.of(sparql),
            base_iri=base_iri,
            default_graphs=dataset.default_graphs,
            named_graphs=dataset.named_graphs,
            max_rows=self.limits.max_rows,
            max_bytes=self.limits.max_bytes,
            media_types=media_types,
        )

    def _query_contract(self, sparql: str, dataset: Dataset | None, started: float) -> Answer:
        if dataset:
            raise InputError(
                "default-graph-uri and named-graph-uri are not supported when serving a remote store",
                "write FROM / FROM NAMED in the query instead",
            )
        if isinstance(self.store, RemoteStore):
            result = self.store.query_as_answered(sparql)  # a cut answer says so (capped_at)
        else:
            result = self.store.query(sparql)
        if time.monotonic() - started > self.limits.timeout_s:
            raise time_limit_hit(self.limits.timeout_s)
        size = len(result) if isinstance(result, SelectResult | list) else 0
        if size > self.limits.max_rows:
            raise row_limit_hit(self.limits.max_rows)
        return result

    def update(self, sparql: str, dataset: Dataset | None = None, base_iri: str | None = None) -> None:
        """Run a SPARQL 1.1 Update as one transaction (no time limit: a write is never cut short;
        waiting for another process that writes the store is, StoreBusy past it)."""
        sent = with_using(sparql, dataset or Dataset())
        self.check(sparql)
        if isinstance(self.store, OxigraphStore) and self.store.link is not None:
            # A published generation is never written: the update makes and publishes a new one.
            update_published(
                self.store.link,
                sent,
                base_iri=base_iri,
                command="kgprofiles serve (a SPARQL update)",
                prepare=self.prepare,
                # another writer (a build): waited for within the time limit, then 503 (never
                # a request held, and the server unstoppable, for as long as a build runs)
                wait_s=self.limits.timeout_s,
                busy_hint="send the update again once it has finished",
            )
            return
        try:
            self.store.update(sent, base_iri=base_iri)
        finally:
            if self.copy is not None:
                self.copy.refresh()

    def close(self) -> None:
        """Remove the workers' snapshots (the pool and the store are closed by their owners)."""
        if self.copy is not None:
            self.copy.close()
