"""The ASGI app: ``create_app(settings)`` wires the routes to one store.

Routes:
  /                                  home: search, counts, topics, organisations
  /people, /search?q=, /downloads    the people list, search results, whole-graph downloads
  /downloads/kgprofiles.{nq,ttl,nt,jsonld}
  /id/{kind}/{slug}[.html|.ttl|.jsonld|.nt]   person, organization, topic, work, source, claim, profile
  /id/person/{slug}/related/{other}  why one person is related to another: the evidence, with sources
  /api/person/{id}, /api/person/{id}/related, /api/prefixes, /api/search?q=  JSON
  /sparql (and /sparql/)             SPARQL 1.1 Protocol; GET without a query: editor or service description
  /static/…                          the stylesheet, the editor's script, YASGUI's files
Every response carries the security headers of ``kgprofiles.web.headers``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from kgprofiles.config import Settings
from kgprofiles.errors import KgError
from kgprofiles.store.base import Store
from kgprofiles.web import api, downloads, errors, pages, resources, sparql
from kgprofiles.web.cache import CachePages
from kgprofiles.web.cors import Cors, check_origins
from kgprofiles.web.editor import find_editor, usable_editor
from kgprofiles.web.engine import Limits
from kgprofiles.web.headers import SecurityHeaders
from kgprofiles.web.site import PinSnapshot, Site

DEFAULT_MAX_ROWS = 100_000


#: How often (seconds) a server with no requests looks for a newly published generation.
IDLE_FOLLOW_EVERY_S = 1.0


async def follow_while_idle(site: Site) -> None:
    """Follow the store when no request does: a generation a build or load replaced is let go of
    (closed, its lease released, so gc frees its disk) within ``IDLE_FOLLOW_EVERY_S``; a server
    without visitors held it until its next request, however long, and every gc kept it."""
    import anyio

    while True:
        await anyio.sleep(IDLE_FOLLOW_EVERY_S)
        try:
            await anyio.to_thread.run_sync(site.follow)
        except Exception:  # (a store being replaced: the next request, or the next look, says)
            continue


def create_app(
    settings: Settings,
    store: Store | None = None,
    write_token: str | None = None,
    *,
    query_timeout: float | None = None,
    max_rows: int | None = None,
    allow_fetch: bool = False,
    editor_dir: Path | None = None,
    cors: Sequence[str] = (),
    shared_pages: Path | None = None,
) -> Starlette:
    """The web app over ``store`` (default: the store the settings name, opened now and closed
    when the app shuts down). Read-only unless ``write_token`` is given; queries are limited to
    ``query_timeout`` seconds (default: settings.query_timeout_s) and ``max_rows`` rows, and over an
    on-disk store run in ``settings.query_workers`` worker processes (started now, stopped with
    the app); SERVICE and LOAD are refused unless ``allow_fetch``. ``editor_dir`` is YASGUI's build directory
    (default: node_modules/@triply/yasgui/build under the project root); without it, /sparql
    offers a plain query form. ``cors``: the origins (or ``*``) other sites' scripts may read the
    read-only endpoints from (``web/cors.py``; none by default). ``shared_pages``: a directory
    where the processes of one server (``serve --workers``) share the pages they make."""
    origins = check_origins(cors)
    owns = store is None
    if store is None:
        from kgprofiles.store import open_store

        store = open_store(settings, read_only=True, allow_fetch=allow_fetch)
    limits = Limits(
        timeout_s=query_timeout if query_timeout is not None else settings.query_timeout_s,
        max_rows=max_rows if max_rows is not None else DEFAULT_MAX_ROWS,
        max_depth=settings.query_max_depth,
        max_bytes=settings.limits.max_answer_bytes,
    )
    site = Site(
        settings,
        store,
        limits,
        write_token=write_token or None,
        allow_fetch=allow_fetch,
        editor_dir=find_editor(settings.root) if editor_dir is None else usable_editor(editor_dir),
        owns_store=owns,
        shared_pages=shared_pages,
    )

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        following = asyncio.get_running_loop().create_task(follow_while_idle(site))
        try:
            yield
        finally:
            following.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await following  # (a look under way ends first: nothing opened after the close)
            site.close()

    app = Starlette(
        routes=routes(site),
        # Outermost first: every response gets the headers (and CORS ones when allowed), every request
        # one snapshot of the store; pages come from the cache of that snapshot's generation when they are in it.
        middleware=[
            Middleware(SecurityHeaders),
            *([Middleware(Cors, origins=origins)] if origins else []),
            Middleware(PinSnapshot, site=site),
            Middleware(CachePages, pages_of=lambda: site.current().pages),
        ],
        exception_handlers={HTTPException: http_error, KgError: errors.kg_error},
        lifespan=lifespan,
    )
    app.state.site = site
    return app


def routes(site: Site) -> list[BaseRoute]:
    found: list[BaseRoute] = [
        Route("/", pages.home),
        Route("/favicon.ico", pages.no_icon),
        Route("/people", pages.people),
        Route("/search", pages.search),
        Route("/downloads", downloads.downloads),
        Route("/downloads/{name}", downloads.download),
        Route("/id/person/{slug}/related/{other}", pages.why),
        Route("/id/{kind}/{name}", resources.resource),
        Route("/api/prefixes", api.prefixes),
        Route("/api/search", api.search),
        Route("/api/person/{id:path}/related", api.related),
        Route("/api/person/{id:path}", api.person),
        Route("/sparql", sparql.endpoint, methods=["GET", "POST"]),
        Route("/sparql/", sparql.endpoint, methods=["GET", "POST"]),
    ]
    if site.editor_dir is not None:
        found.append(Mount("/static/yasgui", StaticFiles(directory=site.editor_dir), name="yasgui"))
    found.append(Mount("/static", StaticFiles(packages=[("kgprofiles.render", "static")]), name="static"))
    return found


def http_error(request: Request, exc: Exception) -> Response:
    """404s get the helpful page; other HTTP errors (405…) a plain message."""
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        return pages.not_found(request)
    return PlainTextResponse(f"{exc.detail}\n", status_code=exc.status_code, headers=exc.headers)
