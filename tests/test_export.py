"""Exports: byte-identical across runs and across builds, and they round-trip."""

from __future__ import annotations

import json
from pathlib import Path

import pyoxigraph as ox
import pytest
from rdflib import Dataset, Graph
from rdflib.compare import isomorphic

from kgprofiles.export import InOrder, export_profile, export_store, in_order, serialize_triples, to_rdfxml
from kgprofiles.queries import get_query
from seed_ids import PERSON

HORACE = ox.NamedNode(str(PERSON) + "horace-he")
RDFLIB_FORMATS = {"ttl": "turtle", "nt": "nt", "nq": "nquads", "jsonld": "json-ld"}


@pytest.mark.parametrize("fmt", ["ttl", "nt", "nq", "jsonld"])
def test_whole_graph_export_is_byte_identical_across_runs_and_builds(seed_store, seed_store_factory, fmt: str) -> None:
    first = export_store(seed_store, fmt)
    assert export_store(seed_store, fmt) == first
    assert export_store(seed_store_factory(), fmt) == first


@pytest.mark.parametrize("fmt", ["ttl", "nt", "jsonld"])
def test_whole_graph_export_round_trips_to_the_stores_union(seed_store, fmt: str) -> None:
    triples = {ox.Triple(q.subject, q.predicate, q.object) for q in seed_store.quads()}
    union = Graph().parse(data=ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES), format="nt")
    exported = Graph().parse(data=export_store(seed_store, fmt), format=RDFLIB_FORMATS[fmt])
    assert len(exported) == len(union)
    assert isomorphic(exported, union)


def test_nquads_export_keeps_every_named_graph(seed_store) -> None:
    dataset = Dataset()
    dataset.parse(data=export_store(seed_store, "nq"), format="nquads")
    graphs = {str(c.identifier) for c in dataset.contexts() if len(c)}
    assert graphs == set(seed_store.graphs())


@pytest.mark.parametrize("fmt", ["ttl", "nt", "jsonld"])
def test_profile_export_is_deterministic_and_holds_the_person_claims_and_sources(
    seed_store, settings, fmt: str
) -> None:
    query = get_query(settings.queries_dir, "person-export")
    data = export_profile(seed_store, query, HORACE, fmt)
    assert export_profile(seed_store, query, HORACE, fmt) == data
    graph = Graph().parse(data=data, format=RDFLIB_FORMATS[fmt])
    subjects = {str(s) for s in graph.subjects()}
    assert HORACE.value in subjects
    assert "https://w3id.org/kgprofiles/id/profile/horace-he" in subjects
    assert "https://w3id.org/kgprofiles/id/claim/horace-he-role-pytorch" in subjects
    assert "https://w3id.org/kgprofiles/id/source/pytorch-governance-page" in subjects
    assert "https://w3id.org/kgprofiles/id/organization/pytorch" in subjects
    # Nobody else's claims: Joe Spisak's role is not part of Horace He's profile.
    assert "https://w3id.org/kgprofiles/id/claim/joe-spisak-role-pytorch" not in subjects


@pytest.mark.parametrize("fmt", ["ttl", "nt", "jsonld", "rdf"])
def test_triples_in_any_order_are_written_the_same_and_sorted_once(seed_store, settings, fmt: str) -> None:
    """A profile's triples shuffled give the same bytes as in order; triples already put
    ``in_order`` (as a site writes a resource's five data forms) are not sorted again."""
    result = get_query(settings.queries_dir, "person-export").run(seed_store, {"person": HORACE})
    assert isinstance(result, list) and len(result) > 50
    write = to_rdfxml if fmt == "rdf" else lambda triples: serialize_triples(triples, fmt)
    ordered = in_order(result)
    assert write(list(reversed(ordered))) == write(result[1::2] + result[::2]) == write(ordered)
    assert in_order(ordered) is ordered
    # trusted, not checked: an InOrder list is written in the order it has
    backwards = InOrder(reversed(ordered))
    if fmt in ("ttl", "nt"):
        assert write(backwards) != write(ordered)


def test_jsonld_is_compacted_with_the_shipped_context(seed_store, settings) -> None:
    query = get_query(settings.queries_dir, "person-export")
    doc = json.loads(export_profile(seed_store, query, HORACE, "jsonld"))
    assert doc["@context"]["kgp"] == "https://w3id.org/kgprofiles/ontology#"
    person = next(n for n in doc["@graph"] if n["@id"] in ("person:horace-he", HORACE.value))
    assert person["name"] == "Horace He"


def test_a_reader_that_stops_early_ends_the_export_quietly(seed_store_dir) -> None:
    """`kgprofiles export | head -1`: the closed pipe ends the command, with no message and no traceback."""
    import subprocess
    import sys

    command = [sys.executable, "-m", "kgprofiles", "export", "--format", "nt", "--store", str(seed_store_dir)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        first = process.stdout.read(100)
        process.stdout.close()  # the reader goes away with most of 200 KB unread
        errors = process.stderr.read().decode()
    assert first.startswith(b"<") and errors == "" and process.returncode in (0, 141)


def test_the_export_commands_refusals_are_clear_and_write_nothing(
    seed_store_dir, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A person who is not in the graph is an error (it printed nothing and said it was done); an
    output that cannot be written is named, without an internal error (``-o /`` raised
    ValueError, ``-o missing/x.ttl`` a FileNotFoundError the boundary took for a bug); and the
    project's data directory is never an output (an export there replaced a data file, and would
    be loaded, inferred triples and all, by the next build)."""
    from pathlib import Path

    from typer.testing import CliRunner

    from kgprofiles.cli import app

    data = tmp_path / "data"
    (data / "people").mkdir(parents=True)
    mine = data / "people" / "mine.ttl"
    mine.write_text("# my only copy\n")
    monkeypatch.setenv("KGPROFILES_DATA", str(data))
    root = Path(__file__).resolve().parents[1]
    runner = CliRunner()

    def export(*args: str) -> tuple[int, str]:
        result = runner.invoke(app, ["--project", str(root), "export", "--store", str(seed_store_dir), *args])
        return result.exit_code, result.output

    code, out = export("nobody-at-all")
    assert code == 2 and "no person matches 'nobody-at-all'" in out
    assert export("horace-he", "-f", "nt")[0] == 0  # (a slug, as before)
    for args in (["-o", "/"], ["-o", str(tmp_path)], ["-o", str(tmp_path / "missing" / "x.ttl")]):
        for person in ([], ["horace-he"]):
            code, out = export(*person, *args)
            assert code == 2 and "internal error" not in out and args[1] in out, (args, person, out)
    for target in (mine, data / "all.nq"):
        code, out = export("-f", "nq", "-o", str(target))
        assert code == 2 and "data directory" in out
    assert mine.read_text() == "# my only copy\n" and sorted(p.name for p in data.rglob("*")) == ["mine.ttl", "people"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]


def test_an_export_through_a_symbolic_link_replaces_the_file_it_names(tmp_path: Path, seed_store_dir: Path) -> None:
    """The link stays a link (it was replaced by a file, the file it named left as it was)."""
    from typer.testing import CliRunner

    from kgprofiles.cli import app

    real, link = tmp_path / "real.nt", tmp_path / "latest.nt"
    real.write_text("old")
    link.symlink_to(real)
    command = ["export", "--store", str(seed_store_dir), "--format", "nt", "--output", str(link)]
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and link.resolve() == real and len(real.read_bytes()) > 10_000


def test_an_export_that_runs_out_of_room_says_so_and_keeps_the_previous_file(
    tmp_path: Path, seed_store_dir: Path
) -> None:
    """A file system that is full (here: a file-size limit, RLIMIT_FSIZE, which needs nothing of
    the machine) fails Oxigraph's write with an OSError that has no errno: it was reported as
    "internal error … a bug in kgprofiles", exit 70. It is a system error (exit 3), and the
    previous output is kept whole."""
    import resource
    import signal
    import subprocess
    import sys

    def small_files() -> None:  # (in the child, before it runs kgprofiles)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))

    output = tmp_path / "graph.nq"
    output.write_text("previous\n")
    command = [sys.executable, "-m", "kgprofiles", "export", "--store", str(seed_store_dir)]
    done = subprocess.run(
        [*command, "--format", "nq", "--output", str(output)],
        preexec_fn=small_files,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 3, done.stderr
    assert "system error" in done.stderr and "too large" in done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert output.read_text() == "previous\n" and sorted(p.name for p in tmp_path.iterdir()) == ["graph.nq"]
