"""A scratch directory left by a killed kgprofiles process is removed by a later one
(``kgprofiles.scratch``): only when its process is gone and nobody touched it for an hour."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from kgprofiles.scratch import STALE_AFTER_S, scratch_dir, sweep

AN_HOUR_AGO = time.time() - STALE_AFTER_S - 60


def dead_pid() -> int:
    """The pid of a process that has ended."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def left_over(where: Path, name: str, touched: float = AN_HOUR_AGO) -> Path:
    path = where / name
    path.mkdir()
    (path / "job.pickle").write_bytes(b"x" * 100)
    os.utime(path, (touched, touched))
    return path


def test_only_old_directories_of_processes_that_are_gone_are_removed(tmp_path: Path) -> None:
    gone = dead_pid()
    stale = left_over(tmp_path, f"kgprofiles-engine-{gone}-abc")
    recent = left_over(tmp_path, f"kgprofiles-build-{gone}-def", touched=time.time())
    running = left_over(tmp_path, f"kgprofiles-fast-{os.getppid()}-ghi")
    mine = left_over(tmp_path, f"kgprofiles-engine-{os.getpid()}-jkl")
    unrelated = left_over(tmp_path, f"someone-else-{gone}-mno")
    a_file = tmp_path / f"kgprofiles-engine-{gone}-pqr"
    a_file.write_text("not a directory", encoding="utf-8")
    os.utime(a_file, (AN_HOUR_AGO, AN_HOUR_AGO))

    assert sweep(tmp_path) == [stale]

    assert not stale.exists()
    assert all(p.exists() for p in (recent, running, mine, unrelated, a_file))


def test_a_missing_temporary_directory_is_no_error(tmp_path: Path) -> None:
    assert sweep(tmp_path / "nowhere") == []


def test_a_killed_process_leaves_its_scratch_and_the_next_one_removes_it(tmp_path: Path) -> None:
    holder = (
        "import sys, time; from kgprofiles.scratch import scratch_dir; "
        "d = scratch_dir('engine'); print(d.name, flush=True); time.sleep(60)"
    )
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    child = subprocess.Popen([sys.executable, "-c", holder], stdout=subprocess.PIPE, text=True, env=env)
    try:
        left = Path(child.stdout.readline().strip())  # type: ignore[union-attr]
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    assert left.is_dir() and left.parent == tmp_path, "SIGKILL runs no clean-up"
    os.utime(left, (AN_HOUR_AGO, AN_HOUR_AGO))

    later = subprocess.run(
        [sys.executable, "-c", "from kgprofiles.scratch import scratch_dir; scratch_dir('fast').cleanup()"],
        env=env,
        check=True,
    )

    assert later.returncode == 0
    assert not left.exists()
    assert list(tmp_path.iterdir()) == []


def test_the_directory_names_its_kind_and_process() -> None:
    with scratch_dir("engine") as made:
        assert Path(made).name.startswith(f"kgprofiles-engine-{os.getpid()}-")
