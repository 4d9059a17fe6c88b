"""Stores: the contract (base.py), the embedded default (oxigraph.py), a SPARQL 1.1 server (remote.py)."""

from __future__ import annotations

from kgprofiles.config import Settings
from kgprofiles.store.base import QueryResult, SelectResult, Store, Term
from kgprofiles.store.oxigraph import OxigraphStore
from kgprofiles.store.remote import RemoteStore

__all__ = ["OxigraphStore", "QueryResult", "RemoteStore", "SelectResult", "Store", "Term", "open_store"]


def open_store(settings: Settings, *, read_only: bool = False, allow_fetch: bool = False) -> Store:
    """The store the settings name: a RemoteStore when ``settings.endpoint`` is set (its update
    and Graph Store endpoints from the settings, or derived from the query endpoint), else an
    OxigraphStore at ``settings.store`` (a directory, or ``memory:``). ``read_only`` opens an
    on-disk store without the writer's lock, for readers while no build runs; it has no effect
    on a remote store. ``allow_fetch`` lets queries and updates use SERVICE and LOAD (refused by
    default)."""
    if settings.endpoint:
        return RemoteStore(
            settings.endpoint,
            settings.update_endpoint,
            settings.graph_store_endpoint,
            settings.query_timeout_s,
            allow_fetch=allow_fetch,
        )
    return OxigraphStore(settings.store, read_only=read_only, allow_fetch=allow_fetch)
