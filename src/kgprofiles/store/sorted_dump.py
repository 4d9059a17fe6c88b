"""N-Quads and N-Triples of more quads than fit in memory, in the order ``serialize_dataset``
gives (``oxigraph.sort_key``: graph, subject, predicate, object), sorted on disk.

Quads come in batches (a server's answers); every ``run`` quads are sorted and written to a
temporary file, and the files are merged line by line, equal lines once (a graph is a set; the
union of graphs holds a triple once). An N-Triples line sorts as its (subject, predicate,
object) tuple: a term is never followed by a character that sorts before the space between
terms (N-Triples escapes control characters). For N-Quads, whose lines end with the graph, each
line of a run is written after its graph's text and a NUL, so that the merge orders by graph
first, and the prefix is dropped on the way out.

>>> import io, pyoxigraph as ox
>>> g, h = ox.NamedNode("http://example.org/g"), ox.NamedNode("http://example.org/h")
>>> a, b = ox.NamedNode("http://example.org/a"), ox.NamedNode("http://example.org/a-b")
>>> p = ox.NamedNode("http://example.org/p")
>>> batches = [[ox.Quad(a, p, ox.Literal("x"), h), ox.Quad(b, p, ox.Literal("x"), g)],
...            [ox.Quad(a, p, ox.Literal("x"), g), ox.Quad(a, p, ox.Literal("x"), h)]]
>>> out = io.BytesIO()
>>> write_sorted(batches, ox.RdfFormat.N_TRIPLES, out, run=1)
>>> print(out.getvalue().decode(), end="")
<http://example.org/a-b> <http://example.org/p> "x" .
<http://example.org/a> <http://example.org/p> "x" .
"""

from __future__ import annotations

import heapq
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from typing import BinaryIO

import pyoxigraph as ox

from kgprofiles.store.oxigraph import as_bytes, sort_key

#: Quads sorted in memory at once (about 100 MB of Python objects a hundred thousand).
RUN = 500_000


def write_sorted(batches: Iterable[list[ox.Quad]], fmt: ox.RdfFormat, out: BinaryIO, run: int | None = None) -> None:
    """The quads of ``batches`` into ``out`` as ``fmt`` (N-Quads or N-Triples), sorted, each
    line once: the bytes ``serialize_dataset`` gives for them, with at most about ``run``
    (default ``RUN``) quads and one batch in memory."""
    run = run or RUN
    if fmt not in (ox.RdfFormat.N_QUADS, ox.RdfFormat.N_TRIPLES):
        raise ValueError(f"not a line format: {fmt}")
    with ExitStack() as stack:
        runs: list[BinaryIO] = []
        pending: list[ox.Quad] = []
        for batch in batches:
            pending += batch
            if len(pending) >= run:
                runs.append(_write_run(pending, fmt, stack))
                pending = []
        if not runs:  # all of it in memory: no temporary file
            for line in _lines(pending, fmt):
                out.write(_drop_prefix(line, fmt))
            return
        if pending:
            runs.append(_write_run(pending, fmt, stack))
        previous = None
        for line in heapq.merge(*runs):
            if line != previous:
                out.write(_drop_prefix(line, fmt))
                previous = line


def _write_run(quads: list[ox.Quad], fmt: ox.RdfFormat, stack: ExitStack) -> BinaryIO:
    run: BinaryIO = stack.enter_context(tempfile.TemporaryFile(prefix="kgprofiles-sort-"))  # type: ignore[arg-type]  # noqa: SIM115 (closed by the stack)
    run.writelines(_lines(quads, fmt))
    run.seek(0)
    return run


def _lines(quads: list[ox.Quad], fmt: ox.RdfFormat) -> Iterator[bytes]:
    """The sorted, distinct lines of ``quads``; for N-Quads each after its graph and a NUL."""
    if fmt == ox.RdfFormat.N_TRIPLES:
        triples = sorted({q.triple for q in quads}, key=sort_key)
        yield from as_bytes(ox.serialize(triples, format=fmt)).splitlines(keepends=True)
        return
    ordered = sorted(set(quads), key=sort_key)
    lines = as_bytes(ox.serialize(ordered, format=fmt)).splitlines(keepends=True)
    for quad, line in zip(ordered, lines, strict=True):
        yield str(quad.graph_name).encode("utf-8") + b"\0" + line


def _drop_prefix(line: bytes, fmt: ox.RdfFormat) -> bytes:
    return line[line.index(b"\0") + 1 :] if fmt == ox.RdfFormat.N_QUADS else line
