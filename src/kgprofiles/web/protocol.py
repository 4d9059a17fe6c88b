"""Reading a SPARQL 1.1 Protocol request: which operation (query or update), its text, and the
protocol-specified dataset, or a ProtocolError that says what is wrong with the request.

* query: GET ``?query=``; POST ``application/x-www-form-urlencoded`` with ``query=``; POST
  ``application/sparql-query`` with the query as the body. ``default-graph-uri`` and
  ``named-graph-uri`` may repeat.
* update: POST form with ``update=``; POST ``application/sparql-update``. ``using-graph-uri`` and
  ``using-named-graph-uri`` may repeat.

Parameters of the URL and of a form body are read together. Bodies must be UTF-8.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import parse_qsl

import anyio
import pyoxigraph as ox
from starlette.requests import ClientDisconnect, Request

from kgprofiles.web.engine import Dataset

FORM = "application/x-www-form-urlencoded"
QUERY = "application/sparql-query"
UPDATE = "application/sparql-update"
MAX_BODY = 10 * 1024 * 1024
_TOO_LARGE = f"the body is larger than {MAX_BODY // (1024 * 1024)} MiB"
#: Seconds a request's body may take to arrive whole.
BODY_TIMEOUT_S = 60.0


class ProtocolError(Exception):
    """A request the protocol does not allow, with the HTTP status to answer it with."""

    def __init__(self, status: int, message: str, hint: str | None = None, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.hint = hint
        self.headers = headers or {}


@dataclass(frozen=True)
class Operation:
    kind: str  # "query" or "update"
    text: str
    dataset: Dataset = field(default_factory=Dataset)


def _media_type(header: str | None) -> tuple[str, str | None]:
    """(media type, charset) of a Content-Type header."""
    if not header:
        return "", None
    fields = [f.strip() for f in header.split(";")]
    charset = None
    for param in fields[1:]:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            charset = value.strip().strip('"').lower()
    return fields[0].lower(), charset


def _decode(body: bytes, charset: str | None) -> str:
    if charset not in (None, "utf-8", "utf8"):
        raise ProtocolError(415, f"the body is in {charset}; the SPARQL protocol asks for UTF-8", "send it as UTF-8")
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError(400, f"the body is not valid UTF-8 ({exc.reason} at byte {exc.start})") from exc


def _one(params: list[tuple[str, str]], name: str) -> str | None:
    values = [v for k, v in params if k == name]
    if len(values) > 1:
        raise ProtocolError(400, f"the request has {len(values)} {name} parameters; send exactly one")
    return values[0] if values else None


def _graphs(params: list[tuple[str, str]], name: str) -> tuple[str, ...]:
    graphs = []
    for key, value in params:
        if key != name:
            continue
        try:
            ox.NamedNode(value)
        except ValueError as exc:
            raise ProtocolError(400, f"{name} {value!r} is not an absolute IRI") from exc
        graphs.append(value)
    return tuple(dict.fromkeys(graphs))


#: The parameters that give an operation's dataset: (default graphs, named graphs).
DATASET_PARAMETERS = {
    "query": ("default-graph-uri", "named-graph-uri"),
    "update": ("using-graph-uri", "using-named-graph-uri"),
}


def _dataset(params: list[tuple[str, str]], kind: str) -> Dataset:
    default, named = DATASET_PARAMETERS[kind]
    return Dataset(_graphs(params, default), _graphs(params, named))


async def _body(request: Request) -> bytes:
    """The request's body, read as it comes: refused once it passes ``MAX_BODY`` (a chunked body
    says no length beforehand), takes longer than ``BODY_TIMEOUT_S`` to arrive or never arrives
    (the client went away)."""
    length = request.headers.get("content-length")
    if length and length.isdigit() and int(length) > MAX_BODY:
        raise ProtocolError(413, _TOO_LARGE)
    chunks: list[bytes] = []
    size = 0
    with anyio.move_on_after(BODY_TIMEOUT_S) as waited:
        try:
            async for chunk in request.stream():
                size += len(chunk)
                if size > MAX_BODY:
                    raise ProtocolError(413, _TOO_LARGE)
                chunks.append(chunk)
        except ClientDisconnect as exc:  # (no one reads the answer; the server logs no traceback)
            raise ProtocolError(400, "the client closed the connection before the body arrived") from exc
    if waited.cancelled_caught:
        raise ProtocolError(408, f"the body did not arrive within {BODY_TIMEOUT_S:.0f} s")
    return b"".join(chunks)


async def read_operation(request: Request) -> Operation | None:
    """The request's operation; None for a GET without one (the service description or editor)."""
    url_params = list(request.query_params.multi_items())
    if request.method in ("GET", "HEAD"):
        if _one(url_params, "update") is not None:
            raise ProtocolError(400, "an update must be sent with POST, not GET")
        query = _one(url_params, "query")
        return None if query is None else Operation("query", query, _dataset(url_params, "query"))
    media_type, charset = _media_type(request.headers.get("content-type"))
    if media_type == FORM:
        text = _decode(await _body(request), charset)
        params = url_params + parse_qsl(text, keep_blank_values=True)
        query, update = _one(params, "query"), _one(params, "update")
        if query is not None and update is not None:
            raise ProtocolError(400, "the request has both query and update; send one of them")
        if query is not None:
            return Operation("query", query, _dataset(params, "query"))
        if update is not None:
            return Operation("update", update, _dataset(params, "update"))
        raise ProtocolError(400, "the form has neither a query nor an update parameter")
    if media_type in (QUERY, UPDATE):
        text = _decode(await _body(request), charset)
        kind = "query" if media_type == QUERY else "update"
        return Operation(kind, text, _dataset(url_params, kind))
    shown = f"Content-Type {media_type!r}" if media_type else "no Content-Type"
    raise ProtocolError(
        415,
        f"a POST with {shown} is not a SPARQL request",
        f"send {FORM} (query= or update=), {QUERY} or {UPDATE}",
    )
