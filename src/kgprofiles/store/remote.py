"""A store on any SPARQL 1.1 server: the Protocol for queries and updates, the Graph Store HTTP
Protocol for whole graphs.

Requirements on the server:

* **Its default graph must be the union of its named graphs**, as the Store contract promises
  (Oxigraph: ``oxigraph serve --union-default-graph``; Fuseki/TDB2: ``tdb2:unionDefaultGraph
  true``; GraphDB and Virtuoso do this by default for queries without FROM). kgprofiles only
  ever writes named graphs.
* It must run one update request as one transaction (Oxigraph, Fuseki and GraphDB do); that is
  what makes ``replace_graphs`` atomic.

Endpoints. ``query_endpoint`` is required. When the update or Graph Store endpoint is not given,
it is derived from the query endpoint: a last path segment ``query`` or ``sparql`` is replaced by
``update`` and ``store`` (Oxigraph: ``<base>/query``, ``<base>/update``, ``<base>/store``);
otherwise the update endpoint is the query endpoint itself and there is no Graph Store endpoint,
so writing graphs raises a StoreError that asks for one.

How each operation travels:

* queries go through SPARQLWrapper (POST, form-encoded, content negotiation only) and come back as
  SPARQL JSON results (SELECT, ASK) or N-Triples (CONSTRUCT, DESCRIBE), parsed by pyoxigraph;
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
* graphs go up WHOLE with ``PUT <store>?graph=<iri>`` and an N-Triples body, never triple by
  triple.

Blank nodes are skolemized before upload: ``_:label`` becomes
``<https://w3id.org/kgprofiles/.well-known/genid/label>`` (the label percent-encoded), a function of
the label alone, so the same label always denotes the same node on the server, across graphs and
writes. Everything read back (query results, quads, dumps) turns those IRIs back into blank nodes
with their original labels, and a blank node given as a binding is sent as its skolem IRI, so
blank nodes read from the store can be used in later queries. Inside SPARQL run on the server,
such nodes are IRIs (``isBlank`` is false for them). Blank nodes the server creates itself (an
update with ``INSERT DATA { _:b … }``) are not skolemized and cannot be bound.

Atomic replacement (``replace_graphs``): each new graph is PUT whole into its own staging graph
``https://w3id.org/kgprofiles/graph/staging/<token>/<n>``; then ONE update request does, for each
target, ``DROP SILENT GRAPH <target> ; MOVE <staging> TO <target>`` and drops the ``drop`` graphs.
MOVE is not SILENT, so a staging graph gone missing fails the whole request instead of emptying a
target. If anything fails, the staging graphs are dropped; if even that fails (the server went
away), they stay, invisible to ``graphs()``, ``quads()`` and dumps, and the next write removes
them before it stages anything (``purge_staging()``; ``kgprofiles store gc --endpoint URL`` does
it on demand). Limits of what a plain SPARQL server allows: while graphs are staged, and until
leftovers are purged, SPARQL queries over the union default graph can see the staged triples next
to the old ones; and the server cannot lock, so one writer at a time is the operator's to keep
(the embedded store enforces it).
Costs: each triple crosses the network once, the server stores it twice (staging, then MOVE), and
each graph's N-Triples text is built in memory before its PUT. Measured against a local
``oxigraph serve`` 0.5.13 on disk: replacing a graph of 10,000 triples takes about 1 s; of 100,000
triples 10-19 s (PUT ~3 s, the DROP + MOVE update 7-11 s; a bare PUT over the target, which would
not be atomic across graphs, ~8 s).
"""

from __future__ import annotations

import http.client
import re
import secrets
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import pyoxigraph as ox
from SPARQLWrapper import JSON, POST, TURTLE, URLENCODED, SPARQLWrapper

from kgprofiles.config import Limits
from kgprofiles.errors import KgError, QueryError, RemoteError, StoreError
from kgprofiles.store.base import QueryResult, SelectResult, Term
from kgprofiles.store.binding import (
    QUERY_FORMS,
    SparqlText,
    check_bindings,
    inline_values,
    query_prologue,
    sparql_form,
)
from kgprofiles.store.guard import check_query
from kgprofiles.store.oxigraph import (
    STAGING_GRAPH_PREFIX,
    as_triple,
    check_replacement,
    graph_node,
    is_staging,
    serialize_dataset,
)
from kgprofiles.vocab import GENID

__all__ = ["GENID", "STAGING_GRAPH_PREFIX", "RemoteStore"]

USER_AGENT = "kgprofiles (SPARQL 1.1 client)"
_RESULTS_ACCEPT = "application/sparql-results+json, application/sparql-results+xml;q=0.5"
_GRAPH_ACCEPT = "application/n-triples, text/turtle;q=0.8"
#: The graph formats read from a server: no RDF/XML (entity expansion), nothing with datasets.
_GRAPH_FORMATS = (ox.RdfFormat.N_TRIPLES, ox.RdfFormat.TURTLE)
_MESSAGE_LIMIT = 600
_ERROR_BODY_LIMIT = 64 * 1024  # of an error answer, only the start is read (for its message)
_CHUNK = 1 << 20
_XML_DECLARATIONS = re.compile(rb"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)
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
    """(update endpoint, Graph Store endpoint) guessed from the query endpoint; see the module doc."""
    parts = urllib.parse.urlsplit(query_endpoint)
    head, _, last = parts.path.rpartition("/")
    if last in ("query", "sparql"):

        def sibling(name: str) -> str:
            return urllib.parse.urlunsplit(parts._replace(path=f"{head}/{name}", query="", fragment=""))

        return sibling("update"), sibling("store")
    return query_endpoint, None


# -- HTTP ---------------------------------------------------------------------------------------


class _Wrapper(SPARQLWrapper):
    """SPARQLWrapper that leaves HTTP errors to us (with their status and body intact) and takes
    the query form from kgprofiles' own scanner instead of its regular expressions."""

    def __init__(self, endpoint: str, timeout_s: float) -> None:
        super().__init__(endpoint, agent=USER_AGENT)
        self.setMethod(POST)
        self.setRequestMethod(URLENCODED)
        self.setOnlyConneg(True)
        self.timeout = timeout_s  # type: ignore[assignment]  # urllib takes float seconds

    def _parseQueryType(self, query: str) -> str | None:
        form = sparql_form(query)
        return form if form in QUERY_FORMS else "SELECT"

    def _query(self) -> tuple[http.client.HTTPResponse, str]:
        response = urllib.request.urlopen(self._createRequest(), timeout=self.timeout)
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


def _refuse_xml_declarations(body: bytes, url: str) -> None:
    """An XML answer may not declare a DTD or entities: they can expand without bound."""
    if _XML_DECLARATIONS.search(body):
        raise RemoteError(
            f"{url} sent XML results with a DOCTYPE or ENTITY declaration, refused unread (entity expansion)",
            "configure the server to answer application/sparql-results+json",
        )


def _server_message(body: bytes) -> str:
    text = body.decode("utf-8", errors="replace").strip()
    if text.lstrip().lower().startswith(("<!doctype html", "<html")):
        return "(an HTML page)"
    return text if len(text) <= _MESSAGE_LIMIT else text[:_MESSAGE_LIMIT] + "…"


def _unreachable(url: str, exc: BaseException, timeout_s: float) -> RemoteError:
    reason = getattr(exc, "reason", exc)
    if isinstance(reason, TimeoutError) or "timed out" in str(reason):
        return RemoteError(f"{url} did not answer within {timeout_s:g} s", "is the server overloaded? raise timeout_s")
    detail = getattr(reason, "strerror", None) or str(reason) or type(reason).__name__
    return RemoteError(f"cannot reach {url}: {detail}", "is the SPARQL server running, and is the endpoint URL right?")


class RemoteStore:
    """A kgprofiles store on a SPARQL 1.1 server (see the module docstring for what the server
    must do and how each operation travels). ``allow_fetch=True`` permits SERVICE and LOAD;
    ``max_answer_bytes`` caps the size of every answer read."""

    def __init__(
        self,
        query_endpoint: str,
        update_endpoint: str | None = None,
        graph_store_endpoint: str | None = None,
        timeout_s: float = 30.0,
        *,
        allow_fetch: bool = False,
        max_answer_bytes: int = MAX_ANSWER_BYTES,
    ) -> None:
        derived_update, derived_store = derive_endpoints(query_endpoint)
        self.max_answer_bytes = max_answer_bytes
        self.query_endpoint = query_endpoint
        self.update_endpoint = update_endpoint or derived_update
        self.graph_store_endpoint = graph_store_endpoint or derived_store
        self.timeout_s = timeout_s
        self.allow_fetch = allow_fetch

    def __repr__(self) -> str:
        return f"RemoteStore({self.query_endpoint!r})"

    def __enter__(self) -> RemoteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading ----------------------------------------------------------------------------

    def query(self, sparql: str, bindings: Mapping[str, Term] | None = None) -> QueryResult:
        """Run SELECT, ASK, CONSTRUCT or DESCRIBE on the server. Bindings become a VALUES clause
        at the start of the outermost WHERE group (blank nodes as their skolem IRIs). A query
        the server rejects as malformed (HTTP 400) raises QueryError with the server's message,
        its position mapped to ``sparql``; any other failure raises RemoteError."""
        check_query(sparql, allow_fetch=self.allow_fetch, local_graphs=self.graphs)
        form = sparql_form(sparql)
        if form is not None and form not in QUERY_FORMS:
            raise QueryError(f"{form} is an update, not a query", "use update() for SPARQL Update")
        bound = {name: skolemize(term) for name, term in check_bindings(bindings).items()}
        text = inline_values(SparqlText.of(sparql), bound)
        text = text.prepend(query_prologue(sparql))
        content_type, body = self._post_query(text, form)
        return self._parse_answer(content_type, body)

    def _post_query(self, text: SparqlText, form: str | None) -> tuple[str, bytes]:
        wrapper = _Wrapper(self.query_endpoint, self.timeout_s)
        wrapper.setReturnFormat(TURTLE if form in ("CONSTRUCT", "DESCRIBE") else JSON)
        wrapper.addCustomHttpHeader("Accept", _GRAPH_ACCEPT if form in ("CONSTRUCT", "DESCRIBE") else _RESULTS_ACCEPT)
        wrapper.setQuery(text.sent)
        try:
            result = wrapper.query()
            with result.response as response:
                body = read_capped(response, self.max_answer_bytes, self.query_endpoint)
                return response.headers.get("Content-Type", ""), body
        except urllib.error.HTTPError as exc:
            raise self._http_error(self.query_endpoint, exc, text) from exc
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            raise _unreachable(self.query_endpoint, exc, self.timeout_s) from exc

    def _parse_answer(self, content_type: str, body: bytes) -> QueryResult:
        media_type = content_type.split(";")[0].strip().lower()
        url = self.query_endpoint
        results_format = ox.QueryResultsFormat.from_media_type(media_type) if media_type else None
        try:
            if results_format is not None:
                if results_format == ox.QueryResultsFormat.XML:
                    _refuse_xml_declarations(body, url)
                return _unskolemize_result(ox.parse_query_results(body, format=results_format))
            if ox.RdfFormat.from_media_type(media_type) if media_type else None:
                fmt = _graph_format(media_type, url)
                return [_unskolemize_triple(q.triple) for q in ox.parse(body, format=fmt)]
        except (SyntaxError, ValueError) as exc:
            raise RemoteError(f"{url} sent a {media_type} answer that does not parse: {exc}") from exc
        raise RemoteError(
            f"{url} answered with {media_type or 'no content type'}, not SPARQL results",
            "is this the server's SPARQL query endpoint?",
        )

    def graphs(self) -> list[str]:
        """The named graphs (IRIs), sorted; staging graphs are left out."""
        result = self.query("SELECT DISTINCT ?g WHERE { GRAPH ?g {} }")
        assert isinstance(result, SelectResult)
        names = (row["g"] for row in result if isinstance(row.get("g"), ox.NamedNode))
        return sorted(g.value for g in names if not is_staging(g))

    def quads(self, graph: str | None = None) -> Iterator[ox.Quad]:
        """The quads of every named graph (one SELECT: a consistent snapshot; staging graphs
        left out), or of one graph (one Graph Store GET). Fetched whole before returning."""
        if graph is not None:
            return iter(self._get_graph(graph))
        result = self.query("SELECT ?g ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } }")
        assert isinstance(result, SelectResult)
        quads = (ox.Quad(row["s"], row["p"], row["o"], row["g"]) for row in result)  # type: ignore[arg-type]
        return iter([q for q in quads if not is_staging(q.graph_name)])

    def _get_graph(self, graph: str) -> list[ox.Quad]:
        node = graph_node(graph)
        status, content_type, body = self._send("GET", self._graph_url(graph), accept=_GRAPH_ACCEPT, missing_ok=True)
        if status == 404:
            return []
        media_type = content_type.split(";")[0].strip().lower() or "application/n-triples"
        url = self._graph_url(graph)
        fmt = _graph_format(media_type, url)
        try:
            triples = [_unskolemize_triple(q.triple) for q in ox.parse(body, format=fmt)]
        except SyntaxError as exc:
            raise RemoteError(f"{url} sent a {media_type} graph that does not parse: {exc}") from exc
        return [ox.Quad(t.subject, t.predicate, t.object, node) for t in triples]

    def dump(self, fmt: ox.RdfFormat) -> bytes:
        """N-Quads/TriG: every quad of the named graphs. Triple formats: the distinct triples of
        all graphs. Sorted (the same bytes as the embedded store for the same data); blank nodes
        come back with their labels."""
        return serialize_dataset(self.quads(), fmt)

    # -- writing ----------------------------------------------------------------------------

    def update(self, sparql: str, base_iri: str | None = None) -> None:
        """Run a SPARQL 1.1 Update (project prefixes predeclared; relative IRIs against
        ``base_iri``) as one request; the server decides whether a request is one transaction
        (Oxigraph: yes)."""
        check_query(sparql, allow_fetch=self.allow_fetch, local_graphs=self.graphs)
        base = f"BASE {graph_node(base_iri)}\n" if base_iri else ""
        self._post_update(SparqlText.of(sparql).prepend(base + query_prologue(sparql)))

    def _post_update(self, text: SparqlText) -> None:
        self._send("POST", self.update_endpoint, text.sent.encode("utf-8"), "application/sparql-update", text=text)

    def replace_graphs(self, graphs: Mapping[str, Iterable[ox.Triple]], drop: Iterable[str] = ()) -> None:
        """Replace each named graph by exactly the given triples (none: the graph is removed) and
        drop the ``drop`` graphs: staged by PUT, then moved by ONE update (module docstring).
        On failure the targets are unchanged and the staging graphs are dropped."""
        dropped = check_replacement(graphs, drop)
        if graphs:
            self._graph_url(STAGING_GRAPH_PREFIX)  # no Graph Store endpoint: say so before anything
        self.purge_staging()  # what a failed or killed earlier write could not remove
        token = secrets.token_hex(8)
        staged: dict[str, str | None] = {}
        try:
            for n, (graph, triples) in enumerate(graphs.items()):
                staging = f"{STAGING_GRAPH_PREFIX}{token}/{n}"
                body = ox.serialize((skolemize(as_triple(x)) for x in triples), format=ox.RdfFormat.N_TRIPLES)
                staged[graph] = staging if body else None  # recorded first: a failed PUT may have landed
                if body:
                    self._put_graph(staging, body)
            if staged or dropped:
                self._post_update(SparqlText.of(_swap_request(staged, dropped)))
        except BaseException as exc:
            self._discard([s for s in staged.values() if s], exc)
            raise

    def _discard(self, staging: list[str], cause: BaseException) -> None:
        if not staging:
            return
        try:
            self._post_update(SparqlText.of(" ;\n".join(f"DROP SILENT GRAPH <{g}>" for g in staging)))
        except KgError as exc:
            if isinstance(cause, KgError):
                note = f"staging graphs may remain on the server ({exc.message}); the next write removes them"
                cause.hint = f"{cause.hint}\n{note}" if cause.hint else note

    def replace_graph(self, graph: str, triples: Iterable[ox.Triple]) -> None:
        """Load or replace one named graph (staged, then moved)."""
        self.replace_graphs({graph: triples})

    def drop_graph(self, graph: str) -> None:
        """Remove one named graph (no error if absent)."""
        self._post_update(SparqlText.of(f"DROP SILENT GRAPH {graph_node(graph)}"))

    def purge_staging(self) -> list[str]:
        """Drop staging graphs left behind by an upload that failed while the server was away;
        returns their names. Only safe while no other client is replacing graphs."""
        result = self.query("SELECT DISTINCT ?g WHERE { GRAPH ?g {} }")
        assert isinstance(result, SelectResult)
        staging = sorted(row["g"].value for row in result if is_staging(row["g"]))
        if staging:
            self._post_update(SparqlText.of(" ;\n".join(f"DROP SILENT GRAPH <{g}>" for g in staging)))
        return staging

    def flush(self) -> None:
        """Nothing to do: every write is committed by the server when its request returns."""

    def close(self) -> None:
        """Nothing to release: every request opens and closes its own connection."""

    # -- HTTP -------------------------------------------------------------------------------

    def _graph_url(self, graph: str) -> str:
        if not self.graph_store_endpoint:
            raise StoreError(
                f"no Graph Store endpoint known for {self.query_endpoint}",
                "give graph_store_endpoint (kgprofiles.toml: graph_store_endpoint = ...)",
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
        request = urllib.request.Request(url, data=body, method=method)
        request.add_header("User-Agent", USER_AGENT)
        if content_type:
            request.add_header("Content-Type", content_type)
        if accept:
            request.add_header("Accept", accept)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                body = read_capped(response, self.max_answer_bytes, url)
                return response.status, response.headers.get("Content-Type", ""), body
        except urllib.error.HTTPError as exc:
            if missing_ok and exc.code == 404:
                return 404, "", b""
            raise self._http_error(url, exc, text) from exc
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            raise _unreachable(url, exc, self.timeout_s) from exc

    def _http_error(self, url: str, exc: urllib.error.HTTPError, text: SparqlText | None) -> KgError:
        try:
            message = _server_message(exc.read(_ERROR_BODY_LIMIT))
        except OSError:
            message = ""
        if exc.code == 400 and text is not None:
            return QueryError(text.locate(message) if message else "malformed SPARQL", f"rejected by {url}")
        return RemoteError(f"{url} answered HTTP {exc.code} {exc.reason}: {message or '(no message)'}")


def _swap_request(staged: Mapping[str, str | None], dropped: Iterable[str]) -> str:
    """The one update that moves the staged graphs into place and drops the others."""
    operations: list[str] = []
    for target, staging in staged.items():
        operations.append(f"DROP SILENT GRAPH {graph_node(target)}")
        if staging:
            operations.append(f"MOVE {graph_node(staging)} TO {graph_node(target)}")
    operations += [f"DROP SILENT GRAPH {graph_node(graph)}" for graph in dropped]
    return " ;\n".join(operations)


def _unskolemize_result(raw: ox.QuerySolutions | ox.QueryBoolean) -> QueryResult:
    if isinstance(raw, ox.QueryBoolean):
        return bool(raw)
    result = SelectResult.from_solutions(raw)
    rows = tuple({name: unskolemize(term) for name, term in row.items()} for row in result.rows)
    return SelectResult(result.variables, rows)
