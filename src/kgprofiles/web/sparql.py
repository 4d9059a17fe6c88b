"""``/sparql``: the SPARQL 1.1 Protocol endpoint. Queries run in worker threads under the time
limit; updates need the write token; a GET without a query gives the query editor (HTML) or the
service description (RDF)."""

from __future__ import annotations

import hmac
from collections.abc import Callable
from typing import TypeVar

import anyio
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from kgprofiles.errors import InputError, KgError, QueryError, RemoteError
from kgprofiles.web import description, editor, results
from kgprofiles.web.engine import Forbidden, LimitHit, time_limit_hit
from kgprofiles.web.negotiation import choose
from kgprofiles.web.protocol import Operation, ProtocolError, read_operation
from kgprofiles.web.site import Site, site_of

#: How long past the time limit a query stuck inside the engine may take before the client is
#: answered anyway (the engine checks the limit itself between rows).
GRACE_S = 1.0
T = TypeVar("T")


def error(status: int, message: str, hint: str | None = None, headers: dict[str, str] | None = None) -> Response:
    """A plain-text error: the message, then the hint."""
    text = message if not hint else f"{message}\nhint: {hint}"
    return PlainTextResponse(text + "\n", status_code=status, headers=headers)


def endpoint_url(request: Request) -> str:
    return str(request.url.replace(query="", fragment="")).rstrip("/")


async def endpoint(request: Request) -> Response:
    try:
        operation = await read_operation(request)
    except ProtocolError as exc:
        return error(exc.status, exc.message, exc.hint, exc.headers)
    if operation is None:
        return await without_operation(request)
    if operation.kind == "update":
        return await update(request, operation)
    return await query(request, operation)


async def without_operation(request: Request) -> Response:
    """The editor for a browser, the service description for a client that asks for RDF."""
    offers = ("text/html", *description.MEDIA_TYPES)
    chosen = choose(request.headers.get("accept"), offers)
    if chosen is None:
        return error(406, "no acceptable representation", f"this URL gives {', '.join(offers)}")
    if chosen == "text/html":
        return await run_in_threadpool(editor.page, request)
    site = site_of(request)
    body = await run_in_threadpool(description.service_description, site, endpoint_url(request), chosen)
    return Response(body, media_type=chosen, headers={"Vary": "Accept"})


async def in_worker(site: Site, work: Callable[[], T]) -> T:
    """Run blocking work in one of the query threads; the time limit counts from now."""
    try:
        with anyio.fail_after(site.limits.timeout_s + GRACE_S):
            return await anyio.to_thread.run_sync(work, abandon_on_cancel=True, limiter=site.limiter)
    except TimeoutError as exc:
        raise time_limit_hit(site.limits) from exc


async def query(request: Request, operation: Operation) -> Response:
    site = site_of(request)
    accept = request.headers.get("accept")
    base = endpoint_url(request)

    def work() -> tuple[bytes, str]:
        result = site.engine.query(operation.text, operation.dataset, base)
        offers = results.offers(result)
        # A client that accepts none of the offers gets the default form rather than a 406:
        # some clients ask for SPARQL XML results whatever the query (rasqal's roqet does).
        return results.serialize(result, choose(accept, offers) or offers[0], operation.text)

    try:
        body, content_type = await in_worker(site, work)
    except KgError as exc:
        return failure(exc)
    return Response(body, headers={"Content-Type": content_type, "Vary": "Accept"})


async def update(request: Request, operation: Operation) -> Response:
    site = site_of(request)
    if site.write_token is None:
        return error(403, "this endpoint is read-only: updates are refused", "start the server with --write-token")
    given = request.headers.get("authorization", "")
    if not given:
        return error(
            401,
            "an update needs the write token",
            "send the header 'Authorization: Bearer <token>'",
            {"WWW-Authenticate": 'Bearer realm="kgprofiles"'},
        )
    if not hmac.compare_digest(given.encode(), f"Bearer {site.write_token}".encode()):
        return error(403, "the write token is wrong: the update is refused")
    base = endpoint_url(request)
    try:
        await anyio.to_thread.run_sync(lambda: site.engine.update(operation.text, operation.dataset, base))
    except KgError as exc:
        return failure(exc)
    site.follow(now=True)  # the next request reads what this one wrote
    return Response(status_code=204)


def failure(exc: KgError) -> Response:
    """The status and message for an error of the engine or the store."""
    if isinstance(exc, LimitHit):
        status = 503 if exc.which == "time" else 422
        return error(status, exc.message, exc.hint, {"X-Kgprofiles-Limit": exc.which})
    if isinstance(exc, Forbidden):
        return error(403, exc.message, exc.hint)
    if isinstance(exc, QueryError | InputError):
        return error(400, exc.message, exc.hint)
    if isinstance(exc, RemoteError):
        return error(502, exc.message, exc.hint)
    return error(500, exc.message, exc.hint)
