"""Security headers on every response of the web app: pages, /sparql results and errors, static
files, 404s and 405s, downloads, the JSON API, and the 500 of a handler that failed.

A pure ASGI middleware (no ``BaseHTTPMiddleware``, which would buffer streamed bodies and break
background work): it adds the headers to the ``http.response.start`` message as it passes, and
overrides any a handler set, so the policy is decided here and nowhere else.

The policy (``CONTENT_SECURITY_POLICY``), one for every response:

- ``default-src 'self'``: scripts, styles, fonts, fetches, frames and workers come from this site
  only. No inline script runs, and none is needed: the person page's JSON-LD and the editor's
  configuration are ``<script type="application/…json">`` data blocks, which browsers never run
  (CSP does not govern them), and the editor is two files, ``/static/yasgui/yasgui.min.js`` and
  ``/static/editor.js``. Neither ``'unsafe-inline'`` nor ``'unsafe-eval'`` is allowed: YASGUI
  runs without ``eval`` (its ``Function("return this")`` fallbacks are never reached in a browser).
- ``style-src 'self'`` plus two hashes: the site's own pages have no ``<style>`` and no ``style=``
  attribute, but YASR's table column resizer inserts two fixed ``<style>`` elements; the policy
  allows exactly those texts (``editor.INLINE_STYLES``) by their SHA-256, not inline styles at
  large. ``style-src-attr 'unsafe-hashes'`` plus one hash: YASQE's syntax-error tooltip writes
  ``style='text-decoration:underline'``, and that one attribute value is allowed
  (``editor.INLINE_STYLE_ATTRIBUTES``); any other ``style=`` attribute is refused. The browser
  test drives the editor (a query, a results table, a column drag, the error tooltip) and finds
  no violation; a new YASGUI version that needs more would show there.
- ``img-src 'self' data:``: YASGUI's stylesheet draws its icons as ``data:`` images (an image
  cannot run script).
- ``object-src 'none'``, ``base-uri 'none'``, ``form-action 'self'``, ``frame-ancestors 'none'``:
  no plugins, no ``<base>`` that would re-point relative links, forms post only here, and no
  other site may frame a page (``X-Frame-Options: DENY`` says the same to older browsers).

``X-Content-Type-Options: nosniff`` makes browsers trust the Content-Type (a Turtle download or
a plain-text error is never read as HTML or script). ``Referrer-Policy: no-referrer``: pages
link out to the sources they cite, and a reader's path through the graph is nobody else's
business; nothing here reads the Referer header (updates are authorised by a bearer token, not
by where the request came from), so sending none costs nothing.
"""

from __future__ import annotations

import base64
import hashlib

from starlette.datastructures import MutableHeaders
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kgprofiles.web.editor import INLINE_STYLE_ATTRIBUTES, INLINE_STYLES


def source_hash(text: str) -> str:
    """The CSP source expression that allows one inline ``<style>`` (or script) of exactly ``text``."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "style-src 'self' " + " ".join(source_hash(text) for text in INLINE_STYLES),
        "style-src-attr 'unsafe-hashes' " + " ".join(source_hash(text) for text in INLINE_STYLE_ATTRIBUTES),
        "img-src 'self' data:",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)

#: Every response carries these (names in lower case, as ASGI sends them).
SECURITY_HEADERS = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
}


class SecurityHeaders:
    """ASGI middleware: ``SECURITY_HEADERS`` on every HTTP response of ``app``. A handler that
    fails before answering gets a plain 500 from here, with the headers, instead of one from
    Starlette's outer error middleware, which would go out without them (the exception is raised
    on, so the server still logs it)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers[name] = value
            await send(message)

        try:
            await self.app(scope, receive, send_with_headers)
        except Exception:
            if not started:
                await PlainTextResponse("Internal Server Error\n", status_code=500)(scope, receive, send_with_headers)
            raise
