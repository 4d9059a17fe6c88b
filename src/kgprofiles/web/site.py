"""What every request handler shares: the settings, the store, the views over it, the SPARQL
engine and the write token. One ``Site`` per app, kept in ``app.state.site``."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import anyio
from starlette.requests import Request

from kgprofiles.config import Settings
from kgprofiles.profiles import Views
from kgprofiles.queries import get_query
from kgprofiles.store.base import SelectResult, Store, Term
from kgprofiles.store.oxigraph import OxigraphStore
from kgprofiles.web.engine import Engine, Limits

T = TypeVar("T")

#: Queries running at once in worker threads; more wait for a turn (inside their time limit).
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
    _limiter: anyio.CapacityLimiter | None = field(default=None, init=False)
    _cache: dict[str, Any] = field(default_factory=dict, init=False)
    _cache_lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    _warming: threading.Thread | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        # A stable store: whole-graph results (related people, organisation sizes) read once.
        self.views = Views(self.store, self.settings.queries_dir, self.settings.related_weights, stable=self.stable)
        self._warming = self.views.warm() if self.stable else None
        self.engine = Engine(self.store, self.limits, self.allow_fetch)

    @property
    def limiter(self) -> anyio.CapacityLimiter:
        """The worker threads for /sparql (made on first use: it needs the running event loop)."""
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(QUERY_THREADS)
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
        if self._warming is not None:
            self._warming.join(timeout=5)  # a daemon: it stops with the process if still reading
        if self.owns_store:
            self.store.close()


def site_of(request: Request) -> Site:
    return request.app.state.site  # type: ignore[no-any-return]
