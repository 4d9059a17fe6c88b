"""The web app's one error boundary: handlers raise, this picks the status and the form.

A KgError becomes its status (``status_of``) with its message and hint: JSON under ``/api/``,
plain text for the SPARQL endpoint and for clients that do not ask for HTML, and the helpful 404
page for a page that does not exist. Anything else is a bug: ``web/headers.py`` answers it with a
plain 500, never a traceback (the server logs the exception).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from kgprofiles.errors import Forbidden, InputError, KgError, LimitHit, QueryError, RemoteError, StoreError
from kgprofiles.profiles import Ambiguous, NotFound
from kgprofiles.store.generations import StoreBusy
from kgprofiles.store.sandbox import RETRY_AFTER_S


def status_of(error: KgError) -> int:
    """The HTTP status for an error a handler raised."""
    if isinstance(error, NotFound):
        return 404
    if isinstance(error, Ambiguous):
        return 409
    if isinstance(error, LimitHit):
        return 422 if error.which in ("rows", "size") else 503
    if isinstance(error, Forbidden):
        return 403
    if isinstance(error, QueryError | InputError):
        return 400
    if isinstance(error, RemoteError):
        return 502
    if isinstance(error, StoreError):
        return 503
    return 500


def headers_of(error: KgError) -> dict[str, str]:
    """Headers that say more than the status: which limit a query hit, and when to try again."""
    if isinstance(error, StoreBusy):  # (another process writes the store: an update may try again)
        return {"Retry-After": str(RETRY_AFTER_S)}
    if not isinstance(error, LimitHit):
        return {}
    if error.which in ("rows", "size"):  # (the same query would hit it again: no Retry-After)
        return {"X-Kgprofiles-Limit": error.which}
    return {"X-Kgprofiles-Limit": error.which, "Retry-After": str(error.retry_after_s or RETRY_AFTER_S)}


def error_response(request: Request, error: KgError) -> Response:
    """The response for ``error``, in the form the request's path and Accept call for."""
    from kgprofiles.web import pages

    status, headers = status_of(error), headers_of(error)
    if request.url.path.startswith("/api/"):
        body = {"error": error.message} | ({"hint": error.hint} if error.hint else {})
        return JSONResponse(body, status_code=status, headers=headers)
    if status == 404 and not request.url.path.startswith("/sparql"):
        return pages.not_found(request, error.message)
    text = error.message if not error.hint else f"{error.message}\nhint: {error.hint}"
    return PlainTextResponse(text + "\n", status_code=status, headers=headers)


async def kg_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, KgError)
    return error_response(request, exc)
