"""Run an engine where it can be stopped: a fresh child process, killed at its budget's deadline.

A single SPARQL query (Oxigraph), a pyshacl validation or an owlrl closure cannot be interrupted
from Python. ``run_killable(function, args, budget, doing)`` runs ``function(*args)`` in a new
Python interpreter (started with exec, never a fork of this possibly threaded process) that caps
its own address space (``RLIMIT_AS``: the budget's ``memory_mb``) and dies with its parent; the
parent waits at most the budget's remaining time, then kills it.

The function and its arguments travel pickled through a private scratch directory, and so does
the answer: a value, a KgError (raised again here, as it was), running out of memory, or a bug.
The child imports only what the function's module imports: keep those modules light (the child
of an sh:sparql run imports Oxigraph, not rdflib).
"""

from __future__ import annotations

import errno
import os
import pickle
import select
import signal
import subprocess
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from kgprofiles.budget import Budget
from kgprofiles.errors import KgError
from kgprofiles.scratch import scratch_dir

T = TypeVar("T")

_JOB = "job.pickle"
_ANSWER = "answer.pickle"
_STDERR = "stderr.txt"
#: What the child runs: find kgprofiles where the parent found it, then run the job in argv[1].
_BOOTSTRAP = (
    "import sys; sys.path[:0] = sys.argv[3:]; from kgprofiles.killable import child_main; "
    "child_main(sys.argv[1], int(sys.argv[2]))"
)
#: Exit statuses of a child that ran out of address space: Rust's abort, a failed stack growth,
#: the kernel's out-of-memory killer.
_OUT_OF_MEMORY = {-signal.SIGABRT, -signal.SIGSEGV, -signal.SIGBUS, -signal.SIGKILL}


class EngineCrashed(KgError):
    """An engine's child process failed in a way kgprofiles did not expect (exit 70: a bug)."""

    kind = "internal error"
    exit_code = 70


def run_killable(function: Callable[..., T], args: tuple[Any, ...], budget: Budget, doing: str) -> T:
    """``function(*args)`` in a child process under ``budget`` (its remaining time, its memory
    cap); ``doing`` says what it is ("the sh:sparql constraints") in the messages. Raises
    BudgetExceeded when the child is killed at the deadline or runs out of memory, and any
    KgError the function raised."""
    with Killable(function, args, budget, doing) as child:
        return child.result()


class Killable:
    """``function(*args)`` started in a child process (see ``run_killable``), for the caller to
    do other work meanwhile: ``with Killable(...) as child: …; value = child.result()``. Leaving
    the block kills the child if it still runs, and removes its scratch directory."""

    def __init__(self, function: Callable[..., Any], args: tuple[Any, ...], budget: Budget, doing: str) -> None:
        self.budget = budget
        self.doing = doing
        budget.check_time(doing)
        self._scratch = scratch_dir("engine")
        self.directory = Path(self._scratch.name)
        try:
            with open(self.directory / _JOB, "wb") as handle:
                pickle.dump((function, args), handle, protocol=pickle.HIGHEST_PROTOCOL)
            command = [sys.executable, "-c", _BOOTSTRAP, self._scratch.name, str(budget.memory_mb or 0)]
            with open(self.directory / _STDERR, "wb") as stderr:
                self.process = subprocess.Popen(
                    [*command, *_import_paths()], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr
                )
        except BaseException:
            self._scratch.cleanup()
            raise

    def __enter__(self) -> Killable:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self._scratch.cleanup()

    def stop(self) -> None:
        """Kill the child if it still runs."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def result(self) -> Any:
        """Wait for the child (at most the budget's remaining time, then kill it) and return
        what the function returned, or raise what it raised."""
        try:
            _wait(self.process, self.budget.remaining())
        except subprocess.TimeoutExpired:
            raise self.budget.out_of_time(self.doing) from None
        finally:
            self.stop()
        return _answer(self.directory, self.process.returncode, self.budget, self.doing)


def _wait(process: subprocess.Popen[bytes], timeout: float | None) -> None:
    """``process.wait(timeout)``, woken by the child's exit where Linux can say it (a pidfd):
    ``Popen.wait`` with a timeout polls, sleeping up to 50 ms past the exit."""
    if timeout is not None and hasattr(os, "pidfd_open"):
        try:
            descriptor = os.pidfd_open(process.pid)
        except OSError:  # an older kernel, or the child already reaped
            pass
        else:
            try:
                select.select([descriptor], [], [], max(timeout, 0))
            finally:
                os.close(descriptor)
            if process.poll() is None:
                raise subprocess.TimeoutExpired(process.args, timeout)
            return
    process.wait(timeout=timeout)


def _import_paths() -> list[str]:
    return [p for p in sys.path if p and os.path.isdir(p)]


def _answer(directory: Path, status: int, budget: Budget, doing: str) -> Any:
    answer = directory / _ANSWER
    if not answer.exists():
        if status in _OUT_OF_MEMORY:
            raise budget.out_of_memory(doing)
        detail = (directory / _STDERR).read_text(errors="replace").strip().splitlines()[-1:]
        raise EngineCrashed(
            f"{doing} failed in its child process (exit {status}){': ' + detail[0] if detail else ''}",
            "this is a bug in kgprofiles; KGPROFILES_DEBUG=1 shows the child's traceback",
        )
    with open(answer, "rb") as handle:
        outcome = pickle.load(handle)  # written by our own child, just now
    match outcome:
        case ("value", value):
            return value
        case ("kgerror", cls, message, hint):
            error = cls.__new__(cls)  # as raised, whatever the arguments of its own __init__
            KgError.__init__(error, message, hint)
            raise error
        case ("memory",):
            raise budget.out_of_memory(doing)
        case ("bug", summary, trace):
            if os.environ.get("KGPROFILES_DEBUG") == "1":
                sys.stderr.write(trace)
            raise EngineCrashed(
                f"{doing} failed: {summary}",
                "this is a bug in kgprofiles; KGPROFILES_DEBUG=1 shows the child's traceback",
            )
    raise EngineCrashed(f"{doing}: the child process sent an answer kgprofiles cannot read")


# -- in the child ---------------------------------------------------------------------------------


def child_main(scratch: str, memory_mb: int) -> None:
    """The child's side: cap the address space, die with the parent, run the job, write the answer."""
    die_with_parent()
    if memory_mb > 0:
        import resource

        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    directory = Path(scratch)
    try:
        with open(directory / _JOB, "rb") as handle:
            function, args = pickle.load(handle)
        outcome: tuple[Any, ...] = ("value", function(*args))
    except KgError as exc:
        outcome = ("kgerror", type(exc), exc.message, exc.hint)
    except MemoryError:
        outcome = ("memory",)
    except Exception as exc:  # reported to the parent as a bug, with the traceback
        if memory_mb > 0 and _out_of_address_space(exc):
            outcome = ("memory",)
        else:
            outcome = ("bug", f"{type(exc).__name__}: {exc}", traceback.format_exc())
    partial = directory / (_ANSWER + ".part")
    try:
        with open(partial, "wb") as handle:
            pickle.dump(outcome, handle, protocol=pickle.HIGHEST_PROTOCOL)
    except MemoryError:
        with open(partial, "wb") as handle:
            pickle.dump(("memory",), handle)
    os.replace(partial, directory / _ANSWER)


def _out_of_address_space(error: Exception) -> bool:
    """Whether ``error`` is the address-space cap rather than a bug: a library the cap leaves no
    room to map (``ImportError: … failed to map segment from shared object``), or ENOMEM."""
    if isinstance(error, OSError) and error.errno == errno.ENOMEM:
        return True
    text = str(error).lower()
    return isinstance(error, ImportError) and ("failed to map segment" in text or "cannot allocate memory" in text)


def die_with_parent() -> None:
    """Ask Linux to kill this process when its parent dies (best effort elsewhere)."""
    parent = os.getppid()
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the request: go now
        os._exit(1)
