"""Virtuoso 7 (Debian's virtuoso-opensource-7) as the store, end to end through the CLI and the
app: the same answers as the embedded store and ``oxigraph serve``, credentials for writes, a
replace that never loses a graph when the server fails mid-publish, and nothing cut short at the
server's result cap (the test server's is lowered to 1,000 rows; the seed graph has 1,599 quads).
The server is started once per session (tests/servers.py) and the seed graph built into it once
for this module; the store contract itself runs on Virtuoso in tests/test_store_contract.py."""

from __future__ import annotations

import shutil
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import httpx
import pyoxigraph as ox
import pytest
from typer.testing import CliRunner

from fault_proxy import AFTER_500, AFTER_RESET, fault_proxy, stages
from kgprofiles.cli import app
from kgprofiles.config import Settings
from kgprofiles.errors import RemoteError
from kgprofiles.queries import load_queries
from kgprofiles.related_index import RelatedIndex
from kgprofiles.store import OxigraphStore, SelectResult
from kgprofiles.store.base import GraphResult
from kgprofiles.store.credentials import Credentials
from kgprofiles.store.oxigraph import serialize_dataset
from kgprofiles.store.remote import JOURNAL_GRAPH, RemoteStore, is_internal
from kgprofiles.web import create_app
from kgprofiles.web.sparql import CAPPED_HEADER
from servers import CAPPED_MAX_ROWS, VirtuosoServer
from web.server import serving

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()
EX = "http://example.org/"
KGP = "https://w3id.org/kgprofiles/ontology#"
XSD = "http://www.w3.org/2001/XMLSchema#"
G1, G2 = (
    "https://w3id.org/kgprofiles/graph/file/example/one.ttl",
    "https://w3id.org/kgprofiles/graph/file/example/two.ttl",
)


@pytest.fixture(scope="module", autouse=True)
def scratch_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The commands' store in a scratch directory: a server's search index is kept beside it (a
    file per endpoint, and every run's server has a port of its own), not in the checkout."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KGPROFILES_STORE", str(tmp_path_factory.mktemp("project") / "store"))
        yield


def kg(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = runner.invoke(app, ["--project", str(ROOT), *args], env=env)
    return result.exit_code, result.output


def writer_env(server: VirtuosoServer, **more: str) -> dict[str, str]:
    """What a user who writes to the server sets: the kind and the credentials."""
    return {"KGPROFILES_SERVER_KIND": "virtuoso", **server.credentials_env, **more}


def seeded(server: VirtuosoServer) -> VirtuosoServer:
    server.clear()
    code, out = kg("build", "--endpoint", server.query_endpoint, "--quiet", env=writer_env(server))
    assert code == 0, out
    return server


@pytest.fixture(scope="module")
def virtuoso(virtuoso_server_process: VirtuosoServer) -> VirtuosoServer:
    """The session's Virtuoso holding the seed graph, built with `kgprofiles build`."""
    server = virtuoso_server_process
    server.clear()
    code, out = kg("build", "--endpoint", server.query_endpoint, "--quiet", env=writer_env(server))
    assert code == 0, out
    return server


def sorted_export(*where: str, env: dict[str, str] | None = None) -> list[str]:
    code, out = kg("export", "--format", "nq", *where, env=env)
    assert code == 0, out
    return sorted(out.splitlines())


# -- one answer for one question, on every backend ----------------------------------------------


def test_the_seed_person_is_the_same_on_all_three_backends(
    virtuoso: VirtuosoServer, oxigraph_server, seed_store_dir: Path
) -> None:
    """Embedded, ``oxigraph serve`` and Virtuoso: the same profile, related list (Virtuoso's
    booleans used to drop the five PyTorch colleagues below the topic matches) and export."""
    assert kg("build", "--endpoint", oxigraph_server.query_endpoint, "--quiet")[0] == 0
    backends = {
        "embedded": ("--store", str(seed_store_dir)),
        "oxigraph": ("--endpoint", oxigraph_server.query_endpoint),
        "virtuoso": ("--endpoint", virtuoso.query_endpoint, "--server-kind", "virtuoso"),
    }
    answers = {
        name: (kg("profile", "horace-he", *where), kg("related", "horace-he", *where), sorted_export(*where))
        for name, where in backends.items()
    }
    assert answers["virtuoso"] == answers["embedded"] == answers["oxigraph"]
    # the lists and look-ups (organisations counted through subqueries, names by kind, people
    # read for those a filter leaves)
    listed = {
        name: [
            kg("query", "organizations", "--format", "csv", *where),
            kg("people", "--name", "chanan", *where),
            kg("people", "--org", "pytorch", *where),
            kg("people", *where),  # (every person: people-whole.rq's subqueries)
            kg("profile", "greg chanan", *where)[1].splitlines()[0],
        ]
        for name, where in backends.items()
    }
    assert listed["virtuoso"] == listed["embedded"] == listed["oxigraph"]
    organizations, by_name, at_pytorch, everyone, _ = listed["virtuoso"]
    assert everyone[0] == 0 and "Horace He" in everyone[1] and everyone[1].endswith(" people\n")
    assert organizations[0] == by_name[0] == at_pytorch[0] == 0
    assert "PyTorch" in organizations[1] and "Greg Chanan" in by_name[1] and "Greg Chanan" in at_pytorch[1]
    assert listed["virtuoso"][4] == "Greg Chanan"
    profile, related, export = answers["virtuoso"]
    assert profile[0] == 0 and related[0] == 0 and len(export) > CAPPED_MAX_ROWS  # read past the cap
    assert [line.split(" — ")[1].split("  ")[0] for line in related[1].splitlines()[:5]] == ["Also at PyTorch"] * 5


def test_an_export_to_a_file_is_sorted_on_disk_past_the_cap(
    virtuoso: VirtuosoServer, seed_store_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Into a file or to standard output, a server's export is read a batch of graphs (or a part of a large graph) at a
    time and sorted on disk, never whole in memory (24 M quads once took 16 GB and the OOM
    killer): in runs of 500 quads (many files merged), the same bytes as read whole, and the
    embedded store's quads."""
    from kgprofiles.store import sorted_dump

    monkeypatch.setattr(sorted_dump, "RUN", 500)
    store = RemoteStore(virtuoso.query_endpoint, kind="virtuoso")
    where = ("--endpoint", virtuoso.query_endpoint, "--server-kind", "virtuoso")
    with OxigraphStore(seed_store_dir, read_only=True) as embedded:
        for fmt in (ox.RdfFormat.N_QUADS, ox.RdfFormat.N_TRIPLES):
            store.dump_to(tmp_path / "export", fmt)
            written = (tmp_path / "export").read_bytes()
            assert written == store.dump(fmt)
            assert sorted(written.splitlines()) == sorted(embedded.dump(fmt).splitlines())  # (its own order)
            assert written.count(b"\n") > CAPPED_MAX_ROWS  # past the cap, so in parts and pages
        code, out = kg("export", "--format", "nq", *where, "-o", str(tmp_path / "cli.nq"))
        assert code == 0 and "wrote" in out
        assert (tmp_path / "cli.nq").read_bytes() == store.dump(ox.RdfFormat.N_QUADS)
        piped = runner.invoke(app, ["--project", str(ROOT), "export", "--format", "nq", *where])  # to stdout
        assert piped.exit_code == 0 and piped.stdout_bytes == store.dump(ox.RdfFormat.N_QUADS)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cli.nq", "export"]  # no part file left


def test_virtuoso_own_graphs_stay_out_of_the_default_graph_and_the_graph_list(
    virtuoso: VirtuosoServer, seed_store_dir: Path
) -> None:
    count = "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }"
    on_virtuoso = kg(
        "query", "-e", count, "-f", "csv", "--endpoint", virtuoso.query_endpoint, "--server-kind", "virtuoso"
    )
    assert on_virtuoso == kg("query", "-e", count, "-f", "csv", "--store", str(seed_store_dir))
    store = RemoteStore(virtuoso.query_endpoint, kind="virtuoso")
    assert store.graphs() and all(g.startswith("https://w3id.org/kgprofiles/graph/") for g in store.graphs())
    listed = store.query_as_answered("SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }")  # a user's query
    assert sorted(row["g"].value for row in listed) == store.graphs()  # type: ignore[union-attr]
    assert store.query("ASK { ?s ?p ?o }") is True


def test_writing_needs_credentials_and_a_401_says_which_variables(virtuoso: VirtuosoServer, tmp_path: Path) -> None:
    count = ("query", "-e", "SELECT (COUNT(*) AS ?n) { ?s ?p ?o }", "--endpoint", virtuoso.query_endpoint)
    before = kg(*count)
    data = tmp_path / "data"  # one file less: the build has a graph to drop (else it writes nothing)
    shutil.copytree(ROOT / "data", data)
    (data / "people" / "jane-xu.ttl").unlink()
    code, out = kg(
        "build",
        "--endpoint",
        virtuoso.query_endpoint,
        "--server-kind",
        "virtuoso",
        "--quiet",
        env={"KGPROFILES_DATA": str(data)},
    )
    assert code == 4 and "KGPROFILES_SERVER_USER and KGPROFILES_SERVER_PASSWORD" in out and "Traceback" not in out
    wrong = "not-the-password-7x"
    store = RemoteStore(
        virtuoso.query_endpoint, kind="virtuoso", credentials=Credentials("kgprofiles", wrong, "a test")
    )
    with pytest.raises(RemoteError, match="refused the credentials of a test") as caught:
        store.replace_graph(G1, [ox.Triple(ox.NamedNode(EX + "a"), ox.NamedNode(EX + "b"), ox.NamedNode(EX + "c"))])
    assert wrong not in str(caught.value) and wrong not in (caught.value.hint or "")
    assert kg(*count) == before


def test_store_check_says_what_the_server_does(virtuoso: VirtuosoServer) -> None:
    code, out = kg("store", "check", "--endpoint", virtuoso.query_endpoint, env=writer_env(virtuoso))
    assert code == 0, out
    lines = dict(line.split(": ", 1) for line in out.splitlines()[1:])
    assert lines["query"].startswith("ok") and lines["update"] == f"ok: {virtuoso.base_url}/sparql-auth"
    assert lines["graph store"] == f"ok: {virtuoso.base_url}/sparql-graph-crud-auth"
    assert lines["transactions"].startswith("note: none: a request whose MOVE of a missing graph must fail")
    assert lines["result cap"].startswith(f"note: answers are cut at {CAPPED_MAX_ROWS} rows (said in X-SPARQL-MaxRows)")
    assert lines["booleans"].startswith("ok") and "as kgprofiles" in lines["auth"]


# -- a failed publish never loses a graph --------------------------------------------------------


def _swap(fault: int | str):
    def rule(method: str, path: str, body: bytes) -> int | str | None:
        return fault if method == "POST" and b"MOVE" in body else None

    return rule


def _upload(fault: int | str):
    def rule(method: str, path: str, body: bytes) -> int | str | None:
        return fault if stages(method, body) else None

    return rule


@pytest.mark.parametrize(
    "rule",
    [_upload(AFTER_500), _swap(AFTER_RESET), _swap(200)],
    ids=["500-after-the-upload", "reset-after-the-swap", "200-that-did-nothing"],
)
def test_a_server_failing_mid_publish_leaves_the_previous_graphs_byte_for_byte(virtuoso: VirtuosoServer, rule) -> None:
    direct = RemoteStore(virtuoso.query_endpoint, kind="virtuoso", credentials=virtuoso.credentials)
    one = [
        ox.Triple(ox.NamedNode(EX + "ada"), ox.NamedNode(EX + "knows"), ox.NamedNode(EX + f"p{n}")) for n in range(30)
    ]
    two = [ox.Triple(ox.NamedNode(EX + "grace"), ox.NamedNode(EX + "name"), ox.Literal("Grace", language="en"))]
    direct.replace_graphs({G1: one, G2: two})

    def n_quads() -> bytes:
        return serialize_dataset(direct._quads_of([G1, G2]), ox.RdfFormat.N_QUADS)

    before = n_quads()
    try:
        with fault_proxy(virtuoso.base_url, rule, authenticated_only=True) as proxy:
            proxied = RemoteStore(f"{proxy}/sparql", kind="virtuoso", credentials=virtuoso.credentials, timeout_s=10)
            with pytest.raises(RemoteError):
                proxied.replace_graphs({G1: one[:3]}, drop=[G2])
        assert n_quads() == before and before.count(b"\n") == 31
        assert [g for g in direct._listed_graphs() if is_internal(g)] == []  # staging and backups removed
    finally:
        direct.replace_graphs({}, drop=[G1, G2])


def test_a_swap_answered_but_not_done_is_caught_when_the_counts_match(virtuoso: VirtuosoServer) -> None:
    """After the swap the targets are counted, not read whole: a new graph of the same size as
    the old, and a server that answers the MOVE with 200 without doing it. The staging graph
    still holding its triples gives it away; the old graph stays."""
    direct = RemoteStore(virtuoso.query_endpoint, kind="virtuoso", credentials=virtuoso.credentials)
    old = [
        ox.Triple(ox.NamedNode(EX + "ada"), ox.NamedNode(EX + "knows"), ox.NamedNode(EX + f"p{n}")) for n in range(30)
    ]
    new = [ox.Triple(ox.NamedNode(EX + "ada"), ox.NamedNode(EX + "met"), ox.NamedNode(EX + f"p{n}")) for n in range(30)]
    direct.replace_graphs({G1: old})
    before = serialize_dataset(direct._quads_of([G1]), ox.RdfFormat.N_QUADS)
    try:
        with fault_proxy(virtuoso.base_url, _swap(200), authenticated_only=True) as proxy:
            proxied = RemoteStore(f"{proxy}/sparql", kind="virtuoso", credentials=virtuoso.credentials, timeout_s=10)
            with pytest.raises(RemoteError, match=r"the staging graph .* holds 30 triple\(s\), not the 0 expected"):
                proxied.replace_graphs({G1: new})
        assert serialize_dataset(direct._quads_of([G1]), ox.RdfFormat.N_QUADS) == before
        assert [g for g in direct._listed_graphs() if is_internal(g)] == []
    finally:
        direct.replace_graphs({}, drop=[G1])


def test_small_graphs_are_staged_many_a_request_and_a_large_one_by_put(virtuoso: VirtuosoServer) -> None:
    """Sixty graphs of two triples go up in one INSERT DATA request, a graph of 600 triples by one
    PUT; what the server holds afterwards is what was sent."""
    direct = RemoteStore(virtuoso.query_endpoint, kind="virtuoso", credentials=virtuoso.credentials)
    small = {
        f"{EX}graph/{n}": [
            ox.Triple(ox.NamedNode(f"{EX}p{n}"), ox.NamedNode(EX + "name"), ox.Literal(f"P {n} {k}")) for k in range(2)
        ]
        for n in range(60)
    }
    large = [ox.Triple(ox.NamedNode(EX + "big"), ox.NamedNode(EX + "n"), ox.Literal(str(n))) for n in range(600)]
    graphs = {**small, f"{EX}graph/large": large}
    seen: list[tuple[str, bytes]] = []
    try:
        with fault_proxy(virtuoso.base_url, lambda m, p, b: seen.append((m, b)), authenticated_only=True) as proxy:
            proxied = RemoteStore(f"{proxy}/sparql", kind="virtuoso", credentials=virtuoso.credentials, timeout_s=30)
            proxied.replace_graphs(graphs)
        staging = {(m, b) for m, b in seen if stages(m, b)}  # a set: Digest may ask for a request twice
        assert sorted(m for m, _ in staging) == ["POST", "PUT"]
        assert [b.count(b"INSERT DATA") for m, b in staging if m == "POST"] == [60]
        assert direct._contents(list(graphs)) == {g: frozenset(t) for g, t in graphs.items()}
    finally:
        direct.replace_graphs({}, drop=list(graphs))


def test_a_rebuild_writes_only_the_graphs_that_changed(virtuoso: VirtuosoServer) -> None:
    """Each target already holding its new triples is left alone: the same graphs again write
    nothing; one changed graph is the only one staged and moved."""
    direct = RemoteStore(virtuoso.query_endpoint, kind="virtuoso", credentials=virtuoso.credentials)
    one = [
        ox.Triple(ox.NamedNode(EX + "ada"), ox.NamedNode(EX + "knows"), ox.NamedNode(EX + f"p{n}")) for n in range(30)
    ]
    two = [ox.Triple(ox.NamedNode(EX + "grace"), ox.NamedNode(EX + "name"), ox.Literal("Grace", language="en"))]
    direct.replace_graphs({G1: one, G2: two})
    seen: list[tuple[str, str, bytes]] = []

    def record(method: str, path: str, body: bytes) -> None:
        seen.append((method, path, body))

    try:
        with fault_proxy(virtuoso.base_url, record) as proxy:
            proxied = RemoteStore(f"{proxy}/sparql", kind="virtuoso", credentials=virtuoso.credentials, timeout_s=10)
            proxied.replace_graphs({G1: one, G2: two})
            writes = [(m, p) for m, p, _ in seen if m == "PUT" or p.startswith(("/sparql-auth", "/sparql-graph-crud"))]
            assert seen and writes == []
            seen.clear()
            proxied.replace_graphs({G1: one, G2: [*two, ox.Triple(two[0].subject, two[0].predicate, ox.Literal("G."))]})
        staging = {b for m, _, b in seen if stages(m, b)}  # G2's staging graph, by INSERT DATA (asked twice: Digest)
        assert len(staging) == 1 and b"G." in staging.pop()
        moves = [b for _, _, b in seen if b"MOVE" in b]
        assert len(moves) == 1 and G2.encode() in moves[0] and G1.encode() not in moves[0]
        assert len(direct._contents([G2])[G2]) == 2 and len(direct._contents([G1])[G1]) == 30
    finally:
        direct.replace_graphs({}, drop=[G1, G2])


# -- nothing cut short at the server's cap -------------------------------------------------------


def test_the_related_index_is_complete_past_the_cap(
    virtuoso: VirtuosoServer, seed_store: OxigraphStore, settings: Settings
) -> None:
    """The index's reads (one query per kind of link, whole) past the cap: 1,200 dated claims
    more than the seed's make its events read longer than the cap; the same rows and the same
    ranking as the embedded store with the same graphs. (The export past the cap: the first test.)"""
    dated = [
        ox.Triple(ox.NamedNode(f"{EX}claim/{n}"), ox.NamedNode(KGP + link), value)
        for n in range(400)
        for link, value in (
            ("subject", ox.NamedNode(f"{EX}person/p{n % 40}")),
            ("date", ox.Literal("2020", datatype=ox.NamedNode(XSD + "gYear"))),
            ("title", ox.Literal(f"Synthetic event {n % 7}")),
        )
    ]
    embedded = OxigraphStore("memory:")
    graphs: dict[str, list[ox.Triple]] = {}
    for quad in seed_store.quads():
        graphs.setdefault(quad.graph_name.value, []).append(quad.triple)  # type: ignore[union-attr]
    embedded.replace_graphs({**graphs, G1: dated})
    remote = RemoteStore(virtuoso.query_endpoint, kind="virtuoso", credentials=virtuoso.credentials)
    remote.replace_graph(G1, dated)
    try:
        queries = load_queries(settings.queries_dir)
        events = queries["related-index-events"].text
        as_answered = remote.query_as_answered(events)
        assert isinstance(as_answered, SelectResult) and as_answered.capped_at == CAPPED_MAX_ROWS
        rows = [
            sorted(tuple(map(str, (r["event"], r["link"], r["value"]))) for r in s.query(events))
            for s in (remote, embedded)
        ]  # type: ignore[union-attr]
        assert rows[0] == rows[1] and len(rows[0]) > CAPPED_MAX_ROWS
        ranked = [RelatedIndex(s, queries) for s in (remote, embedded)]
        assert ranked[0].people == ranked[1].people and len(ranked[0].people) >= 11  # the seed's, and subjects
        assert [ranked[0].related(p) for p in ranked[0].people] == [ranked[1].related(p) for p in ranked[1].people]
    finally:
        remote.drop_graph(G1)
        embedded.close()


def test_query_passes_the_cap_on_with_a_warning(virtuoso: VirtuosoServer) -> None:
    code, out = kg(
        "query",
        "-e",
        "SELECT * { ?s ?p ?o }",
        "-f",
        "csv",
        "--endpoint",
        virtuoso.query_endpoint,
        "--server-kind",
        "virtuoso",
    )
    assert code == 0
    assert f"warning: the server cut this answer at its cap of {CAPPED_MAX_ROWS} rows" in out
    assert len([line for line in out.splitlines() if line.startswith(("http", "_:"))]) == CAPPED_MAX_ROWS


#: Every triple of the project's graphs (files, ontology, inferred; not Virtuoso's own): more than
#: the test server's cap.
ALL_TRIPLES = (
    "CONSTRUCT { ?s ?p ?o } WHERE { GRAPH ?g { ?s ?p ?o } "
    'FILTER (STRSTARTS(STR(?g), "https://w3id.org/kgprofiles/graph/")) }'
)


def test_a_construct_past_the_cap_is_read_whole_or_said_to_be_cut(
    virtuoso: VirtuosoServer, seed_store: OxigraphStore
) -> None:
    """Virtuoso cuts a CONSTRUCT at its cap and does not say so (no X-SPARQL-MaxRows): sent as
    written, the answer holds about the cap's number of triples and looks whole. Read as the
    rows of its template (``construct_rows.py``), it is complete, or, as answered, says it is cut."""
    remote = RemoteStore(virtuoso.query_endpoint, kind="virtuoso")
    expected = {q.triple for q in seed_store.quads()}
    assert len(expected) > CAPPED_MAX_ROWS
    whole = remote.query(ALL_TRIPLES)
    assert isinstance(whole, list) and set(whole) == expected and len(whole) == len(expected)
    as_answered = remote.query_as_answered(ALL_TRIPLES)
    assert isinstance(as_answered, GraphResult) and as_answered.capped_at == CAPPED_MAX_ROWS
    assert set(as_answered) < expected
    sent_as_written = httpx.post(
        virtuoso.query_endpoint, data={"query": ALL_TRIPLES}, headers={"Accept": "application/n-triples"}
    )
    assert sent_as_written.status_code == 200 and "X-SPARQL-MaxRows" not in sent_as_written.headers
    assert len(sent_as_written.text.splitlines()) <= CAPPED_MAX_ROWS + 1  # cut, and nothing says so


def test_query_warns_of_a_cut_construct(virtuoso: VirtuosoServer) -> None:
    where = ("--endpoint", virtuoso.query_endpoint, "--server-kind", "virtuoso")
    code, out = kg("query", "-e", ALL_TRIPLES, "-f", "nt", *where)
    assert code == 0
    assert f"warning: the server cut the solutions of this CONSTRUCT at its cap of {CAPPED_MAX_ROWS} rows" in out
    code, out = kg("query", "-e", ALL_TRIPLES + " LIMIT 10", "-f", "nt", *where)
    assert code == 0 and "warning" not in out


@pytest.fixture
def capped_site(virtuoso: VirtuosoServer, settings: Settings) -> Iterator[httpx.Client]:
    store = RemoteStore(virtuoso.query_endpoint, kind="virtuoso")
    with serving(create_app(settings, store)) as url, httpx.Client(base_url=url, timeout=30) as client:
        yield client


def test_sparql_passes_the_cap_on_with_a_header(capped_site: httpx.Client) -> None:
    cut = capped_site.get("/sparql", params={"query": "SELECT * { ?s ?p ?o }"})
    assert cut.status_code == 200 and cut.headers[CAPPED_HEADER] == str(CAPPED_MAX_ROWS)
    assert len(cut.json()["results"]["bindings"]) == CAPPED_MAX_ROWS
    whole = capped_site.get("/sparql", params={"query": "SELECT * { ?s ?p ?o } LIMIT 10"})
    assert whole.status_code == 200 and CAPPED_HEADER not in whole.headers
    cut = capped_site.get("/sparql", params={"query": ALL_TRIPLES}, headers={"Accept": "application/n-triples"})
    assert cut.status_code == 200 and cut.headers[CAPPED_HEADER] == str(CAPPED_MAX_ROWS)


# -- last: changes the seed graph ----------------------------------------------------------------


def test_a_rebuild_drops_the_graph_of_a_removed_file(virtuoso: VirtuosoServer, tmp_path: Path) -> None:
    """Virtuoso's `GRAPH ?g {}` lists nothing: the stale graph used to stay, and the person with it."""
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data)
    (data / "people" / "jane-xu.ttl").unlink()
    env = writer_env(virtuoso, KGPROFILES_DATA=str(data))
    assert kg("build", "--endpoint", virtuoso.query_endpoint, "--quiet", env=env)[0] == 0
    code, out = kg("people", "--name", "jane", "--endpoint", virtuoso.query_endpoint, env=env)
    assert code == 0 and out.strip() == "0 people"


def test_a_one_file_load_gives_what_a_full_build_gives(virtuoso: VirtuosoServer, tmp_path: Path) -> None:
    """`load` of one edited file: planned on a copy of the server's graphs, written as the file's
    graph and a patch of the inferred graph (verified, as Virtuoso's requests are not
    transactions). The export afterwards is that of an embedded store built from the edited data."""
    seeded(virtuoso)
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data)
    person = data / "people" / "jane-xu.ttl"
    person.write_text(person.read_text().replace('kgp:name "Jane Xu"', 'kgp:name "Jane Xu" ; kgp:altName "Quetzal"'))
    env = writer_env(virtuoso, KGPROFILES_DATA=str(data))
    code, out = kg("load", str(person), "--endpoint", virtuoso.query_endpoint, env=env)
    assert code == 0, out
    store = str(tmp_path / "store")
    assert kg("build", "--store", store, "--quiet", env=env)[0] == 0
    remote = sorted_export("--endpoint", virtuoso.query_endpoint, "--server-kind", "virtuoso", env=env)
    assert remote == sorted_export("--store", store, env=env)
    assert any('"Quetzal"' in line for line in remote)


def test_a_one_file_load_reads_what_it_touches_not_the_whole_graph(virtuoso: VirtuosoServer, tmp_path: Path) -> None:
    """Every read of quads in a load names what it looks for (a VALUES clause, or the graphs it
    reads): no request reads every quad of the server, as the scratch copy of all its graphs did
    before."""
    seeded(virtuoso)
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data)
    person = data / "people" / "jane-xu.ttl"
    person.write_text(person.read_text().replace('kgp:name "Jane Xu"', 'kgp:name "Jane Xu" ; kgp:altName "Quetzal"'))
    bodies: list[str] = []

    def record(method: str, path: str, body: bytes) -> None:
        if method == "POST" and path.startswith("/sparql") and b"query=" in body:
            bodies.append(urllib.parse.parse_qs(body.decode())["query"][0])

    with fault_proxy(virtuoso.base_url, record) as proxy:
        env = writer_env(virtuoso, KGPROFILES_DATA=str(data))
        code, out = kg("load", str(person), "--endpoint", f"{proxy}/sparql", env=env)
        found = kg("search", "quetzal", "--endpoint", f"{proxy}/sparql", env=env)
    assert code == 0, out
    scans = [b for b in bodies if "?g ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } }" in b]  # every quad
    assert bodies and scans == []
    assert found[0] == 0 and "Jane Xu" in found[1]  # the search index kept for the server is current


AWKWARD_TEXTS = [
    "tab\there",
    "line\nbreak",
    "cr\rx",
    'quote " and \\ backslash',
    "control \x01 \x0b \x1f",
    "delete \x7f, next line \x85",
    "astral 𝔘, accent é",
    "<tag> & amp; ]]> end of CDATA",
    "\ufffe not a character",
]


@pytest.mark.parametrize("padding", [0, 600], ids=["staged-by-insert-data", "staged-by-put"])
def test_awkward_literals_come_back_term_for_term(virtuoso: VirtuosoServer, padding: int) -> None:
    """Virtuoso answers kgprofiles in SPARQL XML (its JSON writer is slower): control characters,
    markup and astral characters survive the verified write (which reads the graph back) and a
    query, whether the graph was staged in an INSERT DATA (a small graph) or by a PUT."""
    store = RemoteStore(virtuoso.query_endpoint, kind="virtuoso", credentials=virtuoso.credentials)
    assert "sparql-results+xml" in store.kind.results_accept.split(",")[0]
    subject, predicate = ox.NamedNode("http://example.org/s"), ox.NamedNode("http://example.org/p")
    triples = [ox.Triple(subject, predicate, ox.Literal(text)) for text in AWKWARD_TEXTS]
    triples.append(ox.Triple(subject, predicate, ox.Literal("colour", language="en-gb")))
    triples += [ox.Triple(subject, predicate, ox.Literal(f"padding {n}")) for n in range(padding)]
    graph = "http://example.org/awkward"
    store.replace_graphs({graph: triples})
    try:
        assert {q.triple for q in store.quads(graph)} == set(triples)
        rows = store.query(f"SELECT ?o WHERE {{ GRAPH <{graph}> {{ ?s ?p ?o }} }}")
        assert isinstance(rows, SelectResult)
        assert sorted(str(row["o"]) for row in rows.rows) == sorted(str(t.object) for t in triples)
    finally:
        store.drop_graph(graph)


def test_a_literal_the_server_rewrites_is_refused_and_named(virtuoso: VirtuosoServer) -> None:
    """Virtuoso stores ``"1.50"^^xsd:decimal`` as ``"1.5"``: the verified write refuses it, says
    which triple was sent and what was found, and the graph keeps what it held."""
    store = RemoteStore(virtuoso.query_endpoint, kind="virtuoso", credentials=virtuoso.credentials)
    subject, predicate = ox.NamedNode("http://example.org/s"), ox.NamedNode("http://example.org/p")
    kept = ox.Triple(subject, predicate, ox.Literal("kept"))
    graph = "http://example.org/rewritten"
    store.replace_graphs({graph: [kept]})
    decimal = ox.NamedNode("http://www.w3.org/2001/XMLSchema#decimal")
    try:
        with pytest.raises(RemoteError) as refused:
            store.replace_graphs({graph: [ox.Triple(subject, predicate, ox.Literal("1.50", datatype=decimal))]})
        message = refused.value.message
        assert 'sent, not found: <http://example.org/s> <http://example.org/p> "1.50"^^' in message
        assert 'found, not sent: <http://example.org/s> <http://example.org/p> "1.5"^^' in message
        assert "canonical form" in (refused.value.hint or "")
        assert {q.triple for q in store.quads(graph)} == {kept}
    finally:
        store.drop_graph(graph)


def test_a_first_build_removes_no_graph(virtuoso: VirtuosoServer) -> None:
    """Into an empty server, a build has nothing to remove: no CLEAR or DROP of a target the server
    does not hold, nor of a staging graph its MOVE already removed (each costs Virtuoso tens of
    milliseconds: 10,000 people's graphs took minutes)."""
    virtuoso.clear()
    updates: list[str] = []

    def record(method: str, path: str, body: bytes) -> None:
        if method == "POST" and path.startswith("/sparql-auth") and not body.startswith(b"query="):
            updates.append(body.decode(errors="replace"))

    with fault_proxy(virtuoso.base_url, record, authenticated_only=True) as proxy:
        code, out = kg("build", "--endpoint", f"{proxy}/sparql", "--quiet", env=writer_env(virtuoso))
    assert code == 0, out
    assert any("MOVE" in body for body in updates)  # what the build wrote went through the proxy
    removals = [body.replace(f"DROP SILENT GRAPH <{JOURNAL_GRAPH}>", "") for body in updates]
    assert [body for body in removals if "CLEAR" in body or "DROP" in body] == []  # but the journal's
    seeded(virtuoso)


def test_more_graphs_than_the_cap_are_all_listed_in_name_order(virtuoso: VirtuosoServer) -> None:
    """1,500 graphs on a server that answers 1,000 rows and sorts 1,000: every one is listed,
    by pages in name order (each after the last name before), never by OFFSET, whose unordered
    pages once lost a whole file's graph from a 10,000-person export."""
    virtuoso.clear()
    store = RemoteStore(virtuoso.query_endpoint, kind="virtuoso", credentials=virtuoso.credentials)
    graphs = [f"http://example.org/many/{n:04d}" for n in range(1500)]
    for at in range(0, len(graphs), 300):
        store.update(
            "INSERT DATA { "
            + " ".join(f"GRAPH <{g}> {{ <{g}> a <http://example.org/T> }}" for g in graphs[at : at + 300])
            + " }"
        )
    queries: list[str] = []

    def record(method: str, path: str, body: bytes) -> None:
        if method == "POST" and b"query=" in body:
            queries.append(urllib.parse.parse_qs(body.decode())["query"][0])

    with fault_proxy(virtuoso.base_url, record) as proxy:
        listed = RemoteStore(f"{proxy}/sparql", kind="virtuoso").graphs()
    assert listed == graphs
    assert len(queries) >= 2 and not any("OFFSET" in q for q in queries)
    seeded(virtuoso)
