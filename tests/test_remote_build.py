"""The same commands against a real SPARQL 1.1 server (oxigraph serve) with --endpoint."""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from kgprofiles.cli import app
from kgprofiles.store.remote import RemoteStore

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def kg(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = runner.invoke(app, ["--project", str(ROOT), *args], env=env)
    return result.exit_code, result.output


def server_quads(endpoint: str) -> list[str]:
    store = RemoteStore(endpoint)
    try:
        return sorted(str(q) for q in store.quads())
    finally:
        store.close()


def test_build_then_query_with_endpoint(oxigraph_server, tmp_path: Path) -> None:
    endpoint = oxigraph_server.query_endpoint
    code, out = kg("build", "--endpoint", endpoint, "--quiet")
    assert code == 0, out
    assert f"→ {endpoint}" in out
    code, out = kg("query", "-e", "SELECT (COUNT(*) AS ?n) {?s ?p ?o}", "--format", "csv", "--endpoint", endpoint)
    assert code == 0 and int(out.splitlines()[1]) > 1000


def test_profile_over_the_endpoint_reads_like_the_embedded_one(oxigraph_server, tmp_path: Path) -> None:
    endpoint = oxigraph_server.query_endpoint
    assert kg("build", "--endpoint", endpoint, "--quiet")[0] == 0
    store = str(tmp_path / "store")
    assert kg("build", "--store", store, "--quiet")[0] == 0
    remote = kg("profile", "horace-he", "--endpoint", endpoint)
    embedded = kg("profile", "horace-he", "--store", store)
    assert remote == embedded and remote[0] == 0


def test_a_rejected_build_leaves_the_server_as_it_was(oxigraph_server, tmp_path: Path) -> None:
    endpoint = oxigraph_server.query_endpoint
    assert kg("build", "--endpoint", endpoint, "--quiet")[0] == 0
    before = server_quads(endpoint)
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data)
    shutil.copy(ROOT / "tests/fixtures/build/role-ends-before-start.ttl", data)
    code, out = kg("build", "--endpoint", endpoint, "--quiet", env={"KGPROFILES_DATA": str(data)})
    assert code == 1 and "role-ends-before-start.ttl:8: violation" in out
    assert server_quads(endpoint) == before


def test_a_rebuild_drops_the_graph_of_a_removed_file(oxigraph_server, tmp_path: Path) -> None:
    endpoint = oxigraph_server.query_endpoint
    assert kg("build", "--endpoint", endpoint, "--quiet")[0] == 0
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data)
    (data / "people" / "jane-xu.ttl").unlink()
    assert kg("build", "--endpoint", endpoint, "--quiet", env={"KGPROFILES_DATA": str(data)})[0] == 0
    code, out = kg("people", "--name", "jane", "--endpoint", endpoint)
    assert code == 0 and out.strip() == "0 people"
