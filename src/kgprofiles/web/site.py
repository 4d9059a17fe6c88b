"""What every request handler shares: the settings, the store, the views over it, the SPARQL
engine (with its query workers, over an on-disk embedded store) and the write token. One ``Site``
per app, kept in ``app.state.site``."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import anyio
from starlette.requests import Request

from kgprofiles.config import MEMORY, Settings
from kgprofiles.profiles import Views
from kgprofiles.queries import get_query
from kgprofiles.store.base import SelectResult, Store, Term
from kgprofiles.store.oxigraph import OxigraphStore
from kgprofiles.store.sandbox import QueryPool
from kgprofiles.web.engine import Engine, Limits

T = TypeVar("T")

#: Queries over a remote or in-memory store running at once in threads; more wait for a turn
#: (inside their time limit). Over an on-disk store, the query workers' number and queue decide.
QUERY_THREADS = 4


@dataclass
class Site:
    settings: Settings
    store: Store
    limits: Limits
    write_token: str | None = None
    allow_fetch: bool = False
    editor_dir: Path | None = None  # @triply/yasgui's build/ directory, when installed
    owns_store: bool = False
    views: Views = field(init=False)
    engine: Engine = field(init=False)
    pool: QueryPool | None = field(default=None, init=False)
    _limiter: anyio.CapacityLimiter | None = field(default=None, init=False)
    _cache: dict[str, Any] = field(default_factory=dict, init=False)
    _cache_lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    _warming: threading.Thread | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        # A stable store: whole-graph results (related people, organisation sizes) read once.
        self.views = Views(self.store, self.settings.queries_dir, self.settings.related_weights, stable=self.stable)
        self._warming = self.views.warm() if self.stable else None
        if isinstance(self.store, OxigraphStore) and self.store.location != MEMORY:
            self.pool = QueryPool(self.settings.query_workers, self.settings.query_queue, self.settings.query_memory_mb)
        graphs = (lambda: self.summary("graphs", lambda: frozenset(self.store.graphs()))) if self.stable else None
        self.engine = Engine(self.store, self.limits, self.allow_fetch, self.pool, graphs)
        if self.pool is not None and self.engine.copy is not None:
            self.pool.start(warm=self.engine.copy.location)

    @property
    def limiter(self) -> anyio.CapacityLimiter:
        """The threads for /sparql (made on first use: it needs the running event loop)."""
        if self._limiter is None:
            size = QUERY_THREADS if self.pool is None else self.pool.workers + self.pool.queue
            self._limiter = anyio.CapacityLimiter(size)
        return self._limiter

    def cached(self, key: str, make: Callable[[], T]) -> T:
        """``make()``, computed once per site (for things that change only with the data's shape)."""
        with self._cache_lock:
            if key not in self._cache:
                self._cache[key] = make()
            return self._cache[key]  # type: ignore[no-any-return]

    @property
    def stable(self) -> bool:
        """Whether the data cannot change while the site runs: read-only, over the embedded store
        (which this process holds exclusively; a new build is a new store, served after a restart)."""
        return self.write_token is None and isinstance(self.store, OxigraphStore)

    def summary(self, key: str, make: Callable[[], T]) -> T:
        """``make()``: computed once when the site is stable, else every time."""
        return self.cached(key, make) if self.stable else make()

    def select(self, name: str, **values: str | Term) -> SelectResult:
        """The rows of a named query from queries/."""
        result = get_query(self.settings.queries_dir, name).run(self.store, values)
        assert isinstance(result, SelectResult), name
        return result

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
        self.engine.close()
        if self._warming is not None:
            self._warming.join(timeout=5)  # a daemon: it stops with the process if still reading
        if self.owns_store:
            self.store.close()


def site_of(request: Request) -> Site:
    return request.app.state.site  # type: ignore[no-any-return]
