"""``/sparql``: the SPARQL 1.1 Protocol endpoint. Queries run under the time limit (in the query
workers over an on-disk store, ``web/engine.py``); when every worker is taken and the queue is
full, the answer is 503 at once. Updates need the write token; a GET without a query gives the
query editor (HTML) or the service description (RDF)."""

from __future__ import annotations

import hmac
from collections.abc import Callable
from typing import TypeVar

import anyio
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from kgprofiles.errors import KgError
from kgprofiles.result_formats import kind_of
from kgprofiles.store.base import GraphResult, SelectResult
from kgprofiles.store.sandbox import Serialised, busy, time_limit_hit
from kgprofiles.web import description, editor, results
from kgprofiles.web.cors import mark_update
from kgprofiles.web.errors import headers_of, status_of
from kgprofiles.web.negotiation import choose
from kgprofiles.web.protocol import Operation, ProtocolError, read_operation
from kgprofiles.web.site import Site, site_of

#: How long past the time limit a query may take before the client is answered anyway (the query
#: workers answer at the limit; a remote store or an in-memory one may not).
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
        mark_update(request)  # never readable from another origin (web/cors.py)
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


#: The header on an answer a remote server cut at its result cap: the cap, in rows.
CAPPED_HEADER = "X-Kgprofiles-Truncated"


async def in_worker(site: Site, work: Callable[[], T]) -> T:
    """Run blocking work in one of the /sparql threads; the time limit counts from now."""
    try:
        with anyio.fail_after(site.limits.timeout_s + GRACE_S):
            return await anyio.to_thread.run_sync(work, abandon_on_cancel=True, limiter=site.limiter)
    except TimeoutError as exc:
        raise time_limit_hit(site.limits.timeout_s) from exc


async def query(request: Request, operation: Operation) -> Response:
    site = site_of(request)
    if site.pool is not None and site.pool.full:
        return failure(busy(site.pool.workers))
    # The media type for each kind of result. A client that accepts none of the offers gets the
    # default form rather than a 406: some ask for SPARQL XML results whatever the query (roqet).
    accept = request.headers.get("accept")
    chosen = {kind: choose(accept, offers) or offers[0] for kind, offers in results.OFFERS.items()}
    in_bytes = tuple((kind, media) for kind, media in chosen.items() if media != results.HTML)
    base = endpoint_url(request)
    headers = {"Vary": "Accept"}
    engine = site.engine
    try:
        if engine.runs_in_loop(operation.text):  # no thread in between: the worker is awaited on its pipe
            answer = await engine.query_async(operation.text, operation.dataset, base, in_bytes)
        else:
            answer = await in_worker(site, lambda: engine.query(operation.text, operation.dataset, base, in_bytes))
        if isinstance(answer, SelectResult | GraphResult) and answer.capped_at is not None:
            # the remote server cut the answer at its cap: say so, never a silent partial answer
            headers[CAPPED_HEADER] = str(answer.capped_at)
        if isinstance(answer, Serialised):
            body, content_type = answer.body, answer.content_type
        else:
            media_type = chosen[kind_of(answer)]
            body, content_type = await anyio.to_thread.run_sync(
                lambda: results.serialize(answer, media_type, operation.text)
            )
    except KgError as exc:
        return failure(exc)
    return Response(body, headers={"Content-Type": content_type, **headers})


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
    """The status and message for an error of the engine or the store (the app's one mapping,
    ``web/errors.py``), as plain text: what SPARQL clients read."""
    text = exc.message if not exc.hint else f"{exc.message}\nhint: {exc.hint}"
    return PlainTextResponse(text + "\n", status_code=status_of(exc), headers=headers_of(exc) or None)
