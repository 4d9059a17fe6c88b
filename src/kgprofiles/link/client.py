"""A polite, robust client for a Wikidata SPARQL endpoint, over SPARQLWrapper.

* SPARQLWrapper builds each request (GET, or POST for long queries; content negotiation for SPARQL
  JSON results; a descriptive User-Agent with the project's URL); ``transport`` sends it: a
  connection within ``connect_timeout_s``, the whole answer within ``read_timeout_s`` however it
  trickles, no redirect to another server, at most ``max_bytes``.
* One request at a time in the process, and at least ``min_interval_s`` between two requests.
* 429 and 503 are retried, waiting what ``Retry-After`` says (seconds or an HTTP date) or else an
  exponential backoff; 502, 504 and a broken connection are retried with the backoff. At most
  ``max_attempts`` requests per query, and every attempt and wait counts against the query's
  ``query_budget_s``: a wait that would overrun it is an error at once, so no query holds a command
  longer than its budget.
* Answers are kept in an on-disk cache for ``cache_max_age_s``.
* Anything but SPARQL JSON results (an HTML page, another status, malformed JSON) is an error, never
  parsed as data (``answers``); a value longer than ``max_text_chars`` is left out, with a notice.
  Nothing is retried that cannot help: a refused connection, a failed name lookup and a timeout are
  reported at once, clearly.
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
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from SPARQLWrapper import GET, JSON, POST, SPARQLWrapper

from kgprofiles.link.answers import read_select, snippet
from kgprofiles.link.transport import HINT, REDIRECT_STATUSES, Answer, BrokenConnection, Limits, exchange
from kgprofiles.link.wikidata_errors import WikidataBadAnswer, WikidataRateLimited
from kgprofiles.link.wikidata_settings import ClientConfig
from kgprofiles.store.base import SelectResult

RESULT_TYPES = ("application/sparql-results+json", "application/json")
RETRY_AFTER_STATUSES = (429, 503)
BACKOFF_STATUSES = (502, 504)
MAX_GET_URL = 2000  # longer queries are POSTed
_STATUS_HINTS = {
    400: "the endpoint refused the query (a 400): it may not support a construct the query uses",
    404: "no SPARQL endpoint at that URL (a 404): check --wikidata-endpoint",
}
_BUDGET_HINT = "try again later (query_budget_s in [kgprofiles.wikidata] sets the budget)"


@dataclass
class ClientStats:
    """What the client did: requests sent, answers taken from the cache, retries and time waited."""

    requests: int = 0
    cache_hits: int = 0
    retries: int = 0
    waited_s: float = 0.0


class _Retry(Exception):
    """An answer worth another attempt, after ``delay_s`` (None: use the backoff)."""

    def __init__(self, reason: str, delay_s: float | None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.delay_s = delay_s


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
    ``notify(message)`` is told about every wait before a retry and every text left out."""

    _one_at_a_time: ClassVar[threading.Lock] = threading.Lock()  # shared by every client of the process
    _last_request_end: ClassVar[dict[str, float]] = {}

    def __init__(
        self,
        config: ClientConfig,
        *,
        use_cache: bool = True,
        notify: Callable[[str], None] | None = None,
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
        self.notify = notify or (lambda message: None)
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
        until = started + config.query_budget_s
        for attempt in range(1, config.max_attempts + 1):
            try:
                return self._accept(self._request_once(query, until))
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
                left = until - self.clock()
                if delay >= left:
                    raise WikidataRateLimited(
                        f"{self.endpoint} answered {retry.reason} and asks us to wait {delay:.0f} s; "
                        f"{max(left, 0):.0f} s of the query's {config.query_budget_s:g} s budget are left",
                        _BUDGET_HINT,
                    ) from None
                self.stats.retries += 1
                self.stats.waited_s += delay
                self.notify(
                    f"wikidata: {retry.reason}; waiting {delay:.1f} s ({why}) before attempt "
                    f"{attempt + 1} of {config.max_attempts}"
                )
                self.sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover

    def _accept(self, answer: Answer) -> tuple[bytes, str]:
        status = answer.status
        if status == 200:
            return answer.body, answer.content_type
        reason = f"{status} {http.client.responses.get(status, '')}".strip()
        if status in RETRY_AFTER_STATUSES:
            raise _Retry(reason, retry_after(answer.headers.get("retry-after"), self.wall()))
        if status in BACKOFF_STATUSES:
            raise _Retry(reason, None)
        if status in REDIRECT_STATUSES:
            raise WikidataBadAnswer(
                f"{self.endpoint} answered {reason} without a target it may be followed to",
                "set --wikidata-endpoint to the URL of the SPARQL endpoint itself",
            )
        raise WikidataBadAnswer(
            f"{self.endpoint} answered {reason}: {snippet(answer.body, answer.content_type)}",
            _STATUS_HINTS.get(status, HINT),
        )

    def _request_once(self, query: str, until: float) -> Answer:
        config = self.config
        request = self._build_request(query)
        with self._one_at_a_time:
            self._keep_interval(until)
            self.stats.requests += 1
            limits = Limits(config.connect_timeout_s, config.read_timeout_s, until, config.max_bytes)
            try:
                return exchange(request, self.endpoint, limits, self.clock)
            except BrokenConnection as error:
                raise _Retry(str(error), None) from None
            finally:
                self._last_request_end[self.endpoint] = self.clock()

    def _keep_interval(self, until: float) -> None:
        last = self._last_request_end.get(self.endpoint)
        if last is None or self.config.min_interval_s <= 0:
            return
        wait = min(last + self.config.min_interval_s, until) - self.clock()
        if wait > 0:
            self.sleep(wait)

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
            shown = media if re.fullmatch(r"[\w.+-]+/[\w.+-]+", media) else repr(media[:80]) if media else ""
            raise WikidataBadAnswer(
                f"{self.endpoint} answered {shown or 'something without a content type'}, not SPARQL results: "
                f"{snippet(body, media)}",
                "is the endpoint URL the SPARQL endpoint itself (…/sparql)? HTML is often an error or proxy page",
            )
        result, notes = read_select(body, self.config.max_text_chars, f"{self.endpoint} answered {media}")
        for note in notes:
            self.notify(note)
        return result


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
