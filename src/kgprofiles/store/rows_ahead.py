"""A SELECT's rows evaluated ahead, beside the caller's own work: ``select_rows(..., ahead=True)``.

pyoxigraph evaluates a SELECT lazily, as its solutions are read, and holds Python's GIL while it
does: two threads reading two queries share one core (they overlap about 20%). Writing solutions
to a file is different: pyoxigraph lets go of the GIL for the whole evaluation and the writing.
``RowsAhead`` starts that in a thread at once (pyoxigraph's solutions may only be used by the
thread that made them, so the thread runs the query too) into a scratch file as SPARQL TSV, and
gives the rows from that file when they are read: the same terms, blank-node labels included.
While the caller works on something else (another query's rows, the SQLite index), the query runs
on the other core. A whole-graph read at 100,000 people (the search index's two queries, the
related index's nine) takes about two-thirds of the time it took in line.

The thread cannot be stopped (a pyoxigraph query cannot be), so it is a daemon: Ctrl-C still ends
the process. It is for the project's own whole-graph queries, whose cost grows with the graph
linearly; a user's query goes through the budgeted paths instead.

The files are in the system's temporary directory (``TMPDIR``). On Linux they are unnamed
(``O_TMPFILE``, written through ``/proc/self/fd``): nothing is left behind however the process
ends, SIGTERM or SIGKILL included. Elsewhere they are named files in a scratch directory, removed
once read or dropped (``scratch.py`` sweeps what a killed process left). At 100,000 people the
largest is 242 MB (the related index's events), and two exist at once at most. Where the
temporary directory is a RAM disk (tmpfs), that is memory.
"""

from __future__ import annotations

import os
import tempfile
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from kgprofiles.errors import QueryError
from kgprofiles.freed_memory import give_back_freed_memory
from kgprofiles.scratch import scratch_dir
from kgprofiles.store.base import Term, solution_rows

_TSV = ox.QueryResultsFormat.TSV


class RowsAhead(Iterator[dict[str, Term]]):
    """The rows of ``evaluate()`` (a SELECT's solutions, made in the thread that writes them), as
    ``select_rows`` gives them: each a dict of its bound variables. Failures, in the thread or
    reading, are raised when the rows are read, inside ``errors()`` (the store's own error
    mapping). The scratch file goes once read, or when the object is collected unread."""

    def __init__(
        self,
        evaluate: Callable[[], ox.QuerySolutions | ox.QueryBoolean | ox.QueryTriples],
        errors: Callable[[], AbstractContextManager[None]],
    ) -> None:
        self._errors = errors
        self._cleanup: weakref.finalize[Any, Any]
        unnamed = _unnamed_file()
        if unnamed is not None:
            self._path = f"/proc/self/fd/{unnamed}"
            self._cleanup = weakref.finalize(self, os.close, unnamed)
            # (not at exit: a daemon thread may still be about to open the file by its number,
            # which must not be given to another file meanwhile; the process's end closes it)
            self._cleanup.atexit = False
        else:
            scratch = scratch_dir("rows")
            self._path = str(Path(scratch.name) / "rows.tsv")
            self._cleanup = weakref.finalize(self, scratch.cleanup)
        self._failure: BaseException | None = None
        self._rows: Iterator[dict[str, Term]] | None = None
        self._thread = threading.Thread(target=self._write, args=(evaluate,), name="kgprofiles rows ahead", daemon=True)
        self._thread.start()

    def _write(self, evaluate: Callable[[], ox.QuerySolutions | ox.QueryBoolean | ox.QueryTriples]) -> None:
        try:
            solutions = evaluate()
            if not isinstance(solutions, ox.QuerySolutions):
                raise QueryError("select_rows needs a SELECT query")
            solutions.serialize(output=self._path, format=_TSV)
            del solutions
            give_back_freed_memory()  # (glibc keeps what a thread frees in that thread's own arena)
        except BaseException as exc:  # raised again where the rows are read
            self._failure = exc

    def __next__(self) -> dict[str, Term]:
        if self._rows is None:
            self._rows = self._read()
        return next(self._rows)

    def _read(self) -> Iterator[dict[str, Term]]:
        self._thread.join()
        with self._errors():
            if self._failure is not None:
                raise self._failure
            with open(self._path, "rb") as handle:
                self._cleanup()  # the file stays readable through ``handle``, and goes with it
                solutions = ox.parse_query_results(handle, format=_TSV)
                assert isinstance(solutions, ox.QuerySolutions)
                yield from solution_rows(solutions, tuple(v.value for v in solutions.variables))

    @property
    def done(self) -> bool:
        """Whether the query has been evaluated (its rows are waiting in the file)."""
        return not self._thread.is_alive()


def _unnamed_file() -> int | None:
    """A descriptor of a new file without a name in the temporary directory (Linux's
    ``O_TMPFILE``), or None where the system cannot make one."""
    flag = getattr(os, "O_TMPFILE", None)
    if flag is None or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        return os.open(tempfile.gettempdir(), flag | os.O_RDWR, 0o600)
    except OSError:  # (a file system without unnamed files)
        return None
