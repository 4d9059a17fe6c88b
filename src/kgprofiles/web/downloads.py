"""The whole-graph downloads of ``serve``: ``/downloads`` (what there is) and
``/downloads/NAME`` (the file), streamed.

A download is the store's export (``kgprofiles.export``, the same bytes as ``kgprofiles export``)
written by a thread into a pipe and sent as it comes, so the whole graph is never in the server's
memory (at 100,000 people the N-Quads are 5 GB). A client that goes away stops the export at its
next write; an export that fails half-way ends the connection without the closing chunk, so the
client sees a broken download rather than a short file. Each export reads the whole store, so at
most ``DOWNLOADS_AT_ONCE`` run at once; another request gets 503 with ``Retry-After``. JSON-LD is
compacted in memory (rdflib), so it is offered only up to ``jsonld_max_quads`` quads
(``[kgprofiles.limits]``); past that it is not listed and its address answers 404, saying why.
"""

from __future__ import annotations

import io
import logging
import os
import threading
from collections.abc import Callable, Iterator
from typing import BinaryIO

import anyio
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from kgprofiles.errors import LimitHit
from kgprofiles.export import MEDIA_TYPES, export_store_to, jsonld_fits
from kgprofiles.profiles import NotFound
from kgprofiles.render.html import page
from kgprofiles.store.base import Store
from kgprofiles.web.site import DOWNLOADS_AT_ONCE, Site, site_of

#: Whole-graph downloads: file name → (export format, what it is).
DOWNLOADS = {
    "kgprofiles.nq": ("nq", "N-Quads: every named graph kept (one per data file, the ontology, the inferred triples)"),
    "kgprofiles.ttl": ("ttl", "Turtle: the union of the graphs, with the project's prefixes"),
    "kgprofiles.nt": ("nt", "N-Triples: the union of the graphs, one triple a line"),
    "kgprofiles.jsonld": ("jsonld", "JSON-LD: the union of the graphs, compacted with the project's @context"),
}
#: When a client turned away should ask again (seconds): an export of a large graph takes minutes.
RETRY_AFTER_S = 30
#: Bytes read from the export's pipe at a time.
CHUNK = 256 * 1024

_log = logging.getLogger("kgprofiles.web")


def offered(store: Store, max_jsonld_quads: int) -> dict[str, tuple[str, str]]:
    """The downloads a store gets: every format, JSON-LD only while the graph fits its limit."""
    fits = jsonld_fits(store, max_jsonld_quads)
    return {name: d for name, d in DOWNLOADS.items() if d[0] != "jsonld" or fits}


def downloads(request: Request) -> Response:
    return Response(
        page("downloads.html", downloads=_offered(site_of(request)), media_types=MEDIA_TYPES), media_type="text/html"
    )


def download(request: Request) -> Response:
    site = site_of(request)
    name = request.path_params["name"]
    if name not in DOWNLOADS:
        raise HTTPException(404)
    if name not in _offered(site):
        limit = site.settings.limits.jsonld_max_quads
        raise NotFound(
            f"{name} is not offered: the graph has more than {limit:,} quads, too many to compact as JSON-LD "
            "in memory. Download kgprofiles.nq (every named graph) or kgprofiles.nt instead."
        )
    fmt = DOWNLOADS[name][0]
    headers = {"Content-Disposition": f'attachment; filename="{name}"'}
    if request.method == "HEAD":  # the headers a GET would get, without making the export
        return StreamingResponse(iter(()), media_type=MEDIA_TYPES[fmt], headers=headers)
    slots = site.download_slots
    if not slots.acquire(blocking=False):
        raise LimitHit(
            "busy",
            f"{DOWNLOADS_AT_ONCE} downloads of the whole graph are being made; try again in a minute",
            retry_after_s=RETRY_AFTER_S,
        )
    return _Streamed(ExportStream(site.store, fmt), slots.release, media_type=MEDIA_TYPES[fmt], headers=headers)


def _offered(site: Site) -> dict[str, tuple[str, str]]:
    # counted once per snapshot (a published generation; a server's data, once a start): up to
    # jsonld_max_quads quads read, too many to read for every view of the page
    return site.cached("downloads", lambda: offered(site.store, site.settings.limits.jsonld_max_quads))


class ExportFailed(Exception):
    """The export stopped half-way (the store failed): the response is cut off."""


class ExportStream:
    """The export of ``store`` in ``fmt``, made by a thread into a pipe and read in chunks: the
    pipe holds at most its buffer, so the export goes as fast as the client reads."""

    def __init__(self, store: Store, fmt: str) -> None:
        self._store = store
        self._fmt = fmt
        self._reader: io.RawIOBase | None = None
        self._thread: threading.Thread | None = None
        self._gone = False
        self._error: BaseException | None = None

    def __iter__(self) -> Iterator[bytes]:
        read_end, write_end = os.pipe()
        reader = io.FileIO(read_end, "rb")
        self._reader = reader
        self._thread = threading.Thread(
            target=self._produce, args=(os.fdopen(write_end, "wb"),), name="kgprofiles-download", daemon=True
        )
        self._thread.start()
        while chunk := reader.read(CHUNK):
            yield chunk
        self._thread.join()
        if self._error is not None:
            raise ExportFailed(str(self._error)) from self._error

    def _produce(self, writer: BinaryIO) -> None:
        try:
            with writer:
                export_store_to(self._store, self._fmt, writer)
        except Exception as exc:  # (the reader closed its end: the client went away)
            if not self._gone:
                self._error = exc

    def close(self) -> None:
        """Stop the export (its next write fails) and wait for its thread."""
        self._gone = True
        if self._reader is not None:
            self._reader.close()
        if self._thread is not None:
            self._thread.join()


class _Streamed(StreamingResponse):
    """A streamed export that gives back its download slot and stops its export however the
    response ends: sent, client gone, or export failed (then the connection is cut off)."""

    def __init__(self, stream: ExportStream, release: Callable[[], None], **kwargs: object) -> None:
        super().__init__(stream, **kwargs)  # type: ignore[arg-type]
        self._stream = stream
        self._release = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        except ExportFailed as exc:  # headers are out: end without the last chunk
            _log.error("download %s cut off: the export failed: %s", scope.get("path"), exc)
        finally:
            await anyio.to_thread.run_sync(self._stream.close)
            self._release()
