"""Atomic swaps of an on-disk store: each build writes a fresh generation directory, then one
``rename`` of a symlink publishes it. A build that fails or is killed never touches the link, so
the previous store stays exactly as it was."""

from __future__ import annotations

import os
import secrets
import shutil
import time
from pathlib import Path

from kgprofiles.errors import StoreError


def generations_dir(store_path: Path) -> Path:
    return store_path.parent / f"{store_path.name}.generations"


def new_generation(store_path: Path) -> Path:
    """A fresh, empty directory to build the next store in (stale unfinished ones are removed)."""
    base = generations_dir(store_path)
    base.mkdir(parents=True, exist_ok=True)
    current = store_path.resolve() if store_path.is_symlink() else None
    for stale in base.glob("*.building"):
        if stale != current:
            shutil.rmtree(stale, ignore_errors=True)
    path = base / f"{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}-{secrets.token_hex(4)}.building"
    path.mkdir()
    return path


def scratch_dir(generation: Path) -> Path:
    """A fresh directory beside ``generation`` for a build's temporary files. The build removes it;
    one left by a killed build is stale like its generation, and the next build removes both."""
    path = generation.parent / f"{generation.stem}.scratch.building"
    path.mkdir()
    return path


def publish(store_path: Path, generation: Path) -> None:
    """Point ``store_path`` at ``generation`` with one atomic rename, then remove older generations."""
    final = generation.with_suffix("")
    generation.rename(final)
    if store_path.exists() and not store_path.is_symlink():
        # A store from before generations: move it aside once, so the link can replace it.
        legacy = generations_dir(store_path) / "legacy"
        if legacy.exists():
            raise StoreError(f"{store_path} is a directory and {legacy} exists", "remove one of them")
        store_path.rename(legacy)
    link = store_path.parent / f".{store_path.name}.link-{os.getpid()}"
    if link.is_symlink():
        link.unlink()
    link.symlink_to(os.path.relpath(final, store_path.parent))
    os.replace(link, store_path)
    for old in generations_dir(store_path).iterdir():
        if old != final and not old.name.endswith(".building"):
            shutil.rmtree(old, ignore_errors=True)
