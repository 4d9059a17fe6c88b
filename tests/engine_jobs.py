"""Functions the killable-engine tests run in a child process (the child imports them by name,
so they live in a module of their own, with nothing heavy to import)."""

from __future__ import annotations

import time

from kgprofiles.errors import InputError


def double(x: int) -> int:
    return 2 * x


def sleep(seconds: float) -> None:
    time.sleep(seconds)


def allocate(megabytes: int) -> int:
    """Hold ``megabytes`` of memory, touched, so that it really is taken."""
    block = bytearray(megabytes * 1024 * 1024)
    block[::4096] = b"x" * len(block[::4096])
    return len(block)


def refuse(message: str, hint: str) -> None:
    raise InputError(message, hint)


def divide_by_zero() -> float:
    return 1 / 0


def import_oxigraph() -> str:
    """Load Oxigraph's library (tens of MB of address space) in the child."""
    import pyoxigraph

    return pyoxigraph.__name__
