"""The related-people index of a store generation kept on disk (``kgprofiles.related_index_cache``):
read back, it ranks everyone as the index read from the store does; a damaged entry is read from
the store again and rewritten; only a published generation has one; a new generation, other
queries or an unwritable cache each go their own way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgprofiles.cli import app
from kgprofiles.config import Settings
from kgprofiles.queries import load_queries
from kgprofiles.related_index import RelatedIndex
from kgprofiles.related_index_cache import KEPT, entry_path, related_index
from kgprofiles.store.oxigraph import OxigraphStore
from recorded_progress import RecordedProgress

ROOT = Path(__file__).resolve().parents[1]
LIVES = ROOT / "tests" / "fixtures" / "lives"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seed data built with `kgprofiles build`: a published store, read through generations."""
    path = tmp_path_factory.mktemp("built") / "store"
    result = CliRunner().invoke(app, ["--project", str(ROOT), "build", "--store", str(path), "--quiet"])
    assert result.exit_code == 0, result.output
    return path


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KGPROFILES_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def rankings(index: RelatedIndex) -> dict[str, list[tuple[str, float, str]]]:
    return {p: [(r.iri, r.score, r.reason) for r in index.related(p)] for p in index.people}


def test_an_index_read_back_ranks_everyone_as_the_one_read_from_the_store(
    built: Path, settings: Settings, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    queries = load_queries(settings.queries_dir)
    with OxigraphStore(built, read_only=True) as store:
        first = related_index(store, queries)
        path = entry_path(store, queries)
        assert path is not None and path.is_file() and path.parent == cache / "related"

        def no_store(*args: object, **kwargs: object) -> None:
            raise AssertionError("read from the store again")

        monkeypatch.setattr(RelatedIndex, "_read", no_store)
        again = related_index(store, queries, {"topic": 0.0})  # (the weights are not in the entry)
    assert rankings(again) == rankings(RelatedIndex.from_state(first.state(), {"topic": 0.0}))
    assert rankings(related_index_from(built, settings)) == rankings(first)
    assert len(first.people) >= 10 and all(rankings(first).values())


def related_index_from(built: Path, settings: Settings) -> RelatedIndex:
    with OxigraphStore(built, read_only=True) as store:
        return related_index(store, load_queries(settings.queries_dir))


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: text[: len(text) // 2],  # cut short
        lambda text: "[]",
        lambda text: json.dumps({"format": 999, "state": {}}),
        lambda text: json.dumps({"format": 1, "state": {"strings": [1, 2]}}),
        lambda text: text.replace('"names": [[', '"names": [[999999999, ', 1),  # a string that is not there
    ],
    ids=["truncated", "not-an-object", "other-format", "wrong-types", "dangling-number"],
)
def test_a_damaged_entry_is_read_from_the_store_again_and_rewritten(
    built: Path, settings: Settings, cache: Path, damage
) -> None:
    queries = load_queries(settings.queries_dir)
    with OxigraphStore(built, read_only=True) as store:
        expected = rankings(related_index(store, queries))
        path = entry_path(store, queries)
        assert path is not None
        path.write_text(damage(path.read_text(encoding="utf-8")), encoding="utf-8")
        assert rankings(related_index(store, queries)) == expected
        assert json.loads(path.read_text(encoding="utf-8"))["format"] == 1  # written whole again


def test_only_a_published_generation_has_an_entry(settings: Settings, seed_store, seed_store_dir: Path) -> None:
    queries = load_queries(settings.queries_dir)
    assert entry_path(seed_store, queries) is None  # in memory
    with OxigraphStore(seed_store_dir, read_only=True) as plain:  # a store directory, not a generation
        assert entry_path(plain, queries) is None


def test_another_generation_or_other_queries_have_their_own_entry(
    built: Path, settings: Settings, tmp_path: Path, cache: Path
) -> None:
    queries = load_queries(settings.queries_dir)
    with OxigraphStore(built, read_only=True) as store:
        first = entry_path(store, queries)
        (tmp_path / "queries").mkdir()
        own = (ROOT / "queries" / "related-index-names.rq").read_text() + "\n# a project's own\n"
        (tmp_path / "queries" / "related-index-names.rq").write_text(own)
        other = entry_path(store, {**queries, **load_queries(tmp_path / "queries")})
    rebuilt = tmp_path / "rebuilt"
    result = CliRunner().invoke(app, ["--project", str(ROOT), "build", str(LIVES), "--store", str(rebuilt), "--quiet"])
    assert result.exit_code == 0, result.output
    with OxigraphStore(rebuilt, read_only=True) as store:
        elsewhere = entry_path(store, queries)
    assert len({first, other, elsewhere}) == 3


def test_an_unwritable_cache_only_costs_the_reading(
    built: Path, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the cache directory would be")
    monkeypatch.setenv("KGPROFILES_CACHE_DIR", str(blocked))
    assert rankings(related_index_from(built, settings))


def test_only_the_newest_entries_are_kept(built: Path, settings: Settings, cache: Path) -> None:
    (cache / "related").mkdir(parents=True)
    for i in range(KEPT + 2):
        (cache / "related" / f"old{i}.json").write_text("{}")
    related_index_from(built, settings)
    assert len(list((cache / "related").glob("*.json"))) == KEPT


def test_reading_once_is_a_stage_of_steps_read_from_the_store_or_back_from_the_cache(
    built: Path, settings: Settings, cache: Path
) -> None:
    """A site build's "related index" stage: a step each whole-graph query of the index, then the
    organisation sizes and the sections; the index read back from its entry takes its steps at
    once."""
    from kgprofiles.profiles import Views
    from kgprofiles.related_index import QUERIES

    seen = []
    for _ in ("read from the store", "read back"):
        store = OxigraphStore(str(built), read_only=True)
        try:
            steps = RecordedProgress()
            Views(store, settings.queries_dir, stable=True).read_once(steps)
        finally:
            store.close()
        (stage,) = steps.stages
        assert (stage.name, stage.total, stage.grown) == ("related index", len(QUERIES) + 2, 0)
        seen.append(stage.advances)

    assert seen == [[1] * len(QUERIES) + [1, 1], [len(QUERIES), 1, 1]]
