"""A runner for the W3C SPARQL 1.1 Protocol tests (``sparql11/protocol/manifest.ttl``).

Each ``mf:ProtocolTest`` has one or more HTTP requests (method, path under ``/sparql/``, headers,
a body with its character encoding) and, for each, the expected status classes
(``hts:StatusCode2xx`` …) and, for queries, the expected result format ("boolean", "tabular",
"RDF") and boolean. ``ut:graphData`` names the graphs (file → graph IRI) a test's queries read.

The manifest says the ``/sparql/`` prefix is to be replaced by the endpoint's own path; here it
becomes ``/sparql``. Requests are sent as they are written (httpx, no redirects followed).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pyoxigraph as ox
from rdflib import RDF, RDFS, Graph, Namespace, URIRef
from rdflib.collection import Collection

MF = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
HT = Namespace("http://www.w3.org/2011/http#")
CNT = Namespace("http://www.w3.org/2011/content#")
UT = Namespace("http://www.w3.org/2009/sparql/tests/test-update#")

RESULT_TYPES = {
    "boolean": {"application/sparql-results+json", "application/sparql-results+xml"},
    "tabular": {
        "application/sparql-results+json",
        "application/sparql-results+xml",
        "text/csv",
        "text/tab-separated-values",
    },
    "RDF": {"application/rdf+xml", "text/turtle", "application/n-triples", "text/html", "application/xhtml+xml"},
}


@dataclass(frozen=True)
class HttpRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes | None
    statuses: frozenset[int]  # acceptable status classes: 2, 3, 4, 5
    expected_format: str | None
    expected_boolean: bool | None


@dataclass(frozen=True)
class ProtocolTest:
    name: str  # the manifest's local name, e.g. query_post_form
    title: str  # mf:name
    graph_data: tuple[tuple[Path, str], ...]  # (file, graph IRI)
    requests: tuple[HttpRequest, ...]

    @property
    def is_update(self) -> bool:
        """update_*, bad_update_* and bad_multiple_updates: the tests whose requests are updates."""
        return "update" in self.name


def load_manifest(path: Path) -> list[ProtocolTest]:
    """The tests in manifest order."""
    path = path.resolve()
    graph = Graph().parse(path, format="turtle", publicID=path.as_uri())
    manifest = next(graph.subjects(RDF.type, MF.Manifest))
    entries = Collection(graph, graph.value(manifest, MF.entries))
    tests = []
    for entry in entries:
        assert isinstance(entry, URIRef)
        name = str(entry).rsplit("#", 1)[-1]
        data = tuple(
            sorted(
                (Path(str(graph.value(d, UT.graph)).removeprefix("file://")), str(graph.value(d, RDFS.label)))
                for d in graph.objects(entry, UT.graphData)
            )
        )
        action = graph.value(entry, MF.action)
        requests = tuple(_request(graph, r) for r in Collection(graph, graph.value(action, HT.requests)))
        tests.append(ProtocolTest(name, str(graph.value(entry, MF.name)), data, requests))
    return tests


def _request(graph: Graph, node: object) -> HttpRequest:
    headers = {}
    header_list = graph.value(node, HT.headers)
    if header_list is not None:
        for header in Collection(graph, header_list):
            headers[str(graph.value(header, HT.fieldName)).lower()] = str(graph.value(header, HT.fieldValue))
    body = None
    body_node = graph.value(node, HT.body)
    if body_node is not None:
        encoding = str(graph.value(body_node, CNT.characterEncoding) or "UTF-8")
        body = str(graph.value(body_node, CNT.chars)).encode(encoding.lower())
    response = graph.value(node, HT.resp)
    statuses = frozenset(int(str(s).rsplit("StatusCode", 1)[-1][0]) for s in graph.objects(response, MF.expectedStatus))
    expected_format = graph.value(response, MF.expectedFormat)
    expected_boolean = graph.value(response, MF.expectedBoolean)
    return HttpRequest(
        str(graph.value(node, HT.methodName)),
        str(graph.value(node, HT.absolutePath)),
        headers,
        body,
        statuses,
        str(expected_format) if expected_format is not None else None,
        bool(expected_boolean.toPython()) if expected_boolean is not None else None,
    )


def endpoint_path(path: str, endpoint: str = "/sparql") -> str:
    """The manifest's ``/sparql/…`` path on our endpoint."""
    assert path.startswith("/sparql/"), path
    return endpoint + path[len("/sparql/") :]


@dataclass
class Outcome:
    request: HttpRequest
    status: int
    content_type: str
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.problems


def send(client: httpx.Client, request: HttpRequest, extra_headers: dict[str, str] | None = None) -> httpx.Response:
    headers = {**request.headers, **(extra_headers or {})}
    return client.request(request.method, endpoint_path(request.path), headers=headers, content=request.body)


def check(request: HttpRequest, response: httpx.Response) -> Outcome:
    """What the manifest expects of this response: its status class, format and boolean."""
    content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
    outcome = Outcome(request, response.status_code, content_type)
    if response.status_code // 100 not in request.statuses:
        expected = "/".join(f"{s}xx" for s in sorted(request.statuses))
        outcome.problems.append(f"status {response.status_code}, expected {expected}: {response.text[:300]!r}")
        return outcome
    if request.expected_format is not None:
        allowed = RESULT_TYPES[request.expected_format]
        if content_type not in allowed:
            outcome.problems.append(f"{content_type!r} is not a {request.expected_format} format ({sorted(allowed)})")
            return outcome
        try:
            value = _parse(request.expected_format, content_type, response.content)
        except (ValueError, SyntaxError, json.JSONDecodeError) as exc:
            outcome.problems.append(f"the {content_type} body does not parse: {exc}")
            return outcome
        if request.expected_boolean is not None and value != request.expected_boolean:
            outcome.problems.append(f"the answer is {value}, expected {request.expected_boolean}")
    return outcome


def _parse(expected: str, content_type: str, body: bytes) -> object:
    if expected == "RDF":
        return list(ox.parse(body, format=ox.RdfFormat.from_media_type(content_type)))
    result_format = ox.QueryResultsFormat.from_media_type(content_type)
    parsed = ox.parse_query_results(body, format=result_format)
    if expected == "boolean":
        if not isinstance(parsed, ox.QueryBoolean):
            raise ValueError("not a boolean result")
        return bool(parsed)
    return list(parsed)  # type: ignore[arg-type]


def load_graph_data(tests: list[ProtocolTest], store: object) -> None:
    """Load every graph the tests' queries read into ``store`` (a kgprofiles Store), each into
    the named graph its label gives."""
    seen: dict[str, Path] = {}
    for test in tests:
        for file, graph in test.graph_data:
            seen[graph] = file
    for graph, file in sorted(seen.items()):
        triples = list(ox.parse(path=str(file), format=ox.RdfFormat.N_TRIPLES))
        store.replace_graph(graph, triples)  # type: ignore[attr-defined]
