"""The command line's one error boundary: every command raises, this turns what it raised into a
message, a hint and an exit code. No traceback reaches a user.

Exit codes: 0 done; 1 the data breaks a shape (or a check found a problem); 2 input that cannot be
read or understood; 3 the store (busy, missing, broken); 4 a remote server; 70 a bug in kgprofiles
(the message says how to see the traceback); 130 interrupted (Ctrl-C); 143 stopped (SIGTERM).

SIGTERM (``kill``, a service manager, a CI timeout) stops a command as Ctrl-C does: it is raised
as ``Terminated``, a KeyboardInterrupt, so every write undoes what it started (a server's graphs
restored from their backups, staging graphs dropped) before the process ends. ``serve`` handles
SIGTERM itself: a server stops on it as uvicorn (or its supervisor) sees to, and exits 0.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import typer
from typer.core import TyperGroup

from kgprofiles.errors import KgError

#: Set to 1 to see the traceback of an unexpected error.
DEBUG_VARIABLE = "KGPROFILES_DEBUG"
EXIT_BUG = 70
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143


class Terminated(KeyboardInterrupt):
    """The process was sent SIGTERM: handled as Ctrl-C (module docstring)."""


#: A shell's code for a command ended by a closed pipe (128 + SIGPIPE).
EXIT_BROKEN_PIPE = 141


class _OneLine(logging.Formatter):
    """A log record as one line, ``kgprofiles: warning: …``: the traceback a library attaches
    (``exc_info``) only with KGPROFILES_DEBUG=1."""

    def format(self, record: logging.LogRecord) -> str:
        text = f"kgprofiles: {record.levelname.lower()}: {record.getMessage()}"
        if record.exc_info and os.environ.get(DEBUG_VARIABLE) == "1":
            text += "\n" + self.formatException(record.exc_info)
        return text


def configure_logging() -> None:
    """How the program prints what is logged (warnings and errors, on stderr, one line each).
    rdflib's own warnings about literals it cannot convert (each with a traceback) are left out:
    the shapes report an ill-typed literal with its file, line and rule."""
    root = logging.getLogger()
    if any(isinstance(h.formatter, _OneLine) for h in root.handlers):
        return  # (the program's app called again in one process)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine())
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    logging.getLogger("rdflib.term").setLevel(logging.ERROR)


def report(error: KgError) -> None:
    """Print a KgError the one way errors are printed: `kgprofiles: kind: message`, then the hint."""
    typer.secho(f"kgprofiles: {error.kind}: {error.message}", err=True, fg="red")
    if error.hint:
        typer.echo(f"hint: {error.hint}", err=True)


def exit_code_of(error: BaseException) -> int:
    """The exit code for an error raised by a command (after it has been reported)."""
    if isinstance(error, KgError):
        return error.exit_code
    if isinstance(error, Terminated):
        return EXIT_TERMINATED
    if isinstance(error, KeyboardInterrupt):
        return EXIT_INTERRUPTED
    return EXIT_BUG


def report_any(error: BaseException) -> int:
    """Report any error a command raised and return its exit code."""
    if isinstance(error, BrokenPipeError):  # the reader went away (`kgprofiles query … | head`): say nothing
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    if isinstance(error, KgError):
        report(error)
    elif isinstance(error, KeyboardInterrupt):
        how = "stopped (SIGTERM)" if isinstance(error, Terminated) else "interrupted"
        typer.secho(f"kgprofiles: {how}; nothing was published", err=True, fg="red")
    elif isinstance(error, MemoryError):
        typer.secho("kgprofiles: out of memory", err=True, fg="red")
        typer.echo("hint: the input is too large for this machine; split it, or raise the limits", err=True)
    elif isinstance(error, OSError) and error.errno is not None:
        where = f" ({error.filename})" if error.filename else ""
        typer.secho(f"kgprofiles: system error: {error.strerror}{where}", err=True, fg="red")
        return 3
    elif isinstance(error, OSError) and str(error):
        # Oxigraph's (RocksDB's) I/O errors carry no errno, only their text: "IO error: No space
        # left on device: While appending to file: …", "File too large (os error 27)".
        typer.secho(f"kgprofiles: system error: {error}", err=True, fg="red")
        return 3
    else:
        typer.secho(f"kgprofiles: internal error: {type(error).__name__}: {error}", err=True, fg="red")
        if os.environ.get(DEBUG_VARIABLE) == "1":
            traceback.print_exception(error, file=sys.stderr)
        else:
            typer.echo(f"hint: this is a bug in kgprofiles; {DEBUG_VARIABLE}=1 shows the traceback", err=True)
    return exit_code_of(error)


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so flushing it at exit does not fail again on the closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _is_the_frameworks(error: BaseException) -> bool:
    """Usage errors, --help and exits: Typer and Click (which Typer carries inside) report them."""
    return type(error).__module__.split(".")[0] in ("click", "typer")


class ErrorBoundary(TyperGroup):
    """The top-level group: runs the command and reports whatever it raised."""

    def invoke(self, ctx: typer.Context) -> Any:  # type: ignore[override]  # Typer's own Context
        try:
            with _sigterm_as_interrupt():
                return super().invoke(ctx)
        except (Exception, KeyboardInterrupt) as error:
            if _is_the_frameworks(error):
                raise
            raise typer.Exit(report_any(error)) from None


def _terminate(signum: int, frame: object) -> None:
    raise Terminated()


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM raises ``Terminated`` while a command runs (in the main thread only: Python
    delivers signals there; elsewhere, as in some test runners, nothing changes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        if previous is not None:  # None: a handler not set from Python, which cannot be put back
            signal.signal(signal.SIGTERM, previous)
