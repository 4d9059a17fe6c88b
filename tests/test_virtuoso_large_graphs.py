"""Graphs larger than one Virtuoso transaction: Virtuoso aborts a transaction whose log passes its
``TransactionAfterImageLimit`` (error SR325), and a PUT, COPY or MOVE of a graph is one
transaction. At the default 50 MB, the MOVE of the inferred graph of 10,000 synthetic people (1.35 M
triples) was refused and no build of that size could finish. Here the test servers' limits are
lowered to 500 KB and 50 KB (``small_log``, ``tiny_log``: calibrated below), and kgprofiles writes at most
``triples_per_write`` triples per request: large graphs go up in slices, and are COPYed and MOVEd
on the server row by row (``DEFINE sql:log-enable 3``: each row its own logged transaction), never
through the client; on a kind that cannot (``row_by_row`` None), backed up and restored in slices
from the client."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pyoxigraph as ox
import pytest
from typer.testing import CliRunner

from fault_proxy import AFTER_500, fault_proxy
from kgprofiles.cli import app
from kgprofiles.errors import RemoteError
from kgprofiles.store.oxigraph import serialize_dataset
from kgprofiles.store.remote import RemoteStore, is_internal
from kgprofiles.store.server_kinds import KINDS, ServerKind
from servers import VirtuosoServer

ROOT = Path(__file__).resolve().parents[1]
EX = "http://example.org/"
G1, G2 = (
    "https://w3id.org/kgprofiles/graph/file/example/one.ttl",
    "https://w3id.org/kgprofiles/graph/file/example/two.ttl",
)
RDF_TYPE = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
LARGE = 3_000  # triples: more than one PUT to ``small_log`` or one MOVE on ``tiny_log`` may hold
runner = CliRunner()


@pytest.fixture(scope="module")
def small_log(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VirtuosoServer]:
    """A Virtuoso whose transactions may log 500 KB at most (Virtuoso's default: 50 MB): one PUT of
    1,700 short triples passes, of ``LARGE`` is refused."""
    with VirtuosoServer(tmp_path_factory.mktemp("virtuoso-small-log"), transaction_bytes=500_000) as server:
        yield server


@pytest.fixture(scope="module")
def tiny_log(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VirtuosoServer]:
    """A Virtuoso whose transactions may log 50 KB: a MOVE of 2,200 short triples passes in one
    transaction and of 2,500 is refused (SR325), so one of ``LARGE`` triples must run row by row;
    a slice of 150 triples POSTed through the Graph Store Protocol passes, of 200 is refused, so
    the tests here write 100 a request (measured on Virtuoso 7.2; removing the row-by-row
    prologue makes the tests that MOVE ``LARGE`` triples on this server fail with SR325)."""
    with VirtuosoServer(tmp_path_factory.mktemp("virtuoso-tiny-log"), transaction_bytes=50_000) as server:
        yield server


def triples(label: str, n: int = LARGE) -> list[ox.Triple]:
    return [
        ox.Triple(ox.NamedNode(f"{EX}s{i}"), ox.NamedNode(f"{EX}p{i % 7}"), ox.Literal(f"{label} {i}"))
        for i in range(n)
    ]


def store(
    server: VirtuosoServer, triples_per_write: int | None = 1_000, kind: ServerKind | str = "virtuoso"
) -> RemoteStore:
    return RemoteStore(
        server.query_endpoint,
        kind=kind,
        credentials=server.credentials,
        triples_per_write=triples_per_write,
        timeout_s=60,
    )


def whole_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The graphs any RemoteStore reads whole into the client (``_contents``) from now on."""
    read: list[str] = []
    contents_of = RemoteStore._contents

    def recorded(self: RemoteStore, graphs: list[str]) -> dict[str, frozenset[ox.Triple]]:
        read.extend(graphs)
        return contents_of(self, graphs)

    monkeypatch.setattr(RemoteStore, "_contents", recorded)
    return read


def contents(remote: RemoteStore, *graphs: str) -> bytes:
    return serialize_dataset(remote._quads_of(list(graphs)), ox.RdfFormat.N_QUADS)


def test_one_request_past_the_servers_limit_is_refused_and_the_hint_names_both_settings(
    small_log: VirtuosoServer,
) -> None:
    """What kgprofiles did before it sliced its writes: the server refuses, nothing is lost."""
    small_log.clear()
    whole = store(small_log, triples_per_write=10 * LARGE)
    with pytest.raises(RemoteError, match="SR325") as refused:
        whole.replace_graphs({G1: triples("first")})
    assert "triples_per_write" in (refused.value.hint or "") and "TransactionAfterImageLimit" in (
        refused.value.hint or ""
    )
    assert contents(whole, G1) == b"" and [g for g in whole._listed_graphs() if is_internal(g)] == []


def test_a_graph_larger_than_one_transaction_is_staged_in_slices_and_moved_row_by_row_on_the_server(
    tiny_log: VirtuosoServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Staged in slices; its backup COPY and its MOVE into place run on the server row by row
    (one transaction each would be refused: SR325), alone in their requests; the client never
    reads the graph it replaces."""
    tiny_log.clear()
    updates: list[bytes] = []
    read_whole = whole_reads(monkeypatch)

    def record(method: str, path: str, body: bytes) -> None:
        if b"MOVE" in body or b"COPY" in body:
            updates.append(body)

    first, second = triples("first"), triples("second", LARGE + 500)
    with fault_proxy(tiny_log.base_url, record, authenticated_only=True) as proxy:
        remote = RemoteStore(
            f"{proxy}/sparql", kind="virtuoso", credentials=tiny_log.credentials, triples_per_write=100, timeout_s=60
        )
        remote.replace_graphs({G1: first, G2: triples("small", 10)})  # staged in slices, moved
        assert contents(remote, G1) == serialize_dataset(
            (ox.Quad(*t, ox.NamedNode(G1)) for t in first), ox.RdfFormat.N_QUADS
        )
        remote.replace_graphs({G1: second})  # backed up and moved on the server
    remote = store(tiny_log, triples_per_write=100)
    expected = serialize_dataset((ox.Quad(*t, ox.NamedNode(G1)) for t in second), ox.RdfFormat.N_QUADS)
    assert contents(remote, G1) == expected and contents(remote, G2).count(b"\n") == 10
    row_by_row = [u for u in updates if u.startswith(b"DEFINE sql:log-enable 3")]
    assert len(row_by_row) == 3 and all(u.count(b" ;") == 0 for u in row_by_row)  # MOVE, COPY, MOVE: alone
    assert G1 not in read_whole  # its previous triples stay on the server (backup, restore)
    remote.replace_graphs({}, drop=[G1, G2])  # a DROP of the large graph alone would be refused
    assert contents(remote, G1, G2) == b"" and [g for g in remote._listed_graphs() if is_internal(g)] == []


def test_a_graph_larger_than_one_transaction_is_replaced_in_slices_where_the_server_cannot_go_row_by_row(
    small_log: VirtuosoServer,
) -> None:
    small_log.clear()
    remote = store(small_log, kind=replace(KINDS["virtuoso"], row_by_row=None))
    first, second = triples("first"), triples("second", LARGE + 500)
    remote.replace_graphs({G1: first, G2: triples("small", 10)})  # staged and written in slices
    assert contents(remote, G1) == serialize_dataset(
        (ox.Quad(*t, ox.NamedNode(G1)) for t in first), ox.RdfFormat.N_QUADS
    )
    remote.replace_graphs({G1: second})  # backed up in slices, replaced in place
    expected = serialize_dataset((ox.Quad(*t, ox.NamedNode(G1)) for t in second), ox.RdfFormat.N_QUADS)
    assert contents(remote, G1) == expected and contents(remote, G2).count(b"\n") == 10
    remote.replace_graphs({}, drop=[G1, G2])
    assert contents(remote, G1, G2) == b"" and [g for g in remote._listed_graphs() if is_internal(g)] == []


def _first_slice_posted_to_the_target() -> Callable[[str, str, bytes], int | str | None]:
    """A rule for the fault proxy: the server fails once, after the first POSTed slice of the new
    graph reached its target (half a graph there); the restore's own requests go through."""
    failed: list[str] = []

    def rule(method: str, path: str, body: bytes) -> int | str | None:
        to_target = method == "POST" and "graph=" in path and "staging" not in path and "backup" not in path
        if to_target and not failed:
            failed.append(path)
            return AFTER_500
        return None

    return rule


def test_a_failed_row_by_row_move_is_undone_from_the_backup_on_the_server(tiny_log: VirtuosoServer) -> None:
    """The MOVE of a large staged graph runs row by row, so a failure can leave its target half
    written: the target is put back from its backup (COPYed row by row), byte for byte."""
    tiny_log.clear()
    direct = store(tiny_log, triples_per_write=100)
    direct.replace_graphs({G1: triples("before")})
    before = contents(direct, G1)
    failed_once: list[bytes] = []

    def rule(method: str, path: str, body: bytes) -> str | None:
        if b"log-enable 3" in body and b"MOVE" in body and not failed_once:
            failed_once.append(body)
            return AFTER_500  # moved (the server did it), then reported as failed
        return None

    with fault_proxy(tiny_log.base_url, rule, authenticated_only=True) as proxy:
        proxied = RemoteStore(
            f"{proxy}/sparql", kind="virtuoso", credentials=tiny_log.credentials, triples_per_write=100, timeout_s=60
        )
        with pytest.raises(RemoteError) as failed:
            proxied.replace_graphs({G1: triples("after")})
    assert failed_once and "previous graphs are back" in (failed.value.hint or "")
    assert contents(direct, G1) == before and before.count(b"\n") == LARGE
    assert [g for g in direct._listed_graphs() if is_internal(g)] == []


def test_a_failure_between_slices_restores_the_large_graph_from_its_slices(small_log: VirtuosoServer) -> None:
    """Where the server cannot COPY or MOVE row by row, a large graph is written over in slices
    from the client, and restored the same way."""
    small_log.clear()
    kind = replace(KINDS["virtuoso"], row_by_row=None)
    direct = store(small_log, kind=kind)
    direct.replace_graphs({G1: triples("before")})
    before = contents(direct, G1)
    with fault_proxy(small_log.base_url, _first_slice_posted_to_the_target(), authenticated_only=True) as proxy:
        proxied = RemoteStore(
            f"{proxy}/sparql", kind=kind, credentials=small_log.credentials, triples_per_write=1_000, timeout_s=60
        )
        with pytest.raises(RemoteError) as failed:
            proxied.replace_graphs({G1: triples("after")})
    assert "previous graphs are back" in (failed.value.hint or "")
    assert contents(direct, G1) == before and before.count(b"\n") == LARGE
    assert [g for g in direct._listed_graphs() if is_internal(g)] == []


def test_build_of_a_graph_larger_than_one_transaction_with_triples_per_write_in_the_toml(
    small_log: VirtuosoServer, tmp_path: Path
) -> None:
    """20 synthetic people (bench/generate.py): an inferred graph larger than three writes.
    With ``triples_per_write`` in kgprofiles.toml the build lands whole; the export equals an
    embedded build's."""
    small_log.clear()
    data = tmp_path / "people-20"
    generator = ROOT / "bench" / "generate.py"
    subprocess.run(
        [sys.executable, str(generator), "--people", "20", "--seed", "3", "--out", str(data)],
        check=True,
        capture_output=True,
    )
    project = tmp_path / "project"
    project.mkdir()
    (project / "kgprofiles.toml").write_text(
        '[kgprofiles]\nbase_iri = "https://w3id.org/kgprofiles/id/"\nstore = "store"\n'
        '[kgprofiles.server]\nkind = "virtuoso"\ntriples_per_write = 500\n'
    )
    env = {**small_log.credentials_env, "KGPROFILES_DATA": str(data)}

    def kg(*args: str) -> str:
        result = runner.invoke(app, ["--project", str(project), *args], env=env)
        assert result.exit_code == 0, result.output
        return result.output

    built = kg("build", "--endpoint", small_log.query_endpoint, "--quiet")
    inferred = int(built.split(" inferred")[0].rsplit(" ", 1)[1].replace(",", ""))
    assert inferred > 3 * 500, built  # larger than one write: it went up in slices
    remote = sorted(kg("export", "--format", "nq", "--endpoint", small_log.query_endpoint).splitlines())
    kg("build", "--store", str(tmp_path / "embedded"), "--quiet")
    assert remote == sorted(kg("export", "--format", "nq", "--store", str(tmp_path / "embedded")).splitlines())


def test_a_graph_past_the_rows_the_server_sorts_is_read_in_parts_not_pages(virtuoso_server: VirtuosoServer) -> None:
    """Virtuoso sorts at most MaxSortedTopRows rows (the session server: 1,000, its result cap
    too); past that, pages have no order and each OFFSET walks every row before it, which made
    reading a graph of millions of triples take hours. A large graph is read by predicate, and
    a predicate with many triples and few objects (rdf:type) by object: no part needs a page."""
    kind = replace(KINDS["virtuoso"], sorted_rows_limit=1_000)
    typed = [ox.Triple(ox.NamedNode(f"{EX}s{i}"), RDF_TYPE, ox.NamedNode(f"{EX}C{i % 3}")) for i in range(1_500)]
    valued = [
        ox.Triple(ox.NamedNode(f"{EX}s{i}"), ox.NamedNode(f"{EX}p{i % 6}"), ox.Literal(f"v{i}")) for i in range(2_400)
    ]
    direct = RemoteStore(virtuoso_server.query_endpoint, kind=kind, credentials=virtuoso_server.credentials)
    direct.replace_graphs({G1: [*typed, *valued]})
    queries: list[bytes] = []

    def record(method: str, path: str, body: bytes) -> None:
        queries.append(body)

    with fault_proxy(virtuoso_server.base_url, record) as proxy:
        proxied = RemoteStore(f"{proxy}/sparql", kind=kind)
        read = sorted(map(str, proxied.quads(G1)))
        exported = sorted(map(str, proxied.quads()))
    assert read == exported == sorted(str(ox.Quad(*t, ox.NamedNode(G1))) for t in [*typed, *valued])
    assert queries and not [q for q in queries if b"OFFSET" in q]
    direct.drop_graph(G1)


def test_a_large_staged_graph_is_checked_part_by_part(
    virtuoso_server: VirtuosoServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A graph larger than one request and than the rows the server sorts is checked after its
    upload part by part, as it is read (never a second copy of it in the client: the inferred
    graph of 100,000 people is 13.6 M triples): a good copy passes, a copy the server rewrote
    (1.50 stored as 1.5) is refused with the triple named, and the graph is as it was."""
    kind = replace(KINDS["virtuoso"], sorted_rows_limit=1_000)
    typed = [ox.Triple(ox.NamedNode(f"{EX}s{i}"), RDF_TYPE, ox.NamedNode(f"{EX}C{i % 3}")) for i in range(1_500)]
    valued = [
        ox.Triple(ox.NamedNode(f"{EX}s{i}"), ox.NamedNode(f"{EX}p{i % 6}"), ox.Literal(f"v{i}")) for i in range(2_400)
    ]
    remote = RemoteStore(
        virtuoso_server.query_endpoint, kind=kind, credentials=virtuoso_server.credentials, triples_per_write=1_000
    )
    read_whole = whole_reads(monkeypatch)
    try:
        remote.replace_graphs({G1: [*typed, *valued]})
        assert sorted(map(str, remote.quads(G1))) == sorted(
            str(ox.Quad(*t, ox.NamedNode(G1))) for t in [*typed, *valued]
        )
        assert not [g for g in read_whole if is_internal(g)]  # no staged copy read whole
        decimal = ox.Literal("1.50", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#decimal"))
        rewritten = [*typed, *valued[1:], ox.Triple(valued[0].subject, valued[0].predicate, decimal)]
        with pytest.raises(RemoteError, match=r"(?s)a part of .*sent, not found: .*\"1\.50\"") as refused:
            remote.replace_graphs({G1: rewritten})
        assert "1.5" in refused.value.message
        assert len(list(remote.quads(G1))) == len(typed) + len(valued)
        assert [g for g in remote._listed_graphs() if is_internal(g)] == []
    finally:
        remote.drop_graph(G1)


def test_a_copy_or_move_too_long_for_the_servers_time_limit_goes_part_by_part(
    tiny_log: VirtuosoServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A row-by-row COPY or MOVE of a very large graph runs past Virtuoso's time limit (at
    100,000 people the MOVE of the 13.6 M-triple inferred graph failed with SR171): past
    ``_ROWS_PER_UPDATE`` rows (lowered here to 1,000) the backup, the swap and the restore copy
    the graph part by part (INSERT … WHERE, row by row), and the result is the same, byte for
    byte; a failure in the middle of the parts is undone from the backup."""
    from kgprofiles.store import remote as remote_module

    monkeypatch.setattr(remote_module, "_ROWS_PER_UPDATE", 1_000)
    tiny_log.clear()
    updates: list[bytes] = []
    failed_once: list[bytes] = []

    def record(method: str, path: str, body: bytes) -> str | None:
        if method == "POST" and not body.startswith(b"query="):
            updates.append(body)
        if failing and f"INSERT {{ GRAPH <{G1}>".encode() in body and not failed_once:
            failed_once.append(body)
            return AFTER_500  # a part of the swap written, then reported as failed
        return None

    failing = False
    first, second = triples("first"), triples("second", LARGE + 500)
    with fault_proxy(tiny_log.base_url, record, authenticated_only=True) as proxy:
        remote = RemoteStore(
            f"{proxy}/sparql", kind="virtuoso", credentials=tiny_log.credentials, triples_per_write=100, timeout_s=60
        )
        remote.replace_graphs({G1: first, G2: triples("small", 10)})  # moved in parts
        remote.replace_graphs({G1: second})  # backed up and moved in parts
        expected = serialize_dataset((ox.Quad(*t, ox.NamedNode(G1)) for t in second), ox.RdfFormat.N_QUADS)
        assert contents(remote, G1) == expected and contents(remote, G2).count(b"\n") == 10
        whole = [u for u in updates if re.search(rb"(MOVE|COPY) <[^>]*> TO <" + re.escape(G1.encode()), u)]
        backup_copies = [u for u in updates if re.search(rb"COPY <" + re.escape(G1.encode()), u)]
        assert whole == backup_copies == []  # neither the MOVEs into it nor its backup in one request
        parts = [u for u in updates if u.startswith(b"DEFINE sql:log-enable 3\nINSERT {")]
        assert len(parts) >= 3  # into G1 twice, and into its backup
        failing = True
        with pytest.raises(RemoteError) as failed:
            remote.replace_graphs({G1: triples("third")})
    assert failed_once and "previous graphs are back" in (failed.value.hint or "")
    direct = store(tiny_log, triples_per_write=100)
    assert contents(direct, G1) == expected
    assert [g for g in direct._listed_graphs() if is_internal(g)] == []
