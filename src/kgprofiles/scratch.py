"""Scratch directories in the system's temporary directory, named by the process that made them.

A process killed with SIGKILL (or by the kernel) runs no clean-up, and its scratch directory would
stay behind for good: an engine's pickled job and answer, a remote load's staging store, the fast
inference's N-Triples. Each directory is named ``kgprofiles-<kind>-<pid>-<random>``; whenever a
kgprofiles process makes one, it first removes those whose process no longer runs and that nobody
touched for an hour (the hour keeps clear of a process this one cannot see, e.g. in another
container sharing the directory).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from pathlib import Path

#: A directory untouched for this long, whose process is gone, is left over.
STALE_AFTER_S = 3600.0
_NAME = re.compile(r"kgprofiles-[a-z]+-(\d+)-")


def scratch_dir(kind: str) -> tempfile.TemporaryDirectory[str]:
    """A new scratch directory (removed when the returned object is cleaned up or collected)."""
    sweep()
    return tempfile.TemporaryDirectory(prefix=_prefix(kind))


def make_scratch_dir(kind: str) -> Path:
    """A new scratch directory the caller removes itself."""
    sweep()
    return Path(tempfile.mkdtemp(prefix=_prefix(kind)))


def sweep(directory: Path | None = None, now: float | None = None) -> list[Path]:
    """Remove the scratch directories in ``directory`` (the temporary directory) left by processes
    that no longer run; the ones removed. Never raises: a directory it cannot read or remove stays."""
    where = Path(directory or tempfile.gettempdir())
    moment = time.time() if now is None else now
    removed = []
    try:
        entries = list(os.scandir(where))
    except OSError:
        return []
    for entry in entries:
        found = _NAME.match(entry.name)
        if found is None or int(found.group(1)) == os.getpid():
            continue
        try:
            if not entry.is_dir(follow_symlinks=False) or moment - entry.stat().st_mtime < STALE_AFTER_S:
                continue
        except OSError:
            continue
        if not _running(int(found.group(1))):
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(Path(entry.path))
    return removed


def _prefix(kind: str) -> str:
    return f"kgprofiles-{kind}-{os.getpid()}-"


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists, and belongs to someone else
        return True
    return True
