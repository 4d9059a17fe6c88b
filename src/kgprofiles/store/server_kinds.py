"""What each kind of SPARQL server is: its endpoints, its guarantees and its quirks.

A remote server is a kind, not a guess (``kind`` in ``[kgprofiles.server]`` of kgprofiles.toml,
``KGPROFILES_SERVER_KIND``, or ``kgprofiles --server-kind``). Each kind declares:

* where its update and Graph Store endpoints are, from the query endpoint (Virtuoso: a second pair
  that asks for credentials);
* whether one update request runs as one transaction (``transactional``): if it does, a replace is
  staged and moved by one update; if it does not, it is staged, verified, swapped, verified and,
  on any failure, restored (``store/remote.py``);
* how it says an answer was cut at its result cap (``cap_header``), and its cap when it does not
  say (``max_rows`` in the toml);
* whether it answers booleans as ``"1"^^xsd:integer`` (``integer_booleans``);
* the graphs it keeps for itself (``system_graph_prefixes``): never listed, exported or read as
  part of the default graph;
* the most triples one write request may carry (``triples_per_write``; ``triples_per_write`` in
  the toml overrides it): Virtuoso aborts a transaction whose log passes its
  ``TransactionAfterImageLimit`` (error SR325), and a PUT, COPY or MOVE of a graph is one
  transaction, so larger graphs go up in slices (``store/remote.py``);
* how to run an update row by row (``row_by_row``: a prologue under which each row is its own
  committed, logged transaction): a COPY or MOVE of a graph larger than one transaction then runs
  on the server, not through the client (Virtuoso: ``DEFINE sql:log-enable 3``).

``generic`` is any SPARQL 1.1 server with the Graph Store Protocol: nothing is assumed of it, so
it gets the verified replace.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass

from kgprofiles.errors import InputError

__all__ = ["KINDS", "ServerKind", "server_kind"]


@dataclass(frozen=True)
class ServerKind:
    """One kind of SPARQL server (module docstring)."""

    name: str
    #: The query endpoint's last path segments this kind uses (replaced to find the others).
    query_names: tuple[str, ...]
    update_name: str | None  # None: the query endpoint itself takes updates
    graph_store_name: str | None  # None: no Graph Store endpoint known
    auth_update_name: str | None = None  # with credentials (Virtuoso: /sparql-auth)
    auth_graph_store_name: str | None = None
    transactional: bool = False
    cap_header: str | None = None
    integer_booleans: bool = False
    sorted_rows_limit: int | None = None  # rows it sorts at most for ORDER BY … LIMIT/OFFSET
    system_graph_prefixes: tuple[str, ...] = ()
    triples_per_write: int | None = None  # None: a write request carries any number of triples
    row_by_row: str | None = None  # the prologue that commits an update row by row (None: none known)
    #: The SPARQL results formats asked for, best first (both are read; XML without a DTD).
    results_accept: str = "application/sparql-results+json, application/sparql-results+xml;q=0.5"
    guarantee: str = ""

    def endpoints(self, query_endpoint: str, authenticated: bool = False) -> tuple[str, str | None]:
        """(update endpoint, Graph Store endpoint) for ``query_endpoint``."""
        parts = urllib.parse.urlsplit(query_endpoint)
        head, _, last = parts.path.rpartition("/")
        update = self.auth_update_name if authenticated and self.auth_update_name else self.update_name
        store = self.auth_graph_store_name if authenticated and self.auth_graph_store_name else self.graph_store_name

        def sibling(name: str) -> str:
            return urllib.parse.urlunsplit(parts._replace(path=f"{head}/{name}", query="", fragment=""))

        if last not in self.query_names:
            # e.g. GraphDB's /repositories/<id>: the others hang below the query endpoint
            if self.name == "graphdb" and head.endswith("/repositories"):
                base = query_endpoint.rstrip("/")
                return f"{base}/statements", f"{base}/rdf-graphs/service"
            return query_endpoint, None
        return (sibling(update) if update else query_endpoint), (sibling(store) if store else None)

    def is_system_graph(self, graph: str) -> bool:
        return graph.startswith(self.system_graph_prefixes) if self.system_graph_prefixes else False


KINDS: dict[str, ServerKind] = {
    kind.name: kind
    for kind in (
        ServerKind(
            "oxigraph",
            ("query", "sparql"),
            "update",
            "store",
            transactional=True,
            guarantee="atomic: one update request is one transaction (staged graphs moved by one update)",
        ),
        ServerKind(
            "virtuoso",
            ("sparql", "sparql-auth"),
            "sparql",
            "sparql-graph-crud",
            auth_update_name="sparql-auth",
            auth_graph_store_name="sparql-graph-crud-auth",
            transactional=False,
            cap_header="X-SPARQL-MaxRows",
            integer_booleans=True,
            sorted_rows_limit=10_000,  # MaxSortedTopRows
            # 50 MB of transaction log (the default TransactionAfterImageLimit) held a 1.5 M-triple
            # COPY of short triples but not the MOVE of a 1.35 M-triple inferred graph
            triples_per_write=20_000,
            # row-by-row autocommit with the log kept: OpenLink's way to CLEAR, COPY or MOVE a
            # graph of any size (virtuoso-opensource issues 1085, 541)
            row_by_row="DEFINE sql:log-enable 3",
            # its JSON writer is slow: 10,000 rows of a 10,000-person store in 0.92 s as JSON,
            # 0.29 s as XML (and pyoxigraph reads XML faster than JSON is read in Python)
            results_accept="application/sparql-results+xml, application/sparql-results+json;q=0.5",
            system_graph_prefixes=(
                "http://www.openlinksw.com/",
                "http://www.w3.org/ns/ldp#",
                "http://localuriqaserver/",
                "http://www.w3.org/2002/07/owl#",
                "urn:activitystreams-owl:map",
                "urn:core:services:sparql",
            ),
            guarantee=(
                "never loses a graph: staged, verified, swapped, verified, restored on failure; "
                "while a write runs, readers can see a graph empty or staged triples beside it"
            ),
        ),
        ServerKind(
            "fuseki",
            ("query", "sparql"),
            "update",
            "data",
            transactional=True,
            guarantee="atomic: one update request is one transaction (TDB2)",
        ),
        ServerKind(
            "graphdb",
            (),
            None,
            None,
            transactional=True,
            guarantee="atomic: one update request is one transaction",
        ),
        ServerKind(
            "generic",
            ("query", "sparql"),
            "update",
            "store",
            transactional=False,
            guarantee="never loses a graph (verified replace, as for Virtuoso): nothing is assumed of the server",
        ),
    )
}


def server_kind(name: str | ServerKind | None) -> ServerKind:
    """The kind named ``name`` (default: generic); an InputError naming the kinds if unknown."""
    if isinstance(name, ServerKind):
        return name
    key = (name or "generic").strip().lower()
    if key not in KINDS:
        raise InputError(f"unknown server kind {name!r}", "the kinds are " + ", ".join(KINDS))
    return KINDS[key]
