"""A SELECT evaluated ahead (``select_rows(..., ahead=True)``, ``store/rows_ahead.py``) on the
embedded store: the rows it gives are the rows read as they come, whatever the terms hold; the
query is evaluated before anyone reads it; its scratch file never outlives it. (The contract
tests run ``ahead`` on every backend, the malformed query and the ASK included.)"""

from __future__ import annotations

import gc
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest

from kgprofiles.config import MEMORY
from kgprofiles.errors import QueryError
from kgprofiles.store import OxigraphStore

EX = "http://example.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"
GRAPH = ox.NamedNode("https://w3id.org/kgprofiles/graph/file/people/x.ttl")
AWKWARD = [
    ox.Literal("a\ttab, a\nnewline, a \r return, U+2028 \u2028, U+0085 \x85, a quote \" and a backslash \\"),
    ox.Literal("ends like a line .\n"),
    ox.Literal(""),
    ox.Literal("Zoë", language="fr"),
    ox.Literal("36", datatype=ox.NamedNode(XSD + "integer")),
    ox.Literal("2024-03", datatype=ox.NamedNode(XSD + "gYearMonth")),
    ox.BlankNode("b0stable"),
    ox.NamedNode("http://example.org/ü?q=a%20b#frag"),
]


@pytest.fixture(params=["memory", "disk"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[OxigraphStore]:
    opened = OxigraphStore(MEMORY if request.param == "memory" else tmp_path / "store")
    quads = [ox.Quad(ox.NamedNode(f"{EX}s{i}"), ox.NamedNode(EX + "p"), term, GRAPH) for i, term in enumerate(AWKWARD)]
    quads.append(ox.Quad(ox.NamedNode(EX + "lonely"), ox.NamedNode(EX + "q"), ox.Literal("no p"), GRAPH))
    opened.store.extend(quads)
    yield opened
    opened.close()


QUERY = f"SELECT ?s ?o ?extra WHERE {{ ?s ?any ?x OPTIONAL {{ ?s <{EX}p> ?o }} OPTIONAL {{ ?s <{EX}none> ?extra }} }}"


def _mine() -> list[str]:
    """This process's scratch directories of rows evaluated ahead."""
    return [n for n in os.listdir(tempfile.gettempdir()) if n.startswith(f"kgprofiles-rows-{os.getpid()}-")]


def test_the_rows_are_those_read_as_they_come_whatever_the_terms(store: OxigraphStore) -> None:
    ahead = list(store.select_rows(QUERY, ahead=True))
    in_line = list(store.select_rows(QUERY))
    key = lambda row: row["s"].value  # noqa: E731
    assert sorted(ahead, key=key) == sorted(in_line, key=key)
    assert sorted((row["o"] for row in ahead if "o" in row), key=str) == sorted(AWKWARD, key=str)
    assert {"s": ox.NamedNode(EX + "lonely")} in ahead  # unbound variables are left out, as in line
    bound = list(store.select_rows(f"SELECT ?o WHERE {{ ?s <{EX}p> ?o }}", {"s": ox.NamedNode(EX + "s6")}, ahead=True))
    assert bound == [{"o": ox.BlankNode("b0stable")}]  # the blank node's label kept


def test_evaluated_before_it_is_read(store: OxigraphStore) -> None:
    rows = store.select_rows(QUERY, ahead=True)
    deadline = time.monotonic() + 30
    while not rows.done and time.monotonic() < deadline:  # type: ignore[attr-defined]
        time.sleep(0.01)
    assert rows.done  # type: ignore[attr-defined]
    assert len(list(rows)) == len(AWKWARD) + 1


def test_no_scratch_file_outlives_the_rows(store: OxigraphStore) -> None:
    before = _mine()
    read = store.select_rows(QUERY, ahead=True)
    assert len(_mine()) == len(before) + 1
    assert len(list(read)) == len(AWKWARD) + 1
    assert _mine() == before  # read whole: gone

    stopped = store.select_rows(QUERY, ahead=True)
    next(stopped)
    assert _mine() == before  # gone once reading began; the open file is all that is left
    del stopped

    unread = store.select_rows(QUERY, ahead=True)
    while not unread.done:  # type: ignore[attr-defined]
        time.sleep(0.01)
    del unread
    gc.collect()
    assert _mine() == before  # never read: gone with the object


def test_a_failure_in_the_thread_is_raised_where_the_rows_are_read(store: OxigraphStore) -> None:
    rows = store.select_rows("SELECT ?x WHERE { ?x ?p", ahead=True)  # no error yet: the thread has it
    with pytest.raises(QueryError, match="line 1, column"):
        next(rows)
