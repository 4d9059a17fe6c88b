"""A SELECT evaluated ahead (``select_rows(..., ahead=True)``, ``store/rows_ahead.py``) on the
embedded store: the rows it gives are the rows read as they come, whatever the terms hold; the
query is evaluated before anyone reads it; its file never outlives it, however the process ends
(unnamed on Linux; named, and removed, elsewhere). (The contract
tests run ``ahead`` on every backend, the malformed query and the ASK included.)"""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest

from kgprofiles.config import MEMORY
from kgprofiles.errors import QueryError
from kgprofiles.store import OxigraphStore, rows_ahead

EX = "http://example.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"
GRAPH = ox.NamedNode("https://w3id.org/kgprofiles/graph/file/people/x.ttl")
AWKWARD = [
    ox.Literal('a\ttab, a\nnewline, a \r return, U+2028 \u2028, U+0085 \x85, a quote " and a backslash \\'),
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


def _can_make_unnamed_files() -> bool:
    fd = rows_ahead._unnamed_file()
    if fd is None:
        return False
    os.close(fd)
    return True


UNNAMED = _can_make_unnamed_files()


def _mine() -> list[str]:
    """This process's scratch directories of rows evaluated ahead (the named files' way)."""
    return [n for n in os.listdir(tempfile.gettempdir()) if n.startswith(f"kgprofiles-rows-{os.getpid()}-")]


def _unnamed_open() -> set[str]:
    """This process's open files in the temporary directory that have no name ("… (deleted)")."""
    found = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(tempfile.gettempdir()) and target.endswith("(deleted)"):
            found.add(f"{fd} {target}")
    return found


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


def _read_stopped_and_dropped(store: OxigraphStore) -> None:
    """Rows read whole, read in part, and never read."""
    assert len(list(store.select_rows(QUERY, ahead=True))) == len(AWKWARD) + 1
    stopped = store.select_rows(QUERY, ahead=True)
    next(stopped)
    del stopped
    unread = store.select_rows(QUERY, ahead=True)
    while not unread.done:  # type: ignore[attr-defined]
        time.sleep(0.01)
    del unread
    gc.collect()


@pytest.mark.skipif(not UNNAMED, reason="this system has no unnamed files (O_TMPFILE)")
def test_unnamed_files_name_nothing_and_close_once_done_with(store: OxigraphStore) -> None:
    before_dirs, before_files = _mine(), _unnamed_open()
    during = store.select_rows(QUERY, ahead=True)
    assert _mine() == before_dirs  # nothing named, ever: nothing to leave behind
    assert _unnamed_open() - before_files  # the rows' file, open, without a name
    assert len(list(during)) == len(AWKWARD) + 1
    _read_stopped_and_dropped(store)
    assert _unnamed_open() == before_files
    assert _mine() == before_dirs


def test_named_files_where_unnamed_ones_cannot_be_made_are_removed(
    store: OxigraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rows_ahead, "_unnamed_file", lambda: None)
    before = _mine()
    during = store.select_rows(QUERY, ahead=True)
    assert len(_mine()) == len(before) + 1
    assert len(list(during)) == len(AWKWARD) + 1
    assert _mine() == before  # read whole: gone
    _read_stopped_and_dropped(store)
    assert _mine() == before  # read in part, never read: gone too


@pytest.mark.skipif(not UNNAMED, reason="this system has no unnamed files (O_TMPFILE)")
def test_a_process_killed_while_its_rows_wait_leaves_nothing(tmp_path: Path) -> None:
    """SIGKILL (or SIGTERM's default action, which runs no clean-up) while a query's rows wait in
    their file: the temporary directory is as it was."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    script = (
        "import sys, time\n"
        "from kgprofiles.config import MEMORY\n"
        "from kgprofiles.store import OxigraphStore\n"
        "store = OxigraphStore(MEMORY)\n"
        "rows = store.select_rows('SELECT ?n WHERE { VALUES ?n { 1 2 3 } }', ahead=True)\n"
        "while not rows.done: time.sleep(0.01)\n"
        "print('ready', flush=True)\n"
        "time.sleep(60)\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script], env={**os.environ, "TMPDIR": str(temporary)}, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
        assert os.listdir(temporary) == []  # (the rows are there, unnamed)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    assert os.listdir(temporary) == []


def test_a_failure_in_the_thread_is_raised_where_the_rows_are_read(store: OxigraphStore) -> None:
    rows = store.select_rows("SELECT ?x WHERE { ?x ?p", ahead=True)  # no error yet: the thread has it
    with pytest.raises(QueryError, match="line 1, column"):
        next(rows)
