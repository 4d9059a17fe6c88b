"""Content negotiation on /id/… (every Accept combination, malformed headers, RDF/XML and
N-Quads, RDF/XML only where the data allows it) and CORS for the read-only endpoints (off by
default, per origin or *, preflight, never for updates), over HTTP from a real server."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from rdflib import Graph
from rdflib.compare import isomorphic
from typer.testing import CliRunner

from kgprofiles.cli import app as cli
from kgprofiles.config import Settings
from kgprofiles.errors import InputError
from kgprofiles.store.oxigraph import OxigraphStore
from kgprofiles.vocab import DEFAULT_BASE_IRI as ID
from kgprofiles.vocab import FILE_GRAPH_PREFIX
from kgprofiles.web import create_app
from kgprofiles.web.cors import check_origins
from kgprofiles.web.negotiation import choose
from kgprofiles.web.resources import OFFERS
from web.server import serving

PERSON = "/id/person/horace-he"
NOTEBOOK = "https://notebook.example.org"
TOKEN = "token"

# --------------------------------------------------------------------------- choosing a form

ACCEPT = [
    (None, "text/html"),
    ("", "text/html"),
    ("*/*", "text/html"),
    ("text/*", "text/html"),
    ("application/*", "application/ld+json"),  # not the page: xhtml is offered only by name
    ("application/xhtml+xml", "application/xhtml+xml"),
    ("application/rdf+xml", "application/rdf+xml"),
    ("application/n-quads", "application/n-quads"),
    ("text/turtle;q=0.5, application/n-triples;q=0.9", "application/n-triples"),
    ("*/*;q=0.1, text/turtle", "text/turtle"),
    ("text/turtle;q=0, */*", "text/html"),
    ("text/html;q=0, */*;q=0.5", "text/turtle"),  # the server's next preference
    ("text/*;q=0.5, application/*", "application/ld+json"),
    ("application/*;q=0.9, text/turtle;q=0.95", "text/turtle"),
    ("application/*, application/ld+json;q=0", "application/n-triples"),  # the exact range decides
    ("TEXT/TURTLE", "text/turtle"),
    ("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "text/html"),  # a browser
    ("image/png", None),
    ("text/turtle;q=0", None),
    # malformed: a range that cannot be read is left out, as if not sent
    ("text", "text/html"),
    ("/", "text/html"),
    (",,,;;;", "text/html"),
    ("*/turtle", "text/html"),
    ("text/turtle;q=2", "text/html"),
    ("text/turtle;q=abc, application/n-triples", "application/n-triples"),
    ("text/turtle;q=nan, image/png", None),
    ("text/turtle;q=-1, application/n-triples;q=0.001", "application/n-triples"),
    ("text/turtle;q=0.5;q=1, application/n-triples;q=0.6", "application/n-triples"),  # the first q counts
    ("text/tur\x00tle", "text/html"),
    ("text/turtle" + ";a=b" * 2000, "text/turtle"),
    ("image/png, " * 5000 + "text/turtle", None),  # ranges beyond the 64th are not read
]


@pytest.mark.parametrize(("accept", "expected"), ACCEPT)
def test_the_form_chosen_for_each_accept_header(accept: str | None, expected: str | None) -> None:
    assert choose(accept, OFFERS) == expected


# --------------------------------------------------------------------------- over HTTP


@pytest.fixture(scope="module")
def client(settings: Settings, seed_store) -> Iterator[httpx.Client]:
    with serving(create_app(settings, seed_store)) as url, httpx.Client(base_url=url, timeout=30) as c:
        yield c


@pytest.mark.parametrize(("accept", "expected"), [a for a in ACCEPT if "\x00" not in (a[0] or "")])
def test_id_answers_what_was_chosen(client: httpx.Client, accept: str | None, expected: str | None) -> None:
    response = client.get(PERSON, headers={} if accept is None else {"Accept": accept})
    if expected is None:
        assert response.status_code == 406 and "application/rdf+xml" in response.text
        return
    assert response.status_code == 200
    served = {"application/xhtml+xml": "text/html"}.get(expected, expected)
    assert response.headers["content-type"].split(";")[0] == served
    assert response.headers["vary"] == "Accept"


def test_rdfxml_and_nquads_hold_the_same_graph_as_turtle(client: httpx.Client) -> None:
    turtle = Graph().parse(data=client.get(PERSON + ".ttl").text, format="turtle")
    rdfxml = client.get(PERSON + ".rdf")
    assert rdfxml.headers["content-type"] == "application/rdf+xml; charset=utf-8"
    assert isomorphic(Graph().parse(data=rdfxml.content, format="xml"), turtle)
    nquads = client.get(PERSON, headers={"Accept": "application/n-quads"})
    assert nquads.headers["content-location"] == PERSON + ".nq"
    assert isomorphic(Graph().parse(data=nquads.text, format="nt"), turtle)
    assert len(turtle) > 50
    for kind in ("organization/pytorch", "work/flexattention"):
        assert client.get(f"/id/{kind}", headers={"Accept": "application/rdf+xml"}).status_code == 200


@pytest.fixture(scope="module")
def odd_client(settings: Settings) -> Iterator[httpx.Client]:
    """A resource whose property cannot be written in RDF/XML (its IRI ends in a slash)."""
    store = OxigraphStore("memory:")
    store.update(
        f"""INSERT DATA {{ GRAPH <{FILE_GRAPH_PREFIX}odd.ttl> {{
            <{ID}work/odd> <http://example.org/p/> "x" ; <http://example.org/name> "Odd" . }} }}"""
    )
    with serving(create_app(settings, store)) as url, httpx.Client(base_url=url, timeout=30) as c:
        yield c


def test_rdfxml_only_where_the_data_allows_it(odd_client: httpx.Client) -> None:
    assert odd_client.get("/id/work/odd.ttl").status_code == 200
    by_suffix = odd_client.get("/id/work/odd.rdf")
    assert by_suffix.status_code == 406 and "does not end in an XML name" in by_suffix.text
    assert odd_client.get("/id/work/odd", headers={"Accept": "application/rdf+xml"}).status_code == 406
    fallback = odd_client.get("/id/work/odd", headers={"Accept": "application/rdf+xml, text/turtle;q=0.5"})
    assert fallback.status_code == 200 and fallback.headers["content-location"] == "/id/work/odd.ttl"


# --------------------------------------------------------------------------- CORS


@pytest.fixture(scope="module")
def shared(settings: Settings) -> Iterator[httpx.Client]:
    """A writable in-memory graph served with CORS for one origin, and the write token."""
    store = OxigraphStore("memory:")
    store.update(f"INSERT DATA {{ GRAPH <{FILE_GRAPH_PREFIX}a.ttl> {{ <{ID}topic/a> <{ID}n> 'A' }} }}")
    app = create_app(settings, store, write_token=TOKEN, cors=[NOTEBOOK])
    with serving(app) as url, httpx.Client(base_url=url, timeout=30) as c:
        yield c


def cors_of(response: httpx.Response) -> str | None:
    return response.headers.get("access-control-allow-origin")


def test_no_cors_by_default(client: httpx.Client) -> None:
    for path in ("/sparql?query=ASK%7B%7D", PERSON, "/api/search?q=pytorch"):
        assert cors_of(client.get(path, headers={"Origin": NOTEBOOK})) is None
    preflight = client.options("/sparql", headers={"Origin": NOTEBOOK, "Access-Control-Request-Method": "POST"})
    assert cors_of(preflight) is None


def test_cors_for_the_read_only_endpoints_of_an_allowed_origin(shared: httpx.Client) -> None:
    origin = {"Origin": NOTEBOOK}
    query = shared.get("/sparql", params={"query": "ASK {}"}, headers={**origin, "Accept": "application/json"})
    assert query.status_code == 200 and cors_of(query) == NOTEBOOK and "Origin" in query.headers["vary"]
    posted = shared.post("/sparql", data={"query": "ASK {}"}, headers=origin)
    assert posted.status_code == 200 and cors_of(posted) == NOTEBOOK
    assert cors_of(shared.get("/id/topic/a", headers={**origin, "Accept": "text/turtle"})) == NOTEBOOK
    assert cors_of(shared.get("/api/search?q=a", headers=origin)) == NOTEBOOK
    for path in ("/", "/downloads", "/static/style.css"):  # pages keep the same-origin rule
        assert cors_of(shared.get(path, headers=origin)) is None
    other = shared.get("/sparql", params={"query": "ASK {}"}, headers={"Origin": "https://evil.example"})
    assert other.status_code == 200 and cors_of(other) is None


def test_never_for_updates(shared: httpx.Client) -> None:
    headers = {"Origin": NOTEBOOK, "Authorization": f"Bearer {TOKEN}"}
    update = f"INSERT DATA {{ GRAPH <{FILE_GRAPH_PREFIX}b.ttl> {{ <{ID}topic/b> <{ID}n> 'B' }} }}"
    done = shared.post("/sparql", data={"update": update}, headers=headers)
    assert done.status_code == 204 and cors_of(done) is None
    refused = shared.post("/sparql", content=update, headers={**headers, "Content-Type": "application/sparql-update"})
    assert cors_of(refused) is None
    # the preflight of a request carrying the token is not allowed, so a browser never sends one
    asked = {"Origin": NOTEBOOK, "Access-Control-Request-Method": "POST"}
    with_token = shared.options("/sparql", headers={**asked, "Access-Control-Request-Headers": "authorization"})
    assert with_token.status_code == 204 and cors_of(with_token) is None


def test_the_preflight(shared: httpx.Client) -> None:
    asked = {
        "Origin": NOTEBOOK,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
    }
    allowed = shared.options("/sparql", headers=asked)
    assert allowed.status_code == 204 and cors_of(allowed) == NOTEBOOK
    assert allowed.headers["access-control-allow-methods"] == "GET, POST"
    assert allowed.headers["access-control-allow-headers"] == "Accept, Content-Type"
    assert "access-control-allow-credentials" not in allowed.headers
    for path, method in ((PERSON, "POST"), ("/sparql", "DELETE"), ("/downloads", "GET")):
        refused = shared.options(path, headers={**asked, "Access-Control-Request-Method": method})
        assert cors_of(refused) is None, (path, method)
    stranger = shared.options("/sparql", headers={**asked, "Origin": "https://evil.example"})
    assert cors_of(stranger) is None


def test_any_origin(settings: Settings, seed_store) -> None:
    with serving(create_app(settings, seed_store, cors=["*"])) as url:
        answer = httpx.get(url + PERSON, headers={"Origin": "https://anywhere.example", "Accept": "text/turtle"})
    assert cors_of(answer) == "*" and "Origin" not in answer.headers.get("vary", "")


@pytest.mark.parametrize(
    "origin", ["https://x.example/", "https://x.example/path", "x.example", "https://*.example", "null", "ftp://x", ""]
)
def test_what_is_not_an_origin(origin: str) -> None:
    with pytest.raises(InputError, match="is not an origin"):
        check_origins([origin])


def test_serve_refuses_a_bad_origin(settings: Settings) -> None:
    result = CliRunner().invoke(cli, ["serve", "--store", "memory:", "--port", "0", "--cors", "https://x.example/"])
    assert result.exit_code == 2 and "is not an origin" in result.output
