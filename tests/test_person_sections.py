"""Stable views skip a person page's section queries for the people ``queries/person-sections.rq``
does not list (most people have no awards, no education, no supervisions, no identifiers); skipping
is safe only if the list holds everyone each query has rows for. These tests hold it to that, on
graphs with every branch: a fixture graph with its edge cases, the seed data and 300 synthetic
people."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

import kgprofiles.profiles as profiles_module
from kgprofiles.config import Settings
from kgprofiles.profiles import Views, section_queries
from kgprofiles.queries import load_queries, named
from kgprofiles.store.oxigraph import OxigraphStore

ROOT = Path(__file__).resolve().parents[1]
EX = "https://example.org/"
FIXTURE = f"""
@prefix kgp: <https://w3id.org/kgprofiles/ontology#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix ex: <{EX}> .
ex:ada a kgp:Person ; kgp:name "Ada" ; owl:sameAs ex:ada, <http://www.wikidata.org/entity/Q7259> .
ex:bob a kgp:Person ; kgp:name "Bob" ; owl:sameAs ex:bob .
ex:cy a kgp:Person ; kgp:name "Cy" .
ex:org kgp:name "Org" .
ex:prize kgp:name "Prize" .
ex:scheme kgp:name "Scheme" .
ex:receipt a kgp:AwardReceipt ; kgp:recipient ex:ada ; kgp:award ex:prize ; kgp:date "2001"^^xsd:gYear .
ex:school a kgp:Education ; kgp:holder ex:ada ; kgp:organization ex:org .
ex:sup a kgp:Supervision ; kgp:advisor ex:ada ; kgp:student ex:cy .
ex:orcid a kgp:Identifier ; kgp:subject ex:bob ; kgp:scheme ex:scheme ; kgp:value "0000-0001" .
ex:death a kgp:Death ; kgp:subject ex:cy ; kgp:date "1990"^^xsd:gYear .
"""


@pytest.fixture(scope="module")
def fixture_store() -> OxigraphStore:
    store = OxigraphStore("memory:")
    store.replace_graph(EX + "graph", ox.parse(FIXTURE, format=ox.RdfFormat.TURTLE))
    return store


def listed(store: OxigraphStore, settings: Settings) -> dict[str, set[str]]:
    """What ``person-sections`` lists: query name → people."""
    found: dict[str, set[str]] = {name: set() for name in section_queries(load_queries(settings.queries_dir))}
    for row in Views(store, settings.queries_dir).select("person-sections").rows:
        found[row["query"].value].add(row["person"].value)
    return found


def with_rows(store: OxigraphStore, settings: Settings) -> dict[str, set[str]]:
    """For each section query, the people it gives rows for (every person of the graph asked)."""
    views = Views(store, settings.queries_dir)
    people = {row["person"].value for row in store.query("SELECT ?person WHERE { ?person a kgp:Person }").rows}
    return {
        name: {p for p in people if views.select(name, person=ox.NamedNode(p)).rows}
        for name in section_queries(views.queries)
    }


def test_the_sections_are_person_queries(settings: Settings) -> None:
    queries = load_queries(settings.queries_dir)
    names = section_queries(queries)
    assert set(names) == {
        "person-awards",
        "person-education",
        "person-supervisions",
        "person-identifiers",
        "person-same-as",
        "person-life",
    }
    for name in names:
        assert [p.name for p in named(queries, name).params] == ["person"], name


def test_the_list_is_exactly_who_has_rows_in_the_fixture(fixture_store: OxigraphStore, settings: Settings) -> None:
    """Ada: an award, a school, a student and a Wikidata link; Bob: an identifier and only a link
    to himself (no same-as rows); Cy: an advisor and a death."""
    ada, bob, cy = EX + "ada", EX + "bob", EX + "cy"
    expected = {
        "person-awards": {ada},
        "person-education": {ada},
        "person-supervisions": {ada, cy},
        "person-identifiers": {bob},
        "person-same-as": {ada},
        "person-life": {cy},
    }
    assert with_rows(fixture_store, settings) == expected
    assert listed(fixture_store, settings) == expected


@pytest.mark.parametrize(
    ("graph", "sections_with_people"), [("seed_store", 0), ("synthetic_store", 4), ("lives_store", 4)]
)
def test_everyone_a_section_query_has_rows_for_is_listed(
    graph: str, sections_with_people: int, settings: Settings, request: pytest.FixtureRequest
) -> None:
    store = request.getfixturevalue(graph)
    has_rows, found = with_rows(store, settings), listed(store, settings)
    for name, people in has_rows.items():
        assert people <= found[name], (name, sorted(people - found[name]))
    assert sum(bool(people) for people in has_rows.values()) >= sections_with_people


def test_stable_views_skip_the_sections_a_person_lacks_and_give_the_same_profile(
    synthetic_store: OxigraphStore, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = listed(synthetic_store, settings)
    people = [ox.NamedNode(p) for p in sorted(found["person-life"])[:40]]
    plain = Views(synthetic_store, settings.queries_dir)
    expected = [plain.profile(person) for person in people]
    ran: list[tuple[str, str]] = []
    real = profiles_module.select_rows

    def counted(store: object, query: object, values: dict[str, object]) -> object:
        ran.append((query.name, getattr(values.get("person"), "value", "")))  # type: ignore[attr-defined]
        return real(store, query, values)  # type: ignore[arg-type]

    monkeypatch.setattr(profiles_module, "select_rows", counted)
    stable = Views(synthetic_store, settings.queries_dir, stable=True)
    stable.read_once()
    assert [stable.profile(person) for person in people] == expected
    for name in section_queries(stable.queries):
        asked = {p for query, p in ran if query == name}
        lacking = {p.value for p in people} - found[name]
        # run once for a person without rows (to learn the answer's columns), never again
        assert len(asked & lacking) <= 1, (name, len(asked & lacking))
        assert found[name] & {p.value for p in people} <= asked, name
    assert any(p.value not in found["person-awards"] for p in people)  # the test skips something
