"""Processes seen from /proc (Linux): a process's children, and whether one still runs."""

from __future__ import annotations

import time
from collections.abc import Collection
from pathlib import Path


def children(pid: int) -> list[int]:
    """The running processes whose parent is ``pid``."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        fields = _fields(stat)
        if fields and int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def descendants(pid: int) -> list[int]:
    """The running processes ``pid`` started, and those they started, and so on."""
    found, todo = [], children(pid)
    while todo:
        found.append(todo.pop())
        todo += children(found[-1])
    return found


def running(pid: int) -> bool:
    """Whether the process ``pid`` is alive (a zombie is not)."""
    fields = _fields(Path(f"/proc/{pid}/stat"))
    return bool(fields) and fields[0] != "Z"


def all_gone(pids: Collection[int], within: float = 10.0) -> bool:
    """Whether every one of ``pids`` has ended, waiting up to ``within`` seconds for them."""
    deadline = time.monotonic() + within
    while any(map(running, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not any(map(running, pids))


def _fields(stat: Path) -> list[str]:
    """A /proc stat file's fields after the command's name (state, parent, …); none if it is gone."""
    try:
        return stat.read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return []
