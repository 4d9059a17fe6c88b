"""The pages a server's processes share (``web/cache.py``): a page one process made is answered
by another from the shared file; a cache that cannot be used misses, never fails a request.

Each ``Pages`` here stands for one process of ``serve --workers``; the whole server, its
processes and its shared directory are in ``tests/test_web_serve_cli.py``."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from kgprofiles.web.cache import Entry, Pages, SharedPages

GENERATION = "20261205T023234-13099-0115aa48"
PAGE = Entry(
    200,
    ((b"content-type", b"text/html; charset=utf-8"), (b"etag", b'"g-1"'), (b"x-caf\xe9", b"\xe9t\xe9")),
    b"<h1>Horace He</h1>" * 100,
    b'"g-1"',
)
KEY = ("/id/person/horace-he", "", "text/html")


def test_a_page_one_process_made_is_answered_by_another(tmp_path: Path) -> None:
    first, second = Pages(GENERATION, shared=tmp_path), Pages(GENERATION, shared=tmp_path)
    assert second.get(KEY) is None
    first.put(KEY, PAGE)
    assert first.shared is not None
    first.shared.flush()
    assert second.get(KEY) == PAGE  # status, headers (bytes kept as they were), body, ETag
    assert second.get(("/id/person/horace-he", "", "text/turtle")) is None  # another Accept: another page
    first.close()
    second.close()


def test_another_generation_shares_nothing_and_removes_the_older_files(tmp_path: Path) -> None:
    old = Pages(GENERATION, shared=tmp_path)
    old.put(KEY, PAGE)
    old.close()  # (written before it closes)
    assert (tmp_path / f"{GENERATION}.sqlite").exists()
    newer = Pages("20261206T000000-1-00000000", shared=tmp_path)
    assert newer.get(KEY) is None
    assert sorted(p.name for p in tmp_path.glob("*.sqlite")) == ["20261206T000000-1-00000000.sqlite"]
    newer.close()


def test_pages_past_the_shared_limit_stay_in_each_process(tmp_path: Path) -> None:
    small = SharedPages(tmp_path, GENERATION, max_bytes=len(PAGE.body) + 10)
    small.put(KEY, PAGE)
    small.put(("/id/person/jane-xu", "", "text/html"), PAGE)
    small.flush()
    assert small.get(KEY) == PAGE and small.get(("/id/person/jane-xu", "", "text/html")) is None
    small.close()


@pytest.mark.parametrize("breakage", ["not a directory", "a damaged file"])
def test_a_shared_file_that_cannot_be_used_makes_misses_not_errors(
    tmp_path: Path, breakage: str, caplog: pytest.LogCaptureFixture
) -> None:
    where = tmp_path / "shared"
    if breakage == "not a directory":
        where.write_text("a file")
    else:
        where.mkdir()
        (where / f"{GENERATION}.sqlite").write_bytes(b"SQLite format 3\x00" + os.urandom(4096))
    pages = Pages(GENERATION, shared=where)
    pages.put(KEY, PAGE)  # kept in this process
    assert pages.get(KEY) == PAGE
    other = Pages(GENERATION, shared=where)
    assert other.get(KEY) is None
    assert "pages are not shared between the server's processes" in caplog.text
    pages.close()
    other.close()


def test_a_write_another_process_holds_up_does_not_hold_up_a_read(tmp_path: Path) -> None:
    pages = SharedPages(tmp_path, GENERATION)
    pages.put(KEY, PAGE)
    pages.flush()
    other = sqlite3.connect(tmp_path / f"{GENERATION}.sqlite", isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another process writing, for long
    pages.put(("/id/person/jane-xu", "", "text/html"), PAGE)  # waits in the writer thread
    assert pages.get(KEY) == PAGE  # a reader of a WAL file does not wait
    other.execute("ROLLBACK")
    pages.flush()
    assert pages.get(("/id/person/jane-xu", "", "text/html")) == PAGE
    other.close()
    pages.close()


def test_pages_waiting_to_be_shared_are_written_together(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A transaction a page cost a first visit about 5% of a process; the pages waiting when
    the writer comes to them are written in one (64 at most)."""
    transactions: list[int] = []
    insert = SharedPages._insert

    def counted(self: SharedPages, connection: sqlite3.Connection, pages: list, size: int) -> int:
        transactions.append(len(pages))
        return insert(self, connection, pages, size)

    monkeypatch.setattr(SharedPages, "_insert", counted)
    pages = SharedPages(tmp_path, GENERATION)
    other = sqlite3.connect(tmp_path / f"{GENERATION}.sqlite", isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # (the pages wait meanwhile)
    keys = [(f"/id/person/p{i:03d}", "", "text/html") for i in range(200)]
    for key in keys:
        pages.put(key, PAGE)
    other.execute("ROLLBACK")
    pages.flush()
    assert all(pages.get(key) == PAGE for key in keys)
    assert sum(transactions) == 200 and len(transactions) <= 5 and max(transactions) <= 64, transactions
    other.close()
    pages.close()
