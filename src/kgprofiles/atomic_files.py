"""Output files written whole: a command's ``--output`` file is written beside its place and put
there once complete (and on disk), so that Ctrl-C, a kill, an error or a power cut midway leaves
the previous file (or none), never half of a new one.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d:
...     path = Path(d) / "out.txt"
...     _ = path.write_text("previous")
...     try:
...         with written_whole(path) as part:
...             _ = part.write_text("half")
...             raise KeyboardInterrupt
...     except KeyboardInterrupt:
...         pass
...     kept = path.read_text()
...     with written_whole(path) as part:
...         _ = part.write_text("new")
...     (kept, path.read_text(), sorted(p.name for p in Path(d).iterdir()))
('previous', 'new', ['out.txt'])
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def written_whole(path: Path, *, over: bool = True) -> Iterator[Path]:
    """A file beside ``path`` for the block to write, moved into its place when the block ends
    without an error; removed otherwise. ``over`` False: never over a file already at ``path``
    (FileExistsError naming it), as ``kgprofiles new`` writes into data/."""
    part = path.with_name(f".{path.name}.part-{os.getpid()}")
    try:
        yield part
        _fsync(part)  # (on disk before it takes the old one's place: a power cut leaves one of the two)
        if over:
            part.replace(path)
        else:
            _link_into(part, path)
        _fsync(path.parent)
    finally:
        part.unlink(missing_ok=True)


def _link_into(part: Path, path: Path) -> None:
    """``part`` at ``path`` unless a file is there: hard-linked (which fails if one is), or, on a
    file system without hard links, renamed once none is."""
    try:
        os.link(part, path)
    except FileExistsError:
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(path)) from None
    except OSError:
        if path.exists():
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(path)) from None
        os.rename(part, path)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
