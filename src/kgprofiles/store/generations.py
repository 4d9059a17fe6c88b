"""On-disk store generations: immutable once published, one writer at a time, readers that hold a
lease, durable switches.

Layout, for a store at ``.kgprofiles/store``::

    .kgprofiles/store                        a symlink to the published generation
    .kgprofiles/store.generations/<name>/    one RocksDB directory per generation
    .kgprofiles/store.generations/<name>.lease   readers hold a shared lock on it
    .kgprofiles/.store.lock                  the writer lock (holds the writer's pid and command)

The rules, and what each gives:

* **One writer.** Every writing command (``build``, ``load``, an update sent to ``serve``) holds
  the writer lock (``flock``, released by the kernel when the process dies) for its whole run. A
  second writer waits, saying who holds it, or fails at once (``wait=False``) with StoreBusy.
* **Published generations are never written.** A writer builds a fresh ``<name>.building``
  directory, empty (``build``) or a hard-linked checkpoint of the published one (``load``:
  RocksDB's SST files never change once written, so the copy costs milliseconds), writes it,
  then publishes it by renaming it and replacing the symlink in one ``rename``.
* **Durable.** Before the switch every file of the new generation and its directory are fsynced;
  after it, the directory holding the link. A command that reports success has its data on disk.
* **Readers never write.** They resolve the link once, take a shared lock on that generation's
  lease file, and open the directory read-only. Nothing they hold changes under them, and a
  generation is removed (by ``gc``, which each publish runs) only when no lease is held on it.
* **A killed writer leaves nothing that matters.** Its ``.building`` directory is ignored by
  readers and removed by the next writer.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from kgprofiles.errors import StoreError

log = logging.getLogger(__name__)

BUILDING = ".building"
DELETING = ".deleting"
LEASE = ".lease"
#: How many times a reader re-resolves the link when the generation it found went away meanwhile.
_RESOLVE_ATTEMPTS = 20


class StoreBusy(StoreError):
    """Another process is writing the store and the caller asked not to wait (exit 3)."""


def generations_dir(store_path: Path) -> Path:
    return store_path.parent / f"{store_path.name}.generations"


def lock_path(store_path: Path) -> Path:
    return store_path.parent / f".{store_path.name}.lock"


def lease_path(generation: Path) -> Path:
    return generation.parent / f"{generation.name}{LEASE}"


def lease_holders(generation: Path) -> list[str]:
    """The processes that hold ``generation``'s lease file open, each as "pid N (its command)"
    (Linux: their open files; only the processes this user may look at): what keeps a
    generation that gc cannot remove. Empty where that cannot be seen."""
    target = os.path.abspath(lease_path(generation))
    holders = []
    try:
        processes = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return []
    for pid in processes:
        try:
            if not any(os.readlink(f"/proc/{pid}/fd/{fd}") == target for fd in os.listdir(f"/proc/{pid}/fd")):
                continue
            raw = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:  # (gone meanwhile, or another user's)
            continue
        words = raw.decode("utf-8", "replace").rstrip("\0").split("\0")
        command = " ".join([os.path.basename(words[0]), *words[1:]]).strip()
        holders.append(f"pid {pid} ({command[:80] or '?'})")
    return holders


def is_published(store_path: Path) -> bool:
    """Whether ``store_path`` is a link to a published generation."""
    return store_path.is_symlink()


def current(store_path: Path) -> Path | None:
    """The published generation's directory, or None when nothing is published there."""
    if not store_path.is_symlink():
        return None
    target = Path(os.readlink(store_path))
    return (store_path.parent / target).resolve() if not target.is_absolute() else target.resolve()


# -- durability ---------------------------------------------------------------------------------


def fsync_dir(path: Path) -> None:
    """Make a directory's entries (created, renamed, removed files) durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_file(path: str | os.PathLike[str]) -> None:
    """Make a file's contents durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_tree(path: Path) -> None:
    """fsync every file under ``path``, then every directory, deepest first."""
    for folder, _, names in os.walk(path, topdown=False):
        for name in names:
            fsync_file(os.path.join(folder, name))
        fsync_dir(Path(folder))


# -- the writer lock ----------------------------------------------------------------------------


@contextlib.contextmanager
def writer_lock(
    store_path: Path,
    *,
    command: str = "kgprofiles",
    wait: bool = True,
    on_wait: Callable[[str], None] | None = None,
    lock: Path | None = None,
    wait_s: float | None = None,
    busy_hint: str | None = None,
) -> Iterator[None]:
    """Hold the store's writer lock for the block. Another writer holding it: wait (telling
    ``on_wait`` who holds it; at most ``wait_s`` seconds when given, then StoreBusy), or, with
    ``wait=False``, raise StoreBusy at once (``busy_hint``: what its hint says). ``lock``: the
    lock file, if not the one beside ``store_path`` (``lock_path``)."""
    lock = lock or lock_path(store_path)
    busy_hint = busy_hint or "wait for it to finish, or run the command again without --no-wait to wait for it"
    lock.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            if not wait:
                raise StoreBusy(f"another process is writing the store at {store_path} ({holder})", busy_hint) from None
            if on_wait is not None:
                on_wait(f"waiting for {holder} to finish writing {store_path}…")
            if wait_s is None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            elif not _lock_within(fd, wait_s):
                raise StoreBusy(
                    f"another process has been writing the store at {store_path} for more than {wait_s:g} s "
                    f"({_holder(fd)})",
                    busy_hint,
                ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {command}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock


#: How often a writer that waits at most a while looks whether the lock is free.
_POLL_S = 0.05


def _lock_within(fd: int, seconds: float) -> bool:
    """Take the exclusive lock on ``fd`` within ``seconds``; False if it stayed taken."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(_POLL_S)


def _holder(fd: int) -> str:
    """Who holds the writer lock, as the lock file says (pid and command)."""
    try:
        text = os.pread(fd, 512, 0).decode("utf-8", errors="replace").strip()
    except OSError:
        text = ""
    pid, _, command = text.partition(" ")
    if not (pid.isdigit() and command):
        return "another kgprofiles process"
    return f"`{command}` (pid {pid}{_stopped(pid)})"


def _stopped(pid: str) -> str:
    """What to say of a writer that is stopped (Ctrl-Z in its terminal, SIGSTOP): it holds the
    lock until it is resumed, however long one waits ('' when it runs, or cannot be seen)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError, UnicodeError):
        return ""
    if state not in ("T", "t"):
        return ""
    return f", stopped: it goes on only once resumed, by `fg` in its terminal or `kill -CONT {pid}`"


def writer_active(store_path: Path) -> bool:
    """Whether a writer holds the lock right now (a snapshot: it may start a moment later)."""
    path = lock_path(store_path)
    if not path.exists():
        return False
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


# -- readers' leases ----------------------------------------------------------------------------


@dataclass
class Lease:
    """A reader's shared hold on one generation: while it is held, ``gc`` leaves the directory."""

    generation: Path
    _fd: int | None = field(default=None, repr=False)

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> Lease:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def lease(generation: Path) -> Lease | None:
    """A shared hold on ``generation``, or None if it is gone (or going) by the time the hold is had."""
    held = hold(generation)  # (waits only while gc is deciding about this very generation)
    if not (generation / "CURRENT").exists():
        held.release()
        return None
    return held


def _open_lease(generation: Path) -> int:
    """The lease file of ``generation``, open: for writing where this user may (made if missing),
    else for reading, which is all a shared lock needs (a store another user built and publishes,
    read by one who may not write its directory: a site served by www-data)."""
    path = lease_path(generation)
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        if exc.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise
    try:
        return os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        raise StoreError(
            f"cannot read the store generation {generation}: it has no lease file, and this user cannot make one",
            f"run `kgprofiles store check` once as the user who owns {generation.parent} (it makes them)",
        ) from None


def hold(generation: Path) -> Lease:
    """A shared hold on ``generation``'s lease file, made if missing, whether or not the directory
    exists yet (a writer's, from before it publishes a generation until the link points at it)."""
    fd = _open_lease(generation)
    fcntl.flock(fd, fcntl.LOCK_SH)
    return Lease(generation, fd)


def make_lease_file(generation: Path) -> None:
    """Make the lease file of ``generation`` (a writer does, as it publishes one, so that readers
    who may not write the store's directory can hold it)."""
    os.close(os.open(lease_path(generation), os.O_RDWR | os.O_CREAT, 0o644))


def lease_current(store_path: Path) -> Lease:
    """A lease on the published generation (re-resolving the link if a newer one replaced it and
    the old one was removed in between)."""
    for _ in range(_RESOLVE_ATTEMPTS):
        generation = current(store_path)
        if generation is None:
            raise StoreError(f"no store at {store_path}", "run `kgprofiles build` first, or give --store/--endpoint")
        held = lease(generation)
        if held is not None:
            return held
    raise StoreError(f"the store at {store_path} keeps changing: no generation could be opened")


# -- writing a generation -----------------------------------------------------------------------


def new_generation(store_path: Path) -> Path:
    """A fresh, empty ``.building`` directory for the next generation. Call it holding the writer
    lock: it removes what killed writers left (unfinished generations, scratch directories)."""
    base = generations_dir(store_path)
    base.mkdir(parents=True, exist_ok=True)
    for stale in base.glob(f"*{BUILDING}"):
        shutil.rmtree(stale, ignore_errors=True)
    import secrets  # (on first use: it is slow to import, and readers never need it)

    name = f"{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}-{secrets.token_hex(4)}{BUILDING}"
    path = base / name
    path.mkdir()
    return path


def scratch_dir(generation: Path) -> Path:
    """A fresh directory beside ``generation`` for a build's temporary files. The build removes it;
    one left by a killed build is stale like its generation, and the next build removes both."""
    path = generation.parent / f"{generation.name.removesuffix(BUILDING)}.scratch{BUILDING}"
    path.mkdir()
    return path


def publish(store_path: Path, generation: Path) -> Path:
    """Make ``generation`` (a closed ``.building`` directory) the published store: fsync it, rename
    it, point the link at it with one atomic rename, fsync the directories, then remove the
    generations no reader holds. Returns the published directory."""
    final = generation.with_name(generation.name.removesuffix(BUILDING))
    fsync_tree(generation)
    # Held as a reader holds it from before it has its name until the link points at it: a gc
    # beside this writer (`store gc`) sees a generation neither building nor published, and
    # would remove it (the link then switched to nothing).
    with hold(final):
        generation.rename(final)
        fsync_dir(final.parent)
        if store_path.exists() and not store_path.is_symlink():
            adopt_legacy(store_path)
        point(store_path, final)
    try:
        collect_garbage(store_path)
    except OSError as exc:  # (published all the same: saying the write failed would be untrue)
        log.warning("published %s, but older generations were not removed (%s): see `kgprofiles store gc`", final, exc)
    return final


def point(store_path: Path, generation: Path) -> None:
    """Replace the link at ``store_path`` by one to ``generation``, atomically and durably."""
    link = store_path.parent / f".{store_path.name}.link-{os.getpid()}"
    if link.is_symlink():
        link.unlink()
    link.symlink_to(os.path.relpath(generation, store_path.parent))
    os.replace(link, store_path)
    fsync_dir(store_path.parent)


def check_adoptable(store_path: Path) -> None:
    """A StoreError unless ``store_path`` is nothing yet, a published store, or a store from
    before generations (a pyoxigraph directory: its ``CURRENT`` file) or an empty directory, which
    ``adopt_legacy`` takes in: a directory of anything else, or a file, would be moved among the
    generations and removed by the next ``collect_garbage``, whatever it holds."""
    if store_path.is_symlink() or not store_path.exists():
        return
    if store_path.is_dir() and ((store_path / "CURRENT").is_file() or not any(store_path.iterdir())):
        return
    what = "a directory" if store_path.is_dir() else "a file"
    raise StoreError(
        f"{store_path} is {what} that is not a kgprofiles store: writing the store there would replace it",
        "give the store another path (a new one, or an existing store's); nothing was changed",
    )


def adopt_legacy(store_path: Path) -> None:
    """A store from before generations is a plain directory: move it among the generations once
    and link it, so it is published like any other. Call it holding the writer lock."""
    check_adoptable(store_path)
    legacy = generations_dir(store_path) / "legacy"
    if legacy.exists():
        raise StoreError(f"{store_path} is a directory and {legacy} exists", "remove one of them")
    legacy.parent.mkdir(parents=True, exist_ok=True)
    store_path.rename(legacy)
    make_lease_file(legacy)
    fsync_dir(legacy.parent)
    point(store_path, legacy)


# -- removing old generations -------------------------------------------------------------------


@dataclass(frozen=True)
class Collected:
    """What ``collect_garbage`` did: the generations removed, those kept because a reader holds
    them, and the bytes freed (files no other generation shares)."""

    removed: tuple[str, ...]
    in_use: tuple[str, ...]
    freed_bytes: int


def collect_garbage(store_path: Path, *, unfinished: bool = False) -> Collected:
    """Remove every generation except the published one and those a reader holds. With
    ``unfinished``, also what a killed writer left (``.building``): only call that holding the
    writer lock, or with no writer running."""
    base = generations_dir(store_path)
    if not base.is_dir():
        return Collected((), (), 0)
    published = current(store_path)
    removed: list[str] = []
    in_use: list[str] = []
    freed = 0
    for path in sorted(base.iterdir()):
        if path.name.endswith(DELETING):
            freed += _remove(path)
        elif path.name.endswith(BUILDING):
            if unfinished:
                freed += _remove(path)
                removed.append(path.name)
        elif path.name.endswith(LEASE):
            generation = path.with_name(path.name.removesuffix(LEASE))
            if not generation.exists():
                _drop_lease_file(path, generation)
        elif path.is_symlink():  # not a generation this store wrote: neither followed nor removed
            continue
        elif path.is_dir() and path.resolve() != published:  # (published: resolved, as is a linked directory)
            taken = _remove_unless_leased(path, store_path)
            if taken == _SKIPPED:
                continue
            if taken is None:
                in_use.append(path.name)
            else:
                removed.append(path.name)
                freed += taken
    return Collected(tuple(removed), tuple(in_use), freed)


#: What ``_remove_unless_leased`` returns for a generation published since gc looked at the link,
#: or removed meanwhile by another gc.
_SKIPPED = -1


def _remove_unless_leased(generation: Path, store_path: Path) -> int | None:
    """Remove ``generation`` if no reader holds it and it is not published (its bytes freed),
    else None (held) or ``_SKIPPED``. The link is looked at again under the lock: a writer
    holds a new generation until the link points at it, and the link may have moved since gc
    first read it; another gc (a publish's, `store gc`) may have removed it meanwhile."""
    fd = os.open(lease_path(generation), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return None
        if generation.resolve() == current(store_path):
            return _SKIPPED
        doomed = generation.with_name(generation.name + DELETING)
        try:
            generation.rename(doomed)  # a reader waiting on the lease sees it gone, and re-resolves
        except FileNotFoundError:  # removed by another gc (its lease file made again here: dropped)
            with contextlib.suppress(FileNotFoundError):
                lease_path(generation).unlink()
            return _SKIPPED
        freed = _remove(doomed)
        with contextlib.suppress(FileNotFoundError):
            lease_path(generation).unlink()
        return freed
    finally:
        os.close(fd)


def _drop_lease_file(path: Path, generation: Path) -> None:
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return  # removed with its generation a moment ago
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return
        if not generation.exists():
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
    finally:
        os.close(fd)


def _remove(path: Path) -> int:
    """Remove a directory; the bytes of the files only it held."""
    freed = 0
    for folder, _, names in os.walk(path):
        for name in names:
            with contextlib.suppress(OSError):
                stat = os.lstat(os.path.join(folder, name))
                if stat.st_nlink == 1:
                    freed += stat.st_size
    try:
        shutil.rmtree(path)
    except OSError as exc:
        if exc.errno != errno.ENOENT:
            raise StoreError(f"cannot remove {path}: {exc.strerror or exc}") from exc
    return freed


def generation_dirs(store_path: Path) -> list[Path]:
    """Every finished generation, newest first."""
    base = generations_dir(store_path)
    if not base.is_dir():
        return []
    found = [
        p for p in base.iterdir() if p.is_dir() and not p.is_symlink() and not p.name.endswith((BUILDING, DELETING))
    ]
    return sorted(found, key=lambda p: p.stat().st_mtime_ns, reverse=True)
