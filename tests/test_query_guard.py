"""The checks every query passes before an engine sees it (store/guard.py) and the lexer they
read it with (sparql_lexer.py): nesting, SERVICE / LOAD / FROM outside the store, under every
reading of \\u escapes; and, against pyoxigraph itself, that whatever the checks let through never
reaches a canary server."""

from __future__ import annotations

import re
import socket
import sys
import threading
from collections.abc import Iterator

import pyoxigraph as ox
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kgprofiles.errors import Forbidden, QueryError
from kgprofiles.sparql_lexer import one_of, scan, tokens, unescape_java, unescape_spec
from kgprofiles.store.guard import check_query

LOCAL = "https://w3id.org/kgprofiles/graph/file/people/horace-he.ttl"


def refusal(text: str, local: tuple[str, ...] = (LOCAL,)) -> str | None:
    """The error class name and message check_query gives, or None if the text passes."""
    try:
        check_query(text, local_graphs=lambda: local)
    except QueryError as exc:
        return f"{type(exc).__name__}: {exc.message}"
    return None


# -- nesting ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "SELECT * WHERE " + "{" * 3000 + "}" * 3000,
        "SELECT * WHERE { FILTER(" + "(" * 5000 + "1" + ")" * 5000 + ") }",
        "SELECT * WHERE { ?s ?p " + "[ <urn:p> " * 3000 + "1" + " ]" * 3000 + " }",
        "SELECT * WHERE { ?s ?p " + "( " * 3000 + "1" + " )" * 3000 + " }",
        "SELECT * WHERE { BIND(" + "<<( <urn:s> <urn:p> " * 3000 + "1" + " )>>" * 3000 + " AS ?t) }",
        "INSERT DATA { GRAPH <urn:g> { <urn:s> <urn:p> " + "( " * 3000 + "1" + " )" * 3000 + " } }",
        "SELECT * WHERE " + "{" * 3000,  # unbalanced: still counted
    ],
    ids=["braces", "parentheses", "brackets", "collections", "triple-terms", "update", "unclosed"],
)
def test_deep_nesting_is_refused_before_any_parser_sees_it(text: str) -> None:
    found = refusal(text)
    assert found is not None and found.startswith("QueryError: the query nests brackets")
    assert "at most 128 are allowed" in found


def test_nesting_up_to_the_limit_passes() -> None:
    assert refusal("SELECT * WHERE " + "{" * 127 + "}" * 127) is None  # 127 groups inside WHERE's
    assert refusal("SELECT * WHERE " + "{" * 129 + "}" * 129) is not None


def test_nesting_is_counted_under_every_escape_reading() -> None:
    hidden = "SELECT * WHERE { BIND('\\u0027' AS ?x) " + "{" * 200 + "}" * 200 + " } #'"
    assert refusal(hidden) is not None


# -- fetching -----------------------------------------------------------------------------------

URL = "<http://127.0.0.1:9/x>"


@pytest.mark.parametrize(
    "text",
    [
        f"SELECT * {{ SERVICE {URL} {{ ?s ?p ?o }} }}",
        f"PREFIX ex: <http://x\\u0041#> SELECT * {{ SERVICE {URL} {{ ?x ?p ?o }} }}",  # issue 14
        f"SELECT * {{ \\u0053ERVICE {URL} {{ ?s ?p ?o }} }}",
        f"SELECT * {{ \\uuu0053ERVICE {URL} {{ ?s ?p ?o }} }}",
        f"SELECT * {{ ?s ?p ?o.SERVICE {URL} {{ ?x ?y ?z }} }}",
        f'SELECT * {{ ?s ?p "x".SERVICE {URL} {{ ?x ?y ?z }} }}',
        f"SELECT * {{ ?s ?p 1SERVICE{URL} {{ ?x ?y ?z }} }}",
        f"SELECT * {{ ?s ?p trueSERVICE{URL} {{ ?x ?y ?z }} }}",
        f"SELECT * {{ SERVICESILENT{URL} {{ ?x ?y ?z }} }}",
        f'SELECT * {{ ?s ?p "x"@enSERVICE {URL} {{ ?x ?y ?z }} }}',
        "PREFIX h: <http://127.0.0.1:9/> SELECT * { SERVICEh:x { ?x ?y ?z } }",
        f"PREFIX ex: <urn:e#> SELECT * {{ ?s ex:p\\' ?o . SERVICE {URL} {{ ?x ?y ?z }} }} #'",
        f"PREFIX ex: <urn:e#> SELECT * {{ ?s ex:p\\# ?o . SERVICE {URL} {{ ?x ?y ?z }} }}",
        f'SELECT * {{ BIND("\\u005C" AS ?q) SERVICE {URL} {{ ?x ?p ?o }} }} # "',
        f"SELECT * {{ BIND({URL} AS ?u) FILTER(1<2)SERVICE?u#>\n{{ ?x ?y ?z }} }}",
        f"PREFIX x: <urn:x#> SELECT * {{ ?a ?b ?c FILTER(?a <x:f('> ' , 1)) SERVICE {URL} {{ ?x ?p ?o }} }} # '",
        "LOAD <http://127.0.0.1:9/data.ttl>",
        "LOAD<http://127.0.0.1:9/data.ttl> INTO GRAPH <urn:g>",
        "CLEAR ALL ; \\u004cOAD <http://127.0.0.1:9/data.ttl>",
    ],
)
def test_fetching_is_refused_however_it_is_spelt(text: str) -> None:
    found = refusal(text)
    assert found is not None, text
    assert "not allowed: it would fetch a URL" in found or "cannot be checked safely" in found


@pytest.mark.parametrize(
    "text",
    [
        "SELECT * { ?s <http://example.org/service> ?o }",
        "SELECT * { ?s ?p ?o FILTER(CONTAINS(?o, 'web service; LOAD it')) }",
        "SELECT ?x { ?x schema:serviceType ?load } # SERVICE in a comment",
        "PREFIX s: <http://example.org/service#> SELECT * { ?s s:load ?o }",
        "SELECT * { VALUES (?a ?b) { (<http://a.example/#service> <http://b.example/#load>) } FILTER(?a < ?b) }",
        "SELECT * { ?s ?p ?o FILTER(?o < 3 && ?o > <http://example.org/x#y>) }",
        f"SELECT * FROM <{LOCAL}> {{ ?s ?p ?o }}",
        "SELECT * FROM NAMED <https://w3id.org/kgprofiles/graph/file/people/horace-he.ttl> { GRAPH ?g { ?s ?p ?o } }",
        "SELECT * { BIND(<<( ?s <http://x.example/#p> ?o )>> AS ?t) }",
    ],
)
def test_ordinary_queries_pass(text: str) -> None:
    assert refusal(text) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("SELECT * FROM <http://127.0.0.1:9/remote.ttl> { ?s ?p ?o }", "is not a graph of this store"),
        ("SELECT * FROM NAMED <http://127.0.0.1:9/remote.ttl> { ?s ?p ?o }", "is not a graph of this store"),
        ("PREFIX r: <http://127.0.0.1:9/> SELECT * FROM r:remote { ?s ?p ?o }", "<http://127.0.0.1:9/remote>"),
        ("SELECT * FROM <http://127.0.0.1:9/\\u0078> { ?s ?p ?o }", "<http://127.0.0.1:9/x>"),
        ("SELECT * FROMNAMED<http://127.0.0.1:9/> { ?s ?p ?o }", "runs a keyword into what follows it"),
        ("SELECT * FROM <relative.ttl> { ?s ?p ?o }", "is a relative IRI"),
        ("SELECT * FROM nowhere:g { ?s ?p ?o }", "is not declared"),
    ],
)
def test_from_outside_the_store_is_refused(text: str, expected: str) -> None:
    found = refusal(text)
    assert found is not None and expected in found


def test_allow_fetch_lets_fetching_through_but_not_deep_nesting() -> None:
    check_query(f"SELECT * {{ SERVICE {URL} {{ ?s ?p ?o }} }}", allow_fetch=True)
    check_query("SELECT * FROM <http://127.0.0.1:9/remote.ttl> {}", allow_fetch=True)
    with pytest.raises(QueryError, match="nests brackets"):
        check_query("SELECT * " + "{" * 500 + "}" * 500, allow_fetch=True)


def test_a_refused_fetch_is_forbidden_not_malformed() -> None:
    with pytest.raises(Forbidden, match="SERVICE is not allowed"):
        check_query(f"SELECT * {{ SERVICE {URL} {{ }} }}")


# -- the lexer ----------------------------------------------------------------------------------


def test_tokens_follow_the_grammars_terminals() -> None:
    text = 'PREFIX ex: <http://x\\u0041#> SELECT ?o.SERVICE 1SERVICE ex:a\\#b "s"@en-GB _:b.x # c\n}'
    kinds = [(t.kind, t.text) for t in tokens(text)]
    assert kinds == [
        ("keyword", "PREFIX"),
        ("name", "ex:"),
        ("iri", "<http://x\\u0041#>"),
        ("keyword", "SELECT"),
        ("var", "?o"),
        ("punct", "."),
        ("keyword", "SERVICE"),
        ("number", "1"),
        ("keyword", "SERVICE"),
        ("name", "ex:a\\#b"),
        ("string", '"s"'),
        ("langtag", "@en-GB"),
        ("bnode", "_:b.x"),
        ("comment", "# c"),
        ("brace", "}"),
    ]
    assert [t.text for t in scan(text)][-1] == "}"  # scan drops comments


#: The grammar's name classes (§19.8), as the grammar writes them; the lexer writes each as its complement.
PN_CHARS_BASE = (
    r"A-Za-z\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02FF\u0370-\u037D\u037F-\u1FFF\u200C-\u200D"
    r"\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD\U00010000-\U000EFFFF"
)
PN_CHARS = PN_CHARS_BASE + r"_\-0-9\u00B7\u0300-\u036F\u203F-\u2040"


@pytest.mark.parametrize("members", [PN_CHARS_BASE, PN_CHARS + ".:", r"_0-9\-"], ids=["base", "chars", "small"])
def test_a_class_written_as_its_complement_holds_the_same_characters(members: str) -> None:
    every = "".join(map(chr, range(sys.maxunicode + 1)))
    in_class = re.findall(f"[{members}]", every)
    assert one_of(members).startswith("[^") and in_class
    assert re.findall(one_of(members), every) == in_class


def test_brace_depth_is_the_depth_before_the_token() -> None:
    depths = [(t.text, t.depth) for t in scan("SELECT * { { ?s ?p ?o } }") if t.kind == "brace"]
    assert depths == [("{", 0), ("{", 1), ("}", 2), ("}", 1)]


def test_the_three_escape_readings() -> None:
    text = "\\u0041 \\\\u0042 \\uuu0043 \\U0001F600 \\uD800"
    assert unescape_spec(text) == "A \\B \\uuu0043 😀 \\uD800"
    assert unescape_java(text) == "A \\\\u0042 C \\U0001F600 \\uD800"


# -- against pyoxigraph: what passes never reaches the canary -------------------------------------


class Canary:
    """A listener on 127.0.0.1 that counts connections and answers each with an empty result."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        body = b'{"head":{"vars":["x"]},"results":{"bindings":[{"x":{"type":"literal","value":"1"}}]}}'
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            with conn:
                conn.settimeout(2)
                try:
                    conn.recv(65536)
                    conn.sendall(
                        b"HTTP/1.1 200 OK\r\nContent-Type: application/sparql-results+json\r\n"
                        b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body)
                    )
                except OSError:
                    pass

    def close(self) -> None:
        self.sock.close()


@pytest.fixture(scope="module")
def canary() -> Iterator[Canary]:
    listener = Canary()
    yield listener
    listener.close()


@pytest.fixture(scope="module")
def tiny() -> ox.Store:
    store = ox.Store()
    quads = [
        (ox.NamedNode("urn:a"), ox.NamedNode("urn:b"), ox.Literal("x")),
        (ox.NamedNode("urn:a"), ox.NamedNode("urn:e#p'"), ox.Literal("1", datatype=ox.NamedNode(XSD_INTEGER))),
        (ox.NamedNode("urn:a"), ox.NamedNode("urn:b"), ox.Literal("true", datatype=ox.NamedNode(XSD_BOOLEAN))),
    ]
    store.extend(ox.Quad(s, p, o) for s, p, o in quads)
    return store


XSD_INTEGER = "http://www.w3.org/2001/XMLSchema#integer"
XSD_BOOLEAN = "http://www.w3.org/2001/XMLSchema#boolean"
CANARY = "<http://127.0.0.1:{port}/x>"
PROLOGUE = "PREFIX h: <http://127.0.0.1:{port}/> PREFIX ex: <urn:e#> PREFIX x: <urn:x#> "
#: Pieces of queries: ordinary ones, and every disguise of SERVICE and of what hides it.
PIECES = [
    "?s ?p ?o",
    "?s ?p ?o .",
    "?s ?p ?o.",
    '?s ?p "x"',
    '?s ?p "x"@en',
    "?s ?p 1",
    "?s ?p true",
    "?s ex:p\\' ?o",
    "?s ex:p\\# ?o",
    "SERVICE {url} {{ ?x ?y ?z }}",
    "SERVICE",
    "SERVICE{url}{{?x ?y ?z}}",
    "SERVICEh:x {{ ?x ?y ?z }}",
    "\\u0053ERVICE {url} {{ ?x ?y ?z }}",
    "SERVICE ?u {{ ?x ?y ?z }}",
    "BIND({url} AS ?u)",
    "{url}",
    "{{",
    "}}",
    "(",
    ")",
    "FILTER(1<2)",
    "FILTER(?o <x:b#>",
    "FILTER(?o <x:f('>",
    "<x:b#>",
    "'",
    '"',
    "'''",
    '"\\u005C"',
    '"\\u0022"',
    "\\u0027",
    "\\u0022",
    "\\u0023",
    "#",
    "\\#",
    "\\'",
    "<",
    ">",
    ".",
    ";",
    ",",
    "1",
    "true",
    "OPTIONAL {{",
    "VALUES ?u {{ {url} }}",
    "{{ SELECT * {{ ?s ?p ?o }} }}",
]
SEPARATORS = ["", " ", "\n", "  "]


@st.composite
def disguised_queries(draw: st.DrawFn) -> str:
    pieces = draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=8))
    separators = draw(st.lists(st.sampled_from(SEPARATORS), min_size=len(pieces), max_size=len(pieces)))
    body = "".join(sep + piece for sep, piece in zip(separators, pieces, strict=True))
    tail = draw(st.sampled_from(["", " #'", ' #"', " #'''", "\n", " # \"'"]))
    return PROLOGUE + "SELECT * { " + body + " }" + tail


def fetches(store: ox.Store, canary: Canary, text: str) -> bool:
    """Whether pyoxigraph, running ``text``, connects to the canary."""
    before = canary.connections
    try:
        result = store.query(text.replace("{port}", str(canary.port)))
        if isinstance(result, ox.QuerySolutions):
            list(result)
    except (SyntaxError, OSError, RuntimeError, ValueError):
        pass
    return canary.connections > before


@settings(
    max_examples=500,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(disguised=disguised_queries())
@example(disguised=PROLOGUE + "SELECT * { ?s ?p ?o.SERVICE {url} { ?x ?y ?z } }")
@example(disguised=PROLOGUE + 'SELECT * { ?s ?p "x".SERVICE {url} { ?x ?y ?z } }')
@example(disguised=PROLOGUE + "SELECT * { ?s ?p 1SERVICE{url}{ ?x ?y ?z } }")
@example(disguised=PROLOGUE + "SELECT * { ?s ?p trueSERVICE{url}{ ?x ?y ?z } }")
@example(disguised=PROLOGUE + "SELECT * { SERVICEh:x { ?x ?y ?z } }")
@example(disguised=PROLOGUE + "SELECT * { ?s ex:p\\' ?o . SERVICE {url} { ?x ?y ?z } } #'")
@example(disguised=PROLOGUE + 'SELECT * { BIND("\\u005C" AS ?q) SERVICE {url} { ?x ?y ?z } } # "')
@example(disguised="PREFIX ex: <http://x\\u0041#> SELECT * { SERVICE {url} { ?x ?p ?o } }")
def test_what_the_checks_let_through_never_reaches_the_canary(disguised: str, tiny: ox.Store, canary: Canary) -> None:
    text = disguised.replace("{url}", CANARY).replace("{port}", str(canary.port))
    if refusal(text) is None:
        assert not fetches(tiny, canary, text), text


def test_the_disguises_do_reach_the_canary_without_the_checks(tiny: ox.Store, canary: Canary) -> None:
    """The property above can fail: these pass a naive scanner, and pyoxigraph fetches them."""
    disguised = [
        "SELECT * { ?s ?p ?o.SERVICE {url} { ?x ?y ?z } }",
        "SELECT * { ?s ?p 1SERVICE{url}{ ?x ?y ?z } }",
        "SELECT * { SERVICEh:x { ?x ?y ?z } }",
        'SELECT * { BIND("\\u005C" AS ?q) SERVICE {url} { ?x ?y ?z } } # "',
        "SELECT * { SERVICE {url} { ?x ?p ?o } }",
    ]
    for text in disguised:
        full = (PROLOGUE + text).replace("{url}", CANARY).replace("{port}", str(canary.port))
        assert fetches(tiny, canary, full), full
        assert refusal(full) is not None


def test_a_from_graph_is_read_under_the_project_base_of_the_moment() -> None:
    """``FROM person:x`` names a graph of the project's namespace: the check of one text follows
    the base IRI a process switches to (it was kept for the text alone)."""
    from kgprofiles.vocab import use_base_iri

    query = "SELECT * FROM person:x WHERE { ?s ?p ?o }"
    use_base_iri("https://a.example/")
    check_query(query, local_graphs=lambda: ["https://a.example/person/x"])
    use_base_iri("https://b.example/")
    with pytest.raises(Forbidden, match=r"https://b\.example/person/x"):
        check_query(query, local_graphs=lambda: ["https://a.example/person/x"])
    check_query(query, local_graphs=lambda: ["https://b.example/person/x"])
