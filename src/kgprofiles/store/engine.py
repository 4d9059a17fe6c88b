"""The embedded engine itself, for the fast validation and inference paths.

The fast paths compile shapes and rules to SPARQL and run them, set-at-a-time, on the engine of
an embedded store (``OxigraphStore``) or of a scratch one in memory. They reach the engine through
this module only: ``engine_of`` for a store's engine, ``scratch`` for a new empty one in memory.
"""

from __future__ import annotations

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
