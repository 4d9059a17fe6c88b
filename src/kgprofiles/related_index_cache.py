"""The related-people index of a store generation, kept on disk between processes.

Reading the index from the store costs a minute or more at 100,000 people (nine whole-graph
queries, decoded row by row): at the start of every ``serve`` worker, and in every ``site build``.
Read back from its entry it costs seconds. An entry is made for one published generation of an
on-disk store (``OxigraphStore.generation``: a generation never changes, and its path never names
other data), the texts of the nine queries (a project's own ``related-index-*.rq`` included) and
the code that reads and ranks (this module, ``related_index.py``, ``related.py``), under
``$KGPROFILES_CACHE_DIR/related/`` (``fast/disk_cache.py``). Any other store (in memory, a remote
server, a store directory outside its generations) is read every time. An entry that cannot be
read whole is ignored and written again; a cache that cannot be written only costs the reading.
The newest ``KEPT`` entries are kept (one is tens of MB at 100,000 people), the older ones removed.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Mapping
from pathlib import Path

from kgprofiles.fast.disk_cache import cache_dir, log, made_by, read_json, write_json
from kgprofiles.queries import NamedQuery, named
from kgprofiles.related_index import QUERIES, RelatedIndex
from kgprofiles.store.base import Store

_FORMAT = 1
_WHAT = "related index cache"
_MADE_BY = ("../related_index_cache.py", "../related_index.py", "../related.py")  # (relative to fast/)
#: Entries kept: the newest, by when they were last written.
KEPT = 4


def related_index(
    store: Store,
    queries: Mapping[str, NamedQuery],
    weight_overrides: Mapping[str, float] | None = None,
    *,
    advance: Callable[[int], None] = lambda steps: None,
) -> RelatedIndex:
    """The related-people index of ``store``: from its entry when there is one, else read from
    the store (and kept, for a store generation). ``advance``: ``len(QUERIES)`` steps in all,
    one a query read, or all at once for an entry read back."""
    path = entry_path(store, queries)
    if path is None:
        return RelatedIndex(store, queries, weight_overrides, advance=advance)
    raw = read_json(path, _WHAT)
    if isinstance(raw, dict) and raw.get("format") == _FORMAT and isinstance(raw.get("state"), dict):
        try:
            index = RelatedIndex.from_state(raw["state"], weight_overrides)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            log.warning("%s: ignoring %s (%s)", _WHAT, path, exc)
        else:
            advance(len(QUERIES))
            return index
    index = RelatedIndex(store, queries, weight_overrides, advance=advance)
    write_json(path, {"format": _FORMAT, "state": index.state()}, _WHAT)
    _prune(path)
    return index


def entry_path(store: Store, queries: Mapping[str, NamedQuery]) -> Path | None:
    """The entry of ``store``'s index, or None when the store is not a published generation."""
    from kgprofiles.store.oxigraph import OxigraphStore

    generation = store.generation if isinstance(store, OxigraphStore) else None
    if generation is None:
        return None
    digest = hashlib.sha256(made_by(str(_FORMAT), sources=_MADE_BY).encode())
    digest.update(b"\0" + str(generation.resolve()).encode("utf-8"))
    for name in QUERIES:
        digest.update(b"\0" + named(queries, name).text.encode("utf-8"))
    return cache_dir() / "related" / f"{digest.hexdigest()[:40]}.json"


def _prune(kept: Path) -> None:
    """Remove all but the newest ``KEPT`` entries beside ``kept`` (which stays)."""
    with contextlib.suppress(OSError):
        entries = sorted(kept.parent.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in [p for p in entries if p != kept][KEPT - 1 :]:
            old.unlink(missing_ok=True)
