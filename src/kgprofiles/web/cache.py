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
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

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


@dataclass(frozen=True)
class Entry:
    """One answer: its status line's code, headers and body."""

    status: int
    headers: tuple[tuple[bytes, bytes], ...]
    body: bytes
    etag: bytes


class Pages:
    """The pages of one generation: a thread-safe LRU map bounded by the bytes of the bodies."""

    def __init__(self, generation: str, max_bytes: int = MAX_BYTES) -> None:
        self.generation = generation
        self.max_bytes = max_bytes
        self._entries: OrderedDict[tuple[str, str, str], Entry] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str, str]) -> Entry | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
            return entry

    def put(self, key: tuple[str, str, str], entry: Entry) -> None:
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
