"""The ontology and shapes graphs are kept on disk (``parsed_graphs.py``): a later process reads
them instead of parsing (and checking, and canonicalising) the files again, gets the graph it would
have made, and an edited file, a damaged entry or an unwritable cache only cost the making; a
shapes file that is refused is refused every time (nothing of it is kept)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from rdflib.compare import isomorphic

from kgprofiles import parsed_graphs, validate
from kgprofiles.config import Settings
from kgprofiles.errors import ShapesError
from kgprofiles.validate import load_ontology, load_shapes


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache directory, and no ontology made yet in this process."""
    monkeypatch.setenv("KGPROFILES_CACHE_DIR", str(tmp_path / "cache"))
    load_ontology.cache_clear()
    load_shapes.cache_clear()
    yield tmp_path / "cache" / "ontology"
    load_ontology.cache_clear()
    load_shapes.cache_clear()


@pytest.fixture
def ontology_dir(settings: Settings, tmp_path: Path) -> Path:
    """A copy of the project's ontology files, to edit."""
    copy = tmp_path / "ontology"
    shutil.copytree(settings.ontology_dir, copy)
    return copy


def made_count(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """From here on, each time the graph is made from the files (not read from the cache)."""
    calls: list[Path] = []
    make = validate._canonical_ontology

    def counted(ontology_dir: Path):  # type: ignore[no-untyped-def]
        calls.append(ontology_dir)
        return make(ontology_dir)

    monkeypatch.setattr(validate, "_canonical_ontology", counted)
    return calls


def test_a_later_process_reads_the_same_graph_without_parsing(
    cache: Path, ontology_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = made_count(monkeypatch)
    first = load_ontology(ontology_dir)
    (entry,) = cache.glob("*.json")
    load_ontology.cache_clear()  # (as a new process)
    again = load_ontology(ontology_dir)
    assert made == [ontology_dir]  # made once, then read
    assert set(again) == set(first) == set(validate._canonical_ontology(ontology_dir))
    assert dict(again.namespaces()) == dict(first.namespaces())
    assert entry.stat().st_size > 0


def test_an_edited_file_gives_an_entry_of_its_own(
    cache: Path, ontology_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = load_ontology(ontology_dir)
    (file,) = sorted(ontology_dir.glob("*.ttl"))[:1]
    added = '<https://example.org/new> <http://www.w3.org/2000/01/rdf-schema#label> "new" .'
    file.write_text(file.read_text(encoding="utf-8") + f"\n{added}\n", encoding="utf-8")
    load_ontology.cache_clear()
    made = made_count(monkeypatch)
    after = load_ontology(ontology_dir)
    assert made == [ontology_dir]
    assert len(after) == len(before) + 1
    assert len(list(cache.glob("*.json"))) == 2


@pytest.mark.parametrize("damage", ["", "{not json", '{"format": 1, "prefixes": [], "triples": [["x", "y"]]}', "[]"])
def test_a_damaged_entry_is_made_again_and_written_whole(
    cache: Path, ontology_dir: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    expected = set(load_ontology(ontology_dir))
    (entry,) = cache.glob("*.json")
    entry.write_text(damage, encoding="utf-8")
    load_ontology.cache_clear()
    made = made_count(monkeypatch)
    assert set(load_ontology(ontology_dir)) == expected
    assert made == [ontology_dir]
    assert parsed_graphs.read_graph(entry) is not None  # written again, whole


def test_a_cache_that_cannot_be_written_only_costs_the_making(
    tmp_path: Path, ontology_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("", encoding="utf-8")
    monkeypatch.setenv("KGPROFILES_CACHE_DIR", str(blocked))
    load_ontology.cache_clear()
    try:
        assert set(load_ontology(ontology_dir)) == set(validate._canonical_ontology(ontology_dir))
    finally:
        load_ontology.cache_clear()


def test_shapes_are_read_back_without_parsing(cache: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    first = load_shapes(settings.shapes_dir)
    load_shapes.cache_clear()  # (as a new process)
    parsed: list[Path] = []
    monkeypatch.setattr(validate, "_load_dir", lambda *args: parsed.append(args[0]) or first)
    again = load_shapes(settings.shapes_dir)
    assert parsed == []
    assert isomorphic(again, first) and len(again) == len(first)
    assert len(list((cache.parent / "shapes").glob("*.json"))) == 1


def test_a_refused_shapes_file_is_refused_every_time(cache: Path, settings: Settings, tmp_path: Path) -> None:
    shapes = tmp_path / "shapes"
    shapes.mkdir()
    for file in validate._rdf_files(settings.shapes_dir):
        shutil.copy(file, shapes / file.name)
    (shapes / "fetching.ttl").write_text(
        "@prefix sh: <http://www.w3.org/ns/shacl#> .\n"
        "<https://example.org/S> a sh:NodeShape ; sh:targetNode <https://example.org/x> ;\n"
        '  sh:sparql [ sh:select "SELECT $this WHERE { SERVICE <https://example.org/sparql> { $this ?p ?o } }" ] .\n',
        encoding="utf-8",
    )
    for _ in range(2):
        load_shapes.cache_clear()
        with pytest.raises(ShapesError, match=r"fetching\.ttl"):
            load_shapes(shapes)
    assert not list((cache.parent / "shapes").glob("*.json"))
