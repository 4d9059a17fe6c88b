"""The one way to write an on-disk store: hold the writer lock, make a new generation (empty, or a
copy of the published one), write it, publish it. The rules are in ``store/generations.py``.

>>> import tempfile, pyoxigraph as ox
>>> from pathlib import Path
>>> link = Path(tempfile.mkdtemp()) / "store"
>>> with GenerationWriter(link) as writer:
...     store = writer.fresh()
...     store.update("INSERT DATA { GRAPH <http://example.org/g> { <http://example.org/a> a <http://example.org/T> } }")
...     _ = writer.publish(store)
>>> reader = OxigraphStore(link, read_only=True)
>>> reader.query("ASK { <http://example.org/a> a <http://example.org/T> }")
True
>>> reader.close()
"""

from __future__ import annotations

import contextlib
import gc
import os
import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

import pyoxigraph as ox

from kgprofiles.errors import StoreError
from kgprofiles.store import generations
from kgprofiles.store.oxigraph import OxigraphStore

#: In a generation: one line for each SPARQL update it holds (``updates_kept``).
UPDATES_FILE = "kgprofiles-updates.txt"

__all__ = ["GenerationWriter", "update_published"]


class GenerationWriter:
    """A writer's hold on the store at ``store_path`` (the published link): the writer lock for
    the ``with`` block, new generations made inside it, and ``publish`` to make one current.
    Leaving the block without publishing removes what it made; the published store is untouched.

    ``wait=False`` fails at once with StoreBusy when another process writes the store; otherwise
    ``on_wait`` is told who holds the lock and the writer waits for it (at most ``wait_s``
    seconds, when given: then StoreBusy, with ``busy_hint``)."""

    def __init__(
        self,
        store_path: str | Path,
        *,
        command: str = "kgprofiles",
        wait: bool = True,
        on_wait: Callable[[str], None] | None = None,
        wait_s: float | None = None,
        busy_hint: str | None = None,
    ) -> None:
        self.store_path = Path(store_path)
        self._lock = generations.writer_lock(
            self.store_path, command=command, wait=wait, on_wait=on_wait, wait_s=wait_s, busy_hint=busy_hint
        )
        self._made: list[tuple[Path, OxigraphStore]] = []
        self._held = False

    def __enter__(self) -> GenerationWriter:
        generations.check_adoptable(self.store_path)  # (before the lock: its file goes beside the store)
        self._lock.__enter__()
        self._held = True
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        try:
            for path, store in self._made:
                store.close()
                shutil.rmtree(path, ignore_errors=True)
            self._made.clear()
        finally:
            self._held = False
            self._lock.__exit__(kind, error, trace)

    def _check_held(self) -> None:
        if not self._held:
            raise StoreError("a generation is written only inside `with GenerationWriter(...)`")

    def fresh(self) -> OxigraphStore:
        """A new, empty generation, open for writing."""
        self._check_held()
        path = generations.new_generation(self.store_path)
        return self._open(path)

    def copy_of_current(self) -> OxigraphStore:
        """A new generation holding what the published one holds, open for writing. RocksDB's data
        files never change once written, so they are hard-linked, not copied: milliseconds."""
        self._check_held()
        if self.store_path.is_dir() and not self.store_path.is_symlink():
            generations.adopt_legacy(self.store_path)
        path = generations.new_generation(self.store_path)
        path.rmdir()  # the checkpoint makes the directory itself
        with generations.lease_current(self.store_path) as held:
            source = ox.Store.read_only(str(held.generation))
            try:
                source.backup(str(path))
                updates = held.generation / UPDATES_FILE
                if updates.exists():  # (what the copy holds: the updates too, until a build)
                    shutil.copyfile(updates, path / UPDATES_FILE)
            except OSError as exc:
                shutil.rmtree(path, ignore_errors=True)
                raise StoreError(f"cannot copy the store at {held.generation}: {exc}") from exc
            finally:
                del source
                gc.collect()
        return self._open(path)

    def _open(self, path: Path) -> OxigraphStore:
        """Open the new generation at ``path`` for writing, to be published or removed; one
        that cannot be opened (a full disk: RocksDB writes files as it opens) is removed now."""
        try:
            store = OxigraphStore(path)
        except BaseException:
            shutil.rmtree(path, ignore_errors=True)
            raise
        self._made.append((path, store))
        return store

    def publish(self, store: OxigraphStore) -> Path:
        """Close ``store`` (a generation this writer made), make it durable and publish it
        atomically; older generations no reader holds are removed. Returns its directory."""
        self._check_held()
        made = [n for n, (_, candidate) in enumerate(self._made) if candidate is store]
        if not made:
            raise StoreError("only a generation this writer made can be published")
        path, _ = self._made.pop(made[0])
        store.close()
        _check_closed(path)
        try:
            return generations.publish(self.store_path, path)
        except BaseException:
            shutil.rmtree(path, ignore_errors=True)
            raise


def _check_closed(path: Path) -> None:
    """Make sure no RocksDB handle in this process still has ``path`` open: one that did could
    write into the directory after it is published (the corruption this design rules out). On
    Linux the process's open files say so at once; elsewhere, a second open would fail."""
    fds = Path("/proc/self/fd")
    if fds.is_dir():
        inside = str(path.resolve()) + os.sep
        for fd in fds.iterdir():
            with contextlib.suppress(OSError):
                if os.readlink(fd).startswith(inside):
                    raise StoreError(
                        f"the new store generation {path} is still open in this process; it was not published",
                        "this is a bug in kgprofiles: please report it",
                    )
        return
    try:
        probe = ox.Store(str(path))
    except OSError as exc:
        raise StoreError(
            f"the new store generation {path} is still open in this process; it was not published",
            "this is a bug in kgprofiles: please report it",
        ) from exc
    del probe
    gc.collect()


def update_published(
    store_path: str | Path,
    sparql: str,
    *,
    base_iri: str | None = None,
    command: str = "kgprofiles",
    prepare: Callable[[OxigraphStore], None] | None = None,
    wait_s: float | None = None,
    busy_hint: str | None = None,
) -> None:
    """Run a SPARQL Update on the published store: on a copy of it, published when it succeeds
    (after ``prepare``, given the updated copy: the web app writes its search index into it).
    Another process writing the store: wait for it, at most ``wait_s`` seconds when given (then
    StoreBusy, with ``busy_hint``)."""
    with GenerationWriter(store_path, command=command, wait_s=wait_s, busy_hint=busy_hint) as writer:
        target = writer.copy_of_current()
        target.update(sparql, base_iri=base_iri)
        if prepare is not None:
            prepare(target)
        with open(Path(target.location) / UPDATES_FILE, "a", encoding="utf-8") as record:
            record.write(f"{datetime.now(UTC).isoformat(timespec='seconds')} {command}\n")
        writer.publish(target)


def updates_kept(store_path: str | Path) -> list[str]:
    """The SPARQL updates the published generation holds that no build made (``update_published``
    records each, ``copy_of_current`` carries the record to the next generation; a build starts a
    fresh one without it): one line each, its time and who sent it."""
    current = generations.current(Path(store_path))
    if current is None:
        return []
    try:
        return (current / UPDATES_FILE).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
