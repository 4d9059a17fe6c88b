"""The JSON API: ``/api/person/{id}`` and ``/api/person/{id}/related``, the same models as
``kgprofiles profile --format json`` and ``kgprofiles related --format json`` (render/json.py).
``{id}`` is anything the CLI accepts: a slug, CURIE, IRI, name or Wikidata Q-id. Errors are
answered by the app's error boundary (``web/errors.py``) as ``{"error": …, "hint": …}``."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from kgprofiles.errors import InputError
from kgprofiles.render import json as json_view
from kgprofiles.vocab import PREFIXES
from kgprofiles.web.site import site_of

JSON = "application/json"


def person(request: Request) -> Response:
    views = site_of(request).views
    profile = views.profile(views.resolve_person(request.path_params["id"]))
    return Response(json_view.profile(profile), media_type=JSON)


def related(request: Request) -> Response:
    views = site_of(request).views
    limit_text = request.query_params.get("limit")
    if limit_text is not None and not (limit_text.isdigit() and int(limit_text) > 0):
        raise InputError(f"limit must be a positive whole number, not {limit_text!r}")
    people = views.related(views.resolve_person(request.path_params["id"]), int(limit_text) if limit_text else None)
    return Response(json_view.related(people), media_type=JSON)


def prefixes(request: Request) -> Response:
    """The project's prefixes as ``{"prefix": "namespace"}`` (the form of prefix.cc's list, which the
    query editor's prefix completion reads)."""
    return JSONResponse(PREFIXES)
