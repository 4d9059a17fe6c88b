"""``kgprofiles serve`` as a user runs it: a built store served on 127.0.0.1, the URL printed."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[1]
STARTUP_TIMEOUT_S = 30.0


def kgprofiles(*args: str) -> list[str]:
    return [sys.executable, "-m", "kgprofiles", "--project", str(ROOT), *args]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def built_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("served") / "store"
    done = subprocess.run(kgprofiles("build", "--store", str(store), "-q"), capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return store


@pytest.fixture(scope="module")
def served(built_store: Path) -> Iterator[tuple[str, str]]:
    """(base URL, the first line the command printed)."""
    port = free_port()
    env = {**os.environ, "KGPROFILES_WRITE_TOKEN": "cli-token"}
    process = subprocess.Popen(
        kgprofiles("serve", "--store", str(built_store), "--port", str(port), "--max-rows", "50"),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            try:
                httpx.get(base + "/", timeout=1)
                break
            except httpx.TransportError:
                assert process.poll() is None, line + process.stdout.read()
                assert time.monotonic() < deadline, "the server did not answer"
                time.sleep(0.1)
        yield base, line
    finally:
        process.terminate()
        process.wait(timeout=15)


def test_serve_prints_the_url_and_serves_the_seed_graph(served: tuple[str, str]) -> None:
    base, line = served
    assert f"{base}/" in line and f"{base}/sparql" in line and "read-write" in line
    page = httpx.get(base + "/id/person/horace-he", timeout=10)
    assert page.status_code == 200 and "<h1>Horace He</h1>" in page.text
    ask = httpx.get(base + "/sparql", params={"query": "ASK { person:horace-he kgp:name 'Horace He' }"}, timeout=10)
    assert ask.json()["boolean"] is True


def test_serve_options_reach_the_app(served: tuple[str, str]) -> None:
    base, _ = served
    limited = httpx.get(base + "/sparql", params={"query": "SELECT * WHERE { ?s ?p ?o }"}, timeout=10)
    assert limited.status_code == 422 and "more than 50 rows" in limited.text
    update = "INSERT DATA { GRAPH <urn:x> { <urn:a> <urn:b> 'c' } }"
    refused = httpx.post(base + "/sparql", data={"update": update}, timeout=10)
    assert refused.status_code == 401
    accepted = httpx.post(base + "/sparql", data={"update": update}, headers={"Authorization": "Bearer cli-token"})
    assert accepted.status_code == 204


def test_serve_says_when_the_port_is_taken() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = subprocess.run(
            kgprofiles("serve", "--store", "memory:", "--port", str(port)),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr and "--port" in done.stderr


def test_serve_without_a_store_says_to_build(tmp_path: Path) -> None:
    done = subprocess.run(
        kgprofiles("serve", "--store", str(tmp_path / "none"), "--port", str(free_port())),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0 and "kgprofiles build" in done.stderr


def test_a_second_server_reads_the_same_store_beside_the_first(served: tuple[str, str], built_store: Path) -> None:
    """Readers never write: any number of servers (and CLI readers) share one store."""
    port = free_port()
    process = subprocess.Popen(
        kgprofiles("serve", "--store", str(built_store), "--port", str(port)),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            try:
                page = httpx.get(base + "/id/person/horace-he", timeout=5)
                break
            except httpx.TransportError:
                assert process.poll() is None, process.stdout.read()  # type: ignore[union-attr]
                assert time.monotonic() < deadline, "the second server did not answer"
                time.sleep(0.1)
        assert page.status_code == 200 and "<h1>Horace He</h1>" in page.text
        first = httpx.get(served[0] + "/id/person/horace-he", timeout=5)
        assert first.status_code == 200
        done = subprocess.run(
            kgprofiles("profile", "horace-he", "--store", str(built_store)), capture_output=True, text=True, check=False
        )
        assert done.returncode == 0 and "Horace He" in done.stdout, done.stderr
    finally:
        process.terminate()
        process.wait(timeout=15)
