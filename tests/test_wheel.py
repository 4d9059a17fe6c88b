"""kgprofiles as a user installs it: the wheel, in a fresh virtual environment outside this
checkout, used from an empty directory: init, new person, validate, build, profile, query, export,
serve (a page, the query editor's files, a /sparql request). The environment gets the wheel alone;
the wheel's dependencies are lent from the test environment (a .pth file), so the test spends its
time on kgprofiles, not on pip."""

from __future__ import annotations

import os
import shutil
import site
import socket
import subprocess
import sys
import time
import venv
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[1]
EDITOR = ROOT / "node_modules" / "@triply" / "yasgui" / "build" / "yasgui.min.js"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin/ directory of a fresh environment holding the wheel built from this checkout."""
    if not EDITOR.is_file():
        pytest.fail("the query editor is not installed: `make test` installs it (tools/install-test-deps.sh)")
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for name in tracked.splitlines():
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "node_modules" / "@triply" / "yasgui", source / "node_modules" / "@triply" / "yasgui")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(work), "."],
        cwd=source,
        check=True,
    )
    (wheel,) = work.glob("kgprofiles-*.whl")
    env_dir = work / "env"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    (purelib,) = env_dir.glob("lib/python3*/site-packages")
    lent = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (purelib / "_lent_dependencies.pth").write_text("\n".join(lent) + "\n", encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(purelib), str(wheel)],
        check=True,
    )
    bin_dir = env_dir / "bin"
    (bin_dir / "kgprofiles").write_text(
        f"#!{bin_dir / 'python'}\nfrom kgprofiles.cli import app\n\nif __name__ == '__main__':\n"
        "    app(prog_name='kgprofiles')\n",  # as pip writes console scripts
        encoding="utf-8",
    )
    (bin_dir / "kgprofiles").chmod(0o755)
    return bin_dir


def run(bin_dir: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGPROFILES_") and k != "PYTHONPATH"}
    return subprocess.run(
        [str(bin_dir / "kgprofiles"), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def project(installed: Path, tmp_path: Path) -> Iterator[Path]:
    empty = tmp_path / "whos-who"
    empty.mkdir()
    yield empty


def test_the_wheel_runs_a_project_of_ones_own_from_an_empty_directory(installed: Path, project: Path) -> None:
    where = run(installed, project, "--version")
    assert where.returncode == 0 and where.stdout.startswith("kgprofiles ")
    code = run(installed, project, "query", "--list")
    assert code.returncode == 2 and "not in a kgprofiles project" in code.stderr  # no silent fallback
    steps = [
        ("init", "--yes"),
        ("new", "person", "Ada Example", "--source", "https://example.org/ada", "--source-title", "A page"),
        ("validate",),
        ("build", "-q"),
    ]
    for step in steps:
        done = run(installed, project, *step)
        assert done.returncode == 0, (step, done.stdout, done.stderr)
    shown = run(installed, project, "profile", "example-person")
    assert shown.returncode == 0 and shown.stdout.startswith("Example Person\n"), shown.stderr
    listed = run(installed, project, "query", "--list")
    assert listed.returncode == 0 and "org-members" in listed.stdout  # the queries came with the wheel
    people = run(installed, project, "query", "-e", "SELECT ?n WHERE { ?p a kgp:Person ; kgp:name ?n }", "-f", "csv")
    assert people.returncode == 0 and set(people.stdout.split()) == {"n", "Ada", "Example", "Person"}
    exported = run(installed, project, "export", "--format", "nt")
    assert exported.returncode == 0 and "https://example.org/ada" in exported.stdout
    imports = subprocess.run(
        [str(installed / "python"), "-c", "import kgprofiles, sys; print(kgprofiles.__file__)"],
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert str(ROOT) not in imports.stdout  # the wheel's code, not this checkout's


def test_the_installed_server_serves_pages_the_editor_and_sparql(installed: Path, project: Path) -> None:
    assert run(installed, project, "init", "--yes").returncode == 0
    assert run(installed, project, "build", "-q").returncode == 0
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGPROFILES_") and k != "PYTHONPATH"}
    server = subprocess.Popen(
        [str(installed / "kgprofiles"), "serve", "--port", str(port)],
        cwd=project,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                page = httpx.get(base + "/id/person/example-person", timeout=5)
                break
            except httpx.TransportError:
                assert server.poll() is None, server.stderr.read()  # type: ignore[union-attr]
                assert time.monotonic() < deadline
                time.sleep(0.2)
        assert page.status_code == 200 and "Example Person" in page.text
        editor = httpx.get(base + "/sparql", headers={"Accept": "text/html"}, timeout=10)
        assert editor.status_code == 200 and "yasgui.min.js" in editor.text
        assert httpx.get(base + "/static/yasgui/yasgui.min.js", timeout=10).status_code == 200
        asked = httpx.get(base + "/sparql", params={"query": "ASK { ?s a kgp:Person }"}, timeout=30)
        assert asked.status_code == 200 and asked.json()["boolean"] is True
    finally:
        server.terminate()
        server.wait(timeout=30)


TUTORIAL = ROOT / "docs" / "tutorial.md"


def tutorial_commands() -> list[str]:
    """The shell lines of docs/tutorial.md's ```sh blocks, in order (a heredoc stays whole)."""
    lines: list[str] = []
    inside = False
    for line in TUTORIAL.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            inside = line.strip() == "```sh"
            continue
        if inside:
            lines.append(line)
    return lines


def test_the_tutorial_runs_as_written(installed: Path, tmp_path: Path) -> None:
    """Every command of docs/tutorial.md, with the installed wheel first on PATH (the install
    line is what the fixture did; `kgprofiles serve` is started and asked for a page)."""
    lines = tutorial_commands()
    assert lines[0].startswith("pip install kgprofiles-") and lines[-1] == "kgprofiles serve"
    script = "set -euo pipefail\n" + "\n".join(lines[1:-1]) + "\n"
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGPROFILES_") and k != "PYTHONPATH"}
    env["PATH"] = f"{installed}:{env['PATH']}"
    env["KGPROFILES_WIKIDATA_ENDPOINT"] = "http://127.0.0.1:9/sparql"  # nothing here reaches Wikidata
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 violations" in done.stdout and "Ada Example" in done.stdout and "Grace Example" in done.stdout
    assert "Research engineer" in (tmp_path / "whos-who" / "whos-who.ttl").read_text(encoding="utf-8")
    project = tmp_path / "whos-who"
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = subprocess.Popen(
        ["kgprofiles", "serve", "--port", str(port)], cwd=project, env=env, stdout=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                page = httpx.get(f"http://127.0.0.1:{port}/id/person/grace-example", timeout=5)
                break
            except httpx.TransportError:
                assert server.poll() is None and time.monotonic() < deadline
                time.sleep(0.2)
        assert page.status_code == 200 and "Grace Example" in page.text and "Example Lab" in page.text
    finally:
        server.terminate()
        server.wait(timeout=30)
