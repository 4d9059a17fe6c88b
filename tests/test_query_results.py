"""SELECT results written by pyoxigraph itself under a row limit (store/solutions.py): the same
bytes as pyoxigraph's own serialisation, whichever way the rows were counted, and nothing past
the limit."""

from __future__ import annotations

import itertools

import pyoxigraph as ox
import pytest

from kgprofiles.result_formats import CSV, JSON, TSV, XML
from kgprofiles.store.solutions import FORMATS, ROW_BYTES, write_capped

#: Terms that each format writes differently: escapes, language tags, datatypes, numbers written
#: bare in TSV, blank nodes, a triple term, control characters, and unbound values.
ODD_TERMS = r"""INSERT DATA { GRAPH <http://example.org/g> {
<http://example.org/s> <http://example.org/p> "x\ty\nz\\\"q\r", "é"@fr-CA, 042, "1.0E0"^^xsd:double, true, _:b1,
  " 5"^^xsd:integer, "", -0.50, "abc"^^<http://example.org/dt>, "\u0000\u0085\u2028\uFFFF", "NaN"^^xsd:double,
  <<( <http://example.org/s> <http://example.org/p> "o"@en--ltr )>>, "1e5", 1e5, "2020-10"^^xsd:gYearMonth,
  "a\u000bb", "+1"^^xsd:integer, "tRue"^^xsd:boolean, "1."^^xsd:decimal, "-INF"^^xsd:double, "emoji 😀",
  "a},{\"b\":{", "</result><result>" .
_:b2 <http://example.org/p> <http://example.org/x> . } }"""
ROWS = "SELECT ?s ?o ?unbound WHERE { ?s ?p ?o OPTIONAL { ?s <http://example.org/none> ?unbound } }"
ALL = (JSON, XML, CSV, TSV)


@pytest.fixture(scope="module")
def store() -> ox.Store:
    made = ox.Store()
    made.update(ODD_TERMS, prefixes={"xsd": "http://www.w3.org/2001/XMLSchema#"})
    return made


def run(store: ox.Store, text: str = ROWS) -> ox.QuerySolutions:
    solutions = store.query(text, use_default_graph_as_union=True)
    assert isinstance(solutions, ox.QuerySolutions)
    return solutions


def own(store: ox.Store, media_type: str, text: str = ROWS) -> bytes:
    body = run(store, text).serialize(format=FORMATS[media_type])
    assert body is not None
    return body


@pytest.mark.parametrize("media_type", ALL)
def test_row_bytes_are_the_fewest_bytes_a_row_takes(media_type: str) -> None:
    """An empty row, with no variable or with one unbound, adds exactly ROW_BYTES (or more)."""
    empty = ox.Store()

    def size(text: str) -> int:
        return len(own(empty, media_type, text))

    no_variable = [size("SELECT * WHERE { VALUES () { " + "() " * n + "} }") for n in (1, 2, 3)]
    unbound = [size("SELECT ?x WHERE { VALUES ?x { " + "UNDEF " * n + "} }") for n in (1, 2, 3)]
    steps = {b - a for sizes in (no_variable, unbound) for a, b in itertools.pairwise(sizes)}
    assert min(steps) == ROW_BYTES[media_type]


@pytest.mark.parametrize("media_type", ALL)
@pytest.mark.parametrize("max_bytes", [1 << 30, 1], ids=["one pass", "run again as TSV"])
def test_the_bytes_are_pyoxigraphs_own_up_to_the_limit(store: ox.Store, media_type: str, max_bytes: int) -> None:
    rows = sum(1 for _ in run(store))
    assert rows == 25
    expected = own(store, media_type)
    for max_rows in (10_000, rows):  # far under the limit (no count), exactly at it (counted)
        assert write_capped(run(store), lambda: run(store), media_type, max_rows, max_bytes) == expected
    assert write_capped(run(store), lambda: run(store), media_type, rows - 1, max_bytes) is None
    assert write_capped(run(store), lambda: run(store), media_type, 0, max_bytes) is None


def test_aliases_and_no_limit(store: ox.Store) -> None:
    assert write_capped(run(store), lambda: run(store), "application/json", None) == own(store, JSON)
    assert write_capped(run(store), lambda: run(store), "text/xml", 100) == own(store, XML)
    with pytest.raises(KeyError):
        write_capped(run(store), lambda: run(store), "text/turtle", 100)


def test_a_runaway_result_stops_at_the_limit() -> None:
    """A million rows, limit 1,000: the second pass stops writing after the limit."""
    empty = ox.Store()
    million = "SELECT ?i WHERE { VALUES ?a { 0 1 2 3 4 5 6 7 8 9 } VALUES ?b { 0 1 2 3 4 5 6 7 8 9 } " + (
        "VALUES ?c { 0 1 2 3 4 5 6 7 8 9 } VALUES ?d { 0 1 2 3 4 5 6 7 8 9 } VALUES ?e { 0 1 2 3 4 5 6 7 8 9 } "
        "VALUES ?f { 0 1 2 3 4 5 6 7 8 9 } BIND (?a + 10 * ?b AS ?i) }"
    )
    written: list[int] = []

    def again() -> ox.QuerySolutions:
        written.append(1)
        return run(empty, million)

    assert write_capped(run(empty, million), again, JSON, 1000, max_bytes=64 * 1024) is None
    assert written == [1]
