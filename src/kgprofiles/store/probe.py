"""``kgprofiles store check --endpoint URL``: what a SPARQL server does, found by trying it.

Before a user trusts a server with a build, each thing kgprofiles relies on is tried: a query, an
update, a Graph Store PUT, whether a failing update request undoes what it did first (a
transaction), the result cap, booleans, how graphs are listed, and whether the server asks for
credentials. The probe writes only under a staging graph of its own, and removes it.
"""

from __future__ import annotations

import contextlib
import secrets
from dataclasses import dataclass

import pyoxigraph as ox

from kgprofiles.errors import KgError
from kgprofiles.store.base import SelectResult
from kgprofiles.store.binding import SparqlText
from kgprofiles.store.oxigraph import STAGING_GRAPH_PREFIX
from kgprofiles.store.remote import RemoteStore

__all__ = ["Finding", "probe"]

#: 10^5 rows out of no data: enough to meet any usual result cap.
_MANY_ROWS = "SELECT ?a WHERE { " + " ".join(f"VALUES ?{v} {{ 0 1 2 3 4 5 6 7 8 9 }}" for v in "abcde") + " }"
_MANY = 100_000
_DATA_ROWS = "SELECT ?s WHERE { ?s ?p ?o }"


@dataclass(frozen=True)
class Finding:
    """One thing tried: its name, whether it works (None: neither, just a fact), what was seen."""

    name: str
    ok: bool | None
    detail: str

    def format(self) -> str:
        mark = {True: "ok", False: "FAILS", None: "note"}[self.ok]
        return f"{self.name}: {mark}: {self.detail}"


def probe(store: RemoteStore) -> list[Finding]:
    """Try the server behind ``store`` (module docstring)."""
    findings: list[Finding] = []
    try:
        store.query("ASK {}")
    except KgError as exc:
        return [Finding("query", False, exc.message)]
    findings.append(Finding("query", True, store.query_endpoint))
    graph = f"{STAGING_GRAPH_PREFIX}probe-{secrets.token_hex(6)}"
    a, b = f"<{graph}/a>", f"<{graph}/b>"
    findings.append(_try_update(store, graph, a))
    findings.append(_try_graph_store(store, graph))
    if findings[-2].ok:
        findings.append(_try_transaction(store, graph, a, b))
    findings.append(_try_cap(store))
    findings.append(_try_booleans(store))
    findings.append(_try_graph_listing(store))
    findings.append(_auth(store, bool(findings[1].ok)))
    with contextlib.suppress(KgError):  # else `kgprofiles store gc` removes them (staging graphs)
        store._post_update(SparqlText.of(f"DROP SILENT GRAPH <{graph}> ; DROP SILENT GRAPH <{graph}-2>"))
    return findings


def _count(store: RemoteStore, graph: str) -> int:
    result = store.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{graph}> {{ ?s ?p ?o }} }}")
    assert isinstance(result, SelectResult)
    return int(result.rows[0]["n"].value) if result.rows and "n" in result.rows[0] else 0


def _try_update(store: RemoteStore, graph: str, a: str) -> Finding:
    try:
        store._post_update(SparqlText.of(f"INSERT DATA {{ GRAPH <{graph}> {{ {a} {a} {a} }} }}"))
        seen = _count(store, graph)
    except KgError as exc:
        return Finding("update", False, f"{exc.message}" + (f" ({exc.hint})" if exc.hint else ""))
    if seen != 1:
        return Finding("update", False, f"an INSERT DATA answered success but the graph holds {seen} triple(s)")
    return Finding("update", True, store.update_endpoint)


def _try_graph_store(store: RemoteStore, graph: str) -> Finding:
    body = f'<{graph}/x> <{graph}/y> <{graph}/z> .\n<{graph}/x> <{graph}/y> "2" .\n'.encode()
    try:
        store._put_graph(graph + "-2", body)
        seen = _count(store, graph + "-2")
    except KgError as exc:
        return Finding("graph store", False, exc.message + (f" ({exc.hint})" if exc.hint else ""))
    if seen != 2:
        return Finding("graph store", False, f"a PUT of 2 triples answered success; the graph holds {seen}")
    return Finding("graph store", True, str(store.graph_store_endpoint))


def _try_transaction(store: RemoteStore, graph: str, a: str, b: str) -> Finding:
    """A request whose second operation must fail (MOVE of a graph that does not exist): a
    transactional server keeps nothing of the first."""
    missing = f"{graph}-missing"
    request = f"INSERT DATA {{ GRAPH <{graph}> {{ {b} {b} {b} }} }} ;\nMOVE <{missing}> TO <{graph}-moved>"
    try:
        store._post_update(SparqlText.of(request))
        failed = False
    except KgError:
        failed = True
    kept = _count(store, graph) == 2
    declared = "declared transactional" if store.kind.transactional else "replace is verified and restored on failure"
    if failed and not kept:
        return Finding("transactions", True, f"a failing update request leaves nothing behind ({declared})")
    what = "answered success" if not failed else "failed"
    detail = f"a request whose MOVE of a missing graph must fail {what} and kept its INSERT"
    if not failed and not kept:
        detail = f"a request whose MOVE of a missing graph must fail {what}"
    if store.kind.transactional:
        return Finding("transactions", False, f"{detail}, but kind {store.kind.name} is declared transactional")
    return Finding("transactions", None, f"none: {detail} (kind {store.kind.name}: {declared})")


def _try_cap(store: RemoteStore) -> Finding:
    """The smallest cap met by 10^5 rows made of nothing and by the rows of the data (Virtuoso
    caps the two differently)."""
    cuts: list[tuple[int, bool]] = []
    for query in (_MANY_ROWS, _DATA_ROWS):
        try:
            result = store.query_as_answered(query)
        except KgError as exc:
            return Finding("result cap", None, f"not measured: {exc.message}")
        assert isinstance(result, SelectResult)
        if result.capped_at is not None:
            cuts.append((result.capped_at, True))
        elif query is _MANY_ROWS and len(result) < _MANY:
            cuts.append((len(result), False))
    if cuts:
        cap, said = min(cuts)
        how = f" (said in {store.kind.cap_header})" if store.kind.cap_header and said else ""
        return Finding("result cap", None, f"answers are cut at {cap} rows{how}: reads that must be complete page")
    return Finding("result cap", True, f"none met at {_MANY} rows")


def _try_booleans(store: RemoteStore) -> Finding:
    result = store.query("SELECT (1 = 1 AS ?t) WHERE {}")
    assert isinstance(result, SelectResult)
    value = result.rows[0].get("t") if result.rows else None
    canonical = isinstance(value, ox.Literal) and value.datatype.value.endswith("#boolean") and value.value == "true"
    if store.kind.integer_booleans:
        return Finding("booleans", canonical, "answered as integers, read as xsd:boolean")
    return Finding("booleans", canonical, "xsd:boolean" if canonical else f"answered as {value}")


def _try_graph_listing(store: RemoteStore) -> Finding:
    result = store.query("SELECT DISTINCT ?g WHERE { GRAPH ?g {} }")
    assert isinstance(result, SelectResult)
    unbound = any("g" not in row for row in result.rows)
    works = not unbound and len(result.rows) > 0
    detail = "GRAPH ?g {} lists the graphs" if works else "GRAPH ?g {} does not list graphs: listed by their triples"
    return Finding("graph listing", None, detail)


def _auth(store: RemoteStore, wrote: bool) -> Finding:
    if store.credentials is None:
        anonymous = "the server lets anyone write" if wrote else "set KGPROFILES_SERVER_USER and _PASSWORD to write"
        return Finding("auth", None, f"no credentials given: {anonymous}")
    return Finding("auth", None, f"as {store.credentials.user}, Basic or Digest (from {store.credentials.source})")
