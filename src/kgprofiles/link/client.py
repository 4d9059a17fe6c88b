"""A polite, robust client for a Wikidata SPARQL endpoint, over SPARQLWrapper.

* SPARQLWrapper builds each request (GET, or POST for long queries; content negotiation for SPARQL
  JSON results; a descriptive User-Agent with the project's URL).
* One request at a time in the process, and at least ``min_interval_s`` between two requests.
* A connect timeout, and a read timeout for the whole answer (a trickling answer is cut off too).
* 429 and 503 are retried, waiting what ``Retry-After`` says (seconds or an HTTP date) or else an
  exponential backoff; 502 and 504 are retried with the backoff. At most ``max_attempts`` requests
  per query, and a Retry-After longer than ``max_retry_after_s`` is an error at once, so the time a
  query can take is bounded.
* Answers are kept in an on-disk cache for ``cache_max_age_s``.
* Anything but SPARQL JSON results (an HTML page, another status, malformed JSON) is an error, never
  parsed as data. Nothing is retried that cannot help: a refused connection, a failed name lookup
  and a timeout are reported at once, clearly.
"""

from __future__ import annotations

import email.utils
import hashlib
import http.client
import json
import os
import re
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pyoxigraph as ox
from SPARQLWrapper import GET, JSON, POST, SPARQLWrapper

from kgprofiles.link.config import ClientConfig
from kgprofiles.link.errors import (
    WikidataBadAnswer,
    WikidataRateLimited,
    WikidataTimeout,
    WikidataUnreachable,
)
from kgprofiles.store.base import SelectResult

RESULT_TYPES = ("application/sparql-results+json", "application/json")
RETRY_AFTER_STATUSES = (429, 503)
BACKOFF_STATUSES = (502, 504)
MAX_GET_URL = 2000  # longer queries are POSTed
_STATUS_HINTS = {
    400: "the endpoint refused the query (a 400): it may not support a construct the query uses",
    404: "no SPARQL endpoint at that URL (a 404): check --wikidata-endpoint",
}
_HINT = "check the network and the endpoint (--wikidata-endpoint, or endpoint in [kgprofiles.wikidata])"


@dataclass
class ClientStats:
    """What the client did: requests sent, answers taken from the cache, retries and time waited."""

    requests: int = 0
    cache_hits: int = 0
    retries: int = 0
    waited_s: float = 0.0


@dataclass(frozen=True)
class _Answer:
    status: int
    content_type: str
    headers: dict[str, str]
    body: bytes


class _Retry(Exception):
    """An answer worth another attempt, after ``delay_s`` (None: use the backoff)."""

    def __init__(self, reason: str, delay_s: float | None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.delay_s = delay_s


# ------------------------------------------------------------------------------------- transport


class _Connections:
    """Connection classes that connect within ``connect_s`` and then wait at most ``read_s`` for
    each read; they record themselves so the read deadline can shrink as the answer arrives."""

    def __init__(self, connect_s: float, read_s: float) -> None:
        self.connect_s = connect_s
        self.read_s = read_s
        self.made: list[http.client.HTTPConnection] = []
        self.connected = False

    def factory(self, base: type[http.client.HTTPConnection]) -> Callable[..., http.client.HTTPConnection]:
        owner = self

        class Timed(base):  # type: ignore[valid-type, misc]
            def __init__(self, *args: object, timeout: object = None, **kwargs: object) -> None:
                super().__init__(*args, timeout=owner.connect_s, **kwargs)
                owner.made.append(self)

            def connect(self) -> None:
                super().connect()
                owner.connected = True
                self.sock.settimeout(owner.read_s)

        return Timed

    def set_read_timeout(self, seconds: float) -> None:
        for connection in self.made:
            if connection.sock is not None:
                connection.sock.settimeout(max(seconds, 0.001))


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, connections: _Connections) -> None:
        super().__init__()
        self.connections = connections

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(self.connections.factory(http.client.HTTPConnection), req)  # type: ignore[arg-type]


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, connections: _Connections) -> None:
        super().__init__()
        self.connections = connections

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        cls = self.connections.factory(http.client.HTTPSConnection)
        return self.do_open(cls, req, context=self._context)  # type: ignore[arg-type, attr-defined]


def _read_all(
    response: http.client.HTTPResponse,
    connections: _Connections,
    deadline: float,
    max_bytes: int,
    clock: Callable[[], float],
    what: str,
) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        remaining = deadline - clock()
        if remaining <= 0:
            raise TimeoutError
        connections.set_read_timeout(remaining)
        chunk = response.read1(65536)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > max_bytes:
            raise WikidataBadAnswer(f"{what} sent more than {max_bytes} bytes; stopped reading")
        chunks.append(chunk)


# ------------------------------------------------------------------------------------- cache


class ResponseCache:
    """SPARQL JSON answers on disk, one file per (endpoint, query), used while younger than
    ``max_age_s``. A damaged or foreign file is ignored and replaced."""

    def __init__(self, directory: Path, max_age_s: float, wall: Callable[[], float] = time.time) -> None:
        self.directory = directory
        self.max_age_s = max_age_s
        self.wall = wall

    def _path(self, endpoint: str, query: str) -> Path:
        key = hashlib.sha256(f"{endpoint}\n{query}".encode()).hexdigest()
        return self.directory / key[:2] / f"{key}.json"

    def get(self, endpoint: str, query: str) -> bytes | None:
        path = self._path(endpoint, query)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            fetched = float(entry["fetched_at"])
            if entry["endpoint"] != endpoint or entry["query"] != query:
                return None
            age = self.wall() - fetched
            if age > self.max_age_s or age < -60:
                return None
            return str(entry["body"]).encode("utf-8")
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, endpoint: str, query: str, body: bytes) -> None:
        path = self._path(endpoint, query)
        entry = {"endpoint": endpoint, "query": query, "fetched_at": self.wall(), "body": body.decode("utf-8")}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(entry, out, ensure_ascii=False)
            os.replace(tmp, path)
        except OSError:
            pass  # a cache that cannot be written is no cache, not an error


# ------------------------------------------------------------------------------------- client


class WikidataClient:
    """Runs SELECT queries on a Wikidata SPARQL endpoint; see the module docstring for the rules.

    ``sleep``, ``clock`` (monotonic) and ``wall`` (epoch seconds) can be replaced in tests;
    ``on_wait(message)`` is told about every wait before a retry."""

    _one_at_a_time: ClassVar[threading.Lock] = threading.Lock()  # shared by every client of the process
    _last_request_end: ClassVar[dict[str, float]] = {}

    def __init__(
        self,
        config: ClientConfig,
        *,
        use_cache: bool = True,
        on_wait: Callable[[str], None] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.config = config
        self.cache = (
            ResponseCache(config.cache_dir, config.cache_max_age_s, wall)
            if (use_cache and config.cache_dir is not None)
            else None
        )
        self.on_wait = on_wait or (lambda message: None)
        self.sleep = sleep
        self.clock = clock
        self.wall = wall
        self.stats = ClientStats()

    @property
    def endpoint(self) -> str:
        return self.config.endpoint

    def select(self, query: str) -> SelectResult:
        """The rows of a SELECT query, from the cache or the endpoint."""
        if self.cache is not None:
            cached = self.cache.get(self.endpoint, query)
            if cached is not None:
                try:
                    result = self._parse(cached, RESULT_TYPES[0])
                except WikidataBadAnswer:
                    pass
                else:
                    self.stats.cache_hits += 1
                    return result
        body, content_type = self._fetch(query)
        result = self._parse(body, content_type)
        if self.cache is not None:
            self.cache.put(self.endpoint, query, body)
        return result

    # -- the retry loop ------------------------------------------------------------------------

    def _fetch(self, query: str) -> tuple[bytes, str]:
        config = self.config
        started = self.clock()
        for attempt in range(1, config.max_attempts + 1):
            try:
                answer = self._request_once(query)
                return self._accept(answer)
            except _Retry as retry:
                if attempt == config.max_attempts:
                    raise WikidataRateLimited(
                        f"{self.endpoint} answered {retry.reason} to all {config.max_attempts} attempts "
                        f"over {self.clock() - started:.1f} s; gave up",
                        "the service is busy or limiting requests: try again later",
                    ) from None
                delay = retry.delay_s
                why = "as Retry-After asks"
                if delay is None:
                    delay = min(config.backoff_s * 2 ** (attempt - 1), config.backoff_max_s)
                    why = "backing off"
                if delay > config.max_retry_after_s:
                    raise WikidataRateLimited(
                        f"{self.endpoint} answered {retry.reason} and asks us to wait {delay:.0f} s, "
                        f"more than the {config.max_retry_after_s:.0f} s we wait",
                        "try again later (max_retry_after_s in [kgprofiles.wikidata] sets the limit)",
                    ) from None
                self.stats.retries += 1
                self.stats.waited_s += delay
                self.on_wait(
                    f"wikidata: {retry.reason}; waiting {delay:.1f} s ({why}) before attempt "
                    f"{attempt + 1} of {config.max_attempts}"
                )
                self.sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover

    def _accept(self, answer: _Answer) -> tuple[bytes, str]:
        status = answer.status
        if status == 200:
            return answer.body, answer.content_type
        reason = f"{status} {http.client.responses.get(status, '')}".strip()
        if status in RETRY_AFTER_STATUSES:
            raise _Retry(reason, retry_after(answer.headers.get("retry-after"), self.wall()))
        if status in BACKOFF_STATUSES:
            raise _Retry(reason, None)
        raise WikidataBadAnswer(
            f"{self.endpoint} answered {reason}: {_snippet(answer.body, answer.content_type)}",
            _STATUS_HINTS.get(status, _HINT),
        )

    def _request_once(self, query: str) -> _Answer:
        config = self.config
        request = self._build_request(query)
        connections = _Connections(config.connect_timeout_s, config.read_timeout_s)
        opener = urllib.request.build_opener(_HTTPHandler(connections), _HTTPSHandler(connections))
        with self._one_at_a_time:
            self._keep_interval()
            self.stats.requests += 1
            started = self.clock()
            deadline = started + config.connect_timeout_s + config.read_timeout_s
            try:
                try:
                    response = opener.open(request)
                except urllib.error.HTTPError as error:
                    response = error  # an answer with another status: read it like any other
                with response:
                    body = _read_all(response, connections, deadline, config.max_bytes, self.clock, self.endpoint)
                    headers = {k.lower(): v for k, v in response.headers.items()}
                    return _Answer(response.status, headers.get("content-type", ""), headers, body)
            except urllib.error.URLError as error:
                raise self._network_error(error.reason, connections) from None
            except TimeoutError as error:
                raise self._network_error(error, connections) from None
            except (http.client.RemoteDisconnected, http.client.IncompleteRead, ConnectionResetError) as error:
                raise _Retry(f"a broken connection ({type(error).__name__})", None) from None
            except OSError as error:
                raise self._network_error(error, connections) from None
            finally:
                self._last_request_end[self.endpoint] = self.clock()

    def _keep_interval(self) -> None:
        last = self._last_request_end.get(self.endpoint)
        if last is None or self.config.min_interval_s <= 0:
            return
        wait = last + self.config.min_interval_s - self.clock()
        if wait > 0:
            self.sleep(wait)

    def _network_error(self, reason: object, connections: _Connections) -> Exception:
        config = self.config
        if isinstance(reason, TimeoutError):
            if connections.connected:
                return WikidataTimeout(
                    f"{self.endpoint} did not answer within {config.read_timeout_s:g} s",
                    "the query may be too heavy or the service busy; try again later, or raise read_timeout_s",
                )
            return WikidataUnreachable(
                f"cannot reach the Wikidata endpoint {self.endpoint}: no connection within "
                f"{config.connect_timeout_s:g} s",
                _HINT,
            )
        if isinstance(reason, (http.client.RemoteDisconnected, ConnectionResetError)):
            return _Retry(f"a broken connection ({type(reason).__name__})", None)
        text = getattr(reason, "strerror", None) or str(reason)
        return WikidataUnreachable(f"cannot reach the Wikidata endpoint {self.endpoint}: {text}", _HINT)

    def _build_request(self, query: str) -> urllib.request.Request:
        wrapper = SPARQLWrapper(self.endpoint, agent=self.config.user_agent, returnFormat=JSON)
        wrapper.setOnlyConneg(True)
        wrapper.setQuery(query)
        wrapper.setMethod(GET)
        request = wrapper._createRequest()  # the request SPARQLWrapper would send; we send it ourselves
        if len(request.full_url) > MAX_GET_URL:
            wrapper.setMethod(POST)
            request = wrapper._createRequest()
        return request

    # -- reading answers -------------------------------------------------------------------------

    def _parse(self, body: bytes, content_type: str) -> SelectResult:
        media = content_type.split(";")[0].strip().lower()
        if media not in RESULT_TYPES:
            raise WikidataBadAnswer(
                f"{self.endpoint} answered {media or 'something without a content type'}, not SPARQL results: "
                f"{_snippet(body, media)}",
                "is the endpoint URL the SPARQL endpoint itself (…/sparql)? HTML is often an error or proxy page",
            )
        try:
            parsed = ox.parse_query_results(body, format=ox.QueryResultsFormat.JSON)
        except (SyntaxError, ValueError, OSError) as error:
            raise WikidataBadAnswer(
                f"{self.endpoint} answered {media} that is not valid SPARQL results JSON: {error}: "
                f"{_snippet(body, media)}",
                _HINT,
            ) from None
        if not isinstance(parsed, ox.QuerySolutions):
            raise WikidataBadAnswer(f"{self.endpoint} answered a boolean where rows were expected")
        return SelectResult.from_solutions(parsed)


def retry_after(value: str | None, now: float) -> float | None:
    """Seconds to wait from a Retry-After header: delay-seconds or an HTTP date; None if absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    if re.fullmatch(r"\d+(\.\d+)?", value):
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - now)


def _snippet(body: bytes, content_type: str) -> str:
    text = body[:2000].decode("utf-8", errors="replace")
    if "html" in content_type or text.lstrip().startswith("<"):
        title = re.search(r"<title[^>]*>(.*?)</title>", text, re.IGNORECASE | re.DOTALL)
        if title:
            return f"an HTML page titled {title.group(1).strip()!r}"
        return "an HTML page"
    text = " ".join(text.split())
    return repr(text[:160] + ("…" if len(text) > 160 else ""))
