"""Pages cached per published store generation, revalidated by ETag.

A published generation never changes (``store/generations.py``), and the same data gives the same
bytes (deterministic output), so a page of one generation is computed once: the first answer to a
GET of a page is kept in memory with the generation (``Snapshot.pages``), and later requests for
the same path, query string and ``Accept`` header are answered from it. A newer generation is a
new snapshot with an empty cache; the old one goes with its snapshot.

Every cached answer carries a strong ``ETag`` made from the generation, the path and query, and
the Content-Type the answer was negotiated to, and ``Cache-Control: no-cache`` (a client may keep
it, but asks again each time): a request whose ``If-None-Match`` names it gets ``304 Not
Modified`` with no body.

Cached: 200 answers of at most ``MAX_ENTRY_BYTES`` to GET requests, except ``/sparql`` (queries
have their own limits and workers), ``/static`` (files, with their own validators) and
``/downloads/`` (whole-graph exports, too large to keep). Each generation keeps at most
``MAX_BYTES`` of pages, the least recently used going first. Stores that are not a published
generation (in memory, a remote server, a directory opened as it is) are never cached.

``serve --workers N`` runs N processes, and a client's connection reaches one of them: each
process also keeps the pages it makes in a file of the generation's shared by all of them
(``SharedPages``: SQLite, in a private directory the supervising process makes and removes), so
a page is made once for all of them, and a revalidation (304) is answered by any.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import queue
import re
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: Bytes of pages kept per generation.
MAX_BYTES = 64 * 1024 * 1024
#: The largest answer kept.
MAX_ENTRY_BYTES = 2 * 1024 * 1024
CACHE_CONTROL = b"no-cache"
#: Paths never cached (prefixes).
NOT_CACHED = ("/sparql", "/static/", "/downloads/")
#: Headers a 304 repeats from the answer it stands for (RFC 9110 §15.4.5).
KEPT_ON_304 = (b"etag", b"cache-control", b"vary", b"content-location", b"link")
#: Bytes of pages the processes of one server share per generation (past it, pages stay in each
#: process's own memory only).
MAX_SHARED_BYTES = 1024 * 1024 * 1024
#: Pages waiting to be shared, at most (more are not shared), and how long a write may wait for
#: another process's.
WRITES_QUEUED = 512
WRITE_WAIT_S = 2.0
#: Pages written in one transaction at most (those waiting when the writer comes to them).
WRITES_BATCHED = 64

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Entry:
    """One answer: its status line's code, headers and body."""

    status: int
    headers: tuple[tuple[bytes, bytes], ...]
    body: bytes
    etag: bytes


Key = tuple[str, str, str]  # path, query string, Accept header


def _row_key(key: Key) -> str:
    """A page's key as the shared file keeps it (a path, decoded, may hold any character)."""
    return json.dumps(key)


class SharedPages:
    """The pages of one generation in a SQLite file that the processes of one server share
    (``directory/<generation>.sqlite``). Reads are made where asked (a WAL file: a reader never
    waits for a writer); writes by a thread of their own, which may wait for another process's
    write without holding a request up (a page it cannot take at once is not shared). A cache:
    whatever goes wrong with the file (a full disk, a damaged file) makes it miss, or stop being
    used, never fails a request. Opening one removes the files of older generations."""

    def __init__(self, directory: Path, generation: str, max_bytes: int = MAX_SHARED_BYTES) -> None:
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._reader: sqlite3.Connection | None = None
        self._writes: queue.Queue[tuple[Key, Entry] | None] = queue.Queue(maxsize=WRITES_QUEUED)
        self._writer: threading.Thread | None = None
        name = re.sub(r"[^A-Za-z0-9._-]", "_", generation)
        self.path = directory / f"{name}.sqlite"
        writer: sqlite3.Connection | None = None
        try:
            writer = self._connect(timeout=WRITE_WAIT_S)
            writer.execute("PRAGMA journal_mode = WAL")
            writer.execute("PRAGMA synchronous = OFF")  # (a cache: lost with a crash, made again)
            writer.execute(
                "CREATE TABLE IF NOT EXISTS pages (key TEXT PRIMARY KEY, status INTEGER NOT NULL, "
                "headers TEXT NOT NULL, body BLOB NOT NULL, etag BLOB NOT NULL)"
            )
            found = writer.execute("SELECT COALESCE(SUM(LENGTH(body)), 0) FROM pages").fetchone()
            self._reader = self._connect(timeout=0.05)
        except (sqlite3.Error, OSError) as exc:
            if writer is not None:
                writer.close()
            self._give_up(exc)
            return
        self._writer = threading.Thread(
            target=self._write, args=(writer, int(found[0])), name="kgprofiles-shared-pages", daemon=True
        )
        self._writer.start()
        for older in directory.glob("*.sqlite*"):
            if older.name.split(".sqlite")[0] < name:  # (generation names begin with their time)
                with contextlib.suppress(OSError):
                    older.unlink()

    def _connect(self, timeout: float) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=timeout, check_same_thread=False, isolation_level=None)

    def get(self, key: Key) -> Entry | None:
        with self._lock:
            if self._reader is None:
                return None
            try:
                row = self._reader.execute(
                    "SELECT status, headers, body, etag FROM pages WHERE key = ?", (_row_key(key),)
                ).fetchone()
            except sqlite3.OperationalError:  # busy a moment: a miss
                return None
            except sqlite3.Error as exc:
                self._give_up(exc)
                return None
        if row is None:
            return None
        status, headers, body, etag = row
        pairs = tuple((k.encode("latin-1"), v.encode("latin-1")) for k, v in json.loads(headers))
        return Entry(int(status), pairs, bytes(body), bytes(etag))

    def put(self, key: Key, entry: Entry) -> None:
        """Share ``entry`` (by the writing thread; dropped when it has too many waiting)."""
        if self._writer is not None and self._reader is not None:  # (None: given up)
            with contextlib.suppress(queue.Full):
                self._writes.put_nowait((key, entry))

    def _write(self, connection: sqlite3.Connection, size: int) -> None:
        stopping = False
        while not stopping:
            batch = [self._writes.get()]  # (then what else waits: one transaction for them all)
            while len(batch) < WRITES_BATCHED and batch[-1] is not None:
                try:
                    batch.append(self._writes.get_nowait())
                except queue.Empty:
                    break
            stopping = batch[-1] is None
            pages = [item for item in batch if item is not None]
            try:
                if pages:
                    size = self._insert(connection, pages, size)
            except sqlite3.OperationalError:  # another process held the file too long: not shared
                with contextlib.suppress(sqlite3.Error):
                    connection.execute("ROLLBACK")
            except sqlite3.Error as exc:
                self._give_up(exc)
                stopping = True
            finally:
                for _ in batch:
                    self._writes.task_done()
        with contextlib.suppress(sqlite3.Error):
            connection.close()

    def _insert(self, connection: sqlite3.Connection, pages: list[tuple[Key, Entry]], size: int) -> int:
        """Write ``pages`` in one transaction, within the byte cap; the bytes written after."""
        connection.execute("BEGIN IMMEDIATE")
        added = 0
        for key, entry in pages:
            if size + added + len(entry.body) <= self.max_bytes:
                headers = json.dumps([(k.decode("latin-1"), v.decode("latin-1")) for k, v in entry.headers])
                done = connection.execute(
                    "INSERT OR IGNORE INTO pages VALUES (?, ?, ?, ?, ?)",
                    (_row_key(key), entry.status, headers, entry.body, entry.etag),
                )
                added += len(entry.body) if done.rowcount else 0
        connection.execute("COMMIT")
        return size + added

    def flush(self) -> None:
        """Wait until the pages given so far are written (or dropped)."""
        if self._writer is not None and self._writer.is_alive():
            self._writes.join()

    def _give_up(self, exc: Exception) -> None:
        log.warning("pages are not shared between the server's processes: %s", exc)
        with self._lock:
            if self._reader is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._reader.close()
            self._reader = None

    def close(self) -> None:
        if self._writer is not None and self._writer.is_alive():
            self._writes.put(None)
            self._writer.join(timeout=5)
        with self._lock:
            if self._reader is not None:
                self._reader.close()
                self._reader = None


class Pages:
    """The pages of one generation: a thread-safe LRU map bounded by the bytes of the bodies, in
    front of the pages the server's processes share (``shared``), if any."""

    def __init__(self, generation: str, max_bytes: int = MAX_BYTES, shared: Path | None = None) -> None:
        self.generation = generation
        self.max_bytes = max_bytes
        self._entries: OrderedDict[Key, Entry] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.shared = SharedPages(shared, generation) if shared is not None else None

    def get(self, key: Key) -> Entry | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                return entry
        if self.shared is None:
            return None
        entry = self.shared.get(key)
        if entry is not None:
            self._keep(key, entry)
        return entry

    def put(self, key: Key, entry: Entry) -> None:
        self._keep(key, entry)
        if self.shared is not None:
            self.shared.put(key, entry)

    def close(self) -> None:
        if self.shared is not None:
            self.shared.close()

    def _keep(self, key: Key, entry: Entry) -> None:
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= len(old.body)
            self._entries[key] = entry
            self._bytes += len(entry.body)
            while self._bytes > self.max_bytes and self._entries:
                _, gone = self._entries.popitem(last=False)
                self._bytes -= len(gone.body)

    def __len__(self) -> int:
        return len(self._entries)

    def etag(self, path: str, query: str, content_type: bytes) -> bytes:
        """A strong validator: the generation, then a digest of what else decides the bytes."""
        digest = hashlib.sha256(f"{path}?{query}\0".encode() + content_type).hexdigest()[:20]
        return f'"{self.generation}-{digest}"'.encode()


def matches(if_none_match: bytes, etag: bytes) -> bool:
    """Whether an If-None-Match header names ``etag`` (weak comparison, as RFC 9110 asks)."""
    for tag in if_none_match.split(b","):
        tag = tag.strip()
        if tag == b"*" or tag.removeprefix(b"W/") == etag:
            return True
    return False


def header(scope: Scope, name: bytes) -> bytes:
    for key, value in scope["headers"]:
        if key == name:
            return bytes(value)
    return b""


class CachePages:
    """ASGI middleware (inside ``PinSnapshot``): answers GETs of pages from the cache of the
    generation the request is served from (module docstring). ``pages_of()`` gives that cache, or
    None when the snapshot is not a published generation."""

    def __init__(self, app: ASGIApp, pages_of: Callable[[], Pages | None]) -> None:
        self.app = app
        self.pages_of = pages_of

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET" or scope["path"].startswith(NOT_CACHED):
            await self.app(scope, receive, send)
            return
        pages = self.pages_of()
        if pages is None:
            await self.app(scope, receive, send)
            return
        path, query = scope["path"], scope["query_string"].decode("latin-1")
        key = (path, query, header(scope, b"accept").decode("latin-1"))
        entry = pages.get(key)
        if entry is None:
            entry = await self._compute(scope, receive, pages, path, query)
            if entry.status == 200 and len(entry.body) <= MAX_ENTRY_BYTES:
                pages.put(key, entry)
        await self._answer(entry, header(scope, b"if-none-match"), send)

    async def _compute(self, scope: Scope, receive: Receive, pages: Pages, path: str, query: str) -> Entry:
        start: Message | None = None
        chunks: list[bytes] = []

        async def keep(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                start = message
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, keep)
        if start is None:
            return Entry(500, ((b"content-type", b"text/plain; charset=utf-8"),), b"Internal Server Error\n", b"")
        headers = [(bytes(k), bytes(v)) for k, v in start.get("headers", [])]
        status = int(start["status"])
        etag = b""
        if status == 200:
            content_type = next((v for k, v in headers if k.lower() == b"content-type"), b"")
            etag = pages.etag(path, query, content_type)
            headers += [(b"etag", etag), (b"cache-control", CACHE_CONTROL)]
        return Entry(status, tuple(headers), b"".join(chunks), etag)

    async def _answer(self, entry: Entry, if_none_match: bytes, send: Send) -> None:
        if entry.etag and if_none_match and matches(if_none_match, entry.etag):
            kept = [(k, v) for k, v in entry.headers if k.lower() in KEPT_ON_304]
            await send({"type": "http.response.start", "status": 304, "headers": kept})
            await send({"type": "http.response.body", "body": b""})
            return
        await send({"type": "http.response.start", "status": entry.status, "headers": list(entry.headers)})
        await send({"type": "http.response.body", "body": entry.body})
