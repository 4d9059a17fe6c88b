"""/sparql over HTTP (uvicorn on 127.0.0.1, httpx as the client): the SPARQL 1.1 Protocol's three
ways in, results by Accept, errors, limits, refusals, the service description and the editor page.
The seed store is on disk, so queries run in the real query workers."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import threading
import time
from collections.abc import Iterator

import httpx
import pyoxigraph as ox
import pytest
from rdflib import Graph, Namespace, URIRef

from kgprofiles.config import Settings
from kgprofiles.store.oxigraph import OxigraphStore
from kgprofiles.web import create_app
from kgprofiles.web.editor import find_editor
from seed_ids import PERSON
from web.rdf import subjects
from web.server import serving

SD = Namespace("http://www.w3.org/ns/sparql-service-description#")
NAMES = "SELECT ?person ?name WHERE { ?person a kgp:Person ; kgp:name ?name } ORDER BY ?name"
HORACE = str(PERSON["horace-he"])
TOKEN = "secret-token"


@pytest.fixture(scope="module")
def client(settings: Settings, disk_seed_store: OxigraphStore) -> Iterator[httpx.Client]:
    with serving(create_app(settings, disk_seed_store)) as url, httpx.Client(base_url=url, timeout=30) as c:
        yield c


@pytest.fixture(scope="module")
def writable(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    store = OxigraphStore(tmp_path_factory.mktemp("writable") / "store")
    app = create_app(settings, store, write_token=TOKEN)
    with serving(app) as url, httpx.Client(base_url=url, timeout=30) as c:
        yield c
    store.close()


def names_from_json(response: httpx.Response) -> list[str]:
    assert response.status_code == 200, response.text
    return [b["name"]["value"] for b in response.json()["results"]["bindings"]]


def test_get_form_post_and_direct_post_give_the_same_rows(client: httpx.Client) -> None:
    accept = {"Accept": "application/sparql-results+json"}
    by_get = names_from_json(client.get("/sparql", params={"query": NAMES}, headers=accept))
    by_form = names_from_json(client.post("/sparql", data={"query": NAMES}, headers=accept))
    direct = client.post("/sparql", content=NAMES, headers={**accept, "Content-Type": "application/sparql-query"})
    assert by_get == by_form == names_from_json(direct)
    assert "Horace He" in by_get and len(by_get) == 11


@pytest.mark.parametrize(
    ("accept", "content_type"),
    [
        ("application/sparql-results+json", "application/sparql-results+json"),
        ("application/sparql-results+xml", "application/sparql-results+xml"),
        ("text/csv", "text/csv"),
        ("text/tab-separated-values", "text/tab-separated-values"),
        ("application/json", "application/sparql-results+json"),
        ("text/csv;q=0.5, application/sparql-results+xml", "application/sparql-results+xml"),
        ("*/*", "application/sparql-results+json"),
    ],
)
def test_select_results_by_accept(client: httpx.Client, accept: str, content_type: str) -> None:
    response = client.get("/sparql", params={"query": NAMES}, headers={"Accept": accept})
    assert response.status_code == 200
    assert response.headers["content-type"].split(";")[0] == content_type
    assert "accept" in response.headers["vary"].lower()
    if content_type == "text/csv":
        rows = list(csv.reader(io.StringIO(response.text)))
        assert rows[0] == ["person", "name"] and len(rows) == 12
    else:
        fmt = ox.QueryResultsFormat.from_media_type(content_type)
        solutions = list(ox.parse_query_results(response.content, format=fmt))  # type: ignore[arg-type]
        assert len(solutions) == 11
        assert {s["name"].value for s in solutions} >= {"Horace He"}


@pytest.mark.parametrize(
    "accept", ["text/turtle", "application/n-triples", "application/ld+json", "application/rdf+xml"]
)
def test_construct_and_describe_results_by_accept(client: httpx.Client, accept: str) -> None:
    construct = "CONSTRUCT { ?p schema:name ?n } WHERE { ?p a kgp:Person ; kgp:name ?n }"
    for query in (construct, f"DESCRIBE <{HORACE}>"):
        response = client.post("/sparql", data={"query": query}, headers={"Accept": accept})
        assert response.status_code == 200, response.text
        assert response.headers["content-type"].split(";")[0] == accept
        assert HORACE in subjects(response.content, accept)


def test_ask_in_json_and_xml(client: httpx.Client) -> None:
    query = f"ASK {{ <{HORACE}> kgp:name 'Horace He' }}"
    as_json = client.get("/sparql", params={"query": query}, headers={"Accept": "application/sparql-results+json"})
    assert as_json.json() == {"head": {}, "boolean": True}
    as_xml = client.get("/sparql", params={"query": query}, headers={"Accept": "application/sparql-results+xml"})
    assert bool(ox.parse_query_results(as_xml.content, format=ox.QueryResultsFormat.XML)) is True


def test_a_client_that_accepts_nothing_we_offer_gets_the_default_form(client: httpx.Client) -> None:
    response = client.get(
        "/sparql",
        params={"query": "CONSTRUCT WHERE { ?s kgp:name ?n }"},
        headers={"Accept": "application/sparql-results+xml"},
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/turtle")


def test_a_malformed_query_gets_400_with_the_parsers_message(client: httpx.Client) -> None:
    response = client.get("/sparql", params={"query": "SELECT ?x WHERE {\n  ?x kgp:name \n"})
    assert response.status_code == 400
    assert response.text.startswith("line 3, column 1:")
    assert "expected" in response.text


def test_protocol_errors(client: httpx.Client) -> None:
    assert client.put("/sparql", params={"query": "ASK {}"}).status_code == 405
    assert client.post("/sparql", content="ASK {}", headers={"Content-Type": "text/plain"}).status_code == 415
    both = client.post("/sparql", data={"query": "ASK {}", "update": "CLEAR ALL"})
    assert both.status_code == 400 and "both" in both.text
    assert client.get("/sparql", params=[("query", "ASK {}"), ("query", "ASK {}")]).status_code == 400
    assert client.get("/sparql", params={"query": "ASK {}", "default-graph-uri": "not an iri"}).status_code == 400


def test_updates_are_refused_read_only(client: httpx.Client) -> None:
    for response in (
        client.post("/sparql", data={"update": "CLEAR ALL"}),
        client.post("/sparql", content="CLEAR ALL", headers={"Content-Type": "application/sparql-update"}),
        client.post(
            "/sparql",
            content="CLEAR ALL",
            headers={"Content-Type": "application/sparql-update", "Authorization": f"Bearer {TOKEN}"},
        ),
    ):
        assert response.status_code == 403
        assert "read-only" in response.text
    assert names_from_json(client.get("/sparql", params={"query": NAMES}))  # still all there


def test_service_is_refused(client: httpx.Client) -> None:
    response = client.get(
        "/sparql", params={"query": "SELECT * WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }"}
    )
    assert response.status_code == 403
    assert "SERVICE is not allowed" in response.text


def test_the_protocol_dataset_overrides_the_union(client: httpx.Client) -> None:
    graph = "https://w3id.org/kgprofiles/graph/file/people/horace-he.ttl"
    query = "SELECT (COUNT(DISTINCT ?p) AS ?n) WHERE { ?p a kgp:Person }"
    everyone = client.get("/sparql", params={"query": query}).json()["results"]["bindings"][0]["n"]["value"]
    one_file = client.get("/sparql", params={"query": query, "default-graph-uri": graph})
    assert (everyone, one_file.json()["results"]["bindings"][0]["n"]["value"]) == ("11", "1")
    named = client.get(
        "/sparql", params={"query": "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }", "named-graph-uri": graph}
    )
    assert [b["g"]["value"] for b in named.json()["results"]["bindings"]] == [graph]


def test_from_in_the_query_reads_only_that_graph(client: httpx.Client) -> None:
    graph = "https://w3id.org/kgprofiles/graph/file/people/horace-he.ttl"
    counted = "SELECT (COUNT(DISTINCT ?p) AS ?n) {} WHERE {{ ?p a kgp:Person }}"
    one_file = client.get("/sparql", params={"query": counted.format(f"FROM <{graph}>")})
    named_only = client.get("/sparql", params={"query": counted.format(f"FROM NAMED <{graph}>")})
    values = [r.json()["results"]["bindings"][0]["n"]["value"] for r in (one_file, named_only)]
    assert values == ["1", "0"]


def test_the_row_limit_says_it_was_hit(settings: Settings, disk_seed_store: OxigraphStore) -> None:
    with serving(create_app(settings, disk_seed_store, max_rows=5)) as url:
        too_many = httpx.get(f"{url}/sparql", params={"query": NAMES})
        assert too_many.status_code == 422
        assert too_many.headers["x-kgprofiles-limit"] == "rows"
        assert "row limit hit" in too_many.text and "more than 5 rows" in too_many.text
        assert httpx.get(f"{url}/sparql", params={"query": NAMES + " LIMIT 5"}).status_code == 200
        triples = httpx.get(f"{url}/sparql", params={"query": "CONSTRUCT WHERE { ?s ?p ?o }"})
        assert triples.status_code == 422


#: 200 rows of about 13 KB each, made by the query (CONCAT doubling a subject's IRI eight times).
LONG_VALUES = (
    "SELECT ?x8 WHERE { ?s ?p ?o BIND (STR(?s) AS ?x0) "
    + " ".join(f"BIND (CONCAT(?x{i}, ?x{i}) AS ?x{i + 1})" for i in range(8))
    + " } LIMIT 200"
)


@pytest.mark.parametrize("accept", ["application/sparql-results+json", "text/csv", "text/html"])
def test_the_size_limit_says_it_was_hit(settings: Settings, disk_seed_store: OxigraphStore, accept: str) -> None:
    """``[kgprofiles.limits] max_answer_bytes`` (here 1 MiB): a few rows of long values the query
    makes are refused, whatever the format asked for, before the server holds them; smaller
    answers pass."""
    small = settings.with_overrides(limits=dataclasses.replace(settings.limits, max_answer_bytes=2**20))
    with serving(create_app(small, disk_seed_store)) as url:
        too_large = httpx.get(f"{url}/sparql", params={"query": LONG_VALUES}, headers={"Accept": accept})
        assert too_large.status_code == 422, too_large.text[:300]
        assert too_large.headers["x-kgprofiles-limit"] == "size" and "retry-after" not in too_large.headers
        assert "size limit hit: the answer is larger than 1 MiB" in too_large.text
        fewer = httpx.get(f"{url}/sparql", params={"query": LONG_VALUES.replace("LIMIT 200", "LIMIT 20")})
        assert fewer.status_code == 200 and len(fewer.json()["results"]["bindings"]) == 20


@pytest.mark.parametrize(
    "query",
    [
        "SELECT * WHERE { ?a ?p ?x . ?b ?q ?y }",  # streams: stopped between rows
        "SELECT (COUNT(*) AS ?c) WHERE { ?a ?p ?x . ?b ?q ?y FILTER (STR(?x) < STR(?y)) }",  # one slow row
    ],
)
def test_the_time_limit_says_it_was_hit(settings: Settings, disk_seed_store: OxigraphStore, query: str) -> None:
    with serving(create_app(settings, disk_seed_store, query_timeout=0.1, max_rows=100_000_000)) as url:
        started = time.monotonic()
        response = httpx.get(f"{url}/sparql", params={"query": query}, timeout=30)
        assert response.status_code == 503, response.text[:200]
        assert response.headers["x-kgprofiles-limit"] == "time" and response.headers["retry-after"] == "2"
        assert "time limit hit" in response.text and "0.1 s" in response.text
        assert time.monotonic() - started < 5


def test_service_description_in_turtle(client: httpx.Client) -> None:
    response = client.get("/sparql", headers={"Accept": "text/turtle"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/turtle")
    graph = Graph().parse(data=response.text, format="turtle")
    service = URIRef(str(client.base_url) + "/sparql")
    assert (service, SD.endpoint, service) in graph
    assert (service, SD.supportedLanguage, SD.SPARQL11Query) in graph
    assert (service, SD.supportedLanguage, SD.SPARQL11Update) not in graph
    names = set(graph.objects(None, SD.name))
    assert URIRef("https://w3id.org/kgprofiles/graph/inferred") in names
    for media_type in ("application/rdf+xml", "application/ld+json", "application/n-triples"):
        other = client.get("/sparql", headers={"Accept": media_type})
        assert other.status_code == 200 and other.headers["content-type"].startswith(media_type)
        assert str(service) in subjects(other.content, media_type)


def test_the_editor_page_is_served_without_a_cdn(client: httpx.Client, settings: Settings) -> None:
    if find_editor(settings.root) is None:
        pytest.fail("YASGUI is not installed: run tools/install-test-deps.sh (npm ci)")
    page = client.get("/sparql", headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    html = page.text
    assert "/static/yasgui/yasgui.min.js" in html and "/static/editor.js" in html
    for external in ("cdn", "unpkg", "jsdelivr", "googleapis"):
        assert external not in html
    config = json.loads(html.split('id="sparql-config">', 1)[1].split("</script>", 1)[0])
    assert config["prefixes"]["kgp"] == "https://w3id.org/kgprofiles/ontology#"
    names = [e["name"] for e in config["examples"]]
    assert names[0] == "people" and {"person", "related-topics", "org-members"} <= set(names)
    person = next(e for e in config["examples"] if e["name"] == "person")["query"]
    assert "PREFIX kgp: <https://w3id.org/kgprofiles/ontology#>" in person and "VALUES (?person)" in person
    script = client.get("/static/yasgui/yasgui.min.js")
    assert script.status_code == 200 and len(script.content) > 100_000


def test_every_example_runs(client: httpx.Client) -> None:
    page = client.get("/sparql", headers={"Accept": "text/html"}).text
    config = json.loads(page.split('id="sparql-config">', 1)[1].split("</script>", 1)[0])
    for example in config["examples"]:
        response = client.post("/sparql", data={"query": example["query"]})
        assert response.status_code == 200, (example["name"], response.text)


def test_updates_with_the_write_token(writable: httpx.Client) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    inserted = writable.post(
        "/sparql", data={"update": "INSERT DATA { GRAPH <urn:g> { <urn:s> kgp:name 'S' } }"}, headers=auth
    )
    assert inserted.status_code == 204, inserted.text
    based = writable.post(
        "/sparql",
        content="INSERT DATA { GRAPH <urn:g> { <urn:s> <urn:p> <relative> } }",
        headers={**auth, "Content-Type": "application/sparql-update"},
    )
    assert based.status_code == 204
    rows = writable.get("/sparql", params={"query": "SELECT ?o WHERE { <urn:s> <urn:p> ?o }"}).json()
    assert rows["results"]["bindings"][0]["o"]["value"] == str(writable.base_url) + "/relative"
    bad = writable.post("/sparql", data={"update": "CLEAR XYZ"}, headers=auth)
    assert bad.status_code == 400 and "line 1" in bad.text
    load = writable.post("/sparql", data={"update": "LOAD <http://127.0.0.1:9/data.ttl>"}, headers=auth)
    assert load.status_code == 403 and "LOAD is not allowed" in load.text
    description = Graph().parse(data=writable.get("/sparql", headers={"Accept": "text/turtle"}).text, format="turtle")
    assert (None, SD.supportedLanguage, SD.SPARQL11Update) in description


def test_without_yasgui_the_editor_page_is_a_plain_form(settings: Settings, seed_store, tmp_path) -> None:
    with serving(create_app(settings, seed_store, editor_dir=tmp_path)) as url:  # in memory: no workers
        page = httpx.get(f"{url}/sparql", headers={"Accept": "text/html"})
        assert page.status_code == 200
        assert "npm ci" in page.text and '<textarea name="query"' in page.text and "yasgui.min.js" not in page.text
        assert httpx.get(f"{url}/static/yasgui/yasgui.min.js").status_code == 404


def test_a_browser_without_javascript_gets_a_results_page(client: httpx.Client) -> None:
    browser = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
    page = client.get("/sparql", params={"query": NAMES}, headers=browser)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert '<a href="/id/person/horace-he">person:horace-he</a>' in page.text and "11 rows" in page.text
    assert "<textarea" in page.text and "?person a kgp:Person" in page.text
    ask = client.get("/sparql", params={"query": "ASK { ?s kgp:name 'Horace He' }"}, headers=browser)
    assert "The answer is <strong>yes</strong>" in ask.text
    graph = client.get("/sparql", params={"query": "CONSTRUCT WHERE { person:horace-he kgp:name ?n }"}, headers=browser)
    assert "<th>subject</th>" in graph.text and "Horace He" in graph.text


def test_pages_follow_updates_on_a_writable_site(writable: httpx.Client) -> None:
    def people() -> int:
        return int(writable.get("/").text.split("</strong> people", 1)[0].rsplit("<strong>", 1)[1])

    before = people()
    update = "INSERT DATA { GRAPH <urn:people> { <urn:p:new> a kgp:Person ; kgp:name 'New Person' } }"
    assert (
        writable.post("/sparql", data={"update": update}, headers={"Authorization": f"Bearer {TOKEN}"}).status_code
        == 204
    )
    assert people() == before + 1
    assert "New Person" in writable.get("/people").text


def test_a_graph_asked_for_as_application_json_is_json_ld(client: httpx.Client) -> None:
    """A regression: this answered 500 (a KeyError) before."""
    response = client.get(
        "/sparql",
        params={"query": "CONSTRUCT WHERE { person:horace-he kgp:name ?n }"},
        headers={"Accept": "application/json"},
    )
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/ld+json")
    assert "Horace He" in response.text


def test_deep_nesting_is_refused_before_the_engine(client: httpx.Client) -> None:
    response = client.get("/sparql", params={"query": "SELECT * WHERE " + "{" * 3000 + "}" * 3000})
    assert response.status_code == 400 and "nests brackets 3000 levels deep" in response.text
    assert names_from_json(client.get("/sparql", params={"query": NAMES}))  # still serving


def test_escaped_service_and_from_outside_the_store_are_refused(client: httpx.Client) -> None:
    for query in (
        "PREFIX ex: <http://x\\u0041#> SELECT * { SERVICE <http://127.0.0.1:9/x> { ?x ?p ?o } }",
        "SELECT * { \\u0053ERVICE <http://127.0.0.1:9/x> { ?x ?p ?o } }",
        "SELECT * FROM <http://127.0.0.1:9/remote.ttl> { ?s ?p ?o }",
    ):
        response = client.get("/sparql", params={"query": query})
        assert response.status_code == 403, (query, response.text)
    graph = "https://w3id.org/kgprofiles/graph/file/people/horace-he.ttl"
    local = client.get("/sparql", params={"query": f"SELECT (COUNT(*) AS ?n) FROM <{graph}> {{ ?s ?p ?o }}"})
    assert local.status_code == 200 and int(local.json()["results"]["bindings"][0]["n"]["value"]) > 10


def test_a_full_endpoint_answers_503_with_retry_after_at_once(
    settings: Settings, disk_seed_store: OxigraphStore
) -> None:
    one = settings.with_overrides(query_workers=1, query_queue=0)
    runaway = "SELECT (COUNT(*) AS ?n) { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
    with serving(create_app(one, disk_seed_store, query_timeout=2)) as url:
        busy = threading.Thread(target=lambda: httpx.get(f"{url}/sparql", params={"query": runaway}, timeout=30))
        busy.start()
        time.sleep(0.5)
        started = time.monotonic()
        refused = httpx.get(f"{url}/sparql", params={"query": "ASK {}"}, timeout=30)
        assert refused.status_code == 503 and refused.headers["x-kgprofiles-limit"] == "busy"
        assert refused.headers["retry-after"] == "2" and "the server is busy" in refused.text
        assert time.monotonic() - started < 1.0
        busy.join(10)
        assert httpx.get(f"{url}/sparql", params={"query": "ASK {}"}, timeout=30).status_code == 200


def test_an_update_while_another_process_writes_the_store_is_answered_503_within_the_time_limit(
    settings: Settings, tmp_path
) -> None:
    """An update sent to a server over a published store while another process (a `kgprofiles
    build`) holds the writer lock: the request waited for it without end and without a word (the
    client timed out, and the update was published later anyway; Ctrl-C could not stop the
    server while it waited). It waits up to the query time limit, then gets 503 naming the
    writer, with Retry-After, and nothing is written."""
    from kgprofiles.store import generations
    from kgprofiles.store.writer import GenerationWriter

    link = tmp_path / "store"
    with GenerationWriter(link) as writer:
        fresh = writer.fresh()
        fresh.update("INSERT DATA { GRAPH <urn:g> { <urn:a> <urn:b> 'c' } }")
        published = writer.publish(fresh)
    store = OxigraphStore(link, read_only=True)
    app = create_app(settings, store, write_token=TOKEN, query_timeout=1)
    try:
        with serving(app) as url, httpx.Client(base_url=url, timeout=20) as c:
            with GenerationWriter(link, command="kgprofiles build"):
                started = time.monotonic()
                answer = c.post(
                    "/sparql",
                    data={"update": "INSERT DATA { GRAPH <urn:g> { <urn:x> <urn:y> 'z' } }"},
                    headers={"Authorization": f"Bearer {TOKEN}"},
                )
                waited = time.monotonic() - started
            assert answer.status_code == 503, answer.text
            assert "kgprofiles build" in answer.text and "Retry-After" in answer.headers
            assert 1 <= waited < 10
    finally:
        store.close()
    assert generations.current(link) == published
