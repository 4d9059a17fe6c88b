"""SELECT results written by pyoxigraph's own serialisers, under a row limit, with no row ever
made a Python object.

pyoxigraph serialises ``QuerySolutions`` straight to bytes but cannot stop at a number of rows,
so the limit is kept from the bytes written:

1. The results are written in the asked format into a writer that stops at ``MAX_BYTES``. A row
   takes at least ``ROW_BYTES`` bytes (an empty row: ``{},`` in JSON, ``<result></result>`` in
   XML, ``\r\n`` in CSV, ``\n`` in TSV), so a body of at most ``ROW_BYTES[format] * max_rows``
   bytes holds at most ``max_rows`` rows: done, in one pass (every result of a few thousand rows
   at the default limit). A larger body's rows are counted: TSV ends every row, and nothing else,
   with a newline (newlines in values are escaped); JSON and XML are read back by pyoxigraph
   (about 3 µs a row), without making their terms Python objects.
2. A body past ``MAX_BYTES``, or a large CSV body (which has no reader), is not kept: the query
   runs again, written as TSV, lines counted as they are written, stopping at the first row past
   the limit. Under the limit, the TSV is read back and written in the asked format (pyoxigraph
   both ways; TSV writes every term in full, so the bytes are those step 1 would have given).

The row limit stops a runaway result after ``max_rows`` rows (or ``MAX_BYTES``) either way.
"""

from __future__ import annotations

from collections.abc import Callable

import pyoxigraph as ox

from kgprofiles.result_formats import ALIASES, CSV, JSON, TSV, XML

FORMATS = {
    JSON: ox.QueryResultsFormat.JSON,
    XML: ox.QueryResultsFormat.XML,
    CSV: ox.QueryResultsFormat.CSV,
    TSV: ox.QueryResultsFormat.TSV,
}
#: The fewest bytes a row takes in each format (tests/test_query_sandbox.py checks them).
ROW_BYTES = {JSON: 3, XML: 17, CSV: 2, TSV: 1}
#: The largest body written in one pass; past it, the rows are counted in a second one.
MAX_BYTES = 128 * 1024 * 1024


class _Full(Exception):
    """Raised by a writer to stop pyoxigraph's serialiser."""


class _Capped:
    """Collects what a serialiser writes, up to ``limit`` bytes."""

    def __init__(self, limit: int) -> None:
        self.parts: list[bytes] = []
        self.size = 0
        self.limit = limit

    def write(self, chunk: bytes) -> int:
        self.size += len(chunk)
        if self.size > self.limit:
            raise _Full
        self.parts.append(bytes(chunk))
        return len(chunk)

    def flush(self) -> None:
        pass


class _Lines(_Capped):
    """Collects TSV up to ``limit`` lines (the header line and the rows)."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.lines = 0

    def write(self, chunk: bytes) -> int:
        self.lines += bytes(chunk).count(b"\n")
        if self.lines > self.limit:
            raise _Full
        self.parts.append(bytes(chunk))
        return len(chunk)


def media_format(media_type: str) -> str:
    """The results format of a media type or alias (a KeyError for none of them)."""
    name = ALIASES.get(media_type, media_type)
    FORMATS[name]  # a KeyError for a graph format
    return name


def write_capped(
    solutions: ox.QuerySolutions,
    again: Callable[[], ox.QuerySolutions],
    media_type: str,
    max_rows: int | None,
    max_bytes: int = MAX_BYTES,
) -> bytes | None:
    """The solutions in ``media_type`` (a format above or an alias), or None when there are more
    than ``max_rows`` of them; ``again`` runs the query again (module docstring, step 2)."""
    name = media_format(media_type)
    fmt = FORMATS[name]
    if max_rows is None:
        return _serialised(solutions, fmt)
    surely_under = ROW_BYTES[name] * max_rows  # a body this size holds at most max_rows rows
    first = _Capped(surely_under if name == CSV else max(surely_under, max_bytes))
    try:
        solutions.serialize(first, format=fmt)  # type: ignore[arg-type]
    except _Full:
        pass
    else:
        body = b"".join(first.parts)
        if len(body) <= surely_under or _rows(body, name, max_rows + 1) <= max_rows:
            return body
        return None
    lines = _Lines(max_rows + 1)
    try:
        again().serialize(lines, format=ox.QueryResultsFormat.TSV)  # type: ignore[arg-type]
    except _Full:
        return None
    tsv = b"".join(lines.parts)
    if name == TSV:
        return tsv
    return _serialised(ox.parse_query_results(tsv, format=ox.QueryResultsFormat.TSV), fmt)  # type: ignore[arg-type]


def _rows(body: bytes, name: str, stop: int) -> int:
    """How many rows ``body`` (JSON, XML or TSV) holds, counted up to ``stop``."""
    if name == TSV:
        return body.count(b"\n") - 1  # the header line
    count = 0
    parsed = ox.parse_query_results(body, format=FORMATS[name])
    assert isinstance(parsed, ox.QuerySolutions)
    for _ in parsed:
        count += 1
        if count >= stop:
            break
    return count


def _serialised(solutions: ox.QuerySolutions, fmt: ox.QueryResultsFormat) -> bytes:
    body = solutions.serialize(format=fmt)
    assert body is not None  # no output file given: bytes
    return body
