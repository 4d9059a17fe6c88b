"""The JSON API: ``/api/person/{id}``, ``/api/person/{id}/related`` and ``/api/search``, the same models as
``kgprofiles profile --format json`` and ``kgprofiles related --format json`` (render/json.py).
``{id}`` is anything the CLI accepts: a slug, CURIE, IRI, name or Wikidata Q-id. Errors are
answered by the app's error boundary (``web/errors.py``) as ``{"error": …, "hint": …}``."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from kgprofiles.errors import InputError
from kgprofiles.render import json as json_view
from kgprofiles.search import DEFAULT_LIMIT
from kgprofiles.vocab import PREFIXES
from kgprofiles.web.site import site_of

JSON = "application/json"


def person(request: Request) -> Response:
    views = site_of(request).views
    profile = views.profile(views.resolve_person(request.path_params["id"]))
    return Response(json_view.profile(profile), media_type=JSON)


def related(request: Request) -> Response:
    views = site_of(request).views
    limit = _whole("limit", request, 0, 1) or None  # (0: not given, all of them)
    people = views.related(views.resolve_person(request.path_params["id"]), limit)
    return Response(json_view.related(people), media_type=JSON)


def search(request: Request) -> Response:
    """``/api/search?q=TEXT[&limit=N][&offset=N]``: the full-text search's results as
    ``kgprofiles search --format json`` gives them (snippets as text and as parts, never HTML)."""
    text = (request.query_params.get("q") or "").strip()
    limit, offset = _whole("limit", request, DEFAULT_LIMIT, 1), _whole("offset", request, 0, 0)
    return Response(json_view.search(site_of(request).search(text, limit, offset)), media_type=JSON)


def _whole(name: str, request: Request, default: int, least: int) -> int:
    text = request.query_params.get(name)
    if text is None:
        return default
    if not (text.isascii() and text.isdigit() and len(text) <= 9 and int(text) >= least):
        raise InputError(f"{name} must be a whole number, at least {least}, not {text[:40]!r}")
    return int(text)


def prefixes(request: Request) -> Response:
    """The project's prefixes as ``{"prefix": "namespace"}`` (the form of prefix.cc's list, which the
    query editor's prefix completion reads)."""
    return JSONResponse(PREFIXES)
