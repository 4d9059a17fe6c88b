"""Progress for long work: a bar on a terminal, plain log lines otherwise, nothing when silent."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol, TextIO


class Progress(Protocol):
    def stage(self, name: str, total: int | None = None) -> None:
        """Start a named stage of ``total`` steps (``None``: one step)."""

    def advance(self, steps: int = 1) -> None:
        """Mark steps of the current stage done."""

    def grow(self, steps: int) -> None:
        """Add steps found along the way to the current stage's total."""


class Silent:
    def stage(self, name: str, total: int | None = None) -> None:
        pass

    def advance(self, steps: int = 1) -> None:
        pass

    def grow(self, steps: int) -> None:
        pass


class LogLines:
    """One line per stage, with the time the previous stage took."""

    def __init__(self, stream: TextIO, prefix: str) -> None:
        self.stream = stream
        self.prefix = prefix
        self.started: float | None = None
        self.name: str | None = None

    def _close_stage(self) -> None:
        if self.name is not None and self.started is not None:
            print(f"{self.prefix}: {self.name} done in {time.perf_counter() - self.started:.2f}s", file=self.stream)

    def stage(self, name: str, total: int | None = None) -> None:
        self._close_stage()
        self.name, self.started = name, time.perf_counter()
        count = f" ({total})" if total else ""
        print(f"{self.prefix}: {name}{count}…", file=self.stream, flush=True)

    def advance(self, steps: int = 1) -> None:
        pass

    def grow(self, steps: int) -> None:
        pass


class Bar:
    """A rich progress bar, one task per stage."""

    def __init__(self, progress: object) -> None:
        self.progress = progress
        self.task: object | None = None

    def stage(self, name: str, total: int | None = None) -> None:
        p = self.progress
        if self.task is not None:
            p.update(self.task, completed=p.tasks[-1].total)  # type: ignore[attr-defined]
        self.task = p.add_task(name, total=total or 1)  # type: ignore[attr-defined]

    def advance(self, steps: int = 1) -> None:
        if self.task is not None:
            self.progress.advance(self.task, steps)  # type: ignore[attr-defined]

    def grow(self, steps: int) -> None:
        if self.task is not None:
            p = self.progress
            p.update(self.task, total=p.tasks[-1].total + steps)  # type: ignore[attr-defined]


@contextmanager
def report_progress(prefix: str, quiet: bool = False, stream: TextIO | None = None) -> Iterator[Progress]:
    """A bar when ``stream`` (default stderr) is a terminal, log lines otherwise."""
    stream = stream or sys.stderr
    if quiet:
        yield Silent()
        return
    if stream.isatty():
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as RichProgress

        with RichProgress(
            TextColumn(f"{prefix}: {{task.description}}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(file=stream),
        ) as bar:
            reporter = Bar(bar)
            yield reporter
            reporter.stage("done")
        return
    lines = LogLines(stream, prefix)
    yield lines
    lines._close_stage()
