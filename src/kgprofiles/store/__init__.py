"""Stores: the contract (base.py), the embedded default (oxigraph.py), a SPARQL 1.1 server (remote.py).

The names below load on first use, so a module that needs only ``store.engine`` or
``store.rdf_syntax`` (a query child process, the parser) does not pay for the whole package."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kgprofiles.config import Settings
    from kgprofiles.store.base import QueryResult, SelectResult, Store, Term
    from kgprofiles.store.oxigraph import OxigraphStore
    from kgprofiles.store.remote import RemoteStore

__all__ = ["OxigraphStore", "QueryResult", "RemoteStore", "SelectResult", "Store", "Term", "open_store"]

_HOME = {
    "QueryResult": "base",
    "SelectResult": "base",
    "Store": "base",
    "Term": "base",
    "OxigraphStore": "oxigraph",
    "RemoteStore": "remote",
}


def __getattr__(name: str) -> Any:
    if name in _HOME:
        return getattr(importlib.import_module(f"kgprofiles.store.{_HOME[name]}"), name)
    raise AttributeError(f"module 'kgprofiles.store' has no attribute {name!r}")


def open_store(settings: Settings, *, read_only: bool = False, allow_fetch: bool = False) -> Store:
    """The store the settings name: a RemoteStore when ``settings.endpoint`` is set (of the
    server kind the settings name; its update and Graph Store endpoints from the settings, or
    the kind's own; credentials from the environment or the credentials file), else an
    OxigraphStore at ``settings.store`` (a directory, or ``memory:``).

    ``read_only`` is how readers open an on-disk store: its published generation, under a lease,
    never written (see ``store/generations.py``); it changes nothing for a remote or in-memory
    store. ``allow_fetch`` lets queries and updates use SERVICE and LOAD (refused by default)."""
    from kgprofiles.config import MEMORY
    if settings.endpoint:
        from kgprofiles.store.credentials import credentials_from
        from kgprofiles.store.remote import RemoteStore

        return RemoteStore(
            settings.endpoint,
            settings.update_endpoint,
            settings.graph_store_endpoint,
            settings.query_timeout_s,
            allow_fetch=allow_fetch,
            max_answer_bytes=settings.limits.max_answer_bytes,
            kind=settings.server_kind,
            credentials=credentials_from(settings.credentials_file),
            max_rows=settings.server_max_rows,
            triples_per_write=settings.server_triples_per_write,
        )
    from kgprofiles.store.oxigraph import OxigraphStore

    return OxigraphStore(settings.store, read_only=read_only and settings.store != MEMORY, allow_fetch=allow_fetch)
