"""``kgprofiles store check``: is each generation of an on-disk store whole? Each is opened
read-only (under a lease, like any reader) and read to the end: every data block is read, so
RocksDB verifies every checksum, then its graphs are listed and one query runs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kgprofiles.errors import KgError
from kgprofiles.store import generations
from kgprofiles.store.oxigraph import OxigraphStore


@dataclass(frozen=True)
class GenerationHealth:
    """What reading one generation to the end found."""

    name: str
    published: bool
    quads: int
    graphs: int
    problem: str | None = None

    @property
    def good(self) -> bool:
        return self.problem is None

    def format(self) -> str:
        mark = "published " if self.published else "          "
        if self.problem is not None:
            return f"{mark}{self.name}  BROKEN: {self.problem}"
        return f"{mark}{self.name}  good: {self.quads:,} quads in {self.graphs:,} named graphs"


def check_generation(path: Path, published: bool, progress: Callable[[int], None] | None = None) -> GenerationHealth:
    """Read one generation to the end (``progress`` is told every 100,000 quads)."""
    quads = graphs = 0
    try:
        store = OxigraphStore(path, read_only=True)
        try:
            for quads, _ in enumerate(store.quads(), start=1):
                if progress is not None and quads % 100_000 == 0:
                    progress(100_000)
            graphs = len(store.graphs())
            store.query("ASK { ?s ?p ?o }")
        finally:
            store.close()
    except (KgError, OSError, RuntimeError, ValueError) as exc:
        message = exc.message if isinstance(exc, KgError) else str(exc)
        return GenerationHealth(path.name, published, quads, graphs, message.splitlines()[0] if message else "?")
    return GenerationHealth(path.name, published, quads, graphs)


#: How many times ``check_store`` looks again when the generation it found published was replaced
#: (and removed) while it read.
_ATTEMPTS = 3


def check_store(store_path: Path, progress: Callable[[int], None] | None = None) -> list[GenerationHealth]:
    """Every finished generation of the store, the published one first. A generation removed
    while this reads (by the gc of a build or load that published a newer one) is not broken: it
    is left out, and if it was the published one, the store is looked at again."""
    results: list[GenerationHealth] = []
    for _ in range(_ATTEMPTS):
        published = generations.current(store_path)  # (resolved: the generations' directory may be a link)
        found = generations.generation_dirs(store_path)
        found.sort(key=lambda path: path.resolve() != published)  # (stable: the published one first)
        results = []
        for path in found:
            health = check_generation(path, path.resolve() == published, progress)
            if health.good or path.exists():
                results.append(health)
        if published is None or any(h.published for h in results):
            break
    return results
