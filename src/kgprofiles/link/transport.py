"""One HTTP exchange with a Wikidata endpoint that the server cannot hold, send elsewhere or flood.

* **A total deadline.** The connection must be made within ``connect_s``; from then on the whole
  answer (status line, headers, body, and any redirect) must arrive within ``read_s``. A socket
  timeout alone bounds each read, so a server that trickles a byte a second would never trip it: a
  watchdog shuts the request's sockets down at the deadline, whatever they are waiting for.
* **No redirect to another server.** A redirect is followed only to the same scheme, host and port,
  for a GET, at most ``MAX_REDIRECTS`` times; a redirect to another server is an error naming it.
* **A size cap.** The body is read in chunks and refused past ``max_bytes`` (or at once when its
  Content-Length says it would be).

Name lookup (DNS) is not covered by the deadline: the operating system does it, uninterruptibly.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import string
import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote, urljoin, urlsplit

from kgprofiles.link.wikidata_errors import (
    WikidataBadAnswer,
    WikidataError,
    WikidataRedirected,
    WikidataTimeout,
    WikidataUnreachable,
)

MAX_REDIRECTS = 3
REDIRECT_STATUSES = (301, 302, 303, 307, 308)
_CHUNK = 65536
HINT = "check the network and the endpoint (--wikidata-endpoint, or endpoint in [kgprofiles.wikidata])"


@dataclass(frozen=True)
class Answer:
    """What the server answered: any status, with its headers (names in lower case) and whole body."""

    status: int
    content_type: str
    headers: dict[str, str]
    body: bytes


class BrokenConnection(Exception):
    """The server closed or reset the connection before its answer was whole: worth another try."""


@dataclass(frozen=True)
class Limits:
    connect_s: float
    read_s: float
    until: float  # the latest moment (on ``clock``) the answer may be complete: the query's budget
    max_bytes: int


def exchange(request: urllib.request.Request, endpoint: str, limits: Limits, clock: Callable[[], float]) -> Answer:
    """Send ``request`` to ``endpoint`` (the URL messages name) and read the whole answer within
    ``limits``; every failure is a WikidataError (or BrokenConnection, which the caller may retry)."""
    deadline = _Deadline(limits, clock)
    opener = urllib.request.build_opener(
        _HTTPHandler(limits.connect_s, deadline),
        _HTTPSHandler(limits.connect_s, deadline),
        _SameOriginRedirects(endpoint),
    )
    try:
        try:
            response = opener.open(request)
        except urllib.error.HTTPError as error:
            response = error  # an answer with another status: read it like any other
        with response:
            headers = {k.lower(): v for k, v in response.headers.items()}
            body = _read_body(response, headers, limits.max_bytes, endpoint)
        if deadline.expired:  # a socket shut by the watchdog reads as the end of the answer
            raise TimeoutError
        return Answer(response.status or 0, headers.get("content-type", ""), headers, body)
    except WikidataError:
        raise
    except (OSError, http.client.HTTPException, ValueError) as error:
        raise _failure(error, endpoint, deadline) from None
    finally:
        deadline.cancel()


def _read_body(response: http.client.HTTPResponse, headers: dict[str, str], max_bytes: int, url: str) -> bytes:
    declared = headers.get("content-length", "").strip()
    if declared.isdigit() and int(declared) > max_bytes:
        raise WikidataBadAnswer(
            f"{url} announced an answer of {int(declared):,} bytes, more than the {max_bytes:,} we read",
            "max_bytes in [kgprofiles.wikidata] sets the limit",
        )
    chunks: list[bytes] = []
    size = 0
    while chunk := response.read1(_CHUNK):
        size += len(chunk)
        if size > max_bytes:
            raise WikidataBadAnswer(
                f"{url} sent more than {max_bytes:,} bytes; stopped reading",
                "max_bytes in [kgprofiles.wikidata] sets the limit",
            )
        chunks.append(chunk)
    return b"".join(chunks)


def _failure(error: BaseException, url: str, deadline: _Deadline) -> Exception:
    """The error to report for what went wrong during the exchange."""
    if isinstance(error, urllib.error.URLError) and not isinstance(error.reason, str):
        error = error.reason  # type: ignore[assignment]
    if deadline.expired or (isinstance(error, TimeoutError) and deadline.started is not None):
        return WikidataTimeout(
            f"{url} did not answer within {deadline.limit_s:g} s{deadline.why}",
            "the query may be too heavy or the service busy; try again later, or raise read_timeout_s "
            "in [kgprofiles.wikidata]",
        )
    if isinstance(error, TimeoutError):
        return WikidataUnreachable(
            f"cannot reach the Wikidata endpoint {url}: no connection within {deadline.limits.connect_s:g} s", HINT
        )
    if isinstance(error, (ConnectionResetError, BrokenPipeError, http.client.IncompleteRead)):
        return BrokenConnection(f"a broken connection ({type(error).__name__})")  # RemoteDisconnected too
    if isinstance(error, http.client.HTTPException):
        what = f"{type(error).__name__}: {str(error)[:200]}"
        return WikidataBadAnswer(f"{url} answered something that is not HTTP ({what})", HINT)
    if isinstance(error, ValueError) and not isinstance(error, OSError):  # a certificate error is both
        return WikidataBadAnswer(f"{url} cannot be asked: {error}", HINT)
    text = getattr(error, "strerror", None) or str(error)
    return WikidataUnreachable(f"cannot reach the Wikidata endpoint {url}: {text}", HINT)


# --------------------------------------------------------------------------------- the deadline


class _Deadline:
    """Armed when the first connection is made: at ``read_s`` later (or the end of the query's
    budget, if sooner), every socket of the request is shut down, so a blocked read returns."""

    def __init__(self, limits: Limits, clock: Callable[[], float]) -> None:
        self.limits = limits
        self.clock = clock
        self.started: float | None = None
        self.limit_s = limits.read_s
        self.why = ""
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def watch(self, sock: socket.socket) -> None:
        """Put a newly connected socket under the deadline (arming it on the first)."""
        with self._lock:
            self._sockets.append(sock)
            if self.started is None:
                self.started = now = self.clock()
                left = self.limits.until - now
                if left < self.limits.read_s:
                    self.limit_s = max(left, 0.0)
                    self.why = " (what was left of the query's budget, query_budget_s)"
                self._timer = threading.Timer(self.limit_s, self._expire)
                self._timer.daemon = True
                self._timer.start()
            elif self.expired:
                _shut(sock)
        sock.settimeout(max(self.limit_s, 0.001))

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _shut(sock)

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed
        socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the descriptor itself, under any TLS layer


# --------------------------------------------------------------------------------- connections


def _connection_class(
    base: type[http.client.HTTPConnection], connect_s: float, deadline: _Deadline
) -> Callable[..., http.client.HTTPConnection]:
    class Watched(base):  # type: ignore[valid-type, misc]
        def __init__(self, *args: object, timeout: object = None, **kwargs: object) -> None:
            super().__init__(*args, timeout=connect_s, **kwargs)

        def connect(self) -> None:
            super().connect()
            deadline.watch(self.sock)

    return Watched


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, connect_s: float, deadline: _Deadline) -> None:
        super().__init__()
        self.connection = _connection_class(http.client.HTTPConnection, connect_s, deadline)

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(self.connection, req)  # type: ignore[arg-type]


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, connect_s: float, deadline: _Deadline) -> None:
        super().__init__()
        self.connection = _connection_class(http.client.HTTPSConnection, connect_s, deadline)

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(self.connection, req, context=self._context)  # type: ignore[arg-type, attr-defined]


# --------------------------------------------------------------------------------- redirects


def _origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) of ``url``, the port made explicit; ValueError for a malformed port."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or {"http": 80, "https": 443}.get(scheme)


class _SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only to the endpoint's own scheme, host and port, only for a GET, and at
    most MAX_REDIRECTS times; anything else is a WikidataRedirected error. The redirect's own body
    is never read."""

    def __init__(self, endpoint: str) -> None:
        super().__init__()
        self.endpoint = endpoint
        self.origin = _origin(endpoint)
        self.hops = 0

    def http_error_302(  # type: ignore[override]
        self, req: urllib.request.Request, fp: object, code: int, msg: str, headers: object
    ) -> object:
        location = headers.get("location")  # type: ignore[attr-defined]
        if location is None:
            return None  # no target: read as an answer with a 3xx status
        fp.close()  # type: ignore[attr-defined]
        target = urljoin(req.full_url, quote(location.strip(), encoding="iso-8859-1", safe=string.punctuation))
        try:
            same = _origin(target) == self.origin
        except ValueError:
            same = False
        if not same:
            raise WikidataRedirected(
                f"{self.endpoint} redirected ({code}) to {target[:300]}, another server: not followed",
                "a Wikidata endpoint answers itself; if the service moved, set --wikidata-endpoint "
                "(or endpoint in [kgprofiles.wikidata]) to its new URL",
            )
        if req.get_method() != "GET":
            raise WikidataRedirected(
                f"{self.endpoint} redirected ({code}) a POSTed query to {target[:300]}: not followed",
                "set --wikidata-endpoint to the URL the server redirects to",
            )
        self.hops += 1
        if self.hops > MAX_REDIRECTS:
            raise WikidataRedirected(
                f"{self.endpoint} redirected more than {MAX_REDIRECTS} times (last to {target[:300]}): not followed",
                "set --wikidata-endpoint to the final URL",
            )
        follow = urllib.request.Request(target, headers=dict(req.headers), method="GET")
        return self.parent.open(follow, timeout=req.timeout)  # type: ignore[attr-defined]

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302
