"""Whole-graph downloads from ``serve``: streamed from the store as the client reads, never the
whole graph in memory, at most two at once, stopped when the client leaves, cut off (not cut
short) when the export fails, and JSON-LD only for graphs that fit its limit. A real uvicorn
server on 127.0.0.1 over a generated store of 300,000 quads (example IRIs, about 40 MB of
N-Quads: more than the pipe and the sockets hold)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import httpx
import pyoxigraph as ox
import pytest

from kgprofiles.config import Limits, Settings
from kgprofiles.errors import StoreError
from kgprofiles.export import export_store
from kgprofiles.store.oxigraph import OxigraphStore
from kgprofiles.web import create_app
from kgprofiles.web.downloads import RETRY_AFTER_S
from web.server import serving

EX = "http://example.org/kgprofiles-synthetic/"
QUADS = 300_000


def _downloads_running() -> int:
    return sum(1 for t in threading.enumerate() if t.name == "kgprofiles-download" and t.is_alive())


def _wait_until(condition, seconds: float = 15.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


@pytest.fixture(scope="module")
def big_store() -> OxigraphStore:
    store = OxigraphStore("memory:")
    graph = ox.NamedNode(EX + "graph/generated")
    label = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label")
    store.bulk_load(
        ox.Quad(ox.NamedNode(f"{EX}thing/{i:06d}"), label, ox.Literal(f"generated thing number {i} " + "x" * 60), graph)
        for i in range(QUADS)
    )
    return store


@pytest.fixture(scope="module")
def big_url(settings: Settings, big_store: OxigraphStore) -> Iterator[str]:
    with serving(create_app(settings, big_store)) as url:
        yield url


def test_a_download_is_the_export_streamed(big_url: str, big_store: OxigraphStore) -> None:
    with httpx.Client(base_url=big_url, timeout=60) as client:
        response = client.get("/downloads/kgprofiles.nq")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/n-quads")
    assert "content-length" not in response.headers  # sent as it is made: chunked
    assert response.content == export_store(big_store, "nq")
    assert len(response.content) > 30_000_000
    assert _wait_until(lambda: _downloads_running() == 0)


def test_a_client_that_stops_reading_holds_back_the_export(big_url: str) -> None:
    with httpx.Client(base_url=big_url, timeout=60) as client, client.stream("GET", "/downloads/kgprofiles.nt") as r:
        chunks = r.iter_raw()  # (held: a generator dropped would close the response)
        assert next(chunks).startswith(b"<" + EX.encode())
        time.sleep(2)  # the whole export takes well under a second when nobody holds it back
        assert _downloads_running() == 1  # still waiting for the client: never made ahead into memory
    assert _wait_until(lambda: _downloads_running() == 0)  # the client left: the export stopped


def test_two_downloads_at_once_then_503_and_a_client_that_leaves_frees_its_place(big_url: str) -> None:
    with httpx.Client(base_url=big_url, timeout=60) as client:
        first = client.stream("GET", "/downloads/kgprofiles.nq")
        second = client.stream("GET", "/downloads/kgprofiles.ttl")
        one, two = first.__enter__(), second.__enter__()
        try:
            assert one.status_code == two.status_code == 200
            reading = one.iter_raw(), two.iter_raw()
            assert all(next(chunks) for chunks in reading)
            busy = client.get("/downloads/kgprofiles.nt")
            assert busy.status_code == 503
            assert busy.headers["retry-after"] == str(RETRY_AFTER_S)
            assert "downloads of the whole graph are being made" in busy.text
            assert client.get("/").status_code == 200  # pages are still served
        finally:
            first.__exit__(None, None, None)  # the first client leaves
        try:
            assert _wait_until(lambda: _placed(client, "/downloads/kgprofiles.nt"))  # its place is free again
        finally:
            second.__exit__(None, None, None)
    assert _wait_until(lambda: _downloads_running() == 0)


def _placed(client: httpx.Client, path: str) -> bool:
    """Whether a download of ``path`` starts (then left at once) rather than being turned away."""
    with client.stream("GET", path) as response:
        return response.status_code == 200


def test_head_answers_without_making_the_export(big_url: str) -> None:
    with httpx.Client(base_url=big_url, timeout=60) as client:
        response = client.head("/downloads/kgprofiles.nq")
    assert response.status_code == 200 and response.content == b""
    assert response.headers["content-disposition"] == 'attachment; filename="kgprofiles.nq"'
    assert _downloads_running() == 0


class FailingHalfway(OxigraphStore):
    """An embedded store whose export stops with a store error after its first megabyte (a disk
    or a server failing mid-way)."""

    def dump_to(self, output, fmt) -> None:  # type: ignore[no-untyped-def, override]
        assert not isinstance(output, str | Path)
        out: BinaryIO = output
        out.write(self.dump(fmt)[:1_000_000])
        raise StoreError("the store failed while reading (injected)")


def test_an_export_that_fails_half_way_cuts_the_download_off(settings: Settings, big_store: OxigraphStore) -> None:
    failing = FailingHalfway("memory:")
    failing.bulk_load(big_store.quads())
    with serving(create_app(settings, failing)) as url, httpx.Client(base_url=url, timeout=60) as client:
        received = bytearray()
        with pytest.raises(httpx.RemoteProtocolError), client.stream("GET", "/downloads/kgprofiles.nq") as r:
            assert r.status_code == 200  # the headers were out before the failure
            for chunk in r.iter_raw():
                received += chunk
        assert 0 < len(received) <= 1_000_000  # the client knows its file is broken, not short
        assert client.get("/").status_code == 200  # and the server goes on
    assert _wait_until(lambda: _downloads_running() == 0)


def test_jsonld_is_offered_only_while_the_graph_fits_its_limit(settings: Settings, seed_store) -> None:
    small = dataclasses.replace(settings, limits=Limits(jsonld_max_quads=100))
    with serving(create_app(small, seed_store)) as url, httpx.Client(base_url=url, timeout=30) as client:
        listed = client.get("/downloads").text
        assert 'href="/downloads/kgprofiles.nq"' in listed and "kgprofiles.jsonld" not in listed
        refused = client.get("/downloads/kgprofiles.jsonld", headers={"Accept": "text/plain"})
        assert refused.status_code == 404
        assert "more than 100 quads" in refused.text and "kgprofiles.nq" in refused.text
        assert client.get("/downloads/kgprofiles.nt").content == export_store(seed_store, "nt")
    with serving(create_app(settings, seed_store)) as url, httpx.Client(base_url=url, timeout=30) as client:
        assert 'href="/downloads/kgprofiles.jsonld"' in client.get("/downloads").text


def test_export_refuses_jsonld_past_the_limit_and_says_what_to_do(tmp_path: Path, seed_store_dir: Path) -> None:
    (tmp_path / "kgprofiles.toml").write_text("[kgprofiles.limits]\njsonld_max_quads = 100\n")
    out = tmp_path / "all.jsonld"
    command = [sys.executable, "-m", "kgprofiles", "--project", str(tmp_path), "export", "--format", "jsonld"]
    done = subprocess.run([*command, "--store", str(seed_store_dir), "-o", str(out)], capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    assert "more than 100 quads" in done.stderr and "--format nq" in done.stderr
    assert "Traceback" not in done.stderr and not out.exists()
    assert list(tmp_path.iterdir()) == [tmp_path / "kgprofiles.toml"]  # no partial file left
