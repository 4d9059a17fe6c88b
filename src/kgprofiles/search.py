"""Full-text search: one SQLite FTS5 index over the graph's people, organisations, topics and works.

What is indexed (one document per item, ``queries/search-index.rq`` and
``search-index-links.rq``): names and other names, headlines, narrative (statements, contribution
descriptions, event and role titles, venues), and for a person the titles of their works and the
names of their organisations and topics.

How it matches and ranks:

* the ``unicode61`` tokenizer with ``remove_diacritics 2``: case and accents are folded on both
  sides, so "zoe" finds "Zoë";
* every word a user types is a prefix ("flex" finds "FlexAttention"); words are ANDed;
* BM25 with column weights (``WEIGHTS``): a match in a name counts far more than one in a
  headline, which counts more than one in the narrative; ties go to people, then organisations,
  topics and works, then by name and IRI, so the same index always gives the same order.

Work per search is bounded, whatever the graph's size. FTS5 scores every match before it sorts,
and reads the whole list of every word that is a prefix: at 100,000 people "synthetic person"
(every person) took 250 ms. So where a search matches more than ``MAX_COUNTED`` items it is
ranked among candidates, tier by tier: items whose names (or other names) match, then those whose
headlines match, then any; in each tier only the first ``CANDIDATES`` matches in index order
are ranked (BM25, as above), and the tiers follow one another, so an item whose name matches
comes first wherever it is in the index, while a word that thousands of narratives share ranks
only the first of them. And where every word as typed (not as a prefix) already matches more
than ``MAX_COUNTED`` items, the candidates are those words' matches (a prefix would only add
more): a common word costs what a rare one does. A search that matches at most ``MAX_COUNTED``
items is ranked whole, exactly as above.

User text is never FTS5 syntax: it is cut into whitespace-separated chunks, and each chunk is
written as one quoted string (``"gpt-fast"*``: the phrase "gpt fast", its last word a prefix),
so quotes, ``NEAR``, ``*``, ``:``, parentheses and ``AND``/``OR``/``NOT`` are just text; control
characters are dropped and the text is capped (``MAX_QUERY_CHARS``, ``MAX_CHUNKS``).

Snippets come back as parts, ``(text, matched)``, never as markup: the renderers escape the text
and wrap matched parts in ``<mark>`` themselves. FTS5 marks matches with two control characters
that the indexed text can never contain (they are removed from it when it is indexed).

Where the index lives (``index_path``): in the store generation's own directory
(``<generation>/search.sqlite``), written by ``build`` and ``load`` before the generation is
published, so a reader always searches the generation it reads, and a killed build leaves the
old generation with its old index. For a remote SPARQL server, beside the project's store
directory (``.kgprofiles/store.search-<hash of the endpoint>.sqlite``), replaced atomically after
each build or load. Where there is no index file (an in-memory store, a store built by an older
version, a remote server nobody built from here), ``SearchIndex.over`` builds one in memory from
the store on first use.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
import re
import shutil
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

from kgprofiles.config import MEMORY, SearchPath, Settings
from kgprofiles.errors import InputError, StoreError
from kgprofiles.queries import get_query, load_queries, named, whole_graph_form
from kgprofiles.store.base import SelectResult, Store, Term
from kgprofiles.store.binding import bind_rows, chunks
from kgprofiles.store.generations import fsync_file

INDEX_FILE = "search.sqlite"
#: The index's layout; an index of another version is not read (a fresh one is made in memory).
FORMAT = "kgprofiles-search-1"
#: The indexed columns, and the weight BM25 gives a match in each (names first).
COLUMNS = ("name", "alt", "headline", "narrative", "works", "orgs", "topics")
WEIGHTS = (10.0, 8.0, 4.0, 1.0, 2.0, 2.0, 2.0)
KIND_ORDER = {"person": 0, "organization": 1, "topic": 2, "work": 3}
#: A load that touches more things than this re-writes the whole index instead of updating it.
MAX_UPDATED = 20_000
#: Matches are counted up to this many ("1,000+ results").
MAX_COUNTED = 1000
MAX_QUERY_CHARS = 200
MAX_CHUNKS = 10
DEFAULT_LIMIT = 50
MAX_LIMIT = 1000
#: Past MAX_COUNTED matches, the matches of each tier ranked at most (in index order).
CANDIDATES = 2000
#: The tiers of a search with many matches: FTS5 column filters, best first ("": every column).
TIERS = ("{name alt}", "{headline}", "")
SNIPPET_TOKENS = 12
_START, _END = "\x02", "\x03"  # FTS5's match markers in snippets; never in the indexed text
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")
_SEPARATOR = " · "


@dataclass(frozen=True)
class Hit:
    """One search result: the item, its kind and name, and a snippet as (text, matched) parts."""

    iri: str
    kind: str
    name: str
    snippet: tuple[tuple[str, bool], ...]
    score: float

    def snippet_text(self) -> str:
        return "".join(text for text, _ in self.snippet)


@dataclass(frozen=True)
class Results:
    """The hits of one search (at most ``limit`` of them) and how many matched in all: ``total``,
    counted up to MAX_COUNTED (``more`` says there are more; counting them all costs time)."""

    text: str
    total: int
    hits: tuple[Hit, ...]
    more: bool = False

    def count_text(self) -> str:
        """ "1 result", "12 results", "1,000+ results"."""
        plus = "+" if self.more else ""
        return f"{self.total:,}{plus} result{'' if self.total == 1 and not self.more else 's'}"


# -------------------------------------------------------------------------- the user's query


def match_expression(text: str, *, prefix: bool = True) -> str | None:
    """The FTS5 query for what a user typed: each whitespace-separated chunk one quoted string
    (a quote in it doubled) with a prefix star (``prefix``), ANDed; None when nothing searchable
    is left.

    >>> print(match_expression('gpt-fast NEAR(a b) x* say"hi'))
    "gpt-fast"* "NEAR(a"* "b)"* "x*"* "say""hi"*
    >>> print(match_expression("synthetic person", prefix=False))
    "synthetic" "person"
    >>> match_expression(' * - " ') is None
    True
    """
    cleaned = _CONTROL.sub(" ", clean_text(text))
    chunks = [c for c in cleaned.split() if any(ch.isalnum() for ch in c)][:MAX_CHUNKS]
    if not chunks:
        return None
    star = "*" if prefix else ""
    return " ".join('"' + chunk.replace('"', '""') + '"' + star for chunk in chunks)


def clean_text(text: str) -> str:
    """What a search reads of ``text``: its first MAX_QUERY_CHARS characters, any lone surrogate
    (from undecodable command-line bytes) replaced.

    >>> clean_text("a" + chr(0xD800) + "b")
    'a?b'
    """
    return text[:MAX_QUERY_CHARS].encode("utf-8", "replace").decode("utf-8")


# -------------------------------------------------------------------------- building the index


@dataclass(frozen=True)
class Document:
    iri: str
    kind: str
    name: str
    columns: tuple[str, ...]  # in COLUMNS order


#: The queries whose rows are the index's texts (flat rows, grouped by item here).
INDEX_QUERIES = ("search-index", "search-index-links")


def documents(store: Store, queries_dir: Path | SearchPath, *, whole_graph_forms: bool = True) -> Iterator[Document]:
    """The index's documents, from ``queries/search-index.rq`` and ``search-index-links.rq``
    (flat rows, grouped here), in IRI order. Only people, organisations, topics and works are
    documents; a work without a short name is named by its title (its title is otherwise one of
    its other names). The second query is evaluated ahead, on the other core, while the first's
    rows are read (1.8 M rows in all at 100,000 people, streamed). Each is asked in its
    whole-graph form (``queries.whole_graph_form``: ``search-index-whole.rq``, …) while it is
    kgprofiles' own: a project's own ``search-index.rq`` is asked as it is, by ``build`` as by
    ``load``."""
    queries = load_queries(queries_dir)
    first, *rest = (whole_graph_form(queries, n) if whole_graph_forms else named(queries, n) for n in INDEX_QUERIES)
    ahead = [query.rows(store, ahead=True) for query in rest]
    return _grouped(itertools.chain(first.rows(store), *ahead))


def _grouped(rows: Iterable[dict[str, Term]]) -> Iterator[Document]:
    kinds: dict[str, str] = {}
    texts: dict[str, dict[str, set[str]]] = {}
    for row in rows:
        if not isinstance(row["item"], ox.NamedNode):  # (a blank node OWL RL types, say: no page to find)
            continue
        iri, field, text = row["item"].value, row["field"].value, row["text"].value
        if field == "kind":
            if KIND_ORDER.get(text, 9) < KIND_ORDER.get(kinds.get(iri, ""), 10):
                kinds[iri] = text  # something of two kinds is indexed once, as the first
            continue
        cleaned = _CONTROL.sub(" ", text).strip()
        if cleaned:
            texts.setdefault(iri, {}).setdefault(field, set()).add(cleaned)
    for iri in sorted(kinds):
        fields = texts.get(iri, {})
        titles = fields.get("title", set())
        names = fields.get("name") or titles
        values = {"name": names, "alt": fields.get("alt", set()) | (titles - names)}
        values.update((column, fields.get(column, set())) for column in COLUMNS[2:])
        name = min(names) if names else iri.rsplit("/", 1)[-1]
        yield Document(iri, kinds[iri], name, tuple(_SEPARATOR.join(sorted(values[c])) for c in COLUMNS))


def indexed_documents(path: Path) -> list[Document] | None:
    """The documents of the index file at ``path``, in IRI order: what ``documents`` gives for
    the store the index was written (or updated) for, read in a second instead of a minute at
    100,000 people. None when there is no index of this format there."""
    index = SearchIndex.open(path)
    if index is None:
        return None
    try:
        return index.documents()
    except sqlite3.Error:
        return None
    finally:
        index.close()


#: A load finds the documents it replaces by IRI.
_DOCS_BY_IRI = "CREATE INDEX IF NOT EXISTS docs_iri ON docs (iri)"


def _create(connection: sqlite3.Connection, docs: Iterable[Document]) -> int:
    columns = ", ".join(COLUMNS)
    connection.executescript(
        f"""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE docs (id INTEGER PRIMARY KEY, iri TEXT NOT NULL, kind TEXT NOT NULL,
                           kind_order INTEGER NOT NULL, name TEXT NOT NULL);
        CREATE VIRTUAL TABLE fts USING fts5({columns}, tokenize='unicode61 remove_diacritics 2', prefix='2 3');
        """
    )
    connection.execute(_DOCS_BY_IRI)
    connection.execute("INSERT INTO meta VALUES ('format', ?)", (FORMAT,))
    count = _insert(connection, docs, start=1)
    connection.execute("INSERT INTO fts (fts) VALUES ('optimize')")
    connection.commit()
    return count


def _insert(connection: sqlite3.Connection, docs: Iterable[Document], start: int) -> int:
    """Add ``docs`` with ids from ``start``; how many."""
    columns = ", ".join(COLUMNS)
    count = 0
    for count, doc in enumerate(docs, start=1):
        number = start + count - 1
        order = KIND_ORDER.get(doc.kind, 9)
        connection.execute("INSERT INTO docs VALUES (?, ?, ?, ?, ?)", (number, doc.iri, doc.kind, order, doc.name))
        connection.execute(
            f"INSERT INTO fts (rowid, {columns}) VALUES (?{', ?' * len(COLUMNS)})", (number, *doc.columns)
        )
    return count


def write_index(store: Store, queries_dir: Path | SearchPath, path: Path) -> int:
    """Write the index of ``store`` to ``path`` (via a temporary file beside it, renamed into
    place, fsynced); returns the number of documents."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.unlink(missing_ok=True)
    try:
        connection = sqlite3.connect(temporary)
        try:
            connection.execute("PRAGMA journal_mode = OFF")
            count = _create(connection, documents(store, queries_dir))
        finally:
            connection.close()
        _durable_rename(temporary, path)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot write the search index {path}: {exc}") from exc
    finally:
        temporary.unlink(missing_ok=True)
    return count


class IndexCopy:
    """The index before a load, copied beside the new one and flushed to disk by a thread while
    the load validates: at 100,000 people the file is 175 MB, and its copy and flush cost more
    than the update itself. A context manager: leaving it waits for the thread and removes a
    copy ``update_index`` did not take."""

    def __init__(self, previous: Path | None, path: Path) -> None:
        self.path = path.with_name(f".{path.name}.{os.getpid()}.copy")
        self._previous = previous
        self._made = False
        self._thread = threading.Thread(target=self._copy, name="kgprofiles-index-copy", daemon=True)

    def __enter__(self) -> IndexCopy:
        if self._previous is not None and self._previous.is_file():
            self._thread.start()
        return self

    def _copy(self) -> None:
        assert self._previous is not None
        try:
            shutil.copyfile(self._previous, self.path)
            fsync_file(self.path)
            self._made = True
        except OSError:  # update_index copies it again, or writes the index whole
            with contextlib.suppress(OSError):
                self.path.unlink(missing_ok=True)

    def take(self) -> Path | None:
        """The copy, once made; None when there is none (no readable index before, or the copy failed)."""
        if self._thread.ident is not None:
            self._thread.join()
        return self.path if self._made else None

    def __exit__(self, *exc: object) -> None:
        if self._thread.ident is not None:
            self._thread.join()
        with contextlib.suppress(OSError):
            self.path.unlink(missing_ok=True)


def update_index(
    store: Store,
    queries_dir: Path | SearchPath,
    previous: Path | None,
    path: Path,
    changed: Iterable[str],
    rewritten: Iterable[str],
    copy: IndexCopy | None = None,
) -> int:
    """Write the index of ``store`` to ``path`` as ``previous`` (the index before a load) with
    only what the load touches re-indexed: each ``changed`` thing that is an item, and the items
    that show the text of a ``rewritten`` thing (one whose own triples changed), found by
    ``queries/search-index-linked.rq``. A person's file names its topics and organisations: they
    are re-indexed, but the thousands of people who share them only when the topic's or
    organisation's own triples change. Without a readable ``previous``,
    or when a load touches too much (``MAX_UPDATED``), the whole index is written. ``copy``: the
    copy of ``previous`` an ``IndexCopy`` made meanwhile (else it is copied here). Returns the
    number of documents re-indexed."""
    things = sorted(set(changed))
    sources = sorted(set(rewritten))
    readable = SearchIndex.open(previous) if previous is not None else None
    if readable is not None:
        readable.close()
    if readable is None or previous is None or len(things) > MAX_UPDATED:
        return write_index(store, queries_dir, path)
    items = set(things)
    linked = get_query(queries_dir, "search-index-linked").text
    for batch in chunks(sources):
        for row in _rows(store, bind_rows(linked, "thing", _nodes(batch))):
            if isinstance(row["item"], ox.NamedNode):  # (data may hold a literal or blank node there)
                items.add(row["item"].value)
    if len(items) > MAX_UPDATED:
        return write_index(store, queries_dir, path)
    texts = [get_query(queries_dir, name).text for name in INDEX_QUERIES]
    rows = (
        row
        for batch in chunks(sorted(items))
        for text in texts
        for row in _rows(store, bind_rows(text, "item", _nodes(batch)))
    )
    docs = list(_grouped(rows))
    prepared = copy.take() if copy is not None else None
    temporary = prepared or path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        if prepared is None:
            shutil.copyfile(previous, temporary)
        connection = sqlite3.connect(temporary)
        try:
            connection.execute("PRAGMA journal_mode = OFF")
            connection.execute(_DOCS_BY_IRI)  # (an index written before it had one gets it once)
            for batch in chunks(sorted(items)):
                marks = ", ".join("?" * len(batch))
                ids = [i for (i,) in connection.execute(f"SELECT id FROM docs WHERE iri IN ({marks})", batch)]
                connection.executemany("DELETE FROM fts WHERE rowid = ?", [(i,) for i in ids])
                connection.executemany("DELETE FROM docs WHERE id = ?", [(i,) for i in ids])
            (last,) = connection.execute("SELECT coalesce(max(id), 0) FROM docs").fetchone()
            _insert(connection, docs, start=last + 1)
            connection.commit()
        finally:
            connection.close()
        _durable_rename(temporary, path)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot write the search index {path}: {exc}") from exc
    finally:
        temporary.unlink(missing_ok=True)
    return len(docs)


def _nodes(iris: list[str]) -> list[Term]:
    return [ox.NamedNode(iri) for iri in iris]


def _rows(store: Store, sparql: str) -> tuple[dict[str, Term], ...]:
    result = store.query(sparql)
    if not isinstance(result, SelectResult):
        raise StoreError("queries/search-index*.rq must be SELECT queries")
    return result.rows


def _durable_rename(temporary: Path, path: Path) -> None:
    fsync_file(temporary)
    os.replace(temporary, path)


def index_path(settings: Settings, store: Store) -> Path | None:
    """Where the index of ``store`` lives (see the module's docstring); None for an in-memory store."""
    from kgprofiles.store.oxigraph import OxigraphStore

    if isinstance(store, OxigraphStore):
        return None if store.location == MEMORY else Path(store.location) / INDEX_FILE
    if settings.endpoint:
        return remote_index_path(settings)
    return None


def remote_index_path(settings: Settings) -> Path | None:
    """The index of a remote server's graph: beside the project's store directory."""
    if not settings.endpoint or settings.store == MEMORY:
        return None
    store = Path(settings.store)
    digest = hashlib.sha256(settings.endpoint.encode("utf-8")).hexdigest()[:16]
    return store.with_name(f"{store.name}.search-{digest}.sqlite")


def generation_index(store: Store) -> SearchIndex | None:
    """The index written with the published generation ``store`` reads (on disk, read-only), or
    None: beside any other store an index file may not be of the store's data."""
    from kgprofiles.store.oxigraph import OxigraphStore

    generation = store.generation if isinstance(store, OxigraphStore) else None
    return SearchIndex.open(generation / INDEX_FILE) if generation is not None else None


# -------------------------------------------------------------------------- searching


class SearchIndex:
    """A read-only index, from its file or built in memory. Safe to share between threads."""

    def __init__(self, connection: sqlite3.Connection, where: str) -> None:
        self._connection = connection
        self._lock = threading.Lock()
        self.where = where

    def documents(self) -> list[Document]:
        """Every document of the index, in IRI order."""
        columns = ", ".join(f"f.{c}" for c in COLUMNS)
        with self._lock:
            rows = self._connection.execute(
                f"SELECT d.iri, d.kind, d.name, {columns} FROM docs d JOIN fts f ON f.rowid = d.id ORDER BY d.iri"
            ).fetchall()
        return [Document(iri, kind, name, tuple(texts)) for iri, kind, name, *texts in rows]

    @classmethod
    def open(cls, path: Path) -> SearchIndex | None:
        """The index file at ``path``, opened read-only (None when there is none, or it is of
        another format)."""
        if not path.is_file():
            return None
        try:
            connection = sqlite3.connect(
                path.resolve().as_uri() + "?mode=ro&immutable=1", uri=True, check_same_thread=False
            )
            found = connection.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        except sqlite3.Error:
            return None
        if found is None or found[0] != FORMAT:
            connection.close()
            return None
        return cls(connection, str(path))

    @classmethod
    def in_memory(cls, store: Store, queries_dir: Path | SearchPath) -> SearchIndex:
        connection = sqlite3.connect(":memory:", check_same_thread=False)
        _create(connection, documents(store, queries_dir))
        return cls(connection, "memory")

    @classmethod
    def over(cls, settings: Settings, store: Store) -> SearchIndex:
        """The index of ``store``: its file when there is one, else one built in memory now."""
        path = index_path(settings, store)
        found = cls.open(path) if path is not None else None
        return found if found is not None else cls.in_memory(store, settings.queries_dir)

    def search(self, text: str, limit: int = DEFAULT_LIMIT, offset: int = 0) -> Results:
        """The items matching ``text``, best first (at most ``limit``, after ``offset``)."""
        if not 0 < limit <= MAX_LIMIT or offset < 0:
            raise InputError(f"limit must be 1 to {MAX_LIMIT} and offset 0 or more")
        expression, exact = match_expression(text), match_expression(text, prefix=False)
        text = clean_text(text)
        if expression is None or exact is None:
            return Results(text, 0, ())
        try:
            with self._lock:
                if self._count(exact) > MAX_COUNTED:  # common words: their own matches are plenty
                    counted, rows = MAX_COUNTED + 1, self._in_tiers(exact, offset + limit)[offset:]
                else:
                    counted = self._count(expression)
                    if counted > MAX_COUNTED:
                        rows = self._in_tiers(expression, offset + limit)[offset:]
                    else:
                        rows = self._ranked(expression, limit=limit, offset=offset)
        except sqlite3.Error as exc:  # a corrupt file; user text cannot cause one (match_expression)
            raise StoreError(f"the search index {self.where} cannot be read: {exc}") from exc
        hits = tuple(
            Hit(iri, kind, name, snippet_parts(snippet), round(score, 6)) for _, iri, kind, name, snippet, score in rows
        )
        return Results(text, min(counted, MAX_COUNTED), hits, counted > MAX_COUNTED)

    def _count(self, expression: str) -> int:
        """The matches of ``expression``, counted up to MAX_COUNTED + 1."""
        sql = "SELECT count(*) FROM (SELECT 1 FROM fts WHERE fts MATCH ? LIMIT ?)"
        return int(self._connection.execute(sql, (expression, MAX_COUNTED + 1)).fetchone()[0])

    def _ranked(
        self, expression: str, *, limit: int, offset: int = 0, last: int | None = None
    ) -> list[tuple[int, str, str, str, str, float]]:
        """(rowid, iri, kind, name, snippet, score) of the best matches, in the module's order;
        ``last``: only the matches up to that rowid."""
        bounded = "AND fts.rowid <= ?" if last is not None else ""
        weights = ", ".join(str(w) for w in WEIGHTS)
        return self._connection.execute(
            f"""SELECT fts.rowid, d.iri, d.kind, d.name, snippet(fts, -1, ?, ?, '…', ?), bm25(fts, {weights}) AS score
                FROM fts JOIN docs d ON d.id = fts.rowid
                WHERE fts MATCH ? {bounded}
                ORDER BY score, d.kind_order, d.name, d.iri
                LIMIT ? OFFSET ?""",
            (_START, _END, SNIPPET_TOKENS, expression, *([last] if last is not None else []), limit, offset),
        ).fetchall()

    def _in_tiers(self, expression: str, wanted: int) -> list[tuple[int, str, str, str, str, float]]:
        """The best ``wanted`` matches of a search with many, tier by tier (module docstring)."""
        found: list[tuple[int, str, str, str, str, float]] = []
        seen: set[int] = set()
        pool = max(CANDIDATES, wanted)
        for columns in TIERS:
            tiered = f"{columns} : ({expression})" if columns else expression
            (last,) = self._connection.execute(
                "SELECT max(rowid) FROM (SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rowid LIMIT ?)",
                (tiered, pool),
            ).fetchone()
            if last is None:
                continue  # nothing matches in this tier
            ranked = self._ranked(tiered, limit=wanted + len(seen), last=last)
            found += [row for row in ranked if row[0] not in seen][: wanted - len(found)]
            seen.update(row[0] for row in ranked)
            if len(found) >= wanted:
                break
        return found

    def name_texts(self, kinds: Iterable[str]) -> list[tuple[str, str]]:
        """(IRI, its names and other names as one text) of every item of ``kinds``: what
        ``Views`` narrow a name look-up with (each item's names are all in its text)."""
        wanted = tuple(kinds)
        marks = ", ".join("?" * len(wanted))
        with self._lock:
            rows = self._connection.execute(
                "SELECT d.iri, f.name || ' ' || f.alt FROM docs d JOIN fts f ON f.rowid = d.id"
                f" WHERE d.kind IN ({marks})",
                wanted,
            ).fetchall()
        return [(iri, text) for iri, text in rows]

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self._connection.close()


def snippet_parts(snippet: str) -> tuple[tuple[str, bool], ...]:
    """FTS5's marked snippet as (text, matched) parts.

    >>> snippet_parts("a \\x02Flex\\x03 b")
    (('a ', False), ('Flex', True), (' b', False))
    """
    parts: list[tuple[str, bool]] = []
    for piece in re.split(f"({_START}[^{_END}]*{_END})", snippet):
        if piece.startswith(_START):
            parts.append((piece[1:-1], True))
        elif piece:
            parts.append((piece.replace(_END, ""), False))
    return tuple(parts)
