"""Real lives in the views, on a synthetic graph (tests/fixtures/lives, example IRIs): a prize shared by
three people, an advisor, a birth and a death, an education, identifiers, affiliations known only at
points in time, and an organisation with parts. Goldens in tests/golden/lives-*."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgprofiles.config import Settings
from kgprofiles.infobox import PersonFacts, person_box
from kgprofiles.profiles import Profile, Views
from kgprofiles.render import html, markdown, text
from kgprofiles.render import json as json_view
from kgprofiles.store.oxigraph import OxigraphStore
from test_profile_views import check_golden

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "lives"


@pytest.fixture(scope="module")
def lives(lives_store: OxigraphStore, settings: Settings) -> Views:
    return Views(lives_store, settings.queries_dir)


@pytest.fixture(scope="module")
def anna(lives: Views) -> Profile:
    return lives.profile(lives.resolve_person("example-anna"))


@pytest.fixture(scope="module")
def jorg(lives: Views) -> Profile:
    return lives.profile(lives.resolve_person("example-jorg"))


@pytest.mark.parametrize(
    ("golden", "render"),
    [
        ("lives-anna.txt", text.profile),
        ("lives-anna.md", lambda p: markdown.profile(p, person_box(PersonFacts(p, (), ())))),
        ("lives-anna.json", json_view.profile),
    ],
)
def test_anna_matches_her_golden_files(anna: Profile, golden: str, render) -> None:
    check_golden(golden, render(anna))


def test_the_summary_box_in_the_view_model(anna: Profile) -> None:
    assert anna.born is not None and anna.born.date is not None
    assert (anna.born.date.text, anna.born.place) == ("Nov 7, 1867", "Example City, Example Country")
    assert anna.died is not None and anna.died.date is not None and anna.died.date.text == "1934"
    assert [(e.degree, e.organization_name) for e in anna.education] == [("PhD", "Example University")]
    assert [(i.label, i.url) for i in anna.identifiers] == [
        ("GitHub username", "https://github.com/example-anna"),
        ("ORCID iD", "https://orcid.org/0000-0002-1825-0097"),
    ]


def test_a_shared_award_names_the_co_recipients(anna: Profile) -> None:
    (award,) = anna.awards
    assert (award.name, award.date.text, award.conferred_by) == ("Example Prize in Physics", "1903", "Example Academy")
    assert [p.name for p in award.shared_with] == ["Carla Example", "Jörg Müller"]


def test_the_advisor_is_shown_on_both_sides(anna: Profile, lives: Views) -> None:
    assert [(s.relation, s.person.name) for s in anna.supervisions] == [("advisor", "Dora Example")]
    dora = lives.profile(lives.resolve_person("example-dora"))
    assert [(s.relation, s.person.name) for s in dora.supervisions] == [("student", "Anna Q. Exampleton")]


def test_education_is_not_a_workplace_nor_a_listed_role(anna: Profile) -> None:
    assert [r.organization_name for r in anna.roles] == ["Example School of Science"]


def test_where_they_work_falls_back_to_the_latest_point_in_time_and_says_so(jorg: Profile) -> None:
    assert jorg.workplaces_as_of is not None and jorg.workplaces_as_of.text == "1962"
    assert [w.name for w in jorg.workplaces] == ["Example Lab"]
    assert [(r.organization_name, r.as_of.text if r.as_of else None) for r in jorg.roles] == [
        ("Example Lab", "1962"),
        ("Example Institute", "1958"),
    ]
    check_golden("lives-jorg.txt", text.profile(jorg))
    assert "Latest known affiliation (as of 1962); no role is recorded as current." in html.profile(jorg)


def test_an_organisation_rolls_up_its_parts(lives: Views) -> None:
    university = lives.organization("example-university")
    assert university.people == 2  # Dora (a role) and Anna (her education)
    assert [(p.name, p.count) for p in university.parts] == [("Example School of Science", 2), ("Example Lab", 1)]
    assert university.people_with_parts == 4  # Dora, Anna (also at the school), Emil, and Jörg at the lab
    check_golden("lives-university.txt", text.organization(university))


def test_the_html_page_shows_each_section_once(anna: Profile) -> None:
    page = html.profile(anna, facts=PersonFacts(anna, (), ()))
    for fragment in (
        '<aside class="infobox"',
        'id="awards"',
        'id="education"',
        'href="https://orcid.org/0000-0002-1825-0097"',
    ):
        assert page.count(fragment) == 1, fragment
    data = json.loads(page.split('<script type="application/ld+json">', 1)[1].split("</script>", 1)[0])
    assert data["birthDate"] == "1867-11-07" and data["award"] == ["Example Prize in Physics (1903)"]


def test_a_participant_sees_the_event_on_their_timeline(lives: Views) -> None:
    emil = lives.profile(lives.resolve_person("example-emil"))
    assert [t.label for t in emil.timeline] == ["Gave a shared example keynote."]


def test_the_json_view_follows_its_schema(anna: Profile, jorg: Profile) -> None:
    import jsonschema

    schema = json.loads((ROOT / "src/kgprofiles/render/profile.schema.json").read_text())
    for p in (anna, jorg):
        jsonschema.validate(json.loads(json_view.profile(p)), schema)


# ------------------------------------------------------------------ related people, on evidence


def test_each_co_recipient_is_in_the_top_three_with_the_prize_as_reason(lives: Views) -> None:
    recipients = {"example-anna": "Anna Q. Exampleton", "example-jorg": "Jörg Müller", "example-carla": "Carla Example"}
    for slug, name in recipients.items():
        top = lives.related(lives.resolve_person(slug), 3)
        for other_slug, other in recipients.items():
            if other_slug != slug:
                (found,) = [r for r in top if r.name == other]
                assert found.reason.startswith("Shared the 1903 Example Prize in Physics"), (name, found.reason)


def test_the_advisor_comes_first_with_the_supervision_named(anna: Profile) -> None:
    first = anna.related[0]
    assert (first.name, first.reason) == (
        "Dora Example",
        "Doctoral advisor of Anna Q. Exampleton · Example physics · Both at Example University at the same time",
    )
    assert [c.kind for c in first.components] == ["topic", "supervision", "overlap_org"]


def test_overlapping_times_weigh_more_than_any_time(anna: Profile) -> None:
    by_name = {r.name: r for r in anna.related}
    # Dora's role (1880-1899) overlaps Anna's doctorate (1891-1894); Emil (1931-1940) came after Anna (1900-1930).
    assert {c.kind: c.names for c in by_name["Dora Example"].components}["overlap_org"] == ("Example University",)
    assert {c.kind: c.names for c in by_name["Emil Example"].components}["other_org"] == ("Example School of Science",)


def test_an_event_counts_only_for_its_participants(lives: Views) -> None:
    emil = lives.related(lives.resolve_person("example-emil"))
    carla = next(r for r in emil if r.name == "Carla Example")
    assert carla.reason == "Example physics · Both took part in “Gave a shared example keynote.”"
    anna = next(r for r in emil if r.name == "Anna Q. Exampleton")
    assert "took part" not in anna.reason


def test_ties_break_by_the_number_of_shared_links_then_by_name(lives: Views) -> None:
    # For Jörg: Carla shares the prize, a topic and an organisation; Anna the prize and a topic.
    jorg = lives.related(lives.resolve_person("example-jorg"))
    assert [(r.name, r.score, r.links) for r in jorg[:2]] == [("Carla Example", 7.0, 3), ("Anna Q. Exampleton", 6.0, 2)]
    assert [r.name for r in jorg[2:]] == ["Dora Example", "Emil Example"]  # one topic each: by name


def test_crafted_identifiers_and_award_texts_stay_text(anna: Profile) -> None:
    """Values from the data are untrusted: markup is escaped, and only http(s) addresses become links."""
    from dataclasses import replace

    from kgprofiles.profiles import IdentifierItem

    crafted = replace(
        anna,
        identifiers=(IdentifierItem("x", "GitHub username", "<script>alert(1)</script>", "javascript:alert(1)"),),
        awards=(replace(anna.awards[0], motivation="</script><script>alert(2)</script>"),),
    )
    page = html.profile(crafted, facts=PersonFacts(crafted, (), ()))
    assert "<script>alert" not in page and "javascript:" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    md = markdown.profile(crafted, person_box(PersonFacts(crafted, (), ())))
    assert "](javascript:" not in md and "\\<script\\>" in md
