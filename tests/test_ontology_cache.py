"""The ontology graph is kept on disk (``ontology_cache.py``): a later process reads it instead of
parsing and canonicalising the files again, gets exactly the graph it would have made, and an
edited file, a damaged entry or an unwritable cache only cost the making."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kgprofiles import ontology_cache, validate
from kgprofiles.config import Settings
from kgprofiles.validate import load_ontology


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache directory, and no ontology made yet in this process."""
    monkeypatch.setenv("KGPROFILES_CACHE_DIR", str(tmp_path / "cache"))
    load_ontology.cache_clear()
    yield tmp_path / "cache" / "ontology"
    load_ontology.cache_clear()


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
    assert ontology_cache.read_graph(entry) is not None  # written again, whole


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
