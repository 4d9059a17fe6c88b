"""The embedded store: pyoxigraph on disk (a directory) or in memory (``"memory:"``).

Queries read the union of the named graphs as their default graph, with the project's prefixes
predeclared. Blank nodes keep the labels they were written with (ingest gives stable ones, and
exports depend on them).

Atomic writes. pyoxigraph has no API for a transaction spanning several operations, but
``Store.update`` runs a whole SPARQL Update request as one transaction, and ``Store.extend`` is
one transaction too. ``replace_graphs`` therefore ends in ONE update request that changes every
target at once; what that request does per graph:

* same triples as stored: nothing;
* no blank nodes in the new triples: patched by difference (``DELETE DATA`` what goes,
  ``INSERT DATA`` what comes; ``DROP`` first if the old graph had blank nodes, which
  ``DELETE DATA`` cannot name), so re-writing an unchanged or slightly changed graph is cheap;
* blank nodes in the new triples: SPARQL would give them fresh labels, so they are first written
  with ``Store.extend`` (which keeps labels) into a staging graph
  ``https://w3id.org/kgprofiles/graph/staging/<token>/<n>``, and the request does
  ``DROP SILENT GRAPH <target> ; MOVE <staging> TO <target>``.

If anything fails (reading the caller's triples, the staging write, the update), the targets are
unchanged and the staging graphs are removed. Staging graphs are hidden from ``graphs()`` and
``quads()``, but queries in this process can see their triples in the union until the update
commits; after a crash they are removed the next time the store is opened for writing (the
directory lock guarantees no other writer is using them).

Measured with pyoxigraph 0.5.13 on a shared, busy machine (times vary about 2x), replacing one
graph of 100,000 triples, in memory / on disk: first load 0.7-2.4 s / 1.6-2.9 s; the same triples
again 0.5 s / 0.5-0.7 s; all different triples 1.5-2 s / 5-10 s; with blank nodes (extend into
staging + MOVE, over an old graph of the same size) 1.6-2.8 s / 12-19 s. For 10,000 triples every
case is under 0.7 s on disk. The update text is built in memory (~100 bytes a triple).

Module-level helpers here (``serialize_dataset``, ``check_replacement``, ``graph_node``…) are shared
with the remote backend; both check queries with ``guard.py`` and bind with ``binding.py``.
"""

from __future__ import annotations

import contextlib
import gc
import os
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO

import pyoxigraph as ox

from kgprofiles.config import MEMORY
from kgprofiles.errors import QueryError, StoreError
from kgprofiles.store import generations
from kgprofiles.store.base import Patch, QueryResult, SelectResult, Term, solution_rows
from kgprofiles.store.binding import SparqlText, check_bindings, inline_values
from kgprofiles.store.guard import MAX_DEPTH, check_query, names_dataset
from kgprofiles.store.rows_ahead import RowsAhead
from kgprofiles.store.union_lines import union_ntriples
from kgprofiles.vocab import GRAPH, PREFIXES, ids

__all__ = ["OxigraphStore"]

STAGING_GRAPH_PREFIX = GRAPH + "staging/"
#: The distinct triples of the union of the graphs (the store's own query, not a product query).
_UNION_TRIPLES = "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }"


def prefixes_in(sparql: str) -> dict[str, str]:
    """The project prefixes ``sparql`` may use: those whose ``name:`` occurs in it at all (in a
    comment or a string too: one too many is harmless). pyoxigraph reads the whole table it is
    given at every query, ~10 us for all 21, about 1% of a person page's eleven queries; the
    bindings' VALUES clause adds no prefixed name (its terms are written in full). Kept for each
    text and base IRI (``person:`` and the other slug prefixes follow the project's base).

    >>> prefixes_in("SELECT ?n WHERE { ?p a kgp:Person ; rdfs:label ?n }") == {
    ...     "kgp": PREFIXES["kgp"], "rdfs": PREFIXES["rdfs"]}
    True
    """
    return _prefixes_in(sparql, ids().base)


@lru_cache(maxsize=256)  # (the named queries come back again and again)
def _prefixes_in(sparql: str, base: str) -> dict[str, str]:
    return {name: iri for name, iri in PREFIXES.items() if f"{name}:" in sparql}


def sort_key(triple: ox.Triple | ox.Quad) -> tuple[str, ...]:
    """A total order on triples and quads: by their N-Triples / N-Quads text."""
    if isinstance(triple, ox.Quad):
        return (str(triple.graph_name), str(triple.subject), str(triple.predicate), str(triple.object))
    return (str(triple.subject), str(triple.predicate), str(triple.object))


def serialize_dataset(quads: Iterable[ox.Quad], fmt: ox.RdfFormat) -> bytes:
    """``quads`` in ``fmt``, sorted, with the project prefixes where the format has them: every
    quad for a dataset format (N-Quads, TriG), else the distinct triples (the union of the graphs)."""
    if fmt.supports_datasets:
        return as_bytes(ox.serialize(sorted(set(quads), key=sort_key), format=fmt, prefixes=PREFIXES))
    triples = sorted({q.triple for q in quads}, key=sort_key)
    return as_bytes(ox.serialize(triples, format=fmt, prefixes=PREFIXES))


def as_bytes(serialised: bytes | None) -> bytes:
    """What pyoxigraph's serialisers return when given no output file (typed ``bytes | None``)."""
    if serialised is None:
        raise TypeError("a serialiser wrote to a file where bytes were expected")
    return serialised


def as_triple(item: ox.Triple | ox.Quad) -> ox.Triple:
    """A triple, from a triple or a quad (its graph ignored)."""
    if isinstance(item, ox.Quad):
        return item.triple
    if isinstance(item, ox.Triple):
        return item
    raise TypeError(f"not a triple: {item!r}")


def graph_node(graph: str) -> ox.NamedNode:
    """The named node for a graph IRI, or a StoreError if it is not an absolute IRI."""
    try:
        return ox.NamedNode(graph)
    except (TypeError, ValueError) as exc:
        raise StoreError(f"not a graph IRI: {graph!r} ({exc})") from exc


def check_replacement(graphs: Mapping[str, Iterable[ox.Triple]], drop: Iterable[str]) -> list[str]:
    """The graphs to drop; the targets and the dropped graphs must be IRIs and must not overlap."""
    dropped = list(dict.fromkeys(drop))
    for graph in [*graphs, *dropped]:
        graph_node(graph)
    both = sorted(set(graphs) & set(dropped))
    if both:
        raise ValueError(f"graphs both replaced and dropped: {', '.join(both)}")
    return dropped


def _has_blank_node(triple: ox.Triple) -> bool:
    return any(isinstance(t, ox.BlankNode | ox.Triple) for t in (triple.subject, triple.object))


def has_blank_nodes(triples: Iterable[ox.Triple]) -> bool:
    """Whether any of the triples has a blank node (which SPARQL DATA blocks cannot name)."""
    return any(_has_blank_node(t) for t in triples)


def data_block(graph: ox.NamedNode, triples: Iterable[ox.Triple]) -> str:
    """``GRAPH <graph> { s p o . … }``, for INSERT DATA and DELETE DATA (N-Triples terms)."""
    body = "\n".join(f"{t.subject} {t.predicate} {t.object} ." for t in triples)
    return f"GRAPH {graph} {{\n{body}\n}}"


# ---------------------------------------------------------------------------------------------


class OxigraphStore:
    """A pyoxigraph store on disk at ``location`` (a directory, created if absent), or in memory
    when ``location`` is ``"memory:"``.

    ``read_only=True`` is how every reader opens a store: ``location`` may be a published store
    (the link ``kgprofiles build`` publishes, ``store/generations.py``), which is resolved once to
    its current generation; the store then holds a lease on that generation until ``close()``, so
    the generation stays on disk, unchanged, however many builds and loads publish newer ones.
    ``location`` is then the generation's directory and ``link`` the published path. A published
    store is never opened for writing: writers make a new generation (``kgprofiles.pipeline``).

    ``allow_fetch=True`` permits SERVICE and LOAD, which make the engine fetch URLs; they are
    refused by default."""

    lateral = True  # (pyoxigraph evaluates LATERAL)

    def __init__(self, location: str | os.PathLike[str], *, read_only: bool = False, allow_fetch: bool = False):
        self.read_only = read_only
        self.allow_fetch = allow_fetch
        self.link: str | None = None
        self._lease: generations.Lease | None = None
        self.location = str(location)
        self.location = self._resolve(self.location)
        self._lock = threading.Lock()
        try:
            self._store: ox.Store | None = self._open()
        except BaseException:
            self._release()
            raise
        if not read_only and not self._is_generation():
            self._purge_staging()

    @property
    def generation(self) -> Path | None:
        """The published generation this store reads (a read-only store on disk, opened through
        its published path or at the generation itself), or None. A generation never changes:
        what is made from it (its search index, its related people) holds as long as it is."""
        return Path(self.location) if self.read_only and self._is_generation() else None

    def _resolve(self, location: str) -> str:
        """The directory to open (taking a lease when it is a generation), from ``location``."""
        if location == MEMORY:
            return location
        path = Path(location)
        if generations.is_published(path):
            if not self.read_only:
                raise StoreError(
                    f"{path} is a published store: it is never written in place",
                    "write with `kgprofiles build` or `kgprofiles load`; read with read_only=True",
                )
            self._lease = generations.lease_current(path)
            self.link = str(path)
            return str(self._lease.generation)
        if self.read_only and path.parent.name.endswith(".generations"):
            self._lease = generations.lease(path)
            if self._lease is None:
                raise StoreError(f"the store generation {path} is gone", "open the published store instead")
        return location

    def _open(self) -> ox.Store:
        if self.location == MEMORY:
            if self.read_only:
                raise StoreError("an in-memory store cannot be opened read-only")
            return ox.Store()
        if self.read_only and not (Path(self.location) / "CURRENT").exists():
            raise StoreError(
                f"no store at {self.link or self.location}", "run `kgprofiles build` first, or give --store/--endpoint"
            )
        try:
            return ox.Store.read_only(self.location) if self.read_only else ox.Store(self.location)
        except (OSError, RuntimeError) as exc:
            new = not self.read_only and self._is_generation()  # (a writer's new generation: nothing published)
            raise StoreError(
                f"cannot open the store at {self.location}: {exc}",
                "nothing was published, the store is as it was: make room on its disk (or let this user write "
                "there) and run the command again"
                if new
                else "run `kgprofiles store check` to see which generation is good",
            ) from exc

    def _is_generation(self) -> bool:
        """Whether this is a generation a writer made (``store/generations.py``): a new one, or a
        copy of a published one, which never holds staging graphs (a failed write's generation is
        discarded, never published), so there is nothing to purge (at 100,000 people, looking
        costs ~0.7 s)."""
        return self.location != MEMORY and Path(self.location).parent.name.endswith(".generations")

    def _purge_staging(self) -> None:
        """Remove staging graphs a crashed replace_graphs left behind (we hold the writer's lock)."""
        for graph in list(self.store.named_graphs()):
            if is_staging(graph):
                self.store.remove_graph(graph)

    @property
    def _name(self) -> str:
        return "the in-memory store" if self.location == MEMORY else f"the store at {self.location}"

    def __repr__(self) -> str:
        mode = ", read_only=True" if self.read_only else ""
        return f"OxigraphStore({self.location!r}{mode})"

    def __enter__(self) -> OxigraphStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def store(self) -> ox.Store:
        """The underlying pyoxigraph store (a StoreError once closed)."""
        if self._store is None:
            raise StoreError(f"{self._name} is closed", "open the store again (a Graph: Project.open())")
        return self._store

    def _writable(self) -> ox.Store:
        if self.read_only:
            raise StoreError(f"{self._name} is open read-only")
        return self.store

    # -- reading ----------------------------------------------------------------------------

    def query(self, sparql: str, bindings: Mapping[str, Term] | None = None) -> QueryResult:
        """Run SELECT, ASK, CONSTRUCT or DESCRIBE over the union of the named graphs (or over
        the dataset the query names with FROM / FROM NAMED).

        Bindings become a ``VALUES`` clause at the start of the WHERE group (``binding.py``: the
        terms are escaped, never pasted), exactly as on a remote server. A malformed query raises
        QueryError "line L, column C: …" at the user's own line and column."""
        return self._run(self.prepared(sparql, bindings))

    def prepared(
        self, sparql: str, bindings: Mapping[str, Term] | None = None, max_depth: int = MAX_DEPTH
    ) -> SparqlText:
        """The text to send for ``sparql`` and its bindings, once it passed the checks
        (``guard.py``: nesting, and no SERVICE, LOAD or FROM outside the store unless allowed)."""
        bound = check_bindings(bindings)
        check_query(sparql, allow_fetch=self.allow_fetch, local_graphs=self.graphs, max_depth=max_depth)
        return inline_values(SparqlText.of(sparql), bound)

    def select_rows(
        self, sparql: str, bindings: Mapping[str, Term] | None = None, *, ahead: bool = False
    ) -> Iterator[dict[str, Term]]:
        """``query``'s rows of a SELECT, read lazily from pyoxigraph's solutions (a whole-graph
        answer is never all in memory). ``ahead``: evaluated from now on, in a thread beside the
        caller, into a scratch file (``rows_ahead.py``); the same rows."""
        text = self.prepared(sparql, bindings)
        if ahead:
            return RowsAhead(lambda: self._query(text), lambda: self._errors_of(text))
        return self._lazy_rows(text)

    def _lazy_rows(self, text: SparqlText) -> Iterator[dict[str, Term]]:
        with self._errors_of(text):
            raw = self._query(text)
            if not isinstance(raw, ox.QuerySolutions):
                raise QueryError("select_rows needs a SELECT query")
            yield from solution_rows(raw, tuple(v.value for v in raw.variables))

    def _run(self, text: SparqlText) -> QueryResult:
        with self._errors_of(text):
            return _result(self._query(text))

    def _query(self, text: SparqlText) -> ox.QuerySolutions | ox.QueryBoolean | ox.QueryTriples:
        return self.store.query(
            text.sent,
            prefixes=prefixes_in(text.original),
            # pyoxigraph's union default graph overrides the query's FROM: only without one
            # (read from the caller's text: its analysis is cached, and bindings add no FROM)
            use_default_graph_as_union=not names_dataset(text.original),
        )

    @contextlib.contextmanager
    def _errors_of(self, text: SparqlText) -> Iterator[None]:
        """pyoxigraph's errors as kgprofiles' own, while a query is parsed and while its answer
        is read (pyoxigraph evaluates lazily: reading the solutions can fail too)."""
        try:
            yield
        except SyntaxError as exc:
            raise QueryError(text.locate(str(exc))) from exc
        except RuntimeError as exc:
            raise QueryError(str(exc)) from exc
        except OSError as exc:
            raise StoreError(f"query failed on {self._name}: {exc}") from exc

    def graphs(self) -> list[str]:
        """The named graphs (IRIs), sorted; staging graphs left out."""
        names = self.store.named_graphs()
        return sorted(g.value for g in names if isinstance(g, ox.NamedNode) and not is_staging(g))

    def quads(self, graph: str | None = None) -> Iterator[ox.Quad]:
        """Every quad (the default graph's too, staging graphs left out), or those of one named
        graph; read lazily from a snapshot."""
        return self.quads_for_pattern(None, None, None, graph_node(graph) if graph is not None else None)

    def quads_for_pattern(
        self,
        subject: ox.NamedNode | ox.BlankNode | ox.Triple | None,
        predicate: ox.NamedNode | None,
        object: Term | ox.Triple | None,
        graph_name: ox.NamedNode | None = None,
    ) -> Iterator[ox.Quad]:
        """The quads matching a pattern (None: any), staging graphs left out; lazily."""
        found = self.store.quads_for_pattern(subject, predicate, object, graph_name)
        return found if graph_name is not None else (q for q in found if not is_staging(q.graph_name))

    def dump(self, fmt: ox.RdfFormat) -> bytes:
        """N-Quads/TriG: every quad. Triple formats: the distinct triples of all graphs.

        Serialised by pyoxigraph itself, in the store's own order: pyoxigraph orders by encoded
        terms, which depend only on the data, and ingest gives blank nodes stable labels, so the
        same data gives the same bytes, as fast as pyoxigraph's own dump."""
        if fmt in (ox.RdfFormat.N_QUADS, ox.RdfFormat.TRIG):
            return as_bytes(self.store.dump(format=fmt))
        triples = self.store.query(_UNION_TRIPLES, use_default_graph_as_union=True)
        assert isinstance(triples, ox.QueryTriples)
        return as_bytes(triples.serialize(format=fmt))

    def dump_to(self, output: str | os.PathLike[str] | BinaryIO, fmt: ox.RdfFormat) -> None:
        """``dump`` written straight into the file at ``output`` (a path, or a binary file such as
        standard output): the same bytes, never all in memory."""
        target = str(output) if isinstance(output, str | os.PathLike) else output
        if fmt in (ox.RdfFormat.N_QUADS, ox.RdfFormat.TRIG):
            self.store.dump(output=target, format=fmt)
            return
        triples = self.store.query(_UNION_TRIPLES, use_default_graph_as_union=True)
        assert isinstance(triples, ox.QueryTriples)
        triples.serialize(output=target, format=fmt)

    def dump_union_from(self, nquads: Path, output: Path) -> None:
        """The N-Triples ``dump_to`` writes, made from this store's N-Quads dump at ``nquads``
        (written by ``dump_to``, the store unchanged since) instead of read from the store again
        (``union_lines``: at 100,000 people 45 s and 484 MB against 217 s and 836 MB); read
        from the store where its default graph has triples (the dump's lines then do not all
        name a graph)."""
        if next(self.store.quads_for_pattern(None, None, None, ox.DefaultGraph()), None) is not None:
            self.dump_to(output, ox.RdfFormat.N_TRIPLES)
            return
        with open(nquads, "rb") as lines, open(output, "wb") as target:
            union_ntriples(lines, target)

    # -- writing ----------------------------------------------------------------------------

    def update(self, sparql: str, base_iri: str | None = None) -> None:
        """Run a SPARQL 1.1 Update (project prefixes predeclared; relative IRIs against
        ``base_iri``) as one transaction."""
        check_query(sparql, allow_fetch=self.allow_fetch, local_graphs=self.graphs)
        with self._lock:
            self._update(SparqlText.of(sparql), prefixes=PREFIXES, base_iri=base_iri)

    def _update(self, text: SparqlText, prefixes: dict[str, str] | None = None, base_iri: str | None = None) -> None:
        try:
            self._writable().update(text.sent, prefixes=prefixes, base_iri=base_iri)
        except SyntaxError as exc:
            raise QueryError(text.locate(str(exc))) from exc
        except (OSError, RuntimeError) as exc:
            raise StoreError(f"update failed on {self._name}: {exc}") from exc

    def replace_graphs(
        self,
        graphs: Mapping[str, Iterable[ox.Triple]],
        drop: Iterable[str] = (),
        *,
        patch: Patch | None = None,
    ) -> None:
        """Replace each named graph by exactly the given triples (no triples: the graph is
        removed) and drop the ``drop`` graphs, committed by ONE update request (module docstring):
        if anything fails, including reading the caller's triples, no target has changed.

        ``patch`` (graph, remove, add): in the same request, delete ``remove``
        from that graph and insert ``add`` (no blank nodes: DELETE DATA cannot name them), so a
        large graph changes by a few triples without being read."""
        dropped = check_replacement(graphs, drop)
        if patch is not None and (has_blank_nodes(patch[1]) or has_blank_nodes(patch[2])):
            raise StoreError("a graph patch cannot hold blank nodes", "replace the whole graph instead")
        import secrets  # (on first use: it is slow to import, and readers never need it)

        with self._lock:
            store = self._writable()
            token = secrets.token_hex(8)
            operations = [f"DROP SILENT GRAPH {graph_node(g)}" for g in dropped]
            insertions: list[str] = []
            staged: list[ox.NamedNode] = []
            try:
                for n, (graph, triples) in enumerate(graphs.items()):
                    staging = ox.NamedNode(f"{STAGING_GRAPH_PREFIX}{token}/{n}")
                    plan = _plan(store, graph_node(graph), triples, staging)
                    if plan.staged:
                        staged.append(staging)
                        store.extend(ox.Quad(t.subject, t.predicate, t.object, staging) for t in plan.staged)
                    operations += plan.operations
                    insertions += plan.insertions
                if patch is not None:
                    patched, remove, add = graph_node(patch[0]), patch[1], patch[2]
                    if remove:
                        operations.append(f"DELETE DATA {{ {data_block(patched, remove)} }}")
                    if add:
                        insertions.append(data_block(patched, add))
                if insertions:
                    operations.append("INSERT DATA {\n" + "\n".join(insertions) + "\n}")
                if operations:
                    self._update(SparqlText.of(" ;\n".join(operations)))
            except BaseException:
                for staging_graph in staged:
                    _remove_quietly(store, staging_graph)
                raise

    def replace_graph(self, graph: str, triples: Iterable[ox.Triple]) -> None:
        """Load or replace one named graph, atomically."""
        self.replace_graphs({graph: triples})

    def drop_graph(self, graph: str) -> None:
        """Remove one named graph and its triples (nothing happens if it is absent)."""
        self.replace_graphs({}, drop=[graph])

    def snapshot(self, target: str | os.PathLike[str]) -> None:
        """Write a consistent copy of the store on disk to ``target`` (a new directory; files
        hard-linked where the file system allows), for readers in other processes."""
        if self.location == MEMORY:
            raise StoreError("an in-memory store cannot be copied to disk")
        try:
            self.store.backup(target)
        except OSError as exc:
            raise StoreError(f"cannot copy {self._name} to {target}: {exc}") from exc

    def bulk_load(self, quads: Iterable[ox.Quad]) -> None:
        """Add many quads with pyoxigraph's bulk loader: fast, keeps blank-node labels, but not
        one transaction, so only for a store nothing reads yet (a build's work store)."""
        self._writable().bulk_extend(quads)

    def triples(self, graph: str) -> Iterator[ox.Triple]:
        """The triples of one named graph."""
        return (q.triple for q in self.store.quads_for_pattern(None, None, None, graph_node(graph)))

    def compact(self) -> None:
        """Flush and compact the files of a store just written (reads get about three times faster)."""
        store = self._writable()
        store.flush()
        store.optimize()

    def flush(self) -> None:
        """Make sure every committed write is on disk (a no-op in memory)."""
        if self.location != MEMORY and not self.read_only:
            self.store.flush()

    def close(self) -> None:
        """Flush and release the store's files, its lock or its lease; unusable afterwards."""
        if self._store is not None:
            self.flush()
            self._store = None
            if self.location != MEMORY:
                # pyoxigraph releases the directory lock only when its Store object is freed;
                # objects in reference cycles (e.g. a load plan's data view) would keep it.
                gc.collect()
        self._release()

    def _release(self) -> None:
        if self._lease is not None:
            self._lease.release()
            self._lease = None


@dataclass(frozen=True)
class _Plan:
    """How one graph is replaced: update operations, INSERT DATA blocks, triples to stage first."""

    operations: list[str]
    insertions: list[str]
    staged: list[ox.Triple]


def _plan(store: ox.Store, graph: ox.NamedNode, triples: Iterable[ox.Triple], staging: ox.NamedNode) -> _Plan:
    new = list(dict.fromkeys(as_triple(t) for t in triples))
    old = [q.triple for q in store.quads_for_pattern(None, None, None, graph)]
    old_set, new_set = set(old), set(new)
    if not new:
        return _Plan([f"DROP SILENT GRAPH {graph}"], [], [])
    if old_set == new_set:
        return _Plan([], [], [])
    if any(map(_has_blank_node, new)):
        return _Plan([f"DROP SILENT GRAPH {graph}", f"MOVE {staging} TO {graph}"], [], new)
    if any(map(_has_blank_node, old)):
        return _Plan([f"DROP SILENT GRAPH {graph}"], [data_block(graph, new)], [])
    gone = [t for t in old if t not in new_set]
    added = [t for t in new if t not in old_set]
    operations = [f"DELETE DATA {{ {data_block(graph, gone)} }}"] if gone else []
    return _Plan(operations, [data_block(graph, added)] if added else [], [])


def _remove_quietly(store: ox.Store, graph: ox.NamedNode) -> None:
    with contextlib.suppress(OSError, RuntimeError):  # else removed when the store is next opened
        store.remove_graph(graph)


def is_staging(graph: object) -> bool:
    """Whether ``graph`` is a staging graph of an unfinished replace_graphs."""
    return isinstance(graph, ox.NamedNode) and graph.value.startswith(STAGING_GRAPH_PREFIX)


def _result(raw: ox.QuerySolutions | ox.QueryBoolean | ox.QueryTriples) -> QueryResult:
    if isinstance(raw, ox.QuerySolutions):
        return SelectResult.from_solutions(raw)
    if isinstance(raw, ox.QueryBoolean):
        return bool(raw)
    return list(raw)
