"""kgprofiles build and load: the SHACL gate, atomic swaps, and nothing lost on bad input."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from kgprofiles.config import Settings
from kgprofiles.errors import InputError, StoreError, ValidationFailed
from kgprofiles.pipeline import DataRejected, build, load
from kgprofiles.store.generations import generations_dir
from kgprofiles.store.oxigraph import OxigraphStore
from kgprofiles.vocab import INFERRED_GRAPH, ONTOLOGY_GRAPH, file_graph_iri

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "build"
COUNT = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"


@pytest.fixture
def project(tmp_path: Path, settings: Settings) -> Settings:
    """A copy of the project's data, with its store in a temporary directory."""
    shutil.copytree(ROOT / "data", tmp_path / "data")
    return settings.with_overrides(data_dir=tmp_path / "data", store=str(tmp_path / "store"))


def canonical_dump(store_path: str) -> list[str]:
    """Every quad of the on-disk store, sorted: equal lists mean equal stores."""
    store = OxigraphStore(store_path, read_only=True)
    try:
        return sorted(str(q) for q in store.quads())
    finally:
        store.close()


def test_build_stores_one_graph_per_file_plus_ontology_and_inferred(project: Settings) -> None:
    report = build(project)
    assert set(report.stage_seconds) == {"parse", "store", "validate", "infer", "index", "compact"}
    store = OxigraphStore(project.store, read_only=True)
    try:
        graphs = store.graphs()
        assert file_graph_iri("people/horace-he.ttl") in graphs
        assert ONTOLOGY_GRAPH in graphs and INFERRED_GRAPH in graphs
        assert (
            len([g for g in graphs if g.endswith(".ttl")])
            == len(report.files)
            == len(list(project.data_dir.rglob("*.ttl")))
        )
        (row,) = store.query(COUNT).rows
        assert int(row["n"].value) > report.triples
    finally:
        store.close()


def test_a_violation_fails_the_build_with_file_line_and_the_store_stays_as_it_was(project: Settings) -> None:
    build(project)
    before = canonical_dump(project.store)
    shutil.copy(FIXTURES / "role-ends-before-start.ttl", project.data_dir / "people")
    with pytest.raises(DataRejected) as error:
        build(project)
    assert "people/role-ends-before-start.ttl:8: violation: The end (2019) is before the start (2020-05)." in str(
        error.value
    )
    assert canonical_dump(project.store) == before


def test_a_syntax_error_fails_the_build_with_file_line_col_and_the_store_stays_as_it_was(project: Settings) -> None:
    build(project)
    before = canonical_dump(project.store)
    shutil.copy(FIXTURES / "broken-syntax.ttl", project.data_dir / "topics")
    with pytest.raises(InputError, match=r"topics/broken-syntax.ttl:6:\d+: syntax error"):
        build(project)
    assert canonical_dump(project.store) == before
    assert leftovers(project) == []


def leftovers(project: Settings) -> list[str]:
    """What a build left beside the published store: unfinished generations, scratch directories."""
    store = Path(project.store)
    published = store.resolve().name
    return sorted(p.name for p in generations_dir(store).iterdir() if p.name not in (published, published + ".lease"))


def test_a_build_leaves_only_the_published_store(project: Settings) -> None:
    build(project)
    build(project)
    assert leftovers(project) == []


def test_a_build_killed_before_it_publishes_leaves_the_previous_store_readable_and_unchanged(project: Settings) -> None:
    build(project)
    before = canonical_dump(project.store)
    (project.data_dir / "people" / "jane-xu.ttl").unlink()  # the next build would change the store
    child = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "build_and_hang.py"), str(ROOT), project.store],
        stdout=subprocess.PIPE,
        env={**os.environ, "KGPROFILES_DATA": str(project.data_dir)},
        text=True,
    )
    try:
        line = child.stdout.readline()  # type: ignore[union-attr]
        assert line.startswith("WROTE"), line
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    assert canonical_dump(project.store) == before
    build(project)  # the next build cleans up the unfinished generation and succeeds
    assert canonical_dump(project.store) != before
    assert not list(Path(project.store + ".generations").glob("*.building"))


def test_a_new_generation_is_compacted_once_beside_the_search_index(
    project: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The compaction runs in a thread of its own while the search index is written (two cores at
    work), once, and before the generation is published."""
    import kgprofiles.pipeline as pipeline

    events: list[tuple[str, str]] = []
    compact, write_index = OxigraphStore.compact, pipeline.write_index

    def compacting(store: OxigraphStore) -> None:
        events.append(("compact", threading.current_thread().name))
        compact(store)

    def indexing(*args: object, **kwargs: object) -> None:
        events.append(("index", threading.current_thread().name))
        write_index(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(OxigraphStore, "compact", compacting)
    monkeypatch.setattr(pipeline, "write_index", indexing)
    build(project)

    assert sorted(events) == [("compact", "kgprofiles-compact"), ("index", "MainThread")]
    assert leftovers(project) == []


def test_a_compaction_that_fails_fails_the_build_and_publishes_nothing(
    project: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(project)
    before = canonical_dump(project.store)
    (project.data_dir / "people" / "jane-xu.ttl").unlink()  # the next build would change the store

    def broken(store: OxigraphStore) -> None:
        raise StoreError("compaction failed: No space left on device")

    monkeypatch.setattr(OxigraphStore, "compact", broken)
    with pytest.raises(StoreError, match="No space left"):
        build(project)

    assert canonical_dump(project.store) == before
    assert leftovers(project) == []


def test_ctrl_c_while_the_index_is_written_waits_for_the_compaction_and_publishes_nothing(
    project: Settings, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Ctrl-C in the index stage: the compaction beside it (slowed here) is waited for, saying
    so, before the unfinished generation is removed; the store stays as it was."""
    import kgprofiles.pipeline as pipeline

    build(project)
    before = canonical_dump(project.store)
    (project.data_dir / "people" / "jane-xu.ttl").unlink()
    compact, ended = OxigraphStore.compact, threading.Event()

    def slow(store: OxigraphStore) -> None:
        time.sleep(0.5)
        compact(store)
        ended.set()

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(OxigraphStore, "compact", slow)
    monkeypatch.setattr(pipeline, "write_index", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build(project)

    assert ended.is_set()
    assert "waiting for the store's compaction to end" in caplog.text
    assert canonical_dump(project.store) == before
    assert leftovers(project) == []


def test_load_replaces_one_file_in_one_transaction(project: Settings) -> None:
    build(project)
    path = project.data_dir / "topics" / "topics.ttl"
    path.write_text(path.read_text(encoding="utf-8").replace('"Inference and serving"', '"Inference & serving"'))
    load(project, [path])
    store = OxigraphStore(project.store, read_only=True)
    try:
        names = {r["n"].value for r in store.query("SELECT ?n WHERE { ?t a kgp:Topic ; kgp:name ?n }").rows}
    finally:
        store.close()
    assert names == {"Inference & serving", "ML frameworks and libraries"}


def test_load_of_a_file_with_a_violation_changes_nothing(project: Settings) -> None:
    build(project)
    before = canonical_dump(project.store)
    with pytest.raises(DataRejected, match=r"role-ends-before-start\.ttl:8"):
        load(project, [FIXTURES / "role-ends-before-start.ttl"])
    assert canonical_dump(project.store) == before
    assert leftovers(project) == []


def test_the_fast_build_stores_exactly_what_the_reference_engines_give(project: Settings, tmp_path: Path) -> None:
    build(project)
    reference = project.with_overrides(store=str(tmp_path / "reference-store"))
    build(reference, reference=True)
    assert canonical_dump(project.store) == canonical_dump(reference.store)


def test_literals_the_store_writes_differently_build_the_same_as_with_the_reference_engines(
    project: Settings, tmp_path: Path
) -> None:
    """rdflib reads "2024-12-07Z"^^xsd:date differently from how the store keeps it: the literal
    scan, fed while the files stream into the store, notices, and the fast paths give what pyshacl
    and owlrl give."""
    path = project.data_dir / "people" / "horace-he.ttl"
    text = path.read_text(encoding="utf-8")
    assert '"2024-12-07"^^xsd:date' in text
    path.write_text(text.replace('"2024-12-07"^^xsd:date', '"2024-12-07Z"^^xsd:date'), encoding="utf-8")
    report = build(project)
    assert any("write differently" in note for note in report.notes), report.notes
    reference = project.with_overrides(store=str(tmp_path / "reference-store"))
    build(reference, reference=True)
    assert canonical_dump(project.store) == canonical_dump(reference.store)
    assert any('"2024-12-07Z"' in quad for quad in canonical_dump(project.store))


def test_a_fast_load_leaves_the_same_store_as_a_reference_load(project: Settings, tmp_path: Path) -> None:
    build(project)
    other = project.with_overrides(store=str(tmp_path / "reference-store"))
    build(other)
    path = project.data_dir / "people" / "lin-qiao.ttl"
    text = path.read_text(encoding="utf-8")
    path.write_text(
        text.replace("kgp:firstTopic topic:inference-and-serving", "kgp:firstTopic topic:ml-frameworks-and-libraries")
    )
    for settings, reference in ((project, False), (other, True)):
        load(settings, [path], reference=reference)
    assert canonical_dump(project.store) == canonical_dump(other.store)


def test_a_load_that_recomputes_inference_in_full_refuses_inconsistent_data(project: Settings, tmp_path: Path) -> None:
    """An ill-typed xsd:double no shape checks: owlrl finds it inconsistent, and xsd:double is new
    to the store, so the inferred graph is recomputed in full."""
    build(project)
    before = canonical_dump(project.store)
    path = tmp_path / "ill-typed.nt"
    path.write_text(
        '<http://example.org/thing> <http://example.org/p> "abc"^^<http://www.w3.org/2001/XMLSchema#double> .\n'
    )
    with pytest.raises(ValidationFailed, match="inconsistent"):
        load(project, [path])
    assert canonical_dump(project.store) == before


ILL_TYPED = 'kgp:altName "]]><!--"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#XMLLiteral> ;'


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "reference"])
@pytest.mark.parametrize("command", ["build", "load"])
def test_an_ill_typed_literal_no_shape_checks_is_refused_at_its_file_and_line(
    project: Settings, command: str, reference: bool
) -> None:
    """A literal its datatype does not allow, where no shape looks: OWL RL finds the data
    inconsistent, and the error says where the literal is written and what to do."""
    build(project)
    before = canonical_dump(project.store)
    path = project.data_dir / "people" / "horace-he.ttl"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('kgp:name "Horace He" ;', f'kgp:name "Horace He" ; {ILL_TYPED}', 1), encoding="utf-8")
    with pytest.raises(ValidationFailed) as error:
        if command == "build":
            build(project, reference=reference)
        else:
            load(project, [path], reference=reference)
    assert error.value.message == (
        "OWL RL inference found the data inconsistent with the ontology:\n"
        f"{path}:16: Lexical value of the literal ']]><!--' does not match its datatype "
        "(http://www.w3.org/1999/02/22-rdf-syntax-ns#XMLLiteral)"
    )
    assert error.value.hint is not None and "as its datatype allows" in error.value.hint
    assert canonical_dump(project.store) == before


def test_an_individual_of_disjoint_classes_is_named_at_its_file_and_line(settings: Settings) -> None:
    """(The project's ontology has no disjoint classes; a user's own may.) owlrl's message names
    the individual bare, an IRI or a blank node's label: either is found where it is written."""
    from kgprofiles.inconsistency import inconsistent
    from kgprofiles.ingest import SourceFile

    lines = {"http://example.org/x": 4, "_:b0": 9}
    files = [SourceFile(Path("d/x.ttl"), "d/x.ttl", "urn:g", (), lines)]
    messages = [
        "Disjoint classes http://example.org/A and http://example.org/B have a common individual http://example.org/x",
        "Disjoint classes http://example.org/A and http://example.org/B have a common individual b0",
    ]
    error = inconsistent(messages, files, settings.queries_dir)
    assert error.message.splitlines()[1:] == [f"d/x.ttl:4: {messages[0]}", f"d/x.ttl:9: {messages[1]}"]
    assert error.hint is not None and "disjoint classes" in error.hint


def test_a_build_never_drops_the_updates_sent_to_the_server_without_being_told(
    project: Settings, tmp_path: Path
) -> None:
    """An update sent to `serve --write-token` is published in a new generation (and carried by the
    loads after it); a build makes the store from data/ alone and its gc removed the generation
    that held the update: gone without a word. A build now refuses, the store as it was, until told
    to drop them (`--discard-updates`); after that, builds go on as before."""
    from typer.testing import CliRunner

    from kgprofiles.cli import app
    from kgprofiles.store.writer import update_published, updates_kept

    small = tmp_path / "small"
    (small / "organizations").mkdir(parents=True)
    shutil.copy(ROOT / "data" / "organizations" / "organizations.ttl", small / "organizations")
    project = project.with_overrides(data_dir=small)
    build(project)
    note = 'INSERT DATA { GRAPH <https://example.org/n> { <https://example.org/a> <https://example.org/said> "k" } }'
    update_published(project.store, note, command="kgprofiles serve (a SPARQL update)")
    load(project, [small / "organizations" / "organizations.ttl"])  # (a load keeps the update)
    assert len(updates_kept(project.store)) == 1
    before = canonical_dump(project.store)
    with pytest.raises(InputError, match=r"holds 1 SPARQL update\(s\) sent to `kgprofiles serve`") as refused:
        build(project)
    assert "--discard-updates" in (refused.value.hint or "") and canonical_dump(project.store) == before

    def kg(*args: str) -> tuple[int, str]:
        env = {"KGPROFILES_DATA": str(small)}
        result = CliRunner().invoke(app, ["--project", str(ROOT), "build", "--store", project.store, *args], env=env)
        return result.exit_code, result.output

    code, out = kg()
    assert code == 2 and "would drop" in out
    code, out = kg("--discard-updates")
    assert code == 0, out
    assert not any("example.org/said" in q for q in canonical_dump(project.store)) and updates_kept(project.store) == []
    assert kg()[0] == 0


def test_a_build_that_published_says_so_even_when_the_old_generations_cannot_be_removed(
    project: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The clean-up after a publish failing (a directory of the store another user owns) made the
    build fail, "system error", though it had published: a user told so builds again, or worse
    believes the store as it was. Now the build succeeds, with a warning that says what was left."""
    from kgprofiles.store import generations

    small = tmp_path / "small"
    (small / "organizations").mkdir(parents=True)
    shutil.copy(ROOT / "data" / "organizations" / "organizations.ttl", small / "organizations")
    project = project.with_overrides(data_dir=small)
    build(project)
    first = generations.current(Path(project.store))

    def refused(store_path: Path, **_: object) -> object:
        raise PermissionError(13, "Permission denied", str(first))

    monkeypatch.setattr(generations, "collect_garbage", refused)
    with caplog.at_level("WARNING"):
        build(project)
    published = generations.current(Path(project.store))
    assert published is not None and published != first and first is not None and first.is_dir()
    assert "older generations were not removed" in caplog.text and "kgprofiles store gc" in caplog.text
