"""Files kgprofiles can compute again, kept on disk between processes.

Everything lives under ``$KGPROFILES_CACHE_DIR`` (default ``$XDG_CACHE_HOME/kgprofiles``, else
``~/.cache/kgprofiles``), one folder per kind of entry, each entry a JSON file named by a digest of
what it is made from and by (the input, and the source of the code that computes it), so an edited
input or a new version computes afresh. Files are written whole (a temporary file renamed into
place), so two processes never read half an entry; an entry that cannot be read is ignored (and
written again), and a directory that cannot be written only costs the computation.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

log = logging.getLogger("kgprofiles.fast")


def cache_dir() -> Path:
    """Where kgprofiles keeps what it can compute again: ``KGPROFILES_CACHE_DIR``, else the
    XDG cache directory."""
    explicit = os.environ.get("KGPROFILES_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kgprofiles"


def made_by(*parts: str, sources: tuple[str, ...] = ()) -> str:
    """A digest of ``parts`` and of the bytes of ``sources`` (files of this package, relative to
    ``fast/``): what an entry is made by."""
    digest = hashlib.sha256("\0".join(parts).encode("utf-8"))
    here = Path(__file__).parent
    for name in sources:
        digest.update((here / name).read_bytes())
    return digest.hexdigest()


def read_json(path: Path, what: str) -> Any | None:
    """The JSON value stored at ``path``; None when there is none or it cannot be read whole."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("%s: ignoring %s (%s)", what, path, exc)
        return None


def write_json(path: Path, data: object, what: str) -> None:
    """Store ``data`` at ``path`` whole, or not at all (a cache that cannot be written is only slower)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".entry-", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(data, out)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as exc:
        log.info("%s: not written to %s (%s)", what, path, exc)
