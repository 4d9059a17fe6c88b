"""CORS for the read-only endpoints, off unless ``serve --cors ORIGIN`` (or ``create_app(cors=…)``).

With it, a page on another origin (a notebook, a YASGUI elsewhere) may read, from a browser:
SPARQL queries at ``/sparql`` (GET, and POST of a query), every ``/id/…`` IRI in any of its forms,
and the JSON API (``/api/…``: search, people, prefixes). Nothing else: the pages, downloads and
static files keep the browser's same-origin rule (no CORS headers).

Never for updates. An update's response carries no CORS header (the SPARQL handler marks the
request as one, ``mark_update``), so a script on another origin cannot read whether it worked;
and the preflight does not allow the ``Authorization`` header, so a browser never even sends a
cross-origin request that carries the write token. No credentials (cookies) are ever allowed.

``ORIGIN`` is ``*`` (any origin may read; the answer says ``*``) or an origin such as
``https://notebook.example.org`` (scheme, host and port; repeat the option for more), echoed
back to a request from that origin only, with ``Vary: Origin``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kgprofiles.errors import InputError

#: What CORS applies to: the SPARQL endpoint (exactly), and paths under /id/ and /api/.
SPARQL_PATHS = ("/sparql", "/sparql/")
READ_ONLY_PREFIXES = ("/id/", "/api/")
ALLOWED_HEADERS = "Accept, Content-Type"
EXPOSED_HEADERS = "Content-Location, Link, Retry-After, X-Kgprofiles-Limit"
MAX_AGE_S = 600
_UPDATE = "kgprofiles.update"
_ORIGIN = re.compile(r"https?://[A-Za-z0-9.\-]+(:[0-9]{1,5})?|https?://\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?")


def check_origins(origins: Iterable[str]) -> tuple[str, ...]:
    """The origins as given to ``--cors``: ``*``, or ``http(s)://host[:port]`` with no path; an
    InputError for anything else (a trailing slash, a path, a wildcard inside a name)."""
    checked = []
    for origin in origins:
        origin = origin.strip()
        if origin != "*" and not _ORIGIN.fullmatch(origin):
            raise InputError(
                f"--cors {origin!r} is not an origin",
                "give * or scheme://host[:port], such as https://notebook.example.org (no path, no trailing slash)",
            )
        checked.append(origin.lower() if origin != "*" else origin)
    return tuple(dict.fromkeys(checked))


def mark_update(request: Request) -> None:
    """Say that ``request`` is an update: its response gets no CORS header."""
    request.scope[_UPDATE] = True


def _methods(path: str) -> tuple[str, ...] | None:
    """The methods another origin may use on ``path``; None where CORS does not apply."""
    if path in SPARQL_PATHS:
        return ("GET", "POST")
    if path.startswith(READ_ONLY_PREFIXES):
        return ("GET",)
    return None


class Cors:
    """ASGI middleware: CORS headers on the read-only endpoints' answers to the allowed origins,
    and the preflight (``OPTIONS`` with ``Access-Control-Request-Method``) answered here."""

    def __init__(self, app: ASGIApp, origins: tuple[str, ...]) -> None:
        self.app = app
        self.any = "*" in origins
        self.origins = frozenset(origins)

    def _allow(self, origin: str | None) -> str | None:
        if origin is None:
            return None
        if self.any:
            return "*"
        return origin if origin.lower() in self.origins else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        methods = _methods(scope["path"])
        headers = Headers(scope=scope)
        allowed = self._allow(headers.get("origin")) if methods is not None else None
        if methods is not None and scope["method"] == "OPTIONS" and "access-control-request-method" in headers:
            await self._preflight(allowed, methods, headers)(scope, receive, send)
            return
        if allowed is None or scope["method"] not in (*methods, "HEAD"):  # type: ignore[misc]
            await self.app(scope, receive, send)
            return

        async def send_with_cors(message: Message) -> None:
            if message["type"] == "http.response.start" and not scope.get(_UPDATE):
                out = MutableHeaders(scope=message)
                out["access-control-allow-origin"] = allowed
                out["access-control-expose-headers"] = EXPOSED_HEADERS
                if allowed != "*":
                    out.add_vary_header("Origin")
            await send(message)

        await self.app(scope, receive, send_with_cors)

    def _preflight(self, allowed: str | None, methods: tuple[str, ...], headers: Headers) -> Response:
        """204 either way; the CORS headers only for an allowed origin asking for an allowed
        method and only the allowed headers (the browser then sends the request, else not)."""
        vary = {"Vary": "Origin"} if not self.any else {}
        method = headers.get("access-control-request-method", "").strip().upper()
        wanted = {h.strip().lower() for h in headers.get("access-control-request-headers", "").split(",") if h.strip()}
        if allowed is None or method not in methods or not wanted <= {"accept", "content-type"}:
            return Response(status_code=204, headers=vary)
        return Response(
            status_code=204,
            headers={
                **vary,
                "Access-Control-Allow-Origin": allowed,
                "Access-Control-Allow-Methods": ", ".join(methods),
                "Access-Control-Allow-Headers": ALLOWED_HEADERS,
                "Access-Control-Max-Age": str(MAX_AGE_S),
            },
        )
