"""Where a build puts the graph before anyone can read it, and how it makes it the store.

A build parses, validates and infers in a *work store* (a pyoxigraph store it alone uses, fed by
the bulk loader), then publishes. Each backend stages its own way:

* **on disk** (``GenerationStaging``): the work store *is* the new generation, compacted (in a
  thread, beside the build's last reads: ``compacting``) and then published: the store's link
  switched to it (``GenerationWriter``: one writer, durable, atomic);
* **a remote server or a store the caller opened** (``ReplacementStaging``): the work store is a
  scratch store in a temporary directory; publishing replaces the target's graphs with the work
  store's, in one ``replace_graphs`` (remote: staged graphs moved by one update), and drops the
  graphs no longer built.

Either way nothing is visible until ``publish``; leaving the ``with`` block without it discards
everything (``GenerationWriter`` removes the unfinished generation; the scratch store is deleted).
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import Protocol

import pyoxigraph as ox

from kgprofiles.scratch import make_scratch_dir
from kgprofiles.store import generations
from kgprofiles.store.base import Store
from kgprofiles.store.oxigraph import OxigraphStore
from kgprofiles.store.writer import GenerationWriter

log = logging.getLogger(__name__)


class Staging(Protocol):
    """A build's view of its destination."""

    work: OxigraphStore  # where the graph is built, validated and inferred
    scratch: Path  # a directory for the build's temporary files, removed with the staging
    location: str  # where the graph goes, for the build's report

    def compacting(self) -> contextlib.AbstractContextManager[None]:
        """Where publishing compacts the work store (a new generation): compacted in a thread
        while the block runs (the build reads the store meanwhile: its search index); ``publish``
        waits for it, and so does leaving the block."""
        ...

    def publish(self, advance: Callable[[], None] = lambda: None) -> None:
        """Make the work store's graphs the store's, a new generation compacted first (unless
        ``compacting`` did); ``advance``: called as each graph is handed over, where they go one by
        one."""
        ...

    def graphs_to_hand_over(self) -> int | None:
        """How many graphs ``publish`` hands over one by one (None: it publishes them at once)."""
        ...


class GenerationStaging:
    """On disk: a fresh generation, published by the writer that made it."""

    def __init__(self, writer: GenerationWriter) -> None:
        self._writer = writer
        self.work = writer.fresh()
        self.scratch = generations.scratch_dir(Path(self.work.location))
        self.location = str(writer.store_path)
        self._compaction: Compaction | None = None  # (started by ``compacting``)

    @contextmanager
    def compacting(self) -> Iterator[None]:
        # The bulk loader leaves many overlapping files; compacted, reads of the built store are
        # about three times faster (a profile at 100,000 people: 36 → 12 ms). pyoxigraph lets go
        # of the GIL while it compacts: the search index is read meanwhile, on the other core.
        self._compaction = Compaction(self.work.compact)
        try:
            yield
        except BaseException:  # an error, Ctrl-C: never left compacting a generation about to be removed
            if self._compaction.thread.is_alive():
                log.warning("stopping: waiting for the store's compaction to end (it cannot be stopped midway)")
            raise
        finally:
            self._compaction.thread.join()

    def publish(self, advance: Callable[[], None] = lambda: None) -> None:
        if self._compaction is None:
            self.work.compact()
        else:
            self._compaction.wait()
        self._writer.publish(self.work)

    def graphs_to_hand_over(self) -> int | None:
        return None  # the generation is switched whole


class ReplacementStaging:
    """A scratch store whose graphs replace the target's in one transaction."""

    def __init__(self, target: Store, location: str) -> None:
        self._target = target
        self.scratch = make_scratch_dir("build")
        self.work = OxigraphStore(self.scratch / "work")
        self.location = location

    @cached_property
    def _built(self) -> list[str]:
        """The work store's graphs (listed once: asked for their count, then published)."""
        return self.work.graphs()

    @contextmanager
    def compacting(self) -> Iterator[None]:
        yield  # (a scratch store, read once by the publish: not worth compacting)

    def publish(self, advance: Callable[[], None] = lambda: None) -> None:
        graphs = GraphsOf(self.work, self._built, advance)
        stale = [g for g in self._target.graphs() if g not in graphs]
        self._target.replace_graphs(graphs, drop=stale)

    def graphs_to_hand_over(self) -> int | None:
        return len(self._built)


class Compaction:
    """``compact`` run in a thread of its own; ``wait`` for its end, its error raised there."""

    def __init__(self, compact: Callable[[], None]) -> None:
        self._failed: list[BaseException] = []
        self.thread = threading.Thread(target=self._run, args=(compact,), name="kgprofiles-compact", daemon=True)
        self.thread.start()

    def _run(self, compact: Callable[[], None]) -> None:
        try:
            compact()
        except BaseException as exc:  # raised in the thread that waits
            self._failed.append(exc)

    def wait(self) -> None:
        self.thread.join()
        if self._failed:
            raise self._failed[0]


class GraphsOf(Mapping[str, Iterator[ox.Triple]]):
    """The named graphs of a store, by name, each graph's triples read from the store when asked:
    a publish hands its graphs over without holding them all (at 100,000 people, 24 M triples
    with the inferred ones, about 8 GB as pyoxigraph objects). ``on_read`` is called as each graph
    is asked for (a progress bar's step: a replace reads each graph once)."""

    def __init__(self, store: OxigraphStore, names: list[str], on_read: Callable[[], None] = lambda: None) -> None:
        self._store = store
        self._names = dict.fromkeys(names)
        self._on_read = on_read

    def __getitem__(self, name: str) -> Iterator[ox.Triple]:
        if name not in self._names:
            raise KeyError(name)
        self._on_read()
        return self._store.triples(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


@contextmanager
def generation_staging(writer: GenerationWriter) -> Iterator[GenerationStaging]:
    """Stage into a fresh generation of the store ``writer`` holds (the writer removes an
    unpublished one when its own block ends)."""
    staged = GenerationStaging(writer)
    try:
        yield staged
    finally:
        shutil.rmtree(staged.scratch, ignore_errors=True)


@contextmanager
def replacement_staging(target: Store, location: str) -> Iterator[ReplacementStaging]:
    """Stage in a scratch store, to replace ``target``'s graphs on publish."""
    staged = ReplacementStaging(target, location)
    try:
        yield staged
    finally:
        staged.work.close()
        shutil.rmtree(staged.scratch, ignore_errors=True)
