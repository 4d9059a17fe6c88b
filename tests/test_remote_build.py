"""The same commands against a real SPARQL 1.1 server (oxigraph serve) with --endpoint."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgprofiles.cli import app
from kgprofiles.store.remote import RemoteStore
from recorded_progress import RecordedProgress

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def kg(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = runner.invoke(app, ["--project", str(ROOT), *args], env=env)
    return result.exit_code, result.output


@pytest.fixture(autouse=True)
def project_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The project's store directory, where the search index of a remote server is kept: in
    the test's directory, not the repository's."""
    store = tmp_path / "project" / "store"
    monkeypatch.setenv("KGPROFILES_STORE", str(store))
    return store


def server_quads(endpoint: str) -> list[str]:
    store = RemoteStore(endpoint)
    try:
        return sorted(str(q) for q in store.quads())
    finally:
        store.close()


def test_build_then_query_with_endpoint(oxigraph_server, tmp_path: Path) -> None:
    """The build says how many graphs it writes to the server (a bar on a terminal, a line in a
    log: a build into a server can take hours), then where it wrote them."""
    endpoint = oxigraph_server.query_endpoint
    code, out = kg("build", "--endpoint", endpoint)
    assert code == 0, out
    assert f"→ {endpoint}" in out
    assert f"build: publish ({len(RemoteStore(endpoint).graphs())})…" in out
    code, out = kg("query", "-e", "SELECT (COUNT(*) AS ?n) {?s ?p ?o}", "--format", "csv", "--endpoint", endpoint)
    assert code == 0 and int(out.splitlines()[1]) > 1000


def test_a_build_into_a_server_advances_its_bar_once_a_graph(oxigraph_server, settings) -> None:
    from kgprofiles.pipeline import build

    seen = RecordedProgress()
    build(settings, progress=seen, store=RemoteStore(oxigraph_server.query_endpoint))
    (publish,) = [stage for stage in seen.stages if stage.name == "publish"]
    assert publish.total == publish.done == len(RemoteStore(oxigraph_server.query_endpoint).graphs()) > 10


def test_build_and_load_keep_the_search_index_beside_the_project_store(
    oxigraph_server, tmp_path: Path, project_store: Path
) -> None:
    endpoint = oxigraph_server.query_endpoint
    assert kg("build", "--endpoint", endpoint, "--quiet")[0] == 0
    (index,) = project_store.parent.glob("store.search-*.sqlite")
    code, out = kg("search", "flexattention", "--endpoint", endpoint)
    assert code == 0 and "person       Horace He  <https://w3id.org/kgprofiles/id/person/horace-he>" in out
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data)
    person = data / "people" / "jane-xu.ttl"
    person.write_text(person.read_text().replace('kgp:name "Jane Xu"', 'kgp:name "Jane Xu" ; kgp:altName "Quetzal"'))
    code, out = kg("load", str(person), "--endpoint", endpoint, env={"KGPROFILES_DATA": str(data)})
    assert code == 0, out
    assert "Jane Xu" in kg("search", "quetzal", "--endpoint", endpoint)[1]
    assert sorted(p.name for p in project_store.parent.iterdir()) == [index.name]  # nothing pending left


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


# -- failed writes leave nothing behind ----------------------------------------------------------


def _staging_graphs(endpoint: str) -> list[str]:
    from kgprofiles.store.oxigraph import STAGING_GRAPH_PREFIX
    from kgprofiles.store.remote import RemoteStore

    store = RemoteStore(endpoint)
    rows = store.query("SELECT DISTINCT ?g WHERE { GRAPH ?g {} }")
    return [r["g"].value for r in rows if r["g"].value.startswith(STAGING_GRAPH_PREFIX)]  # type: ignore[union-attr]


def _renamed_topics(tmp_path: Path) -> tuple[Path, Path]:
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data)
    path = data / "topics" / "topics.ttl"
    path.write_text(path.read_text(encoding="utf-8").replace('"Inference and serving"', '"Never committed"'))
    return data, path


def test_a_load_whose_swap_fails_leaves_nothing_visible(oxigraph_server, tmp_path: Path) -> None:
    """The proxy fails the one update that moves the staged graphs into place: the load fails,
    its staging graphs are dropped, and no query sees any of it."""
    from fault_proxy import fault_proxy

    endpoint = oxigraph_server.query_endpoint
    assert kg("build", "--endpoint", endpoint, "--quiet")[0] == 0
    before = server_quads(endpoint)
    data, path = _renamed_topics(tmp_path)

    def fail_the_swap(method: str, where: str, body: bytes) -> int | None:
        return 500 if method == "POST" and b"MOVE" in body else None

    with fault_proxy(oxigraph_server.base_url, fail_the_swap) as proxy:
        code, out = kg("load", str(path), "--endpoint", f"{proxy}/query", env={"KGPROFILES_DATA": str(data)})
    assert code == 4 and "HTTP 500" in out and "Traceback" not in out
    assert _staging_graphs(endpoint) == []
    assert server_quads(endpoint) == before
    names = kg("query", "-e", "ASK { ?t kgp:name 'Never committed' }", "--endpoint", endpoint)
    assert names == (0, "false\n")


def fail_graph_updates(method: str, where: str, body: bytes) -> int | None:
    """A fault: every update that moves, copies or drops a graph answers 503."""
    moves = any(word in body for word in (b"MOVE", b"COPY", b"DROP"))
    return 503 if method == "POST" and where.startswith("/update") and moves else None


@pytest.mark.parametrize("kind", ["oxigraph", "generic"])
def test_a_load_whose_patch_fails_leaves_the_server_as_it_was(
    oxigraph_server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """The proxy fails the first request that inserts into the inferred graph (the load's patch).
    As ``oxigraph``, that is the one request of the write, and nothing happened. As ``generic``
    (requests are not assumed to be transactions), the patch goes first: its DELETE DATA has been
    applied, so it is undone (a second INSERT DATA) before the error is reported. Either way
    nothing is staged and the server holds what it held."""
    from fault_proxy import fault_proxy, stages

    monkeypatch.setenv("KGPROFILES_SERVER_KIND", kind)
    endpoint = oxigraph_server.query_endpoint
    assert kg("build", "--endpoint", endpoint, "--quiet")[0] == 0
    before = server_quads(endpoint)
    data, path = _renamed_topics(tmp_path)
    seen: list[bytes] = []

    def fail_the_insert(method: str, where: str, body: bytes) -> int | None:
        journal = b"stagedGraphs" in body  # the write's record of its staging graphs: not the patch
        staging = stages(method, body)  # nor the staging of the file's graph
        if method == "POST" and where.startswith("/update") and b"INSERT DATA" in body and not (journal or staging):
            seen.append(body)
            return 500 if len(seen) == 1 else None
        return None

    with fault_proxy(oxigraph_server.base_url, fail_the_insert) as proxy:
        code, out = kg("load", str(path), "--endpoint", f"{proxy}/query", env={"KGPROFILES_DATA": str(data)})
    assert code == 4 and "HTTP 500" in out and "Traceback" not in out, out
    assert (b"MOVE" in seen[0]) is (kind == "oxigraph")
    assert len(seen) == (1 if kind == "oxigraph" else 2)
    assert _staging_graphs(endpoint) == []
    assert server_quads(endpoint) == before


@pytest.mark.parametrize(("stop", "code", "said"), [("SIGINT", 130, "interrupted"), ("SIGTERM", 143, "stopped")])
def test_a_build_stopped_after_its_swap_puts_the_previous_graphs_back(
    oxigraph_server, tmp_path: Path, project_store: Path, stop: str, code: int, said: str
) -> None:
    """Ctrl-C or SIGTERM while a build into a server checks its swap (kind generic: requests are
    not transactions): the server has already moved the new graphs into place, so the build
    restores the previous ones from their backups before it exits, and says it was stopped."""
    import signal
    import subprocess
    import sys
    import threading

    from fault_proxy import fault_proxy
    from kgprofiles.store.remote import is_internal

    endpoint = oxigraph_server.query_endpoint
    assert kg("build", "--endpoint", endpoint, "--quiet")[0] == 0
    before = server_quads(endpoint)
    data, _ = _renamed_topics(tmp_path)
    swapped, hanging, release = threading.Event(), threading.Event(), threading.Event()

    def hang_the_check_after_the_swap(method: str, where: str, body: bytes) -> None:
        if method == "POST" and b"MOVE" in body:
            swapped.set()
        elif swapped.is_set() and not hanging.is_set() and body.startswith(b"query="):
            hanging.set()  # the first read after the swap: the build waits here for its answer
            release.wait(timeout=60)

    env = {**os.environ, "KGPROFILES_DATA": str(data), "KGPROFILES_SERVER_KIND": "generic"}
    with fault_proxy(oxigraph_server.base_url, hang_the_check_after_the_swap) as proxy:
        command = [sys.executable, "-m", "kgprofiles", "--project", str(ROOT), "build", "-q"]
        build = subprocess.Popen(
            [*command, "--endpoint", f"{proxy}/query"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            # Ctrl-C as at a terminal: a suite started in the background (`cmd &`, nohup) hands its
            # processes SIGINT ignored, and Python then leaves it so (the build ran on to its timeout).
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        try:
            assert hanging.wait(timeout=120), "the build never reached its swap"
            assert server_quads(endpoint) != before  # the new graphs are in place
            build.send_signal(getattr(signal, stop))
            _, stderr = build.communicate(timeout=120)
        finally:
            release.set()
            build.kill()
    assert build.returncode == code, stderr
    assert f"kgprofiles: {said}".encode() in stderr and b"Traceback" not in stderr
    assert server_quads(endpoint) == before
    assert [g for g in RemoteStore(endpoint).graphs() if is_internal(g)] == _staging_graphs(endpoint) == []


@pytest.mark.parametrize("outcome", ["after-partial", "after-206"], ids=["status-200", "status-206"])
def test_an_answer_the_server_says_is_incomplete_is_never_read_as_whole(oxigraph_server, outcome: str) -> None:
    """Virtuoso's "anytime" answer: a query stopped at a time limit, the rows found so far sent
    with X-SQL-State S1TAT (and 206, or 200 where its ini says so). export, query and the views
    refuse it with exit 4 and a message; none writes what it got."""
    from fault_proxy import fault_proxy

    endpoint = oxigraph_server.query_endpoint
    assert kg("build", "--endpoint", endpoint, "--quiet")[0] == 0

    def cut_every_query(method: str, where: str, body: bytes) -> str | None:
        return outcome if method == "POST" and body.startswith(b"query=") else None

    with fault_proxy(oxigraph_server.base_url, cut_every_query) as proxy:
        for command in (
            ["export", "--format", "nq"],
            ["query", "-e", "SELECT * WHERE { ?s ?p ?o }"],
            ["profile", "horace-he"],
        ):
            code, out = kg(*command, "--endpoint", f"{proxy}/query")
            assert code == 4 and "answered with part of the result only" in out and "S1TAT" in out, (command, out)
            assert "Traceback" not in out and "<http" not in out.split("kgprofiles:")[0]  # nothing printed before


def test_staging_left_by_a_write_that_lost_the_server_is_removed_by_the_next_write(
    oxigraph_server, tmp_path: Path
) -> None:
    """The proxy fails every update that moves or drops graphs (the swap and the clean-up; the
    load's patch of the inferred graph goes through, and is undone): the staging graphs stay on
    the server; the next write removes them, and the never-committed data is never listed (it
    used to be, once per failed write)."""
    from fault_proxy import fault_proxy

    endpoint = oxigraph_server.query_endpoint
    assert kg("build", "--endpoint", endpoint, "--quiet")[0] == 0
    data, path = _renamed_topics(tmp_path)

    with fault_proxy(oxigraph_server.base_url, fail_graph_updates) as proxy:
        code, out = kg("load", str(path), "--endpoint", f"{proxy}/query", env={"KGPROFILES_DATA": str(data)})
    assert code == 4 and "staging graphs may remain" in out, out
    assert _staging_graphs(endpoint)
    assert kg("build", "--endpoint", endpoint, "--quiet")[0] == 0
    assert _staging_graphs(endpoint) == []
    never = "SELECT ?t WHERE { ?t kgp:name 'Never committed' }"
    assert kg("query", "-e", never, "-f", "csv", "--endpoint", endpoint) == (0, "t\n")


def test_store_gc_drops_leftover_staging_graphs_on_a_server(oxigraph_server, tmp_path: Path) -> None:
    from fault_proxy import fault_proxy

    endpoint = oxigraph_server.query_endpoint
    assert kg("build", "--endpoint", endpoint, "--quiet")[0] == 0
    data, path = _renamed_topics(tmp_path)
    with fault_proxy(oxigraph_server.base_url, fail_graph_updates) as proxy:
        assert kg("load", str(path), "--endpoint", f"{proxy}/query", env={"KGPROFILES_DATA": str(data)})[0] == 4
    assert _staging_graphs(endpoint)
    code, out = kg("store", "gc", "--endpoint", endpoint)
    assert code == 0 and "dropped" in out
    assert _staging_graphs(endpoint) == []
