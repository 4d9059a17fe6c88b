"""Finding people by name as people type them: any case, accents or none, middle names and initials
left out, other names too; for `profile`, `people --name` and the web search, on the synthetic lives
graph (tests/fixtures/lives: "Anna Q. Exampleton", also "Anna Quinn Exampleton", and "Jörg Müller")."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from kgprofiles.cli import app
from kgprofiles.config import Settings
from kgprofiles.names import NameMatcher
from kgprofiles.pipeline import build
from kgprofiles.profiles import Ambiguous, NotFound, Views
from kgprofiles.store.oxigraph import OxigraphStore
from kgprofiles.web import create_app
from web.server import serving

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "lives"
ANNA, JORG = "https://w3id.org/kgprofiles/id/person/example-anna", "https://w3id.org/kgprofiles/id/person/example-jorg"
TOPIC, ORGANIZATION = "https://w3id.org/kgprofiles/id/topic/", "https://w3id.org/kgprofiles/id/organization/"
runner = CliRunner()


@pytest.fixture(scope="module")
def lives_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("lives") / "store")
    result = runner.invoke(app, ["--project", str(ROOT), "build", str(FIXTURE), "--store", path, "--quiet"])
    assert result.exit_code == 0, result.output
    return path


@pytest.fixture(scope="module")
def views(settings: Settings) -> Views:
    store = OxigraphStore("memory:")
    build(settings.with_overrides(data_dir=FIXTURE), store=store)
    return Views(store, settings.queries_dir)


@pytest.mark.parametrize(
    ("typed", "found"),
    [
        ("Anna Exampleton", ANNA),  # the middle initial left out
        ("anna q exampleton", ANNA),  # no dot, any case
        ("A. Exampleton", ANNA),  # an initial for the first name
        ("Exampleton, Anna", ANNA),  # family name first
        ("Anna Quinn Exampleton", ANNA),  # the other name
        ("Jorg Muller", JORG),  # no accents
        ("JÖRG MÜLLER", JORG),
        ("Muller", JORG),
    ],
)
def test_a_name_as_typed_finds_the_person(views: Views, typed: str, found: str) -> None:
    assert views.resolve_person(typed).value == found


def test_a_name_that_fits_several_people_lists_them(views: Views) -> None:
    with pytest.raises(Ambiguous) as error:
        views.resolve_person("Example")  # Carla, Dora and Emil Example
    assert "example-carla" in error.value.message and "example-emil" in error.value.message


def test_a_name_nobody_has_is_not_found(views: Views) -> None:
    with pytest.raises(NotFound):
        views.resolve_person("Anna Fineman")


def test_people_and_search_find_the_same_way(views: Views) -> None:
    assert [p.slug for p in views.people("jorg")] == ["example-jorg"]
    assert [(h.kind, h.name) for h in views.search("rontgen muller")] == []
    assert [(h.kind, h.name) for h in views.search("muller jorg")] == [("person", "Jörg Müller")]
    assert [h.name for h in views.search("example")][:3] == ["Anna Q. Exampleton", "Carla Example", "Dora Example"]


def test_the_cli_profile_and_people_commands(lives_dir: str) -> None:
    profile = runner.invoke(app, ["--project", str(ROOT), "profile", "Jorg Muller", "--store", lives_dir])
    assert profile.exit_code == 0, profile.output
    assert profile.output.startswith("Jörg Müller\n")
    people = runner.invoke(app, ["--project", str(ROOT), "people", "--name", "anna exampleton", "--store", lives_dir])
    assert people.exit_code == 0, people.output
    assert people.output.splitlines()[0].startswith("example-anna") and people.output.endswith("1 person\n")


def test_the_web_search(settings: Settings, views: Views) -> None:
    with serving(create_app(settings, views.store)) as url, httpx.Client(base_url=url, timeout=30) as client:
        page = client.get("/search", params={"q": "Jorg Muller"})
    assert page.status_code == 200
    assert 'href="/id/person/example-jorg"' in page.text and "Jörg Müller" in page.text


def test_people_found_by_name_are_the_same_read_either_way(views: Views, monkeypatch: pytest.MonkeyPatch) -> None:
    """A few people found by name are read by a query bound to them; many, by the whole list
    filtered: the same rows, in the same order (by name)."""
    bound = views.people("example")
    monkeypatch.setattr("kgprofiles.profiles.PEOPLE_BOUND", 0)
    assert [p.slug for p in bound] == [p.slug for p in views.people("example")]
    assert [p.name for p in bound] == sorted(p.name for p in bound) and len(bound) >= 3
    assert views.people("nobody-has-this-name") == ()


@pytest.mark.parametrize(
    ("topic", "org", "text"),
    [
        ("example-physics", None, None),
        (None, "example-school", None),
        (None, "example-university", "anna"),
        ("example-physics", "example-institute", None),
        ("no-such-topic", None, None),
    ],
)
def test_people_on_a_topic_or_at_an_organisation_are_the_querys_own_filter(
    views: Views, monkeypatch: pytest.MonkeyPatch, topic: str | None, org: str | None, text: str | None
) -> None:
    """`people --topic/--org` reads the people each filter leaves (topic-people.rq, org-people.rq),
    then their rows: the same rows as people.rq's own filters give, bound either way."""
    values = {"topic": views.resolve(topic, TOPIC)} if topic else {}
    values |= {"org": views.resolve(org, ORGANIZATION)} if org else {}
    expected = [r["person"].value for r in views.select("people", **values).rows]
    if text:
        expected = [iri for iri in expected if iri in {hit.iri for hit in views.search(text)}]
    found = [p.iri for p in views.people(text, topic, org)]
    monkeypatch.setattr("kgprofiles.profiles.PEOPLE_BOUND", 0)
    assert found == [p.iri for p in views.people(text, topic, org)] == expected
    assert topic == "no-such-topic" or found


def test_people_whose_order_python_cannot_make_are_read_whole(views: Views, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the rows' order is not one Python can make (say, names with language tags), the
    whole list is read in the engine's order and filtered."""
    expected = [p.iri for p in views.people("example")]
    monkeypatch.setattr("kgprofiles.profiles.sorted_rows", lambda rows, keys: None)
    assert [p.iri for p in views.people("example")] == expected


TYPED = [
    "Anna Exampleton", "anna q exampleton", "A. Exampleton", "Exampleton, Anna", "Anna Quinn Exampleton",
    "Jorg Muller", "JÖRG MÜLLER", "Muller", "example", "xample", "Example Institute", "physics", "e", "Anna Fineman",
]  # fmt: skip


@pytest.fixture(scope="module")
def disk_views(settings: Settings, lives_dir: str) -> Iterator[Views]:
    store = OxigraphStore(lives_dir, read_only=True)  # a published generation, with its search index
    try:
        yield Views(store, settings.queries_dir)
    finally:
        store.close()


@pytest.mark.parametrize("typed", TYPED)
def test_names_narrowed_by_the_search_index_find_what_every_name_finds(
    views: Views, disk_views: Views, typed: str
) -> None:
    """Over a built store, a name look-up reads only the names its generation's search index
    says may match; over the in-memory store (no index), every name: the same answers."""
    assert disk_views._name_candidates(NameMatcher(typed)) is not None  # the index is read
    assert disk_views.search(typed) == views.search(typed)
    assert disk_views.people(typed) == views.people(typed)
    assert _resolved(disk_views, typed) == _resolved(views, typed)


def _resolved(views: Views, typed: str) -> str:
    try:
        return views.resolve_person(typed).value
    except (NotFound, Ambiguous) as exc:
        return f"{type(exc).__name__}: {exc.message}"


def test_without_a_search_index_every_name_is_read(views: Views, lives_dir: str, settings: Settings) -> None:
    built = OxigraphStore(lives_dir, read_only=True)
    generation = Path(built.location)
    built.close()
    copy = generation.parent / "copy-without-index"
    shutil.copytree(generation, copy)
    (copy / "search.sqlite").unlink()
    store = OxigraphStore(copy, read_only=True)
    try:
        bare = Views(store, settings.queries_dir)
        assert bare._name_candidates(NameMatcher("jorg")) is None
        assert bare.search("jorg muller") == views.search("jorg muller") != ()
    finally:
        store.close()
        shutil.rmtree(copy)
