"""Running SPARQL for the endpoint: the protocol's dataset, a time limit and a row limit, and no
SERVICE or LOAD unless allowed.

The embedded store is queried through its pyoxigraph store directly, so results are read lazily
(the row limit stops reading, the time limit is checked as rows come) and the protocol's
``default-graph-uri`` / ``named-graph-uri`` become the query's dataset. Any other store (a remote
SPARQL server) is queried through the Store contract; it has no dataset parameters, so a request
with them is refused there with a hint.

Everything here blocks: the endpoint runs it in a worker thread under a deadline
(``kgprofiles.web.sparql``).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

import pyoxigraph as ox

from kgprofiles.errors import InputError, KgError, QueryError, StoreError
from kgprofiles.store.base import QueryResult, SelectResult, Store, solution_rows
from kgprofiles.store.binding import SparqlText, scan
from kgprofiles.store.oxigraph import OxigraphStore
from kgprofiles.store.writer import update_published
from kgprofiles.vocab import PREFIXES

FETCHING = ("SERVICE", "LOAD")
_CHECK_EVERY = 256  # rows read between two looks at the clock

T = TypeVar("T")


@dataclass(frozen=True)
class Dataset:
    """A protocol-specified dataset: ``default-graph-uri`` and ``named-graph-uri`` for a query,
    ``using-graph-uri`` and ``using-named-graph-uri`` for an update."""

    default_graphs: tuple[str, ...] = ()
    named_graphs: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.default_graphs or self.named_graphs)


@dataclass(frozen=True)
class Limits:
    """How long a query may run and how many rows (or triples) it may return."""

    timeout_s: float = 30.0
    max_rows: int = 100_000


class LimitHit(KgError):
    """A query ran into the time limit or the row limit; ``which`` says which one."""

    kind = "limit"

    def __init__(self, which: str, message: str, hint: str) -> None:
        super().__init__(message, hint)
        self.which = which


class Forbidden(KgError):
    """The server's configuration refuses this operation (SERVICE, LOAD)."""

    kind = "forbidden"


def time_limit_hit(limits: Limits) -> LimitHit:
    return LimitHit(
        "time",
        f"time limit hit: the query ran for more than {limits.timeout_s:g} s",
        "narrow the query (more specific patterns, LIMIT), or ask the operator for a longer --query-timeout",
    )


def row_limit_hit(limits: Limits) -> LimitHit:
    return LimitHit(
        "rows",
        f"row limit hit: the result has more than {limits.max_rows} rows",
        "add LIMIT (and OFFSET to page through), or use the whole-graph downloads at /downloads",
    )


def check_fetch(text: str, what: str = "query") -> None:
    """Refuse SERVICE and LOAD: the server never fetches a URL because a request asked it to."""
    for token in scan(text):
        if token.keyword in FETCHING:
            raise Forbidden(
                f"{token.keyword} is not allowed on this server: it would fetch a URL",
                "run the query somewhere that allows federation, or start the server with --allow-fetch",
            )


def check_update_dataset(text: str) -> None:
    """An update sent with using-graph-uri / using-named-graph-uri must not also say USING or WITH."""
    for token in scan(text):
        if token.depth == 0 and token.keyword in ("USING", "WITH"):
            raise InputError(
                f"the update has a {token.keyword} clause and the request gives using-graph-uri or "
                "using-named-graph-uri; the protocol allows only one of them",
                "drop the parameters or the clause",
            )


def with_using(text: str, dataset: Dataset) -> str:
    """The update with ``USING <g>`` / ``USING NAMED <g>`` before the WHERE of each DELETE/INSERT
    operation: the meaning the protocol gives to using-graph-uri and using-named-graph-uri."""
    if not dataset:
        return text
    check_update_dataset(text)
    clause = " ".join(
        [f"USING {ox.NamedNode(g)}" for g in dataset.default_graphs]
        + [f"USING NAMED {ox.NamedNode(g)}" for g in dataset.named_graphs]
    )
    tokens = list(scan(text))
    at = [
        token.start
        for previous, token in zip([None, *tokens], tokens, strict=False)
        if token.depth == 0 and token.keyword == "WHERE" and (previous is None or previous.keyword != "DELETE")
    ]
    for start in reversed(at):
        text = f"{text[:start]}{clause} {text[start:]}"
    return text


def _bounded(items: Iterable[T], limits: Limits, deadline: float) -> list[T]:
    """Read at most ``max_rows`` items, looking at the clock as they come."""
    out: list[T] = []
    for count, item in enumerate(items):
        if count >= limits.max_rows:
            raise row_limit_hit(limits)
        if count % _CHECK_EVERY == 0 and time.monotonic() > deadline:
            raise time_limit_hit(limits)
        out.append(item)
    return out


class Engine:
    """Runs the endpoint's queries and updates against one store."""

    def __init__(self, store: Store, limits: Limits, allow_fetch: bool = False) -> None:
        self.store = store
        self.limits = limits
        self.allow_fetch = allow_fetch

    @property
    def embedded(self) -> ox.Store | None:
        return self.store.store if isinstance(self.store, OxigraphStore) else None

    def query(self, sparql: str, dataset: Dataset | None = None, base_iri: str | None = None) -> QueryResult:
        """A SELECT result, a boolean, or triples; raises QueryError (malformed), Forbidden,
        LimitHit or StoreError."""
        deadline = time.monotonic() + self.limits.timeout_s
        if not self.allow_fetch:
            check_fetch(sparql)
        raw = self.embedded
        if raw is None:
            return self._query_contract(sparql, dataset, deadline)
        options: dict[str, Any] = {"base_iri": base_iri, "prefixes": PREFIXES}
        if dataset:
            options["default_graph"] = [ox.NamedNode(g) for g in dataset.default_graphs]
            options["named_graphs"] = [ox.NamedNode(g) for g in dataset.named_graphs]
        else:
            options["use_default_graph_as_union"] = True
        # pyoxigraph's lazy results must be dropped on the thread that made them: read them here,
        # and keep no traceback that would hold them once the error leaves this thread.
        failure: Exception | None = None
        try:
            answer = _read(raw.query(sparql, **options), self.limits, deadline)
        except Exception as exc:  # re-raised below, as a KgError
            failure = exc
            failure.__traceback__ = None
        if failure is None:
            return answer
        if isinstance(failure, KgError):
            raise failure
        if isinstance(failure, SyntaxError):
            raise QueryError(SparqlText.of(sparql).locate(str(failure))) from None
        if isinstance(failure, OSError):
            raise StoreError(f"the query failed on the store: {failure}") from None
        raise QueryError(str(failure)) from None

    def _query_contract(self, sparql: str, dataset: Dataset | None, deadline: float) -> QueryResult:
        if dataset:
            raise InputError(
                "default-graph-uri and named-graph-uri are not supported when serving a remote store",
                "write FROM / FROM NAMED in the query instead",
            )
        result = self.store.query(sparql)
        if time.monotonic() > deadline:
            raise time_limit_hit(self.limits)
        size = len(result) if isinstance(result, SelectResult | list) else 0
        if size > self.limits.max_rows:
            raise row_limit_hit(self.limits)
        return result

    def update(self, sparql: str, dataset: Dataset | None = None, base_iri: str | None = None) -> None:
        """Run a SPARQL 1.1 Update as one transaction (no time limit: a write is never cut short)."""
        if not self.allow_fetch:
            check_fetch(sparql, "update")
        sent = with_using(sparql, dataset or Dataset())
        if isinstance(self.store, OxigraphStore) and self.store.link is not None:
            # A published generation is never written: the update makes and publishes a new one.
            update_published(self.store.link, sent, base_iri=base_iri, command="kgprofiles serve (a SPARQL update)")
            return
        self.store.update(f"BASE <{base_iri}> {sent}" if base_iri else sent)


def _read(
    result: ox.QuerySolutions | ox.QueryBoolean | ox.QueryTriples, limits: Limits, deadline: float
) -> QueryResult:
    if isinstance(result, ox.QueryBoolean):
        return bool(result)
    if isinstance(result, ox.QueryTriples):
        return _bounded(result, limits, deadline)
    names = tuple(v.value for v in result.variables)
    return SelectResult(names, tuple(_bounded(solution_rows(result, names), limits, deadline)))
