"""The seed person's profile, as a reader of the seed page expects it, in every view."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import require_seed
from kgprofiles.profiles import Ambiguous, NotFound, Views
from kgprofiles.render import json as json_view
from kgprofiles.render import markdown, superscript, text
from seed_page import read_seed_page, related_name_and_reason, timeline_date

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
def seed():
    """The reference page, read through the real-data setting (a skip, or a failure under
    KGPROFILES_REQUIRE_REALDATA=1, where it is absent)."""
    return read_seed_page(require_seed("profile-horace-he.txt"))


@pytest.fixture(scope="module")
def horace(views: Views):
    return views.profile(views.resolve_person("horace-he"))


@pytest.fixture(scope="module")
def page(horace) -> str:
    return text.profile(horace)


def check_golden(name: str, rendered: str) -> None:
    """Compare with tests/golden/NAME; KGPROFILES_UPDATE_GOLDEN=1 rewrites it (review the diff by eye)."""
    path = GOLDEN / name
    if os.environ.get("KGPROFILES_UPDATE_GOLDEN") == "1":
        path.write_text(rendered, encoding="utf-8")
    assert path.exists(), f"no golden file {path}: run with KGPROFILES_UPDATE_GOLDEN=1 and review it"
    assert rendered == path.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("golden", "render"),
    [("horace-he.txt", text.profile), ("horace-he.md", markdown.profile), ("horace-he.json", json_view.profile)],
)
def test_views_match_their_golden_files(horace, golden: str, render) -> None:
    check_golden(golden, render(horace))


def test_every_view_is_byte_identical_across_two_builds(horace, views: Views, seed_store_factory) -> None:
    other = Views(seed_store_factory(), views.queries_dir)
    again = other.profile(other.resolve_person("horace-he"))
    for render in (text.profile, markdown.profile, json_view.profile):
        assert render(again) == render(horace)


def test_json_view_follows_its_schema(horace) -> None:
    import jsonschema

    schema = json.loads((Path(__file__).parents[1] / "src/kgprofiles/render/profile.schema.json").read_text())
    jsonschema.validate(json.loads(json_view.profile(horace)), schema)


# ------------------------------------------------------------------ the seed page, item by item


def notes(item) -> str:
    """The item's footnotes as the text view prints them: ascending, comma-separated superscripts."""
    return superscript(tuple(sorted(item.notes)))


def line_with(page: str, fragment: str) -> str:
    lines = [line for line in page.splitlines() if fragment in line]
    assert lines, f"the profile does not carry {fragment!r}"
    return lines[0]


def test_header_and_summary(seed, page: str) -> None:
    assert page.startswith(f"{seed.name}\n\n{seed.headline}\n")
    for item in seed.section("Summary"):
        assert line_with(page, item.text).endswith(item.text + notes(item))


def test_research_and_writing(seed, page: str) -> None:
    assert "\nResearch and writing\n" in page
    for item in seed.section("Research and writing"):
        assert line_with(page, item.text).endswith(item.text + notes(item))


def test_work_and_contributions(seed, page: str) -> None:
    items = seed.section("Work and contributions")
    headings = [i for i in items if i.text.startswith("•")]
    descriptions = [i for i in items if not i.text.startswith("•")]
    assert len(headings) == len(descriptions) == 4
    for heading in headings:
        # "• PyTorch (torch.compile) Open-source code": the title, then its two-word kind.
        title, kind = heading.text[2:].rsplit(" ", 2)[0], " ".join(heading.text.rsplit(" ", 2)[1:])
        assert f"• {title} — {kind}" in page
    for item in descriptions:
        assert line_with(page, item.text).endswith(item.text + notes(item))


def test_timeline_dates_in_the_pages_formats(seed, page: str) -> None:
    entries = seed.section("Timeline")
    assert len(entries) == 7
    for number, item in enumerate(entries, start=1):
        date, label = timeline_date(item.text)
        assert f"{number}. {date} — {label}{notes(item)}" in page


def test_other_documented_roles(seed, page: str) -> None:
    section = page.split("\nOther documented roles\n", 1)[1].split("\nWhere they work\n", 1)[0]
    roles = [i for i in seed.section("Other documented roles") if i.text.startswith("•")]
    assert len(roles) == 2
    for item in roles:
        assert f"{item.text}{notes(item)}" in section


def test_where_they_work_counts_people_of_this_graph(seed, horace, page: str) -> None:
    # The page says "PyTorch 11 people in the wiki": its wiki holds more people than this graph,
    # which records only the five the page names besides Horace He.
    (item,) = seed.section("Where they work")
    assert item.text.startswith("• PyTorch")
    assert [(w.name, w.people) for w in horace.workplaces] == [("PyTorch", 6)]
    assert "• PyTorch — 6 people in the graph" in page


def test_related_people_with_the_seed_reasons(seed, horace, page: str) -> None:
    expected = [related_name_and_reason(i.text) for i in seed.section("Related people")]
    got = [(r.name, r.reason) for r in horace.related]
    assert sorted(got) == sorted(expected)
    # The five also at PyTorch come first, then the five who share topics.
    assert all(reason == "Also at PyTorch" for _, reason in got[:5])
    assert all("Also at" not in reason for _, reason in got[5:])
    for name, reason in expected:
        assert f"• {name} — {reason}" in page


def test_sources_in_the_profiles_own_order(horace) -> None:
    assert [s.number for s in horace.sources] == list(range(1, 12))
    assert horace.sources[0].title == "PyTorch governance page"


# ------------------------------------------------------------------ resolving people


def test_a_person_is_found_by_slug_curie_iri_and_name(views: Views) -> None:
    iri = "https://w3id.org/kgprofiles/id/person/horace-he"
    for text_ in ("horace-he", "person:horace-he", iri, f"<{iri}>", "Horace He", "horace he"):
        assert views.resolve_person(text_).value == iri


def test_an_ambiguous_name_lists_the_candidates(views: Views) -> None:
    with pytest.raises(Ambiguous) as error:
        views.resolve_person("an")  # Ian Buck, Greg Chanan, Jane Xu, ...
    assert "greg-chanan" in error.value.message and "ian-buck" in error.value.message


def test_an_unknown_person_is_a_clear_error(views: Views) -> None:
    with pytest.raises(NotFound, match="no person matches 'Nobody Here'"):
        views.resolve_person("Nobody Here")


def test_other_documented_roles_in_the_seed_pages_order(seed, horace) -> None:
    """Newest evidence first, as the seed page lists them (September 2025 post, then 2024 paper)."""
    roles = [i.text for i in seed.section("Other documented roles") if i.text.startswith("•")]
    shown = [f"• {r.title}, {r.organization_name}" for r in horace.roles_with("not confirmed")]
    assert [next(t for t in roles if t.startswith(s)) for s in shown] == roles
