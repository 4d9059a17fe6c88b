"""Answers from a remote SPARQL server are untrusted input.

Issue 14: a 927-byte RDF/XML entity bomb sent as a CONSTRUCT answer grew the client to 8 GB. A
fake server on 127.0.0.1 sends it (and an XML results bomb, and answers too long to read): each is
a RemoteError at once, and the client's memory stays small.
"""

from __future__ import annotations

import contextlib
import http.server
import threading
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import pyoxigraph as ox
import pytest

from kgprofiles.errors import RemoteError
from kgprofiles.store.base import SelectResult
from kgprofiles.store.remote import RemoteStore
from kgprofiles.store.server_kinds import KINDS

#: The billion laughs: ten entities, each ten of the one before; &lol9; is 10⁹ "lol"s (3 GB).
ENTITIES = '<!ENTITY lol "lol">' + "".join(
    f'<!ENTITY lol{i} "{("&lol;" if i == 1 else f"&lol{i - 1};") * 10}">' for i in range(1, 10)
)
RDF_XML_BOMB = f"""<?xml version="1.0"?>
<!DOCTYPE lolz [{ENTITIES}]>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://example.org/">
<rdf:Description rdf:about="http://example.org/s"><ex:p>&lol9;</ex:p></rdf:Description></rdf:RDF>""".encode()
RESULTS_XML_BOMB = f"""<?xml version="1.0"?>
<!DOCTYPE lolz [{ENTITIES}]>
<sparql xmlns="http://www.w3.org/2005/sparql-results#"><head><variable name="x"/></head>
<results><result><binding name="x"><literal>&lol9;</literal></binding></result></results></sparql>""".encode()


@dataclass
class Answer:
    content_type: str
    body: bytes
    declared_length: int | None = None  # a Content-Length other than the body's
    sends_length: bool = True  # without, the body ends when the connection closes
    status: int = 200


@dataclass
class FakeServer:
    """What the fake SPARQL server answers to a query (every POST), and what it was asked."""

    answer: Answer
    url: str = ""
    accepts: list[str] = field(default_factory=list)
    #: If set: the answer to each query text (else ``answer`` to every request).
    route: Callable[[str], Answer] | None = None


@pytest.fixture
def fake() -> Iterator[FakeServer]:
    state = FakeServer(Answer("text/plain", b""))

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            state.accepts.append(self.headers.get("Accept", ""))
            query = urllib.parse.parse_qs(body.decode()).get("query", [""])[0]
            answer = state.route(query) if state.route is not None else state.answer
            self.send_response(answer.status)
            self.send_header("Content-Type", answer.content_type)
            if answer.sends_length:
                length = answer.declared_length if answer.declared_length is not None else len(answer.body)
                self.send_header("Content-Length", str(length))
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client may stop reading
                self.wfile.write(answer.body)

        do_GET = do_POST  # the Graph Store Protocol's reads

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/query"
    yield state
    server.shutdown()
    server.server_close()


def peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM in /proc/self/status")


@pytest.fixture
def memory_stays_small() -> Iterator[None]:
    Path("/proc/self/clear_refs").write_text("5")  # reset the peak: the next one is this test's
    before = peak_rss_mb()
    yield
    assert peak_rss_mb() - before < 200


def test_rdf_xml_is_never_asked_for(fake: FakeServer) -> None:
    fake.answer = Answer("application/n-triples", b'<http://example.org/s> <http://example.org/p> "1" .\n')

    triples = RemoteStore(fake.url).query("CONSTRUCT WHERE { ?s ?p ?o }")

    assert len(triples) == 1  # type: ignore[arg-type]
    assert "rdf+xml" not in fake.accepts[0]
    assert fake.accepts[0].startswith("application/n-triples")


def test_an_rdf_xml_entity_bomb_is_refused(fake: FakeServer, memory_stays_small: None) -> None:
    fake.answer = Answer("application/rdf+xml", RDF_XML_BOMB)

    with pytest.raises(RemoteError, match="answered with RDF/XML, which kgprofiles does not read from a server"):
        RemoteStore(fake.url).query("CONSTRUCT WHERE { ?s ?p ?o }")

    assert len(RDF_XML_BOMB) < 1000


def test_a_graph_store_answer_in_rdf_xml_is_refused(fake: FakeServer, memory_stays_small: None) -> None:
    fake.answer = Answer("application/rdf+xml", RDF_XML_BOMB)

    with pytest.raises(RemoteError, match="answered with RDF/XML"):
        list(RemoteStore(fake.url).quads("http://example.org/graph"))

    assert "rdf+xml" not in fake.accepts[0]


def test_an_xml_results_entity_bomb_is_refused(fake: FakeServer, memory_stays_small: None) -> None:
    fake.answer = Answer("application/sparql-results+xml", RESULTS_XML_BOMB)

    with pytest.raises(RemoteError, match="XML results with a DOCTYPE or ENTITY declaration, refused unread"):
        RemoteStore(fake.url).query("SELECT ?x WHERE { ?x ?p ?o }")


def test_plain_xml_results_are_still_read(fake: FakeServer) -> None:
    fake.answer = Answer(
        "application/sparql-results+xml",
        b'<?xml version="1.0"?><sparql xmlns="http://www.w3.org/2005/sparql-results#"><head>'
        b'<variable name="x"/></head><results><result><binding name="x"><literal>lol</literal></binding>'
        b"</result></results></sparql>",
    )

    result = RemoteStore(fake.url).query("SELECT ?x WHERE { ?x ?p ?o }")

    assert [row["x"].value for row in result] == ["lol"]  # type: ignore[union-attr]


def test_an_answer_over_the_size_limit_is_refused(fake: FakeServer, memory_stays_small: None) -> None:
    """Read a chunk at a time, and stopped past the limit (the server does not say the length)."""
    row = b'{"x": {"type": "literal", "value": "' + b"x" * 1000 + b'"}}'
    body = b'{"head": {"vars": ["x"]}, "results": {"bindings": [' + b", ".join([row] * 2000) + b"]}}"
    fake.answer = Answer("application/sparql-results+json", body, sends_length=False)

    with pytest.raises(RemoteError, match="sent an answer of more than 1,000,000 bytes, over the 1,000,000-byte"):
        RemoteStore(fake.url, max_answer_bytes=1_000_000).query("SELECT ?x WHERE { ?x ?p ?o }")
    assert len(RemoteStore(fake.url).query("SELECT ?x WHERE { ?x ?p ?o }")) == 2000  # type: ignore[arg-type]


def test_an_answer_that_says_it_is_too_long_is_not_read(fake: FakeServer) -> None:
    fake.answer = Answer("application/sparql-results+json", b"{}", declared_length=10**12)

    with pytest.raises(RemoteError, match="sent an answer of 1,000,000,000,000 bytes, over the 200,000,000-byte"):
        RemoteStore(fake.url).query("SELECT ?x WHERE { ?x ?p ?o }")


def test_a_json_answer_with_a_key_after_bindings_is_read(fake: FakeServer) -> None:
    """Comunica's SPARQL server puts keys after ``bindings``; pyoxigraph's parser refuses them."""
    fake.answer = Answer(
        "application/sparql-results+json",
        b'{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": {"type": "uri", "value": "http://example.org/a"}}]},'
        b' "metadata": {"httpRequests": 1}}',
    )
    result = RemoteStore(fake.url).query("SELECT ?x WHERE { ?x ?p ?o }")
    assert isinstance(result, SelectResult) and result.rows == ({"x": ox.NamedNode("http://example.org/a")},)


def test_an_update_too_large_for_one_virtuoso_transaction_says_which_setting(fake: FakeServer) -> None:
    """What Virtuoso answered when a build of 10,000 people moved its 1.35 M-triple inferred graph."""
    fake.answer = Answer(
        "text/plain",
        b"Virtuoso 40005 Error SR325: Transaction aborted because it's log after image size went above the limit",
        status=500,
    )
    store = RemoteStore(fake.url)
    with pytest.raises(RemoteError) as raised:
        store.update("INSERT DATA { <http://example.org/s> <http://example.org/p> 1 }")
    assert "SR325" in raised.value.message
    assert "TransactionAfterImageLimit" in (raised.value.hint or "")


def test_an_error_page_in_html_is_told_as_its_text_with_no_terminal_escapes(fake: FakeServer) -> None:
    """Virtuoso's Graph Store answers its errors as HTML pages; a hostile server may put terminal
    escapes in a message. The user reads the page's text, the escapes made harmless."""
    fake.answer = Answer(
        "text/html",
        b"<!DOCTYPE html><html><head><title>T</title><style>p {}</style></head><body><h3>Error 40005</h3>"
        b"<p>SR325: Transaction aborted &amp; \x1b[2J\x1b]0;owned\x07 cleared</p></body></html>",
        status=500,
    )
    with pytest.raises(RemoteError) as raised:
        RemoteStore(fake.url).update("INSERT DATA { <http://example.org/s> <http://example.org/p> 1 }")
    message = raised.value.message
    assert message.endswith("Error 40005 SR325: Transaction aborted & \ufffd[2J\ufffd]0;owned\ufffd cleared")
    assert "\x1b" not in message and "\x07" not in message and "<" not in message.split(": ", 1)[1]


def test_a_graph_read_with_a_triple_twice_is_refused(fake: FakeServer) -> None:
    """A graph is a set: an answer that repeats a triple comes from pages that overlapped (and may
    have missed others while the count still added up), so it is refused, not exported."""
    row = (
        b'<result><binding name="g"><uri>http://example.org/g</uri></binding>'
        b'<binding name="s"><uri>http://example.org/s</uri></binding>'
        b'<binding name="p"><uri>http://example.org/p</uri></binding>'
        b'<binding name="o"><literal>twice</literal></binding></result>'
    )
    fake.answer = Answer(
        "application/sparql-results+xml",
        b'<?xml version="1.0"?><sparql xmlns="http://www.w3.org/2005/sparql-results#"><head>'
        b'<variable name="g"/><variable name="s"/><variable name="p"/><variable name="o"/></head><results>'
        + row * 2
        + b"</results></sparql>",
    )

    with pytest.raises(RemoteError, match="gave some triples twice"):
        list(RemoteStore(fake.url).quads("http://example.org/g"))


def xml_rows(*values: str) -> Answer:
    """SPARQL XML results of one variable ?x, a literal a row."""
    rows = b"".join(f'<result><binding name="x"><literal>{v}</literal></binding></result>'.encode() for v in values)
    return Answer(
        "application/sparql-results+xml",
        b'<?xml version="1.0"?><sparql xmlns="http://www.w3.org/2005/sparql-results#"><head>'
        b'<variable name="x"/></head><results>' + rows + b"</results></sparql>",
    )


def counted(n: int) -> Answer:
    return Answer(
        "application/sparql-results+xml",
        b'<?xml version="1.0"?><sparql xmlns="http://www.w3.org/2005/sparql-results#"><head>'
        b'<variable name="kgprofilesRows"/></head><results><result><binding name="kgprofilesRows">'
        b'<literal datatype="http://www.w3.org/2001/XMLSchema#integer">'
        + str(n).encode()
        + b"</literal></binding></result></results></sparql>",
    )


@pytest.mark.parametrize("select", ["SELECT ?x", "SELECT DISTINCT ?x"])
@pytest.mark.parametrize("second_page", [("c", "d"), ("b", "c")])
def test_unordered_pages_that_overlap_are_refused_though_their_count_adds_up(
    fake: FakeServer, select: str, second_page: tuple[str, str]
) -> None:
    """Past the rows a server sorts (Virtuoso's MaxSortedTopRows), an answer cut at the cap is
    read in pages without an order, which may overlap: pages a b, b c hold as many rows as the
    answer a b c d, and miss d. The rows read must hold as many different rows as the answer."""
    asked: list[str] = []

    def route(query: str) -> Answer:
        asked.append(query)
        if "kgprofilesRows" in query:
            return counted(4)  # rows, and different rows
        pages = {"OFFSET 0": ("a", "b"), "OFFSET 2": second_page, "OFFSET 4": ()}
        return xml_rows(*next((rows for at, rows in pages.items() if at in query), ("a", "b")))

    fake.route = route
    remote = RemoteStore(fake.url, kind=replace(KINDS["generic"], sorted_rows_limit=2), max_rows=2)
    query = f"{select} WHERE {{ ?x ?p ?o }}"
    if second_page == ("c", "d"):
        result = remote.query(query)
        assert isinstance(result, SelectResult)
        assert [row["x"].value for row in result.rows] == ["a", "b", "c", "d"]
    else:
        with pytest.raises(RemoteError, match="gave 3 different rows in unordered pages of 2 where the query has 4"):
            remote.query(query)
    assert not [q for q in asked if "ORDER BY" in q]
    assert len([q for q in asked if "COUNT(*)" in q]) == (1 if "DISTINCT" in select else 2)


def test_a_server_time_limit_says_what_to_do(fake: FakeServer) -> None:
    """Virtuoso stops a query at MaxQueryExecutionTime with a 500 and SR171 (a 10,000-person build
    met it on a machine running two servers): the message names the limit and what to do."""
    fake.answer = Answer(
        "text/plain", b"Virtuoso S1T00 Error SR171: Transaction timed out\n\nSPARQL query:\nSELECT", status=500
    )
    with pytest.raises(RemoteError, match="SR171: Transaction timed out") as raised:
        RemoteStore(fake.url, kind="virtuoso").query("SELECT * { ?s ?p ?o }")
    assert raised.value.hint is not None and "MaxQueryExecutionTime" in raised.value.hint
