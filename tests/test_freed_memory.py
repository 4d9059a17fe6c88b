"""Freed memory handed back to the system (``kgprofiles.freed_memory``): what a thread frees stays
with the process under glibc until it is."""

from __future__ import annotations

import ctypes
import sys
import threading

import pytest

from kgprofiles.freed_memory import _malloc_trim, give_back_freed_memory

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim is Linux's")


def _resident_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / 2**20


@linux
def test_what_a_thread_freed_is_given_back() -> None:
    """100 MB allocated and freed by a thread in 1 KB blocks (below the size glibc maps on its
    own): the process keeps it resident until it is handed back."""
    if _malloc_trim() is None:
        pytest.skip("this C library has no malloc_trim (not glibc)")
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]

    fence: list[int] = []

    def allocate_and_free() -> None:
        blocks = [libc.malloc(1024) for _ in range(100_000)]
        fence.append(libc.malloc(1024))  # (a block still in use after them: free() cannot give them back itself)
        for block in blocks:
            ctypes.memset(block, 1, 1024)  # (touched: resident)
        for block in blocks:
            libc.free(block)

    thread = threading.Thread(target=allocate_and_free)
    thread.start()
    thread.join()
    kept = _resident_mb()
    give_back_freed_memory()
    assert kept - _resident_mb() > 50
    libc.free(fence[0])
