"""What every request handler shares: the settings, the store, the views over it, the SPARQL
engine and the write token. One ``Site`` per app, kept in ``app.state.site``.

The server follows the store. Over an on-disk store, the site reads one published generation at a
time (a :class:`Snapshot`: the store opened read-only, its views and engine). When a build or load
publishes a newer generation, the next request opens it and is served from it; requests already
running finish on the generation they started with (each request pins its snapshot), and the old
snapshot is closed, releasing its generation, when its last request ends.
"""

from __future__ import annotations

import contextvars
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import anyio
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from kgprofiles.config import MEMORY, Settings
from kgprofiles.profiles import Views
from kgprofiles.search import DEFAULT_LIMIT, INDEX_FILE, Results, SearchIndex, write_index
from kgprofiles.store.base import SelectResult, Store, Term
from kgprofiles.store.oxigraph import OxigraphStore
from kgprofiles.store.sandbox import QueryPool
from kgprofiles.web.cache import Pages
from kgprofiles.web.engine import Engine, Limits

T = TypeVar("T")

#: Queries over a remote or in-memory store running at once in threads; more wait for a turn
#: (inside their time limit). Over an on-disk store, the query workers' number and queue decide.
QUERY_THREADS = 4
#: Whole-graph downloads made at once (each reads the whole store).
DOWNLOADS_AT_ONCE = 2
#: How often (seconds) requests look whether a newer generation was published.
FOLLOW_EVERY_S = 0.2
#: The snapshot's cache key of its search index.
SEARCH_INDEX = "search-index"

_pinned: contextvars.ContextVar[Snapshot | None] = contextvars.ContextVar("kgprofiles_snapshot", default=None)


@dataclass
class Snapshot:
    """One generation of the store as the site serves it: the store, the views and the engine
    over it, and what was computed once for it."""

    store: Store
    views: Views
    engine: Engine
    stable: bool
    link_target: str | None = None  # what the store's link pointed at when it was opened
    users: int = 0
    retired: bool = False
    cache: dict[str, Any] = field(default_factory=dict)
    cache_lock: threading.Lock = field(default_factory=threading.Lock)
    warming: threading.Thread | None = None
    pages: Pages | None = None  # the pages of a published generation (``web/cache.py``)

    def close(self) -> None:
        if self.warming is not None:
            self.warming.join(timeout=5)  # a daemon: it stops with the process if still reading
        self.engine.close()
        index = self.cache.get(SEARCH_INDEX)
        if index is not None:
            index.close()
        if self.pages is not None:
            self.pages.close()
        self.store.close()


@dataclass
class Site:
    settings: Settings
    store_at_start: Store
    limits: Limits
    write_token: str | None = None
    allow_fetch: bool = False
    editor_dir: Path | None = None  # @triply/yasgui's build/ directory, when installed
    owns_store: bool = False
    shared_pages: Path | None = None  # where the server's processes share pages (``web/cache.py``)
    _latest: Snapshot = field(init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    _looked_at: float = field(default=0.0, init=False)
    pool: QueryPool | None = field(default=None, init=False)
    _limiter: anyio.CapacityLimiter | None = field(default=None, init=False)
    #: Whole-graph exports being streamed (``web/downloads.py``).
    download_slots: threading.BoundedSemaphore = field(
        default_factory=lambda: threading.BoundedSemaphore(DOWNLOADS_AT_ONCE), init=False
    )

    def __post_init__(self) -> None:
        store = self.store_at_start
        if isinstance(store, OxigraphStore) and store.location != MEMORY:
            self.pool = QueryPool(self.settings.query_workers, self.settings.query_queue, self.settings.query_memory_mb)
        self._latest = self._snapshot(store)
        if self.pool is not None:
            copy = self._latest.engine.copy
            self.pool.start(warm=copy.location if copy is not None else None)

    def _snapshot(self, store: Store) -> Snapshot:
        # A stable store: whole-graph results (related people, organisation sizes) read once.
        stable = self.write_token is None and isinstance(store, OxigraphStore)
        views = Views(store, self.settings.queries_dir, self.settings.related_weights, stable=stable)
        link = _link_of(store)
        cache: dict[str, Any] = {}
        graphs = (lambda: cache.setdefault("graphs", frozenset(store.graphs()))) if stable else None
        engine = Engine(store, self.limits, self.allow_fetch, self.pool, graphs, prepare=self._index_generation)
        snapshot = Snapshot(store, views, engine, stable, link_target=os.readlink(link) if link else None)
        generation = generation_of(store)
        snapshot.pages = Pages(generation, shared=self.shared_pages) if generation is not None else None
        snapshot.warming = views.warm() if stable else None
        return snapshot

    def _index_generation(self, store: OxigraphStore) -> None:
        """Write the search index into a generation an update made, before it is published."""
        write_index(store, self.settings.queries_dir, Path(store.location) / INDEX_FILE)

    # -- which generation ---------------------------------------------------------------------

    def current(self) -> Snapshot:
        """The snapshot the running request pinned, else the newest."""
        pinned = _pinned.get()
        return pinned if pinned is not None else self.follow()

    def follow(self, *, now: bool = False) -> Snapshot:
        """The newest snapshot, opening the store's newly published generation if there is one
        (looked at every FOLLOW_EVERY_S at most, unless ``now``)."""
        with self._lock:
            latest = self._latest
            link = _link_of(latest.store)
            if link is None or (not now and time.monotonic() - self._looked_at < FOLLOW_EVERY_S):
                return latest
            self._looked_at = time.monotonic()
            try:
                target = os.readlink(link)
            except OSError:
                return latest
            if target == latest.link_target:
                return latest
            fresh = self._snapshot(OxigraphStore(link, read_only=True, allow_fetch=self.allow_fetch))
            self._latest = fresh
            latest.retired = True
            if latest.users == 0:
                self._close(latest)
            return fresh

    def pin(self) -> Snapshot:
        """The snapshot a request is served from, held until ``unpin``."""
        snapshot = self.follow()
        with self._lock:
            snapshot.users += 1
        return snapshot

    def unpin(self, snapshot: Snapshot) -> None:
        with self._lock:
            snapshot.users -= 1
            done = snapshot.retired and snapshot.users == 0
        if done:
            self._close(snapshot)

    def _close(self, snapshot: Snapshot) -> None:
        """Close a retired snapshot (releasing its generation), off the event loop."""
        threading.Thread(target=snapshot.close, name="kgprofiles-close-generation", daemon=True).start()

    # -- what handlers use --------------------------------------------------------------------

    @property
    def store(self) -> Store:
        return self.current().store

    @property
    def views(self) -> Views:
        return self.current().views

    @property
    def engine(self) -> Engine:
        return self.current().engine

    @property
    def stable(self) -> bool:
        """Whether the data cannot change under the snapshot being served: read-only, over the
        embedded store (each generation is immutable; a new one is a new snapshot)."""
        return self.current().stable

    @property
    def limiter(self) -> anyio.CapacityLimiter:
        """The threads for /sparql (made on first use: it needs the running event loop)."""
        if self._limiter is None:
            size = QUERY_THREADS if self.pool is None else self.pool.workers + self.pool.queue
            self._limiter = anyio.CapacityLimiter(size)
        return self._limiter

    def cached(self, key: str, make: Callable[[], T]) -> T:
        """``make()``, computed once per snapshot (for things that change only with the data)."""
        snapshot = self.current()
        with snapshot.cache_lock:
            if key not in snapshot.cache:
                snapshot.cache[key] = make()
            return snapshot.cache[key]  # type: ignore[no-any-return]

    def summary(self, key: str, make: Callable[[], T]) -> T:
        """``make()``: computed once when the site is stable, else every time."""
        return self.cached(key, make) if self.stable else make()

    def search(self, text: str, limit: int = DEFAULT_LIMIT, offset: int = 0) -> Results:
        """Full-text search (``kgprofiles.search``). A stable snapshot opens its generation's index
        once (or builds one in memory once, when the generation has none); a store that may
        change under the site (a remote server, a writable store) is indexed for each search,
        unless a remote server has the index ``build`` or ``load`` wrote for it."""
        snapshot = self.current()
        if snapshot.stable:
            return self.cached(SEARCH_INDEX, lambda: SearchIndex.over(self.settings, snapshot.store)).search(
                text, limit, offset
            )
        index = SearchIndex.over(self.settings, snapshot.store)
        try:
            return index.search(text, limit, offset)
        finally:
            index.close()

    def select(self, name: str, **values: str | Term) -> SelectResult:
        """The rows of a named query from queries/."""
        return self.views.select(name, **values)

    def close(self) -> None:
        with self._lock:
            latest = self._latest
        if self.pool is not None:
            self.pool.close()
        latest.engine.close()
        index = latest.cache.get(SEARCH_INDEX)
        if index is not None:
            index.close()
        if latest.warming is not None:
            latest.warming.join(timeout=5)
        if latest.store is not self.store_at_start or self.owns_store:
            latest.store.close()


def generation_of(store: Store) -> str | None:
    """The name of the published generation ``store`` reads (immutable: its pages can be kept),
    or None."""
    generation = store.generation if isinstance(store, OxigraphStore) else None
    return generation.name if generation is not None else None


def _link_of(store: Store) -> str | None:
    return store.link if isinstance(store, OxigraphStore) else None


class PinSnapshot:
    """ASGI middleware: each HTTP request is served from one snapshot of the store, pinned from
    its first byte to its last (a generation published meanwhile serves the next requests)."""

    def __init__(self, app: ASGIApp, site: Site) -> None:
        self.app = app
        self.site = site

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        snapshot = self.site.pin()
        token = _pinned.set(snapshot)
        try:
            await self.app(scope, receive, send)
        finally:
            _pinned.reset(token)
            self.site.unpin(snapshot)


def site_of(request: Request) -> Site:
    return request.app.state.site  # type: ignore[no-any-return]
