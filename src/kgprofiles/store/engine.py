"""The embedded engine itself, for the fast validation and inference paths.

The fast paths compile shapes and rules to SPARQL and run them, set-at-a-time, on the engine of
an embedded store (``OxigraphStore``) or of a scratch one in memory. They reach the engine through
this module only: ``engine_of`` for a store's engine, ``scratch`` for a new empty one in memory.
A ``load`` only looks up quad patterns in the store it loads into: ``patterns_of`` gives the
embedded engine, or a remote store itself (each pattern a query), so a load into a server reads
what the load touches, not the whole graph.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

import pyoxigraph as ox

#: The embedded engine's store type (Oxigraph), as the fast paths drive it.
Engine = ox.Store
#: A SELECT answer as the engine gives it (iterable solutions, ``.variables``).
QuerySolutions = ox.QuerySolutions


def scratch() -> Engine:
    """A new, empty engine in memory."""
    return ox.Store()


def engine_of(store: object) -> Engine:
    """The engine behind ``store``: an engine itself, or an ``OxigraphStore``'s."""
    if isinstance(store, ox.Store):
        return store
    inner = getattr(store, "store", None)
    if isinstance(inner, ox.Store):
        return inner
    raise TypeError(f"not an embedded store: {store!r}")


class Patterns(Protocol):
    """What answers quad patterns: an engine, or a store of the Store contract."""

    def quads_for_pattern(
        self,
        subject: ox.NamedNode | ox.BlankNode | ox.Triple | None,
        predicate: ox.NamedNode | None,
        object: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple | None,
        graph_name: ox.NamedNode | None = None,
    ) -> Iterator[ox.Quad]: ...


def patterns_of(store: object) -> Patterns:
    """The quad patterns of ``store``: its engine if it is embedded, else the store itself."""
    try:
        return engine_of(store)
    except TypeError:
        if callable(getattr(store, "quads_for_pattern", None)):
            return store  # type: ignore[return-value]
        raise
