"""The public API, re-exported by ``kgprofiles``: a project, its store, and what the commands do.

Everything is keyword-only past the first argument, like Oxigraph's bindings; results are plain
data (dicts and lists ready for JSON) or the typed reports the commands print.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from kgprofiles.config import RELATED_ON_PROFILE, Settings, load_settings
from kgprofiles.errors import InputError

if TYPE_CHECKING:  # imported when used: `import kgprofiles` stays quick
    from kgprofiles.pipeline import BuildReport
    from kgprofiles.store.base import QueryResult, Store, Term
    from kgprofiles.store.sandbox import QueryPool
    from kgprofiles.validate import ValidationReport

__all__ = ["Graph", "Project"]


class Project:
    """A kgprofiles project: its data, ontology, shapes and queries, and where its store is.

    ``root`` is the project directory (default: the current one, or this checkout). ``store`` (a
    directory, or ``"memory:"``) and ``endpoint`` (a SPARQL 1.1 query endpoint URL) override
    ``kgprofiles.toml`` and the environment, as ``--store`` and ``--endpoint`` do.

    >>> import tempfile
    >>> project = Project(store=tempfile.mkdtemp() + "/store")
    >>> project.validate().conforms
    True
    >>> report = project.build()
    >>> report.files[:1]
    ['data/organizations/organizations.ttl']
    >>> with project.open() as graph:
    ...     graph.profile("horace-he", related=2)["name"]
    'Horace He'
    """

    def __init__(self, root: str | Path | None = None, *, store: str | None = None, endpoint: str | None = None):
        for name, value in (("root", root), ("store", store)):
            if value is not None and (not isinstance(value, str | os.PathLike) or "\0" in str(value)):
                raise InputError(f"{name} must be a path (str or Path), not {value!r}", f"e.g. {name}='/srv/people'")
        if endpoint is not None and not isinstance(endpoint, str):
            raise InputError(
                f"endpoint must be a SPARQL endpoint's URL (a str), not {endpoint!r}",
                "e.g. endpoint='http://127.0.0.1:7878/query'",
            )
        settings = load_settings(Path(root) if root is not None else None)
        if store is not None and store != "memory:":
            store = str(Path(store).absolute())
        self.settings: Settings = settings.with_overrides(store=store, endpoint=endpoint)

    def __repr__(self) -> str:
        return f"Project({str(self.settings.root)!r}, store={self.settings.endpoint or self.settings.store!r})"

    def validate(self, *, paths: Iterable[str | Path] | None = None) -> ValidationReport:
        """The report ``kgprofiles validate`` gives for ``paths`` (files or directories; default:
        the data directory): the shapes' results, and what OWL RL would refuse in a build."""
        from kgprofiles.pipeline import validate

        return validate(self.settings, _paths(paths, optional=True) or None)

    def build(
        self,
        *,
        paths: Iterable[str | Path] | None = None,
        wait: bool = True,
        reference: bool = False,
        discard_updates: bool = False,
    ) -> BuildReport:
        """Build the store from ``paths`` (default: the data directory), atomically: a KgError and
        the store as it was, or the new store published. ``wait=False``: fail with StoreBusy if
        another process is writing the store. ``reference``: pyshacl and owlrl themselves.
        ``discard_updates``: build even if the store holds SPARQL updates sent to ``serve`` (they
        are dropped; else an InputError)."""
        from kgprofiles.pipeline import WriteOptions, build

        _flags(wait=wait, reference=reference, discard_updates=discard_updates)
        found = _paths(paths, optional=True) or None
        writing = WriteOptions(wait=wait, discard_updates=discard_updates)
        return build(self.settings, found, reference=reference, writing=writing)

    def load(self, paths: Iterable[str | Path], *, wait: bool = True) -> BuildReport:
        """Add or replace these files in the built store, all or nothing."""
        from kgprofiles.pipeline import WriteOptions, load

        _flags(wait=wait)
        return load(self.settings, _paths(paths, optional=False), writing=WriteOptions(wait=wait))

    def open(self) -> Graph:
        """The built graph, to read: the store's published generation, opened read-only. Close it
        (or use ``with``) to let a later build remove the generation."""
        from kgprofiles.store import open_store

        pool = _query_pool(self.settings)
        try:
            return Graph(open_store(self.settings, read_only=True), self.settings, pool)
        except BaseException:
            if pool is not None:
                pool.close()
            raise


def _query_pool(settings: Settings) -> QueryPool | None:
    """The worker a Graph's queries run in over an on-disk store, started now if this process has
    one thread: forked from it before the store starts its threads (~10 ms, where the forkserver's
    first worker takes 0.1-0.15 s). Else started, from the forkserver, by the first query."""
    from kgprofiles.config import MEMORY
    from kgprofiles.store.sandbox import QueryPool, _single_threaded

    if settings.endpoint or settings.store == MEMORY:
        return None
    pool = QueryPool(workers=1, queue=settings.query_queue, memory_mb=settings.query_memory_mb, fork=True)
    if _single_threaded():
        pool.start()
    return pool


class Graph:
    """The built graph of a project, opened to read (``Project.open``).

    ``query`` and ``sparql`` run as ``kgprofiles query`` does, under the project's budget: in a
    worker process stopped at ``query_timeout_s`` (LimitHit "time") with at most
    ``query_memory_mb`` of memory (LimitHit "memory"); a server's own timeout for a remote store;
    an in-memory store's queries run in the calling thread, unstopped. The worker never runs the
    program's main script again: a plain script needs no ``if __name__ == "__main__":`` guard."""

    def __init__(self, store: Store, settings: Settings, pool: QueryPool | None = None) -> None:
        from kgprofiles.profiles import Views

        self._store = store
        self._settings = settings
        self._views = Views(store, settings.queries_dir, settings.related_weights)
        self._pool = pool  # the query worker (None: made by the first query)
        self._starting = threading.Lock()

    def __enter__(self) -> Graph:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
        self._store.close()

    def profile(self, person: str, *, related: int | None = RELATED_ON_PROFILE) -> dict[str, Any]:
        """A person's profile (a slug, CURIE, IRI, name or Q-id), as ``kgprofiles profile
        --format json`` gives it (``render/profile.schema.json``), with ``related`` related people
        (None: all)."""
        from kgprofiles.render.json import profile_data

        person, related = _person(person), _count(related, "related")
        return profile_data(self._views.profile(self._views.resolve_person(person), related))

    def related(self, person: str, *, limit: int | None = None) -> list[dict[str, Any]]:
        """People related to a person, best first, each with the reason and the score's parts."""
        from kgprofiles.render.json import related_data

        person, limit = _person(person), _count(limit, "limit")
        people = self._views.related(self._views.resolve_person(person), limit)
        return [related_data(r) for r in people]

    def query(self, name: str, **params: str | Term) -> QueryResult:
        """Run a named query from ``queries/`` with its parameters (strings are read as the
        header's types say; RDF terms are bound as they are). SELECT gives a SelectResult (rows of
        terms), ASK a bool, CONSTRUCT a list of triples.

        >>> import tempfile
        >>> project = Project(store=tempfile.mkdtemp() + "/store")
        >>> _ = project.build()
        >>> with project.open() as graph:
        ...     rows = graph.query("org-members", org="pytorch")
        ...     len(rows) > 0
        True
        """
        from kgprofiles.queries import get_query

        named = get_query(self._settings.queries_dir, name)
        return self._budgeted(named.text, named.bind(params))

    def sparql(self, text: str, *, bindings: Mapping[str, Term] | None = None) -> QueryResult:
        """Run SPARQL text (SELECT, ASK, CONSTRUCT, DESCRIBE) with ``bindings`` bound as RDF terms."""
        if not isinstance(text, str):
            raise InputError(f"the SPARQL text must be a string, not {type(text).__name__}", "give the query as a str")
        return self._budgeted(text, bindings)

    def _budgeted(self, text: str, bindings: Mapping[str, Term] | None) -> QueryResult:
        """The answer of a query run under the project's time and memory budget (class docstring)."""
        from kgprofiles.store.sandbox import QueryPool, query_once

        settings = self._settings
        with self._starting:
            if self._pool is None:
                self._pool = QueryPool(workers=1, queue=settings.query_queue, memory_mb=settings.query_memory_mb)
        return query_once(
            self._store,
            text,
            bindings,
            timeout_s=self._settings.query_timeout_s,
            max_depth=self._settings.query_max_depth,
            pool=self._pool,
        )


def _flags(**flags: object) -> None:
    """An InputError for a flag that is not True or False (``wait=None`` read as "do not wait")."""
    for name, value in flags.items():
        if not isinstance(value, bool):
            raise InputError(f"{name} must be True or False, not {value!r}", f"e.g. {name}=True")


def _paths(paths: object, *, optional: bool) -> list[Path]:
    """``paths`` (files or directories; None if ``optional``: an empty list) as Paths, or an
    InputError: a lone str or Path is refused, never read as the paths of its letters (``"/"``
    first: the whole file system searched for Turtle files)."""
    if paths is None and optional:
        return []
    if isinstance(paths, str | bytes | os.PathLike) or not isinstance(paths, Iterable):
        one = paths if isinstance(paths, str | os.PathLike) else "data/people/someone.ttl"
        raise InputError(
            f"paths must be a list of files or directories, not {paths!r}",
            f"give a list, even of one path: [{str(one)!r}]",
        )
    found = []
    for path in paths:
        if not isinstance(path, str | os.PathLike):
            raise InputError(f"paths must be a list of files or directories, not hold {path!r}", "give str or Path")
        found.append(Path(path))
    if not found and not optional:  # (a load of nothing published a copy of the store, unchanged)
        raise InputError("no paths to load: the list is empty", "give the files to add or replace")
    return found


def _person(value: object) -> str:
    """``value``, the text that names a person, or an InputError."""
    if not isinstance(value, str):
        raise InputError(
            f"person must be a string (a slug, CURIE, IRI, name or Q-id), not {type(value).__name__}",
            'e.g. "horace-he", "person:horace-he" or "Horace He"',
        )
    return value


def _count(value: object, name: str) -> int | None:
    """``value``, a number of people (None: all of them), or an InputError naming ``name``."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
        return value
    raise InputError(
        f"{name} must be a whole number of at least 0, or None, not {value!r}",
        f"e.g. {name}=10 (None: every related person)",
    )
