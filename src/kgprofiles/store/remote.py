"""A store on any SPARQL 1.1 server: the Protocol for queries and updates, the Graph Store HTTP
Protocol for whole graphs.

Requirements on the server:

* **Its default graph must be the union of its named graphs**, as the Store contract promises
  (Oxigraph: ``oxigraph serve --union-default-graph``; Fuseki/TDB2: ``tdb2:unionDefaultGraph
  true``; GraphDB and Virtuoso do this by default for queries without FROM). kgprofiles only
  ever writes named graphs.
* The server is of a known kind (``server_kinds.py``): oxigraph, virtuoso, fuseki, graphdb or
  generic. A kind that runs one update request as one transaction (Oxigraph, Fuseki, GraphDB) gets
  the atomic replace below; the others (Virtuoso, generic) get the verified replace
  (``_replace_verified``): staged and read back whole, old graphs backed up and counted, swapped,
  counted, restored from the backups on any failure.

Endpoints. ``query_endpoint`` is required. When the update or Graph Store endpoint is not given,
it is the kind's, from the query endpoint (oxigraph and generic: a last path segment ``query`` or
``sparql`` replaced by ``update`` and ``store``; Virtuoso: ``/sparql`` and ``/sparql-graph-crud``,
``/sparql-auth`` and ``/sparql-graph-crud-auth`` with credentials); with none, writing graphs
raises a StoreError that asks for one. Credentials (``credentials.py``) answer the server's Basic
or Digest challenge on every request.

Answers are read whole: a SELECT the server cut at its cap (its header, or as many rows as the
``max_rows`` it was said to have) is read again page by page (``paging.py``), except a user's query
(``query_as_answered``), which comes back with ``capped_at`` set. A CONSTRUCT sent to a server
that may cut answers (its kind has a cap header, or ``max_rows`` is set) travels as the SELECT of its
template's variables, so that a cut is seen and paged the same way (``construct_rows.py``: Virtuoso
cuts a CONSTRUCT without saying so). JSON results are read by
``results.py`` (lenient, checked); booleans come back canonical; the server's own graphs are kept
out of listings, quads and (Virtuoso) the default graph.

How each operation travels:

* queries go through SPARQLWrapper (POST, form-encoded, content negotiation only) and come back as
  SPARQL JSON results (SELECT, ASK; read by ``results.py``) or N-Triples (CONSTRUCT, DESCRIBE),
  parsed by pyoxigraph;
* answers are untrusted: each is read up to ``max_answer_bytes`` (default 200 MB, then a
  RemoteError), RDF/XML is never asked for and refused if sent (its entities expand: 927 bytes
  can become gigabytes), and SPARQL XML results with a DOCTYPE or ENTITY declaration are refused
  before they are parsed; only N-Triples and Turtle graphs, SPARQL JSON, XML, CSV and TSV results
  are read;
* the project prefixes are prepended as PREFIX lines unless the query declares them; bindings
  become one ``VALUES`` clause right after the opening brace of the outermost WHERE group (terms
  in N-Triples syntax, so a literal cannot escape its quotes); error positions the server
  reports are mapped back to the caller's text;
* updates are POSTed as ``application/sparql-update``;
* graphs go up WHOLE, never triple by triple: a small one (a person's file) in an INSERT DATA,
  many such in one update request; a larger one with ``PUT <store>?graph=<iri>`` and an
  N-Triples body (``_stage``).

Blank nodes are skolemized before upload: ``_:label`` becomes
``<https://w3id.org/kgprofiles/.well-known/genid/label>`` (the label percent-encoded), a function of
the label alone, so the same label always denotes the same node on the server, across graphs and
writes. Everything read back (query results, quads, dumps) turns those IRIs back into blank nodes
with their original labels, and a blank node given as a binding is sent as its skolem IRI, so
blank nodes read from the store can be used in later queries. Inside SPARQL run on the server,
such nodes are IRIs (``isBlank`` is false for them). Blank nodes the server creates itself (an
update with ``INSERT DATA { _:b … }``) are not skolemized and cannot be bound.

Atomic replacement (``replace_graphs`` on a transactional kind): each new graph is written whole
into its own staging graph ``https://w3id.org/kgprofiles/graph/staging/<token>/<n>``; then ONE
update request does, for each target, ``DROP SILENT GRAPH <target> ; MOVE <staging> TO <target>``
and drops the ``drop`` graphs.
MOVE is not SILENT, so a staging graph gone missing fails the whole request instead of emptying a
target. If anything fails, the staging graphs are dropped; if even that fails (the server went
away), they stay, invisible to ``graphs()``, ``quads()`` and dumps, and the next write removes
them before it stages anything (``purge_staging()``; ``kgprofiles store gc --endpoint URL`` does
it on demand). The next write finds them in a small journal graph (``JOURNAL_GRAPH``), where each
write records how many staging graphs it makes before it makes the first, and from which it
removes its record once they are gone (on a transactional kind, in the swap's own update): listing
every graph on every write cost a one-file load on Virtuoso seconds at 10,000 people. Limits of
what a plain SPARQL server allows: while graphs are staged, and until
leftovers are purged, SPARQL queries over the union default graph can see the staged triples next
to the old ones; and the server cannot lock, so one writer at a time is the operator's to keep
(the embedded store enforces it).
Where requests are not transactions (``_replace_verified``), no write request carries more than
``triples_per_write`` triples (the kind's, or the toml's): larger graphs go up in slices, a PUT and
then POSTs (``_upload``), because Virtuoso refuses a transaction whose log passes its limit. A
COPY or MOVE of such a graph runs on the server under the kind's ``row_by_row`` prologue (each
row its own logged transaction: Virtuoso's ``DEFINE sql:log-enable 3``), alone in its request,
and past ``_ROWS_PER_UPDATE`` rows part by part (``_copy_in_parts``: one request would run past the
server's time limit); on a kind with none, the graph is read into the client and uploaded in
slices instead.
Costs: each triple crosses the network once, the server stores it twice (staging, then MOVE), and
each graph's N-Triples text is built in memory before its PUT. Measured against a local
``oxigraph serve`` 0.5.13 on disk: replacing a graph of 10,000 triples takes about 1 s; of 100,000
triples 10-19 s (PUT ~3 s, the DROP + MOVE update 7-11 s; a bare PUT over the target, which would
not be atomic across graphs, ~8 s).
"""

from __future__ import annotations

import contextlib
import hashlib
import html
import http.client
import os
import re
import secrets
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, BinaryIO, Literal, TypeVar

import pyoxigraph as ox
from SPARQLWrapper import JSON, POST, TURTLE, URLENCODED, SPARQLWrapper

from kgprofiles.config import Limits
from kgprofiles.errors import KgError, QueryError, RemoteError, StoreError
from kgprofiles.sparql_lexer import scan
from kgprofiles.store.base import GraphResult, Patch, QueryResult, SelectResult, Term
from kgprofiles.store.binding import (
    QUERY_FORMS,
    SparqlText,
    check_bindings,
    chunks,
    inline_values,
    query_prologue,
    sparql_form,
)
from kgprofiles.store.construct_rows import ConstructAsSelect, as_select, fill
from kgprofiles.store.credentials import NEEDED_HINT, Credentials, check_endpoint_url, digest_of, opener_for
from kgprofiles.store.guard import check_query, names_dataset
from kgprofiles.store.oxigraph import (
    STAGING_GRAPH_PREFIX,
    as_triple,
    check_replacement,
    data_block,
    graph_node,
    has_blank_nodes,
    is_staging,
    serialize_dataset,
)
from kgprofiles.store.paging import COUNTED, PagingError, count_query, is_distinct, paged_query
from kgprofiles.store.results import (
    ask_answer,
    boolean_variables,
    canonical,
    canonical_triple,
    normalise_booleans,
    read_json_results,
)
from kgprofiles.store.server_kinds import ServerKind, server_kind
from kgprofiles.store.sorted_dump import write_sorted
from kgprofiles.vocab import GENID, GRAPH

__all__ = ["BACKUP_GRAPH_PREFIX", "GENID", "JOURNAL_GRAPH", "STAGING_GRAPH_PREFIX", "RemoteStore"]

T = TypeVar("T")

#: Where a non-transactional replace keeps the graphs it changes until the change is verified.
BACKUP_GRAPH_PREFIX = GRAPH + "backup/"
#: Where each write records, before it makes any, how many staging graphs it makes:
#: ``<staging/token> <stagedGraphs> n``, for the graphs ``<staging/token/0>`` … ``<staging/token/n-1>``.
JOURNAL_GRAPH = STAGING_GRAPH_PREFIX + "journal"
_STAGED_GRAPHS = GRAPH + "stagedGraphs"
#: A write's record in the journal: its staging graphs' common name (a token of 16 hex digits).
_JOURNALED = re.compile(re.escape(STAGING_GRAPH_PREFIX) + "[0-9a-f]{16}")
#: The most staging graphs one write makes (one a graph it writes; 100,000 people: about 100,000).
_MOST_STAGED = 10_000_000
#: Forgets the journal once its graphs are gone: only one write at a time, and each first drops
#: what the journal holds, so it holds that write's record only (a graph, not triples: Oxigraph
#: keeps a graph emptied by DELETE).
_FORGET = f"DROP SILENT GRAPH <{JOURNAL_GRAPH}>"

USER_AGENT = "kgprofiles (SPARQL 1.1 client)"
_GRAPH_ACCEPT = "application/n-triples, text/turtle;q=0.8"
#: The graph formats read from a server: no RDF/XML (entity expansion), nothing with datasets.
_GRAPH_FORMATS = (ox.RdfFormat.N_TRIPLES, ox.RdfFormat.TURTLE)
_MESSAGE_LIMIT = 600
_ERROR_BODY_LIMIT = 64 * 1024  # of an error answer, only the start is read (for its message)
_CHUNK = 1 << 20
_XML_DECLARATIONS = re.compile(rb"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)
_HTML_HEAD = re.compile(r"<(head|script|style)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_HTML_TAG = re.compile(r"<[^>]*>")
#: Everything but newline and tab below U+0020, DEL and the C1 controls (terminal escapes).
_CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: The default cap on an answer's size (``[kgprofiles.limits] max_answer_bytes``).
MAX_ANSWER_BYTES = Limits.max_answer_bytes


# -- skolemization ------------------------------------------------------------------------------


def skolemize(term: Any) -> Any:
    """The genid IRI for a blank node (recursively inside triple terms); other terms unchanged."""
    if isinstance(term, ox.BlankNode):
        return ox.NamedNode(GENID + urllib.parse.quote(term.value, safe=""))
    if isinstance(term, ox.Triple):
        return ox.Triple(skolemize(term.subject), term.predicate, skolemize(term.object))
    return term


def unskolemize(term: Any) -> Any:
    """The blank node for a genid IRI (recursively inside triple terms); other terms unchanged."""
    if isinstance(term, ox.NamedNode) and term.value.startswith(GENID):
        try:
            return ox.BlankNode(urllib.parse.unquote(term.value[len(GENID) :]))
        except ValueError:
            return term
    if isinstance(term, ox.Triple):
        return ox.Triple(unskolemize(term.subject), term.predicate, unskolemize(term.object))
    return term


def _unskolemize_triple(triple: ox.Triple) -> ox.Triple:
    return ox.Triple(unskolemize(triple.subject), triple.predicate, unskolemize(triple.object))


def derive_endpoints(query_endpoint: str) -> tuple[str, str | None]:
    """(update endpoint, Graph Store endpoint) of a generic server (``server_kinds.py``)."""
    return server_kind("generic").endpoints(query_endpoint)


# -- HTTP ---------------------------------------------------------------------------------------


class _Wrapper(SPARQLWrapper):
    """SPARQLWrapper that leaves HTTP errors to us (with their status and body intact) and takes
    the query form from kgprofiles' own scanner instead of its regular expressions."""

    def __init__(self, endpoint: str, timeout_s: float, opener: urllib.request.OpenerDirector) -> None:
        super().__init__(endpoint, agent=USER_AGENT)
        self.opener = opener
        self.setMethod(POST)
        self.setRequestMethod(URLENCODED)
        self.setOnlyConneg(True)
        self.timeout = timeout_s  # type: ignore[assignment]  # urllib takes float seconds

    def _parseQueryType(self, query: str) -> str | None:
        form = sparql_form(query)
        return form if form in QUERY_FORMS else "SELECT"

    def _query(self) -> tuple[http.client.HTTPResponse, str]:
        response = self.opener.open(self._createRequest(), timeout=self.timeout)
        return response, self.returnFormat


def read_capped(response: http.client.HTTPResponse, limit: int, url: str) -> bytes:
    """The body of ``response``, read a chunk at a time; a RemoteError as soon as it is longer
    than ``limit`` bytes (or says it will be)."""
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _too_long(url, limit, int(declared))
    chunks: list[bytes] = []
    size = 0
    while chunk := response.read(_CHUNK):
        size += len(chunk)
        if size > limit:
            raise _too_long(url, limit)
        chunks.append(chunk)
    return b"".join(chunks)


def _too_long(url: str, limit: int, declared: int | None = None) -> RemoteError:
    size = f"{declared:,} bytes" if declared is not None else f"more than {limit:,} bytes"
    return RemoteError(
        f"{url} sent an answer of {size}, over the {limit:,}-byte limit",
        "ask for less (LIMIT, fewer graphs), or raise max_answer_bytes in [kgprofiles.limits] of kgprofiles.toml",
    )


def _graph_format(media_type: str, url: str) -> ox.RdfFormat:
    """The RDF format of a graph answer: N-Triples or Turtle only."""
    fmt = ox.RdfFormat.from_media_type(media_type) if media_type else None
    if fmt == ox.RdfFormat.RDF_XML:
        raise RemoteError(
            f"{url} answered with RDF/XML, which kgprofiles does not read from a server (its entities can "
            "expand a few bytes into gigabytes)",
            "configure the server to answer application/n-triples or text/turtle",
        )
    if fmt not in _GRAPH_FORMATS:
        raise RemoteError(
            f"{url} answered with {media_type or 'no content type'}, not N-Triples or Turtle",
            "is this the server's SPARQL endpoint?",
        )
    return fmt  # type: ignore[return-value]


def _refuse_partial(response: http.client.HTTPResponse, url: str) -> None:
    """A RemoteError for an answer the server says is incomplete: Virtuoso's "anytime" answers
    (a query stopped at a time limit, the rows found so far sent as the answer) come with
    ``X-SQL-State: S1TAT``, with status 206 or whatever ``HTTPAnytimeStatus`` in its ini says,
    200 included; any 206 is partial too. Never read as a whole answer."""
    state = (response.headers.get("X-SQL-State") or "").strip().upper()
    if response.status != 206 and state != "S1TAT":
        return
    said = _plain(response.headers.get("X-SQL-Message") or "", most=160)
    raise RemoteError(
        f"{url} answered with part of the result only (HTTP {response.status}"
        + (f", X-SQL-State {state}" if state else "")
        + f"{': ' + said if said else ''}): a server time limit cut the query short",
        "nothing was read as complete; run the command again when the server is less busy, or raise its "
        "time limit (Virtuoso: MaxQueryExecutionTime, and no ExecutionTimeout, in the [SPARQL] section)",
    )


def _refuse_xml_declarations(body: bytes, url: str) -> None:
    """An XML answer may not declare a DTD or entities: they can expand without bound."""
    if _XML_DECLARATIONS.search(body):
        raise RemoteError(
            f"{url} sent XML results with a DOCTYPE or ENTITY declaration, refused unread (entity expansion)",
            "configure the server to answer application/sparql-results+json",
        )


def _server_message(body: bytes) -> str:
    """The message of an error answer, as plain text a terminal shows as it is: an HTML page's text
    (Virtuoso's Graph Store answers its errors so), control characters replaced, cut short."""
    text = body.decode("utf-8", errors="replace").strip()
    text = text.split("\n\nSPARQL query:", 1)[0].strip()  # Virtuoso repeats the whole request after
    if text.lower().startswith(("<!doctype html", "<html")):
        text = _HTML_HEAD.sub(" ", text)
        text = html.unescape(_HTML_TAG.sub(" ", text))
        text = " ".join(text.split()) or "(an HTML page)"
    return _plain(text, _MESSAGE_LIMIT)


def _unreachable(url: str, exc: BaseException, timeout_s: float) -> RemoteError:
    reason = getattr(exc, "reason", exc)
    if isinstance(reason, TimeoutError) or "timed out" in str(reason):
        return RemoteError(f"{url} did not answer within {timeout_s:g} s", "is the server overloaded? raise timeout_s")
    detail = getattr(reason, "strerror", None) or str(reason) or type(reason).__name__
    return RemoteError(f"cannot reach {url}: {detail}", "is the SPARQL server running, and is the endpoint URL right?")


class RemoteStore:
    """A kgprofiles store on a SPARQL 1.1 server of a ``kind`` (``server_kinds.py``; see the
    module docstring for what the server must do and how each operation travels).
    ``credentials`` answer the server's Basic or Digest challenge; ``max_rows`` is the server's
    result cap when it does not say it cut an answer; ``allow_fetch=True`` permits SERVICE and
    LOAD; ``max_answer_bytes`` caps the size of every answer read."""

    lateral = False  # (LATERAL is not SPARQL 1.1: Virtuoso and Fuseki read it otherwise or not at all)

    def __init__(
        self,
        query_endpoint: str,
        update_endpoint: str | None = None,
        graph_store_endpoint: str | None = None,
        timeout_s: float = 30.0,
        *,
        allow_fetch: bool = False,
        max_answer_bytes: int = MAX_ANSWER_BYTES,
        kind: str | ServerKind | None = None,
        credentials: Credentials | None = None,
        max_rows: int | None = None,
        triples_per_write: int | None = None,
    ) -> None:
        for url in (query_endpoint, update_endpoint, graph_store_endpoint):
            if url:
                check_endpoint_url(url)
        self.kind = server_kind(kind)
        derived_update, derived_store = self.kind.endpoints(query_endpoint, credentials is not None)
        self.max_answer_bytes = max_answer_bytes
        self.query_endpoint = query_endpoint
        self.update_endpoint = update_endpoint or derived_update
        self.graph_store_endpoint = graph_store_endpoint or derived_store
        self.timeout_s = timeout_s
        self.allow_fetch = allow_fetch
        self.credentials = credentials
        self.max_rows = max_rows
        self.triples_per_write = triples_per_write or self.kind.triples_per_write
        self._opener = opener_for(query_endpoint, credentials)
        self._system_graphs: tuple[str, ...] | None = None
        #: Graph names listed a page (``_graphs_by_name``); lowered if the server sorts fewer.
        self._page_rows = self.kind.sorted_rows_limit or _SMALLEST_PAGE

    def __repr__(self) -> str:
        return f"RemoteStore({self.query_endpoint!r}, kind={self.kind.name!r})"

    def __enter__(self) -> RemoteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading ----------------------------------------------------------------------------

    def query(self, sparql: str, bindings: Mapping[str, Term] | None = None) -> QueryResult:
        """Run SELECT, ASK, CONSTRUCT or DESCRIBE on the server, and read the answer WHOLE: a
        SELECT the server cut at its cap is read again page by page (``paging.py``).
        Bindings become a VALUES clause at the start of the outermost WHERE group (blank nodes as
        their skolem IRIs). A query the server rejects as malformed (HTTP 400) raises QueryError
        with the server's message, its position mapped to ``sparql``; any other failure raises
        RemoteError."""
        return self._query(sparql, bindings, complete=True)

    def select_rows(
        self, sparql: str, bindings: Mapping[str, Term] | None = None, *, ahead: bool = False
    ) -> Iterator[dict[str, Term]]:
        """``query``'s rows of a SELECT: the answer is read whole (paged where the server cuts
        it), then given a row at a time. ``ahead`` changes nothing here: the server evaluates
        beside this process already."""
        result = self.query(sparql, bindings)
        if not isinstance(result, SelectResult):
            raise QueryError("select_rows needs a SELECT query")
        yield from result.rows

    def query_as_answered(self, sparql: str, bindings: Mapping[str, Term] | None = None) -> QueryResult:
        """A user's query, as the server answers it: a SELECT cut at the server's cap comes back
        with ``capped_at`` set (the caller says so: a warning, a header), never paged."""
        return self._query(sparql, bindings, complete=False)

    def _query(
        self, sparql: str, bindings: Mapping[str, Term] | None, *, complete: bool, raw: bool = False
    ) -> QueryResult:
        check_query(sparql, allow_fetch=self.allow_fetch, local_graphs=self.graphs)
        form = sparql_form(sparql)
        if form is not None and form not in QUERY_FORMS:
            raise QueryError(f"{form} is an update, not a query", "use update() for SPARQL Update")
        bound = {name: skolemize(term) for name, term in check_bindings(bindings).items()}
        text = inline_values(SparqlText.of(sparql), bound)
        # the server's own graphs: kept out of a user's query by the server (``_pragmas``), out of
        # the store's own reads by their patterns (kgp: terms) and by filtering (graphs, quads):
        # Virtuoso's exclusions slow every query down by orders of magnitude as graphs grow
        # (1,000 people: queries over its 60 s limit)
        pragmas = "" if complete else self._pragmas(sparql)
        text = text.prepend(query_prologue(sparql))
        if form == "CONSTRUCT" and (self.kind.cap_header is not None or self.max_rows is not None):
            # a cut CONSTRUCT is not said to be cut: read its rows
            as_rows = as_select(text.sent, query_prologue(sparql) + sparql)
            if as_rows is not None:
                return self._construct_from_rows(as_rows, pragmas, complete=complete, raw=raw)
        text = text.prepend(pragmas)
        content_type, body, cap_said = self._post_query(text.sent, form, text)
        result = self._parse_answer(content_type, body, raw=raw)
        if isinstance(result, SelectResult):
            cap = self._cap(cap_said, len(result))
            if cap is not None:
                result = self._read_pages(text.sent, result, cap, raw) if complete else replace(result, capped_at=cap)
            if self.kind.integer_booleans:
                result = normalise_booleans(result, boolean_variables(sparql))
        if self.kind.integer_booleans and form == "ASK" and not isinstance(result, bool):
            result = ask_answer(result)  # type: ignore[arg-type]
        return result

    def _construct_from_rows(
        self, as_rows: ConstructAsSelect, pragmas: str, *, complete: bool, raw: bool
    ) -> GraphResult:
        """A CONSTRUCT read as the SELECT of its template's variables (``construct_rows.py``):
        whole, or (a user's query) as answered, with ``capped_at`` where the server cut it."""
        sent = pragmas + as_rows.text
        content_type, body, cap_said = self._post_query(sent, "SELECT", None)
        result = self._parse_answer(content_type, body, raw=raw)
        if not isinstance(result, SelectResult):
            raise RemoteError(f"{self.query_endpoint} answered the rows of a CONSTRUCT with something else")
        cap = self._cap(cap_said, len(result))
        if cap is not None and complete:
            result, cap = self._read_pages(sent, result, cap, raw), None
        return GraphResult(fill(as_rows.template, result.rows), capped_at=cap)

    def _pragmas(self, sparql: str) -> str:
        """What keeps the server's own graphs out of the default graph of a query without a
        dataset of its own, and out of ``GRAPH ?g`` (Virtuoso: ``define input:default-graph-exclude``
        and ``named-graph-exclude``). Not for a query with ``GRAPH <a graph IRI>``: with any such
        ``define``, Virtuoso 7.2.5 finds (nearly) nothing there; such a query that also reads the
        default graph sees the server's graphs in it (``graphs()`` and ``quads()`` leave them out
        themselves)."""
        if self.kind.name != "virtuoso" or names_dataset(sparql):
            return ""
        words = list(scan(sparql))
        if any(
            t.keyword == "GRAPH" and at + 1 < len(words) and words[at + 1].kind != "var" for at, t in enumerate(words)
        ):
            return ""
        return "".join(
            f"define input:default-graph-exclude <{g}>\ndefine input:named-graph-exclude <{g}>\n"
            for g in self.system_graphs()
        )

    def system_graphs(self) -> tuple[str, ...]:
        """The graphs the server keeps for itself (by its kind), looked up once."""
        if self._system_graphs is None:
            if not self.kind.system_graph_prefixes:
                self._system_graphs = ()
            else:
                self._system_graphs = ()  # while listing: no pragmas
                found = self._graph_names()
                self._system_graphs = tuple(sorted(g for g in found if self.kind.is_system_graph(g)))
        return self._system_graphs

    def _cap(self, said: int | None, rows: int) -> int | None:
        """The cap the answer was cut at, if it was: the server said so (its header), or it holds
        exactly as many rows as the cap we were told the server has."""
        if said is not None and rows >= said:
            return said
        if self.max_rows is not None and rows >= self.max_rows:
            return self.max_rows
        return None

    def _read_pages(self, sent: str, first: SelectResult, cap: int, raw: bool) -> SelectResult:
        """Every row of a SELECT the server cut at ``cap``: page by page in a stable order, or,
        past the rows the server will sort (``kind.sorted_rows_limit``), unordered pages whose
        rows must add up to the query's count."""
        total: int | None = None
        ordered = True
        if self.kind.sorted_rows_limit is not None:
            total = self._count_rows(sent)
            ordered = total <= self.kind.sorted_rows_limit
        rows: list[dict[str, Term]] = []
        while True:
            try:
                text = paged_query(sent, first.variables, cap, len(rows), ordered=ordered)
            except PagingError as exc:
                raise RemoteError(
                    f"{self.query_endpoint} cut the answer at {cap} rows, and it cannot be read in pages: {exc}",
                    "raise the server's result cap (Virtuoso: ResultSetMaxRows and MaxSortedTopRows in virtuoso.ini)",
                ) from exc
            try:
                content_type, body, _ = self._post_query(text, "SELECT", None)
            except RemoteError as exc:
                if ordered and total is not None and _SORT_REFUSED in exc.message:
                    ordered, rows = False, []  # the server sorts fewer rows than its kind says
                    continue
                raise
            page = self._parse_answer(content_type, body, raw=raw)
            if not isinstance(page, SelectResult):
                raise RemoteError(f"{self.query_endpoint} answered a page of a SELECT with something else")
            rows += page.rows
            if len(page.rows) < cap:
                break
        if total is not None and len(rows) != total:
            raise RemoteError(
                f"{self.query_endpoint} gave {len(rows)} rows in pages of {cap} where the query has {total}",
                "the data changed while it was read, or the server pages unstably: try again",
            )
        if not ordered:  # overlapping pages can miss rows while the count adds up (paging.py)
            different = len({tuple(row.get(name) for name in first.variables) for row in rows})
            expected = len(rows) if is_distinct(sent) else self._count_rows(sent, distinct=True)
            if different != expected:
                raise RemoteError(
                    f"{self.query_endpoint} gave {different} different rows in unordered pages of {cap} "
                    f"where the query has {expected}: pages overlapped and missed rows",
                    "the server pages unstably past the rows it sorts: try again, or raise its caps "
                    "(Virtuoso: ResultSetMaxRows and MaxSortedTopRows in virtuoso.ini)",
                )
        return SelectResult(first.variables, tuple(rows))

    def _count_rows(self, sent: str, *, distinct: bool = False) -> int:
        try:
            content_type, body, _ = self._post_query(count_query(sent, distinct=distinct), "SELECT", None)
        except PagingError as exc:
            raise RemoteError(f"cannot count the rows of a query cut at the server's cap: {exc}") from exc
        counted = self._parse_answer(content_type, body, raw=True)
        value = counted.rows[0].get(COUNTED) if isinstance(counted, SelectResult) and counted.rows else None
        if not isinstance(value, ox.Literal) or not value.value.isdigit():
            raise RemoteError(f"{self.query_endpoint} did not count the rows of a query it cut")
        return int(value.value)

    def _select_rows(self, sparql: str, raw: bool = False) -> SelectResult:
        result = self._query(sparql, None, complete=True, raw=raw)
        assert isinstance(result, SelectResult)
        return result

    def _post_query(self, sent: str, form: str | None, text: SparqlText | None) -> tuple[str, bytes, int | None]:
        """(content type, body, the cap the server says it cut the answer at)."""
        wrapper = _Wrapper(self.query_endpoint, self.timeout_s, self._opener)
        graph = form in ("CONSTRUCT", "DESCRIBE")
        wrapper.setReturnFormat(TURTLE if graph else JSON)
        wrapper.addCustomHttpHeader("Accept", _GRAPH_ACCEPT if graph else self.kind.results_accept)
        wrapper.setQuery(sent)
        try:
            result = wrapper.query()
            with result.response as response:
                _refuse_partial(response, self.query_endpoint)
                body = read_capped(response, self.max_answer_bytes, self.query_endpoint)
                said = response.headers.get(self.kind.cap_header) if self.kind.cap_header else None
                cap = int(said) if said is not None and said.strip().isdigit() else None
                return response.headers.get("Content-Type", ""), body, cap
        except urllib.error.HTTPError as exc:
            raise self._http_error(self.query_endpoint, exc, text) from exc
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            raise _unreachable(self.query_endpoint, exc, self.timeout_s) from exc

    def _parse_answer(self, content_type: str, body: bytes, raw: bool = False) -> QueryResult:
        media_type = content_type.split(";")[0].strip().lower()
        url = self.query_endpoint
        results_format = ox.QueryResultsFormat.from_media_type(media_type) if media_type else None
        try:
            if results_format == ox.QueryResultsFormat.JSON:
                answer = read_json_results(body)
                return answer if raw or isinstance(answer, bool) else _unskolemize_rows(answer)
            if results_format is not None:
                if results_format == ox.QueryResultsFormat.XML:
                    _refuse_xml_declarations(body, url)
                return _unskolemize_result(ox.parse_query_results(body, format=results_format), raw)
            if ox.RdfFormat.from_media_type(media_type) if media_type else None:
                fmt = _graph_format(media_type, url)
                triples = [canonical_triple(q.triple) for q in ox.parse(body, format=fmt)]
                return triples if raw else [_unskolemize_triple(t) for t in triples]
        except (SyntaxError, ValueError) as exc:
            raise RemoteError(f"{url} sent a {media_type} answer that does not parse: {exc}") from exc
        raise RemoteError(
            f"{url} answered with {media_type or 'no content type'}, not SPARQL results",
            "is this the server's SPARQL query endpoint?",
        )

    def _listed_graphs(self) -> list[str]:
        """Every graph on the server but its own: the project's and staging or backup graphs."""
        return sorted(g for g in self._graph_names() if not self.kind.is_system_graph(g))

    def _graph_names(self) -> set[str]:
        """Every graph on the server, its own included: in pages by name where the server sorts
        only so many rows (``_graphs_by_name``), else in one answer (paged as any other)."""
        if self.kind.sorted_rows_limit is not None:
            return self._graphs_by_name()
        rows = self._select_rows(_GRAPHS_OF_KIND.get(self.kind.name, _ALL_GRAPHS))
        return {row["g"].value for row in rows if isinstance(row.get("g"), ox.NamedNode)}

    def _graphs_by_name(self) -> set[str]:
        """Every graph, listed in pages sorted by name, each page the names after the last one
        of the page before. On a kind that sorts only so many rows (Virtuoso), a list longer than
        the server's cap cannot be paged with OFFSET: unordered pages overlap and miss graphs
        while their counts still add up (a 10,000-person export once lost a whole file's graph
        so). A page the server cuts at its cap is still a sorted prefix: the next starts after it."""
        names: set[str] = set()
        after: str | None = None
        while True:
            condition = f"FILTER (STR(?g) > {ox.Literal(after)}) " if after is not None else ""
            text = (
                f"SELECT ?g WHERE {{ GRAPH ?g {{ ?s ?p ?o }} {condition}}} GROUP BY ?g "
                f"ORDER BY (STR(?g)) LIMIT {self._page_rows}"
            )
            try:
                content_type, body, said = self._post_query(text, "SELECT", None)
            except RemoteError as exc:
                if _SORT_REFUSED in exc.message and self._page_rows > _SMALLEST_PAGE:
                    self._page_rows = max(_SMALLEST_PAGE, self._page_rows // 10)  # it sorts fewer rows
                    continue
                raise
            page = self._parse_answer(content_type, body, raw=True)
            if not isinstance(page, SelectResult):
                raise RemoteError(f"{self.query_endpoint} answered a list of graphs with something else")
            found = [row["g"].value for row in page.rows if isinstance(row.get("g"), ox.NamedNode)]
            if not found or (len(page.rows) < self._page_rows and self._cap(said, len(page.rows)) is None):
                return names | set(found)
            if found[-1] == after or found[-1] in names:
                raise RemoteError(f"{self.query_endpoint} does not list its graphs in the order asked")
            names.update(found)
            after = found[-1]

    def graphs(self) -> list[str]:
        """The named graphs (IRIs), sorted; staging and backup graphs and the server's own left out."""
        return [g for g in self._listed_graphs() if not is_internal(g)]

    def quads(self, graph: str | None = None) -> Iterator[ox.Quad]:
        """The quads of every named graph (staging, backup and the server's own left out), or of
        one graph; read whole (page by page where the server caps answers) before returning."""
        if graph is not None:
            return iter(self._quads_of([graph]))
        if self.kind.sorted_rows_limit is not None:  # read in parts, not in pages of the whole dataset
            return iter(self._quads_of(self.graphs()))
        rows = self._select_rows(_QUADS)
        quads = (ox.Quad(row["s"], row["p"], row["o"], row["g"]) for row in rows)  # type: ignore[arg-type]
        return iter([q for q in quads if self._is_data(q.graph_name)])

    def quads_for_pattern(
        self,
        subject: ox.NamedNode | ox.BlankNode | ox.Triple | None,
        predicate: ox.NamedNode | None,
        object: Term | ox.Triple | None,
        graph_name: ox.NamedNode | None = None,
    ) -> Iterator[ox.Quad]:
        """The quads matching a pattern (None: any) in the project's graphs, one query a pattern:
        first the first ``_FIRST_QUADS`` (a caller that looks at a few and stops asks no more),
        then, if there may be more, the whole answer (read page by page where the server caps
        answers), without the quads already given."""
        bound = (("s", subject), ("p", predicate), ("o", object), ("g", graph_name))
        bindings: dict[str, Term] = {name: term for name, term in bound if term is not None}  # type: ignore[misc]
        given: set[ox.Quad] = set()
        for quad in self._pattern(f"{_QUADS} LIMIT {_FIRST_QUADS}", bindings):
            given.add(quad)
            yield quad
        if len(given) < _FIRST_QUADS:
            return
        yield from (quad for quad in self._pattern(_QUADS, bindings) if quad not in given)

    def _pattern(self, sparql: str, bindings: Mapping[str, Term]) -> list[ox.Quad]:
        result = self.query(sparql, bindings)
        if not isinstance(result, SelectResult):
            raise RemoteError(f"{self.query_endpoint} did not answer a SELECT with rows")
        return [
            ox.Quad(row["s"], row["p"], row["o"], row["g"])  # type: ignore[arg-type]
            for row in result.rows
            if self._is_data(row.get("g")) and isinstance(row.get("s"), ox.NamedNode | ox.BlankNode)
        ]

    def _quads_of(self, graphs: list[str], raw: bool = False) -> list[ox.Quad]:
        """The quads of ``graphs``, read whole (``_quad_batches``, all in one list)."""
        return [quad for batch in self._quad_batches(graphs, raw) for quad in batch]

    def _quad_batches(self, graphs: list[str], raw: bool = False) -> Iterator[list[ox.Quad]]:
        """The quads of ``graphs`` in batches: a group of graphs a query, page by page where the
        server caps answers. On a kind that sorts only so many rows (Virtuoso), pages past that
        are read with OFFSET and no order, and the server walks every row before each offset:
        there the graphs are counted first, small ones read in groups of at most that many
        triples, and a larger one in parts (``_read_in_parts``), a batch a part."""
        limit = self.kind.sorted_rows_limit
        if limit is None:
            for group in chunks(graphs, _GRAPHS_PER_READ):
                yield self._no_repeats(self._read_graphs(group, raw))
            return
        sizes = self._counts(graphs)
        small = [g for g in graphs if 0 < sizes.get(g, 0) < limit]  # a full answer would look cut
        for batch in _batches([(g, sizes[g]) for g in small], _GRAPHS_PER_READ, lambda weight: weight < limit):
            yield self._no_repeats(self._read_graphs(batch, raw))
        for graph in graphs:
            if sizes.get(graph, 0) >= limit:
                yield from self._read_in_parts(graph, sizes[graph], limit, raw)

    def _no_repeats(self, quads: list[ox.Quad]) -> list[ox.Quad]:
        """``quads``, unless some came twice: a graph is a set, so pages overlapped (and may have
        missed some)."""
        if len(set(quads)) != len(quads):
            raise RemoteError(
                f"{self.query_endpoint} gave some triples twice while the graphs were read in pages",
                "the server pages unstably past its result cap: try again, or raise the cap "
                "(Virtuoso: ResultSetMaxRows and MaxSortedTopRows)",
            )
        return quads

    def _read_graphs(self, graphs: list[str], raw: bool) -> list[ox.Quad]:
        rows = self._select_rows(_in_graphs(_QUADS, graphs), raw=raw)
        return [ox.Quad(row["s"], row["p"], row["o"], row["g"]) for row in rows]  # type: ignore[arg-type]

    def _read_in_parts(self, graph: str, size: int, limit: int, raw: bool) -> Iterator[list[ox.Quad]]:
        """The quads of one graph of ``limit`` triples or more, a part at a time, in parts of
        fewer than ``limit``: its predicates (counted by the server) in groups, and a predicate
        with more triples than that by its objects, where they are few (rdf:type: by class); a
        part still larger is paged. The parts must add up to the graph's count (checked after
        the last)."""
        node = graph_node(graph)
        read = 0
        for kind, terms in self._parts_of(node, limit):
            part = self._no_repeats(self._read_part(node, kind, terms, raw))
            read += len(part)
            yield part
        if read != size:
            raise RemoteError(
                f"{self.query_endpoint} gave {read} triples of <{graph}> in parts, where it counted {size}",
                "the data changed while it was read: try again",
            )

    def _parts_of(self, node: ox.NamedNode, limit: int) -> list[tuple[str, list[str]]]:
        """How ``_read_in_parts`` reads the graph ``node``: (kind, terms) for ``_read_part``."""
        by_predicate: list[tuple[str, int]] = []  # (predicate, triples)
        by_object: list[tuple[str, int]] = []  # ("predicate object", triples)
        for predicate, count in self._counted(
            f"SELECT ?x (COUNT(*) AS ?n) WHERE {{ GRAPH {node} {{ ?s ?x ?o }} }} GROUP BY ?x"
        ):
            objects = []
            if count >= limit:
                objects = self._counted(
                    f"SELECT ?x (COUNT(*) AS ?n) WHERE {{ GRAPH {node} {{ ?s {predicate} ?x }} }} "
                    f"GROUP BY ?x LIMIT {_OBJECT_PARTS + 1}"
                )
            if 1 < len(objects) <= _OBJECT_PARTS:
                by_object += [(f"{predicate} {term}", n) for term, n in objects]
            else:
                by_predicate.append((predicate, count))
        return [
            (kind, batch)
            for kind, parts in (("p", by_predicate), ("o", by_object))
            for batch in _batches(parts, _GRAPHS_PER_READ, lambda weight: weight < limit)
        ]

    def _verify_in_parts(self, what: str, graph: str, expected: frozenset[ox.Triple]) -> None:
        """``_verify`` of a graph too large for one request, without a second copy of it in the
        client: on a kind that sorts only so many rows (Virtuoso), one of that many triples or
        more is compared part by part as ``_read_in_parts`` reads it (at 100,000 people the
        inferred graph is 13.6 M triples, some 4.5 GB a copy); a smaller one as a whole."""
        limit = self.kind.sorted_rows_limit
        size = self._counts([graph]).get(graph, 0)
        if limit is None or size < limit:
            _verify(what, self._contents([graph]).get(graph, frozenset()), expected)
            return
        _check_count(what, size, len(expected))
        node = graph_node(graph)
        by_predicate: dict[str, list[ox.Triple]] = {}
        for triple in expected:
            by_predicate.setdefault(str(triple.predicate), []).append(triple)
        by_pair: dict[str, list[ox.Triple]] = {}  # "predicate object": a predicate read by its objects
        compared = 0
        for kind, terms in self._parts_of(node, limit):
            if kind == "o":  # its predicates' triples grouped by object, once each
                for predicate in {pair.split(" ", 1)[0] for pair in terms}:
                    for t in by_predicate.pop(predicate, ()):
                        by_pair.setdefault(f"{predicate} {t.object}", []).append(t)
            grouped = by_predicate if kind == "p" else by_pair
            wanted = frozenset(t for term in terms for t in grouped.pop(term, ()))
            found = frozenset(quad.triple for quad in self._read_part(node, kind, terms, raw=True))
            _verify(f"{what} (a part of {len(wanted)} triples)", found, wanted)
            compared += len(wanted)
        if compared != len(expected):  # triples sent with predicates (or objects) the server does not hold
            _check_count(f"{what} (in the parts the server holds)", compared, len(expected))

    def _read_part(self, node: ox.NamedNode, kind: str, terms: list[str], raw: bool) -> list[ox.Quad]:
        """The triples of the graph ``node`` with these predicates (``kind`` "p") or these
        (predicate object) pairs ("o", objects as the server gave them in ``_parts_of``): a UNION
        of one constant pattern each, which Virtuoso answers from its indexes. With ``VALUES``
        instead it sometimes scanned the whole graph for each pair: 40-51 s a part of 10,000
        triples of the 1.36 M-triple inferred graph of 10,000 people, then SR171 (bench/RESULTS.md,
        2026-12-04 13:05), where the same part took 0.1 s in other runs."""
        rows = self._select_rows(f"SELECT ?s ?p ?o WHERE {{ {_part_pattern(node, kind, terms)} }}", raw=raw)
        return [ox.Quad(row["s"], row["p"], row["o"], node) for row in rows]  # type: ignore[arg-type]

    def _counted(self, sparql: str) -> list[tuple[str, int]]:
        """(?x in N-Triples, ?n) of a counting query, raw (skolem IRIs as they are)."""
        return [(str(term), n) for term, n in self._counted_terms(sparql)]

    def _counted_terms(self, sparql: str, counted_by: str = "x") -> list[tuple[Term, int]]:
        """(?``counted_by``, ?n) of a counting query, raw."""
        counted = []
        for row in self._select_rows(sparql, raw=True):
            term, n = row.get(counted_by), row.get("n")
            if term is not None and isinstance(n, ox.Literal) and n.value.isdigit():
                counted.append((term, int(n.value)))
        return counted

    def _is_data(self, graph: object) -> bool:
        """A graph of the project's data: not a write's own, not the server's own."""
        return (
            isinstance(graph, ox.NamedNode)
            and not is_internal(graph.value)
            and not self.kind.is_system_graph(graph.value)
        )

    def dump(self, fmt: ox.RdfFormat) -> bytes:
        """N-Quads/TriG: every quad of the named graphs. Triple formats: the distinct triples of
        all graphs. Sorted (the same bytes as the embedded store for the same data); blank nodes
        come back with their labels."""
        return serialize_dataset(self.quads(), fmt)

    def dump_to(self, output: str | os.PathLike[str] | BinaryIO, fmt: ox.RdfFormat) -> None:
        """``dump`` written into the file at ``output`` (a path, or a binary file such as standard
        output), the same bytes. N-Quads and N-Triples are read a batch of graphs (or a part of
        a large graph) at a time and sorted on disk (``sorted_dump``): a server's graph need not
        fit in memory (24 M quads took 16 GB and the kernel's OOM killer, read whole). The other
        formats are made in memory."""
        with contextlib.ExitStack() as stack:
            out: BinaryIO = (
                output if not isinstance(output, str | os.PathLike) else stack.enter_context(open(output, "wb"))
            )
            if fmt in (ox.RdfFormat.N_QUADS, ox.RdfFormat.N_TRIPLES):
                write_sorted(self._quad_batches(self.graphs()), fmt, out)
            else:
                out.write(self.dump(fmt))

    # -- writing ----------------------------------------------------------------------------

    def update(self, sparql: str, base_iri: str | None = None) -> None:
        """Run a SPARQL 1.1 Update (project prefixes predeclared; relative IRIs against
        ``base_iri``) as one request; whether a request is one transaction is the server's
        (``self.kind.transactional``)."""
        check_query(sparql, allow_fetch=self.allow_fetch, local_graphs=self.graphs)
        base = f"BASE {graph_node(base_iri)}\n" if base_iri else ""
        self._post_update(SparqlText.of(sparql).prepend(base + query_prologue(sparql)))

    def _post_update(self, text: SparqlText) -> None:
        self._send("POST", self.update_endpoint, text.sent.encode("utf-8"), "application/sparql-update", text=text)

    def replace_graphs(
        self,
        graphs: Mapping[str, Iterable[ox.Triple]],
        drop: Iterable[str] = (),
        *,
        patch: Patch | None = None,
    ) -> None:
        """Replace each named graph by exactly the given triples (none: the graph is removed) and
        drop the ``drop`` graphs. On a transactional server: staged by PUT, then moved by ONE
        update. Otherwise: staged, verified, the old graphs kept as backups, swapped, verified,
        and restored from the backups on any failure (``_replace_verified``).

        ``patch`` (graph, remove, add), no blank nodes: delete ``remove`` from that graph and
        insert ``add``, so that a large graph changes by a few triples without being sent or read
        whole. On a transactional server, in the same update; otherwise first, verified (every
        added triple there, every removed one gone), and undone (verified) if it or the replace
        fails."""
        dropped = check_replacement(graphs, drop)
        if patch is not None and (has_blank_nodes(patch[1]) or has_blank_nodes(patch[2])):
            raise StoreError("a graph patch cannot hold blank nodes", "replace the whole graph instead")
        if graphs:
            self._graph_url(STAGING_GRAPH_PREFIX)  # no Graph Store endpoint: say so before anything
        self.purge_staging()  # what a failed or killed earlier write could not remove
        if not self.kind.transactional:
            if patch is not None:
                self._patch_verified(*patch)
            try:
                if graphs or dropped:
                    self._replace_verified(graphs, dropped)
            except BaseException as exc:
                if patch is not None:
                    self._undo_patch(patch, exc)
                raise
            return
        token = secrets.token_hex(8)
        if graphs:
            self._post_update(_journal(token, len(graphs)))
        staged: dict[str, str | None] = {}

        def staging() -> Iterator[tuple[str, list[ox.Triple]]]:
            for n, (graph, triples) in enumerate(graphs.items()):
                sent = [skolemize(as_triple(x)) for x in triples]
                name = f"{STAGING_GRAPH_PREFIX}{token}/{n}"
                staged[graph] = name if sent else None
                if sent:  # recorded first: a failed write may have landed
                    yield name, sent

        try:
            self._stage(staging())
            operations = _swap_operations(staged, dropped) + (_patch_operations(*patch) if patch else [])
            if operations:
                self._post_update(SparqlText.of(" ;\n".join(operations + ([_FORGET] if graphs else []))))
        except BaseException as exc:
            self._discard([s for s in staged.values() if s], exc, journaled=bool(graphs))
            raise

    def _replace_verified(self, graphs: Mapping[str, Iterable[ox.Triple]], dropped: list[str]) -> None:
        """The replace for a server that does not run an update request as one transaction.

        0. The targets are counted; one whose count is the new graph's is read whole, and left
           alone if it already holds the new graph.
        1. Each new graph is uploaded into a staging graph and read back whole: it must hold
           exactly the triples sent (count and SHA-256), else nothing has changed and the write
           fails. This proves the server stores what is sent, term for term.
           0 and 1 go batch by batch (``_TRIPLES_PER_CHECK`` triples): the client holds one batch
           (new, current and staged copies), not the whole graph, and ``graphs`` may read each
           graph only when asked (``GraphsOf``). The staged copy of a graph too large for one
           request is checked part by part (``_verify_in_parts``).
        2. Each graph about to change is COPYed to a backup graph; the backup's count must be
           the graph's.
        3. Updates move the staging graphs into place and drop the dropped graphs.
        4. Each target must now hold the new graph's count of triples and each moved staging
           graph none (a server that answered without moving is caught here).
        5. On any failure from 3 on, every target is restored from its backup and counted; the
           backups are dropped only once the targets are verified (new or restored).

        No request carries more than ``triples_per_write`` triples: a graph larger than that is
        COPYed or MOVEd alone in its request, row by row (``_copies``); on a kind that cannot,
        it is uploaded in slices from triples in the client (``_upload``): its backup from its
        triples read in 2, the target from the new triples kept from 1 (over the old ones, in
        place), the restore from what was read in 2."""
        token = secrets.token_hex(8)
        sizes = self._counts([*graphs, *dropped])
        dropped = [g for g in dropped if g in sizes]
        journaled = False  # once a graph changes: before its first staging graph
        new: dict[str, int] = {}  # the graphs that change: their triples (0: removed)
        whole: dict[str, frozenset[ox.Triple]] = {}  # those the server cannot MOVE: uploaded in place in 3
        staged: dict[str, str | None] = {}
        try:
            for batch in _read_in_batches(graphs, _TRIPLES_PER_CHECK):
                # 0. a graph that already holds exactly what is wanted is left alone (read whole
                #    only where the counts agree: a rebuild that changed one file writes two graphs)
                current = self._contents([g for g, (_, t) in batch.items() if t and sizes.get(g) == len(t)])
                changed = {g: (n, t) for g, (n, t) in batch.items() if current.get(g) != t and (t or g in sizes)}
                names = {g: f"{STAGING_GRAPH_PREFIX}{token}/{n}" for g, (n, t) in changed.items() if t}
                if names and not journaled:
                    self._post_update(_journal(token, len(graphs)))
                    journaled = True
                for graph in changed:
                    staged[graph] = names.get(graph)  # recorded first: a failed write may have landed
                self._stage((names[g], list(t)) for g, (_, t) in changed.items() if t)
                too_large = {g for g in names if not self._fits(len(batch[g][1]))}  # checked in parts
                on_server = self._contents([name for g, name in names.items() if g not in too_large])
                for graph, (_, sent) in changed.items():
                    what = f"the staged copy of <{graph}>"
                    if graph in too_large:
                        self._verify_in_parts(what, names[graph], sent)
                        if not self._copies(len(sent)):
                            whole[graph] = sent
                    elif sent:
                        _verify(what, on_server.get(names[graph], frozenset()), sent)
                    new[graph] = len(sent)
        except BaseException as exc:
            self._discard([s for s in staged.values() if s], exc, journaled=journaled)
            raise
        touched = [*new, *dropped]
        backups: dict[str, str] = {}
        previous: dict[str, frozenset[ox.Triple]] = {}
        try:
            large = [g for g in touched if not self._copies(sizes.get(g, 0))]
            previous = self._contents(large)  # (a graph read in 0 is unchanged: not touched)
            # the backup's name says whose it is: <backup/token/the target's IRI, percent-encoded>
            backups = {
                g: f"{BACKUP_GRAPH_PREFIX}{token}/{urllib.parse.quote(g, safe='')}" for g in touched if g in sizes
            }
            copies: list[tuple[str | _Copy, int]] = []
            for graph, backup in backups.items():
                if graph in previous:
                    self._upload(backup, previous[graph])
                else:
                    copies.append((_Copy("COPY", graph, backup), sizes[graph]))
            self._post_sized(copies)
            if backups:
                kept = self._counts(list(backups.values()))
                for graph, backup in backups.items():
                    _check_count(f"the backup of <{graph}>", kept.get(backup, 0), sizes[graph])
        except BaseException as exc:
            self._discard([*[s for s in staged.values() if s], *backups.values()], exc, journaled=journaled)
            raise
        try:
            moves: list[tuple[str | _Copy, int]] = []
            uploads: list[str] = []
            for target, staging in staged.items():
                if target in whole:
                    uploads.append(target)  # in place: the first slice's PUT replaces the old triples
                    continue
                if target in sizes:  # a graph the server does not hold has nothing to remove
                    moves += _dropping(target)
                if staging:
                    moves.append((_Copy("MOVE", staging, target), 2 * new[target]))
            for graph in dropped:
                moves += _dropping(graph)
            self._post_sized(moves)
            for target in uploads:
                self._upload(target, whole[target])
            moved = [s for g, s in staged.items() if s and g not in uploads]
            after = self._counts([*touched, *moved])
            for graph in touched:
                _check_count(f"<{graph}> after the swap", after.get(graph, 0), new.get(graph, 0))
            for staging in moved:
                _check_count(f"the staging graph <{staging}> after the swap", after.get(staging, 0), 0)
        except BaseException as exc:
            self._restore(touched, backups, sizes, previous, exc)
            self._discard([s for s in staged.values() if s], exc, journaled=journaled)
            raise
        # a moved staging graph is gone (counted empty above): only the others are removed
        self._discard(
            [*[s for s in staged.values() if s and s not in moved], *backups.values()], None, journaled=journaled
        )

    def _fits(self, triples: int) -> bool:
        """Whether one write request may carry ``triples`` triples."""
        return self.triples_per_write is None or triples <= self.triples_per_write

    def _copies(self, triples: int) -> bool:
        """Whether the server can COPY or MOVE a graph of ``triples`` triples: in one
        transaction, or row by row (``_post_sized``)."""
        return self._fits(triples) or self.kind.row_by_row is not None

    def _stage(self, graphs: Iterable[tuple[str, Sequence[ox.Triple]]]) -> None:
        """Write each (new, empty) staging graph with its triples (as stored: skolem IRIs): a
        small one (at most ``_PATCH_TRIPLES`` triples, ``_INSERT_BYTES`` of text) by INSERT DATA,
        many in one update request (at most ``_OPERATIONS_PER_REQUEST``, ``_INSERT_BYTES`` in
        all); a larger one through the Graph Store Protocol (``_upload``). A person's graph is
        about 100 triples: a PUT each cost a 100,000-person build into Virtuoso 1,960 s of
        requests, and INSERT DATA of 20-40 graphs a request half the time of a PUT each
        (bench/RESULTS.md, 2026-12-04 13:05)."""
        batch: list[str] = []
        size = 0
        for graph, triples in graphs:
            small = len(triples) <= _PATCH_TRIPLES
            block = f"INSERT DATA {{ {data_block(graph_node(graph), triples)} }}" if small else ""
            if not block or len(block) > _INSERT_BYTES:
                self._upload(graph, triples)
                continue
            if batch and (len(batch) == _OPERATIONS_PER_REQUEST or size + len(block) > _INSERT_BYTES):
                self._post_update(SparqlText.of(" ;\n".join(batch)))
                batch, size = [], 0
            batch.append(block)
            size += len(block)
        if batch:
            self._post_update(SparqlText.of(" ;\n".join(batch)))

    def _upload(self, graph: str, triples: Iterable[ox.Triple]) -> None:
        """Replace ``graph`` by the triples (as stored: skolem IRIs) through the Graph Store
        Protocol: one PUT, or, past ``triples_per_write``, a PUT of the first slice and a POST
        (which adds) of each other, each its own request."""
        ordered = list(triples)
        step = self.triples_per_write or len(ordered) or 1
        for at in range(0, len(ordered) or 1, step):
            body = ox.serialize(ordered[at : at + step], format=ox.RdfFormat.N_TRIPLES) or b""
            if at == 0:
                self._put_graph(graph, body)
            else:
                self._send("POST", self._graph_url(graph), body, "application/n-triples")

    def _post_sized(self, operations: Sequence[tuple[str | _Copy, int]]) -> None:
        """Update operations, each with the triples it writes, in requests of at most 100
        operations and ``triples_per_write`` triples; one that writes more goes alone, row by row
        where the kind can (``row_by_row``: not one transaction, so verified by its caller). A
        COPY or MOVE that writes more than ``_ROWS_PER_UPDATE`` rows would also run past the
        server's time limit (Virtuoso's MaxQueryExecutionTime, 60 s by default: at 100,000
        people the row-by-row MOVE of the 13.6 M-triple inferred graph failed with SR171): it
        goes last, part by part (``_copy_in_parts``), after the others (which clear its target)."""
        in_parts: list[_Copy] = []
        sized: list[tuple[str, int]] = []
        for operation, triples in operations:
            if isinstance(operation, _Copy) and self.kind.row_by_row and triples > _ROWS_PER_UPDATE:
                in_parts.append(operation)
            else:
                sized.append((str(operation), triples))
        heavy = {operation for operation, triples in sized if not self._fits(triples)}
        for batch in _batches(sized, _OPERATIONS_PER_REQUEST, self._fits):
            prologue = f"{self.kind.row_by_row}\n" if self.kind.row_by_row and heavy.intersection(batch) else ""
            self._post_update(SparqlText.of(prologue + " ;\n".join(batch)))
        for copy in in_parts:
            self._copy_in_parts(copy.source, copy.target, move=copy.verb == "MOVE")

    def _copy_in_parts(self, source: str, target: str, *, move: bool) -> None:
        """COPY (or MOVE) ``source`` to ``target`` on the server in parts that each run well
        within its time limit: the target cleared, then one ``INSERT … WHERE`` a part of the
        source (its predicates, or (predicate, object) pairs, as ``_read_in_parts`` reads them),
        row by row; a MOVE then removes the source. Not atomic: verified by count by the caller,
        as every write to such a kind is."""
        prologue = f"{self.kind.row_by_row}\n"
        src = graph_node(source)
        dst = graph_node(target)
        self._post_update(SparqlText.of(f"{prologue}CLEAR SILENT GRAPH {dst}"))
        for kind, terms in self._parts_of(src, self.kind.sorted_rows_limit or _PART_ROWS):
            pattern = _part_pattern(src, kind, terms)
            self._post_update(SparqlText.of(f"{prologue}INSERT {{ GRAPH {dst} {{ ?s ?p ?o }} }} WHERE {{ {pattern} }}"))
        if move:
            self.drop_graph(source)

    def _patch_verified(self, graph: str, remove: Sequence[ox.Triple], add: Sequence[ox.Triple]) -> None:
        """Apply a patch where requests are not transactions: in requests of at most
        ``_PATCH_TRIPLES`` triples, then checked; if anything fails, undone and checked."""
        try:
            self._post_patch(graph, remove, add)
            self._check_patch(graph, remove, add)
        except BaseException as exc:
            self._undo_patch((graph, remove, add), exc)
            raise

    def _undo_patch(self, patch: Patch, cause: BaseException) -> None:
        """The patch's inverse, checked; a failure to undo is told in ``cause``'s hint."""
        graph, remove, add = patch
        try:
            self._post_patch(graph, add, remove)
            self._check_patch(graph, add, remove)
        except KgError as exc:
            if isinstance(cause, KgError):
                note = f"the patch of <{graph}> could not be undone ({exc.message}): run the command again"
                cause.hint = f"{cause.hint}\n{note}" if cause.hint else note

    def _check_patch(self, graph: str, remove: Sequence[ox.Triple], add: Sequence[ox.Triple]) -> None:
        """Every triple of ``add`` is in ``graph`` and none of ``remove`` is: counted by VALUES,
        ``_PATCH_TRIPLES`` at a time."""
        for triples, expected in ((add, True), (remove, False)):
            for at in range(0, len(triples), _PATCH_TRIPLES):
                chunk = triples[at : at + _PATCH_TRIPLES]
                rows = " ".join(f"({t.subject} {t.predicate} {t.object})" for t in chunk)
                counted = self._select_rows(
                    f"SELECT (COUNT(*) AS ?n) WHERE {{ VALUES (?s ?p ?o) {{ {rows} }} "
                    f"GRAPH {graph_node(graph)} {{ ?s ?p ?o }} }}",
                    raw=True,
                )
                value = counted.rows[0].get("n") if counted.rows else None
                found = int(value.value) if isinstance(value, ox.Literal) and value.value.isdigit() else -1
                if found != (len(chunk) if expected else 0):
                    what = "added" if expected else "removed"
                    raise RemoteError(
                        f"{self.query_endpoint} did not apply a patch of <{graph}> as sent: "
                        f"{found} of {len(chunk)} triples it {what} are in the graph"
                    )

    def _restore(
        self,
        touched: list[str],
        backups: Mapping[str, str],
        sizes: Mapping[str, int],
        previous: Mapping[str, frozenset[ox.Triple]],
        cause: BaseException,
    ) -> None:
        """Put every touched graph back as it was, from its backup (a graph the server cannot
        COPY: uploaded again from ``previous``), and count it (``sizes``: the counts
        before); the backups are dropped only if every graph is back."""
        try:
            operations: list[tuple[str | _Copy, int]] = []
            for graph in touched:
                if graph in previous:
                    continue  # uploaded below, in place
                operations += _dropping(graph)
                if graph in backups:
                    operations.append((_Copy("COPY", backups[graph], graph), sizes[graph]))
            self._post_sized(operations)
            for graph, triples in previous.items():
                self._upload(graph, triples)
            now = self._counts(touched)
            for graph in touched:
                _check_count(f"<{graph}> restored", now.get(graph, 0), sizes.get(graph, 0))
        except KgError as exc:
            if isinstance(cause, KgError):
                kept = ", ".join(f"<{b}> (of <{g}>)" for g, b in backups.items())
                note = f"the previous graphs could not be restored ({exc.message}); they are kept in {kept}"
                cause.hint = f"{cause.hint}\n{note}" if cause.hint else note
            return
        self._discard(list(backups.values()), None)
        if isinstance(cause, KgError):
            note = "the previous graphs are back, as they were (verified)"
            cause.hint = f"{cause.hint}\n{note}" if cause.hint else note

    def _contents(self, graphs: list[str]) -> dict[str, frozenset[ox.Triple]]:
        """The triples (as stored: skolem IRIs) of each of ``graphs`` that is not empty, read
        whole (in groups, page by page where the server caps answers)."""
        found: dict[str, set[ox.Triple]] = {}
        for quad in self._quads_of(graphs, raw=True):
            found.setdefault(quad.graph_name.value, set()).add(quad.triple)  # type: ignore[union-attr]
        return {g: frozenset(t) for g, t in found.items()}

    def _counts(self, graphs: list[str]) -> dict[str, int]:
        """The number of triples in each of ``graphs`` that is not empty (counted by the server,
        ``_GRAPHS_PER_READ`` graphs a query)."""
        return {
            graph.value: n
            for group in chunks(graphs, _GRAPHS_PER_READ)
            for graph, n in self._counted_terms(_in_graphs(_COUNTS, group), counted_by="g")
            if isinstance(graph, ox.NamedNode)
        }

    def _discard(self, graphs: list[str], cause: BaseException | None, *, journaled: bool = False) -> None:
        """Drop ``graphs`` (a write's staging graphs, and backups), then (``journaled``) the write's
        record in the journal (kept if the drop failed: the next write drops them)."""
        try:
            if graphs:
                self._post_sized([operation for g in graphs for operation in _dropping(g)])
            if journaled:
                self._post_update(SparqlText.of(_FORGET))
        except KgError as exc:
            if isinstance(cause, KgError):
                note = f"staging graphs may remain on the server ({exc.message}); the next write removes them"
                cause.hint = f"{cause.hint}\n{note}" if cause.hint else note

    def replace_graph(self, graph: str, triples: Iterable[ox.Triple]) -> None:
        """Load or replace one named graph (staged, then moved)."""
        self.replace_graphs({graph: triples})

    def drop_graph(self, graph: str) -> None:
        """Remove one named graph (no error if absent)."""
        self._post_update(SparqlText.of(" ;\n".join(operation for operation, _ in _dropping(graph))))

    def purge_staging(self, *, listed: bool = False) -> list[str]:
        """Drop the staging graphs of writes that failed while the server was away, or were
        killed: those the journal records (module docstring); ``listed``: every staging graph
        among all the server's graphs (``kgprofiles store gc``: also what a probe or an earlier
        version left). Returns their names (from the journal: the names the writes would have
        used). Backups of graphs a failed write could not restore are kept (see ``backups()``).
        Only safe while no other client is replacing graphs."""
        if listed:  # the journal is dropped unread: it may be what a plain purge refuses
            staging = [g for g in self._listed_graphs() if is_staging(ox.NamedNode(g)) and g != JOURNAL_GRAPH]
            journaled = True
        else:
            journal = self._journal()
            staging = [f"{write}/{n}" for write, count in journal.items() for n in range(count)]
            journaled = bool(journal)
        if staging:
            self._post_sized([operation for g in staging for operation in _dropping(g)])
        if journaled:
            self._post_update(SparqlText.of(_FORGET))
        return staging

    def _journal(self) -> dict[str, int]:
        """The journal's records: a write's staging graphs' common name, and how many it makes."""
        rows = self._select_rows(
            f"SELECT ?write ?n WHERE {{ GRAPH <{JOURNAL_GRAPH}> {{ ?write <{_STAGED_GRAPHS}> ?n }} }}"
        )
        journal: dict[str, int] = {}
        for row in rows:  # what the server says: only a write's record names graphs to drop
            write, count = row.get("write"), row.get("n")
            if isinstance(write, ox.NamedNode) and _JOURNALED.fullmatch(write.value) and isinstance(count, ox.Literal):
                if not count.value.isdigit() or int(count.value) > _MOST_STAGED:
                    raise RemoteError(
                        f"the journal graph <{JOURNAL_GRAPH}> on {self.query_endpoint} says that a write "
                        f"made {_plain(count.value, 40)} staging graphs",
                        "`kgprofiles store gc --endpoint URL` drops every staging graph the server lists",
                    )
                journal[write.value] = int(count.value)
        return journal

    def backups(self) -> list[str]:
        """Backup graphs a failed write could not restore from (their targets may be wrong)."""
        return [g for g in self._listed_graphs() if g.startswith(BACKUP_GRAPH_PREFIX)]

    def flush(self) -> None:
        """Nothing to do: every write is committed by the server when its request returns."""

    def close(self) -> None:
        """Nothing to release: every request opens and closes its own connection."""

    # -- HTTP -------------------------------------------------------------------------------

    def _graph_url(self, graph: str) -> str:
        if not self.graph_store_endpoint:
            raise StoreError(
                f"no Graph Store endpoint known for {self.query_endpoint}",
                "give graph_store_endpoint (kgprofiles.toml: graph_store_endpoint = ...) or the server's kind",
            )
        separator = "&" if "?" in self.graph_store_endpoint else "?"
        return f"{self.graph_store_endpoint}{separator}graph={urllib.parse.quote(graph, safe='')}"

    def _put_graph(self, graph: str, body: bytes) -> None:
        self._send("PUT", self._graph_url(graph), body, "application/n-triples")

    def _send(
        self,
        method: str,
        url: str,
        body: bytes | None = None,
        content_type: str | None = None,
        *,
        accept: str | None = None,
        text: SparqlText | None = None,
        missing_ok: bool = False,
    ) -> tuple[int, str, bytes]:
        """One HTTP request: (status, content type, body), or QueryError/RemoteError."""
        if body is not None and len(body) > _PRIME_ABOVE:
            self._prime_digest(url)
        request = urllib.request.Request(url, data=body, method=method)
        request.add_header("User-Agent", USER_AGENT)
        if content_type:
            request.add_header("Content-Type", content_type)
        if accept:
            request.add_header("Accept", accept)
        try:
            with self._opener.open(request, timeout=self.timeout_s) as response:
                body = read_capped(response, self.max_answer_bytes, url)
                return response.status, response.headers.get("Content-Type", ""), body
        except urllib.error.HTTPError as exc:
            if missing_ok and exc.code == 404:
                return 404, "", b""
            raise self._http_error(url, exc, text) from exc
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            raise _unreachable(url, exc, self.timeout_s) from exc

    def _prime_digest(self, url: str) -> None:
        """Learn the server's Digest challenge with a small request first, so that a large body
        goes out signed (``credentials.PreemptiveDigest``)."""
        digest = digest_of(self._opener)
        if digest is None or digest.primed:
            return
        with contextlib.suppress(urllib.error.URLError, OSError, http.client.HTTPException):
            self._opener.open(urllib.request.Request(url, method="HEAD"), timeout=self.timeout_s).close()

    def _post_patch(self, graph: str, remove: Sequence[ox.Triple], add: Sequence[ox.Triple]) -> None:
        """A patch's DELETE DATA and INSERT DATA operations, sized for ``triples_per_write``."""
        size = min(_PATCH_TRIPLES, self.triples_per_write or _PATCH_TRIPLES)
        self._post_sized([(op, size) for op in _patch_operations(graph, remove, add, size)])

    def _http_error(self, url: str, exc: urllib.error.HTTPError, text: SparqlText | None) -> KgError:
        try:
            message = _server_message(exc.read(_ERROR_BODY_LIMIT))
        except OSError:
            message = ""
        if exc.code == 400 and text is not None:
            return QueryError(text.locate(message) if message else "malformed SPARQL", f"rejected by {url}")
        if exc.code in (401, 403):
            if self.credentials is None:
                return RemoteError(f"{url} answered HTTP {exc.code}: it needs credentials", NEEDED_HINT)
            return RemoteError(
                f"{url} answered HTTP {exc.code}: it refused the credentials of {self.credentials.source}",
                f"check the user and password, and that the user may write ({NEEDED_HINT})",
            )
        refused = "SECURITY" in message or "No permission" in message  # Virtuoso: a 500 for a write not allowed
        hint = NEEDED_HINT if refused and self.credentials is None else None
        if _TOO_LARGE_FOR_ONE_TRANSACTION in message:
            hint = (
                f"one request ({self.triples_per_write or 'any number of'} triples at most) was larger than the "
                "server lets one transaction be: lower triples_per_write in [kgprofiles.server] of "
                "kgprofiles.toml, or raise TransactionAfterImageLimit in the [Parameters] of virtuoso.ini "
                "(50,000,000 bytes by default) and restart it; then run the command again"
            )
        if _TIMED_OUT in message:
            hint = (
                "the server stopped the request at its time limit (Virtuoso: MaxQueryExecutionTime in the [SPARQL] "
                "section of virtuoso.ini); kgprofiles' own requests are sized to stay well within it (reads of "
                "50 graphs or fewer rows than the server's cap, copies of at most a million rows), so one this "
                "slow means a busy server: run the command again, or raise the limit"
            )
        return RemoteError(f"{url} answered HTTP {exc.code} {exc.reason}: {message or '(no message)'}", hint)


#: Update operations in one request at most (Virtuoso refuses a request of a thousand: "Query too large").
_OPERATIONS_PER_REQUEST = 100
#: The verified replace compares, stages and checks the new graphs in batches of about this many
#: triples: the client holds a batch at a time (three copies: new, current, staged; a million
#: triples take about 330 MB as pyoxigraph objects), not the whole graph, which at 100,000 people
#: (24 M triples with the inferred ones) would need some 24 GB.
_TRIPLES_PER_CHECK = 200_000
#: The most rows one COPY or MOVE may write in one request, row by row: more go in parts
#: (``_copy_in_parts``). Virtuoso 7.2.5 moved 3 M triples row by row in 49 s on this machine
#: (/work/scratch/vmove.py, 2026-12-04), against its default time limit of 60 s.
_ROWS_PER_UPDATE = 1_000_000
#: Rows of a part of a graph copied in parts, where the kind sorts any number of rows.
_PART_ROWS = 10_000
#: A predicate of a large graph is read by its objects if it has at most this many (rdf:type).
_OBJECT_PARTS = 200
#: Reads and counts of graphs name at most this many graphs in one query (a UNION of one branch
#: each): Virtuoso compiles a UNION in time that grows faster than its branches (200 graphs:
#: 0.64 s, 50: 0.05 s, for graphs it does not hold); a 1,000-person build's counts took 11.4 s in
#: groups of 200 and 4.5 s in groups of 50 (bench/RESULTS.md, 2026-12-04).
_GRAPHS_PER_READ = 50
#: Virtuoso's refusal of an update whose transaction log would pass TransactionAfterImageLimit
#: (10,000 synthetic people, before writes were sliced: the MOVE of a 1.35 M-triple inferred graph).
_TOO_LARGE_FOR_ONE_TRANSACTION = "SR325"
#: Virtuoso's answer to a request that ran past its time limit (MaxQueryExecutionTime).
_TIMED_OUT = "SR171"
#: Virtuoso's refusal to sort past MaxSortedTopRows (error SR353).
_SORT_REFUSED = "Sorted TOP clause"
#: The fewest graph names ``_graphs_by_name`` asks for a page.
_SMALLEST_PAGE = 100
#: Triples in one DELETE DATA or INSERT DATA of a patch, and in one VALUES that checks it.
_PATCH_TRIPLES = 500
#: Text of the INSERT DATA operations that stage small graphs, in one update request at most.
_INSERT_BYTES = 256 * 1024
#: A body larger than this goes out signed (Digest learnt first).
_PRIME_ABOVE = 64 * 1024
#: Every graph that holds a triple. GROUP BY, not DISTINCT: Virtuoso 7.2.5 answers this DISTINCT in
#: more than 60 s at 1,000 people ("SR171: Transaction timed out"), the GROUP BY in 0.03 s.
_ALL_GRAPHS = "SELECT ?g WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g"
#: Where ``GRAPH ?g {}`` lists the graphs (Oxigraph does; Virtuoso answers one empty row).
_GRAPHS_OF_KIND = {"oxigraph": "SELECT DISTINCT ?g WHERE { GRAPH ?g {} }"}
_QUADS = "SELECT ?g ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } }"
#: ``quads_for_pattern`` asks for this many quads first (callers that scan stop after 64).
_FIRST_QUADS = 128
_COUNTS = "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g"


def _verify(what: str, found: frozenset[ox.Triple], expected: frozenset[ox.Triple]) -> None:
    """A RemoteError unless the server holds exactly the ``expected`` triples (count and hash)."""
    if found != expected:
        raise RemoteError(
            f"{what} holds {len(found)} triple(s) (SHA-256 {_digest(found)[:12]}), not the "
            f"{len(expected)} expected ({_digest(expected)[:12]}): the server did not do what it answered"
            + _difference(found, expected),
            "nothing was lost: the previous graphs are kept until a write is verified. A server that rewrites "
            'literals (Virtuoso stores "1.50"^^xsd:decimal as "1.5", "007"^^xsd:integer as "7", "1e3"^^xsd:double '
            'as "1000.0") keeps only data written in their canonical form',
        )


def _difference(found: frozenset[ox.Triple], expected: frozenset[ox.Triple], most: int = 3) -> str:
    """The first few triples sent but not found and found but not sent, in N-Triples, for a message."""
    lines = []
    for label, triples in (("sent, not found", expected - found), ("found, not sent", found - expected)):
        shown = sorted(_plain(str(t)) for t in triples)
        if shown:
            more = f" (and {len(shown) - most} more)" if len(shown) > most else ""
            lines.append(f"\n  {label}: " + "\n    ".join(shown[:most]) + more)
    return "".join(lines)


def _plain(text: str, most: int = 200) -> str:
    """``text`` safe for a terminal and short: control characters replaced, cut at ``most``."""
    text = _CONTROL_CHARACTERS.sub("\N{REPLACEMENT CHARACTER}", text)
    return text if len(text) <= most else text[:most] + "…"


def _batches(items: Iterable[tuple[T, int]], most: int, fits: Callable[[int], bool]) -> Iterator[list[T]]:
    """``items`` (each with its weight) in order, in batches of at most ``most`` whose weights
    add up to what ``fits`` (a single item that does not fit goes alone)."""
    batch: list[T] = []
    weight = 0
    for item, heavy in items:
        if batch and (len(batch) == most or not fits(weight + heavy)):
            yield batch
            batch, weight = [], 0
        batch.append(item)
        weight += heavy
    if batch:
        yield batch


@dataclass(frozen=True)
class _Copy:
    """A COPY or MOVE of one graph for ``_post_sized``: sent as its text, or, too large for one
    request, copied part by part (``_copy_in_parts``)."""

    verb: Literal["COPY", "MOVE"]
    source: str
    target: str

    def __str__(self) -> str:
        return f"{self.verb} {graph_node(self.source)} TO {graph_node(self.target)}"


def _part_pattern(node: ox.NamedNode, kind: str, terms: list[str]) -> str:
    """The triples of the graph ``node`` with these predicates (``kind`` "p") or these
    (predicate object) pairs ("o"), as ?s ?p ?o: a UNION of one constant pattern each."""
    branches = []
    for term in terms:
        predicate, _, value = term.partition(" ") if kind == "o" else (term, "", "")
        bound = f" BIND({value} AS ?o)" if value else ""
        branches.append(f"{{ GRAPH {node} {{ ?s {predicate} {value or '?o'} }} BIND({predicate} AS ?p){bound} }}")
    return " UNION ".join(branches)


def _read_in_batches(
    graphs: Mapping[str, Iterable[ox.Triple]], most: int
) -> Iterator[dict[str, tuple[int, frozenset[ox.Triple]]]]:
    """The triples of ``graphs`` as stored (skolem IRIs), each graph with its position among
    them, in batches of graphs that hold about ``most`` triples (a larger graph alone)."""
    batch: dict[str, tuple[int, frozenset[ox.Triple]]] = {}
    weight = 0
    for n, (graph, triples) in enumerate(graphs.items()):
        wanted = frozenset(skolemize(as_triple(x)) for x in triples)
        batch[graph] = (n, wanted)
        weight += len(wanted)
        if weight >= most:
            yield batch
            batch, weight = {}, 0
    if batch:
        yield batch


def _in_graphs(sparql: str, graphs: list[str]) -> str:
    """``sparql`` (a query over ``GRAPH ?g { ?s ?p ?o }``) for these graphs only: a UNION of one
    ``GRAPH <g>`` each, which Virtuoso answers from its graph index, where ``VALUES ?g`` (or a
    FILTER, or FROM NAMED) has it scan every quad: 1.5 s against 5.0 s for 200 graphs of a
    10,000-person store."""
    nodes = [str(graph_node(g)) for g in graphs]
    union = " UNION ".join(f"{{ GRAPH {node} {{ ?s ?p ?o }} BIND({node} AS ?g) }}" for node in nodes)
    return sparql.replace("GRAPH ?g { ?s ?p ?o }", union, 1)


def _check_count(what: str, found: int, expected: int) -> None:
    """A RemoteError unless the server holds ``expected`` triples where it holds ``found``."""
    if found != expected:
        raise RemoteError(
            f"{what} holds {found} triple(s), not the {expected} expected: the server did not do what it answered",
            "nothing was lost: the previous graphs are kept until a write is verified",
        )


def _digest(triples: frozenset[ox.Triple]) -> str:
    lines = sorted(f"{t.subject} {t.predicate} {t.object} .\n" for t in triples)
    return hashlib.sha256("".join(lines).encode("utf-8")).hexdigest()


def is_internal(graph: str) -> bool:
    """A staging or backup graph of a write (never listed, exported or read as data)."""
    return graph.startswith((STAGING_GRAPH_PREFIX, BACKUP_GRAPH_PREFIX))


def _patch_operations(
    graph: str, remove: Sequence[ox.Triple], add: Sequence[ox.Triple], size: int = _PATCH_TRIPLES
) -> list[str]:
    """DELETE DATA and INSERT DATA operations, at most ``size`` triples each (no blank nodes;
    Virtuoso's parser runs out of memory near 5,000 triples in one)."""
    node = graph_node(graph)
    operations: list[str] = []
    for verb, triples in (("DELETE", remove), ("INSERT", add)):
        for at in range(0, len(triples), size):
            operations.append(f"{verb} DATA {{ {data_block(node, triples[at : at + size])} }}")
    return operations


def _journal(token: str, staged: int) -> SparqlText:
    """The update that records that the write ``token`` makes ``staged`` staging graphs."""
    record = f"<{STAGING_GRAPH_PREFIX}{token}> <{_STAGED_GRAPHS}> {staged}"
    return SparqlText.of(f"INSERT DATA {{ GRAPH <{JOURNAL_GRAPH}> {{ {record} }} }}")


def _dropping(graph: str) -> list[tuple[str, int]]:
    """The operations that remove a graph, with the triples they write: none, for Virtuoso
    logs a DROP of a large graph past its transaction limit (SR325) but not a CLEAR."""
    node = graph_node(graph)
    return [(f"CLEAR SILENT GRAPH {node}", 0), (f"DROP SILENT GRAPH {node}", 0)]


def _swap_operations(staged: Mapping[str, str | None], dropped: Iterable[str]) -> list[str]:
    """The operations that move the staged graphs into place and drop the others."""
    operations: list[str] = []
    for target, staging in staged.items():
        operations.append(f"DROP SILENT GRAPH {graph_node(target)}")
        if staging:
            operations.append(f"MOVE {graph_node(staging)} TO {graph_node(target)}")
    operations += [f"DROP SILENT GRAPH {graph_node(graph)}" for graph in dropped]
    return operations


def _unskolemize_rows(result: SelectResult) -> SelectResult:
    rows = tuple({name: unskolemize(term) for name, term in row.items()} for row in result.rows)
    return SelectResult(result.variables, rows, result.capped_at)


def _unskolemize_result(raw: ox.QuerySolutions | ox.QueryBoolean, keep: bool = False) -> QueryResult:
    if isinstance(raw, ox.QueryBoolean):
        return bool(raw)
    result = SelectResult.from_solutions(raw)
    result = SelectResult(result.variables, tuple({k: canonical(v) for k, v in row.items()} for row in result.rows))
    return result if keep else _unskolemize_rows(result)
