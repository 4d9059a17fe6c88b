"""The drawn charts of a person page: the timeline (roles as bars, events and works as marks) and
the network of the people around a person; server-side SVG, the same bytes for the same profile."""

from __future__ import annotations

import dataclasses
import os
import pickle
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from markupsafe import escape

from conftest import examples
from kgprofiles.profiles import DateValue, RoleItem, TimelineItem, Views
from kgprofiles.render.html import local_link
from kgprofiles.render.svg import esc
from kgprofiles.render.timeline_svg import span, tick_step, timeline_svg
from test_profile_views import check_golden

SVG = "{http://www.w3.org/2000/svg}"
LINK = local_link("")


@pytest.fixture(scope="module")
def horace(views: Views):
    return views.profile(views.resolve_person("horace-he"))


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == SVG + "svg" and root.get("role") == "group" and root.get("aria-label")
    return root


def test_the_seed_persons_timeline_matches_its_golden_file(horace) -> None:
    """The same bytes on every run (the profile itself is the same across builds:
    test_profile_views.test_every_view_is_byte_identical_across_two_builds)."""
    check_golden("horace-he-timeline.svg", str(timeline_svg(horace, LINK)) + "\n")


def test_each_event_mark_links_to_its_numbered_entry(horace) -> None:
    root = parse(str(timeline_svg(horace, LINK)))
    marks = root.findall(f".//{SVG}g[@class='mark']/{SVG}a")
    assert [a.get("href") for a in marks] == [f"#timeline-{n}" for n in range(1, len(horace.timeline) + 1)]
    for a, item in zip(marks, horace.timeline, strict=True):
        tooltip = a.find(f"{SVG}title").text
        assert tooltip.startswith(f"{item.date.text}: {item.label}")
        assert tooltip.endswith(f"(source {item.notes[0]})")  # the footnote, in words
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert {"2018", "2020", "2022", "2024", "2026", "Roles", "Events and works", "PyTorch · current"} <= set(texts)


def d(iso: str, precision: str) -> DateValue:
    return DateValue(iso, precision, iso)


def role(name: str, status: str, start: DateValue | None, end: DateValue | None) -> RoleItem:
    return RoleItem(f"https://w3id.org/kgprofiles/id/organization/{name}", name, None, status, start, end, (1,))


def test_role_bars_solid_where_known_dotted_where_not_and_open_when_current(horace) -> None:
    roles = (
        role("both", "former", d("2010", "year"), d("2012-06", "month")),
        role("open", "current", d("2011-03-02", "day"), None),
        role("start-only", "former", d("2013", "year"), None),
        role("end-only", "former", None, d("2014", "year")),
        role("undated", "current", None, None),
    )
    profile = dataclasses.replace(horace, roles=roles, timeline=(), works=())
    root = parse(str(timeline_svg(profile, LINK)))
    groups = {
        g.find(f"{SVG}a").get("href").rsplit("/", 1)[-1]: g.find(f"{SVG}a")
        for g in root.iter(f"{SVG}g")
        if g.get("class") == "role"
    }

    def shapes(name: str) -> list[str]:
        return [
            child.tag[len(SVG) :] + ("(dotted)" if child.get("stroke-dasharray") else "")
            for child in groups[name]
            if child.tag not in (SVG + "title", SVG + "text")
        ]

    assert shapes("both") == ["rect"]
    assert shapes("open") == ["rect", "path"]  # the arrow
    assert shapes("start-only") == ["rect", "line(dotted)"]
    assert shapes("end-only") == ["line(dotted)", "rect"]
    assert shapes("undated") == ["line(dotted)", "path"]
    both = groups["both"].find(f"{SVG}rect")
    # 2010 to the end of June 2012 on an axis of 2010 to 2015 (10 to 390): from x=10, 2.5 years wide.
    assert float(both.get("x")) == 10 and float(both.get("width")) == pytest.approx(2.5 / 5 * 380, abs=0.1)


def test_dates_at_their_own_precision() -> None:
    assert span(d("2019", "year")) == (2019, 2020)
    assert span(d("2019-07", "month")) == pytest.approx((2019.5, 2019 + 7 / 12))
    start, end = span(d("2019-01-01", "day"))
    assert start == end == 2019
    assert span(d("not a date", "day")) is None and span(d("2019-13", "month")) is None
    assert [tick_step(n) for n in (1, 8, 9, 16, 17, 40, 41, 300)] == [1, 1, 2, 2, 5, 5, 10, 50]


def test_works_no_event_marks_are_diamonds_linked_to_their_page_and_unsafe_links_are_not_links(horace) -> None:
    flex = next(w for w in horace.works if w.name == "FlexAttention")
    works = (
        dataclasses.replace(flex, date=d("2023-05", "month")),  # no event on that date: a diamond
        dataclasses.replace(flex, iri="javascript:alert(1)//", name="Hostile", date=d("2021", "year")),
        dataclasses.replace(flex, name="Undated", date=None),
    )
    timeline = (TimelineItem(d("2022-02-03", "day"), "An event", (2, 5)),)
    profile = dataclasses.replace(horace, roles=(), timeline=timeline, works=works)
    drawn = str(timeline_svg(profile, LINK))
    root = parse(drawn)
    marks = [g for g in root.iter(f"{SVG}g") if g.get("class") == "mark"]
    assert len(marks) == 3  # the event and two dated works; the undated work is not drawn
    hrefs = [a.get("href") for g in marks for a in g.iter(f"{SVG}a")]
    assert hrefs == ["#timeline-1", "/id/work/flexattention"]  # in time order; the 2021 work is no link
    assert "javascript" not in re.sub(r"<title>[^<]*</title>", "", drawn)
    assert [g.find(f".//{SVG}title").text for g in marks] == [
        "2021: Hostile (Published research)",
        "2022-02-03: An event (sources 2, 5)",
        "2023-05: FlexAttention (Published research)",
    ]
    assert marks[0].find(f"{SVG}a") is None and marks[2].find(f".//{SVG}path") is not None  # a diamond


def test_nothing_to_draw_is_no_drawing(horace) -> None:
    assert str(timeline_svg(dataclasses.replace(horace, roles=(), timeline=(), works=()), LINK)) == ""


def test_the_person_page_shows_the_timeline(horace) -> None:
    from kgprofiles.render import html as html_view

    page = html_view.profile(horace, standalone=False)
    figure = page.split('<figure class="chart">', 1)[1].split("</figure>", 1)[0]
    assert figure.startswith("<svg") and 'role="group" aria-label="Timeline of Horace He' in figure
    for n in range(1, len(horace.timeline) + 1):
        assert f'href="#timeline-{n}"' in figure and f'<li id="timeline-{n}">' in page


# ------------------------------------------------------------------ the people around a person


def network(profile, views: Views) -> str:
    from kgprofiles.infobox import person_facts
    from kgprofiles.render.html import person_network

    return str(person_network(profile, LINK, person_facts(views, profile)))


def test_the_network_shows_the_person_the_shared_things_and_the_related_people(horace, views: Views) -> None:
    root = parse(network(horace, views))
    people = [g.find(f"{SVG}a") for g in root.iter(f"{SVG}g") if g.get("class") == "person"]
    assert sorted(a.get("href") for a in people) == sorted(
        "/id/person/horace-he/related/" + r.iri.rsplit("/", 1)[-1] for r in horace.related
    )
    things = {
        g.find(f".//{SVG}title").text: g.find(f"{SVG}a") for g in root.iter(f"{SVG}g") if g.get("class") == "thing"
    }
    assert {name: a.get("href") for name, a in things.items()} == {
        "PyTorch (org)": "/id/organization/pytorch",
        "Inference and serving (topic)": "/id/topic/inference-and-serving",
        "ML frameworks and libraries (topic)": "/id/topic/ml-frameworks-and-libraries",
    }
    edges = [g.find(f"{SVG}title").text for g in root.iter(f"{SVG}g") if g.get("class") == "edge"]
    assert (
        "Horace He — works at — PyTorch" in edges
        and "Horace He and Greg Chanan both hold a current role at PyTorch" in edges
    )
    assert len(edges) == 3 + sum(c.count for r in horace.related for c in r.components)
    words = {t.text for t in root.iter(f"{SVG}text")}
    assert {"works at", "topic"} <= words  # the edges from the centre say their kind


def test_the_seed_persons_network_matches_its_golden_file(horace, views: Views) -> None:
    check_golden("horace-he-network.svg", network(horace, views) + "\n")


def test_nobody_related_is_no_network(horace, views: Views) -> None:
    assert network(dataclasses.replace(horace, related=()), views) == ""


# ------------------------------------------------------------------ why someone is related


def test_why_lists_every_piece_of_evidence_with_footnotes(views: Views) -> None:
    import pyoxigraph as ox

    from kgprofiles.evidence import why
    from kgprofiles.profiles import NotFound
    from seed_ids import PERSON

    found = why(views, ox.NamedNode(PERSON["horace-he"]), ox.NamedNode(PERSON["greg-chanan"]))
    assert (found.rank, found.related.score) == (1, 3.0)
    [part] = found.parts
    assert (part.heading, part.name, part.iri) == (
        "Both hold a current role at",
        "PyTorch",
        "https://w3id.org/kgprofiles/id/organization/pytorch",
    )
    assert [line.text.split(":")[0] for line in part.lines] == ["Horace He", "Greg Chanan"]
    assert part.lines[0].text.startswith("Horace He: Core maintainer")
    # Renumbered for this page: 1..n in order of first citation, every note in the list.
    assert [s.number for s in found.sources] == [1, 2] and [line.notes for line in part.lines] == [(1,), (2,)]
    assert found.sources[0].title == "PyTorch governance page"
    topics = why(views, ox.NamedNode(PERSON["horace-he"]), ox.NamedNode(PERSON["chris-lattner"]))
    assert [p.kind for p in topics.parts] == ["topic", "topic"] and all(p.iri for p in topics.parts)
    beyond = why(views, ox.NamedNode(PERSON["horace-he"]), ox.NamedNode(PERSON["chris-lattner"]), first=2)
    assert beyond.rank == topics.rank == 6 and beyond.parts == topics.parts  # found by ranking everyone
    with pytest.raises(NotFound):
        why(views, ox.NamedNode(PERSON["horace-he"]), ox.NamedNode(PERSON["horace-he"]))


def test_an_events_subject_is_the_organisation_of_that_name_in_the_network(horace, views: Views) -> None:
    from kgprofiles.related import Component

    first = horace.related[0]  # also at PyTorch
    with_event = dataclasses.replace(
        first,
        components=(*first.components, Component("event", 1, 0.5, ("PyTorch",)), Component("event", 1, 0.5, ("Lab",))),
    )
    root = parse(network(dataclasses.replace(horace, related=(with_event,)), views))
    things = sorted(g.find(f".//{SVG}title").text for g in root.iter(f"{SVG}g") if g.get("class") == "thing")
    assert things == ["Lab (event)", "PyTorch (org)"]  # one PyTorch, reached by the role and by the event
    edges = [g.find(f"{SVG}title").text for g in root.iter(f"{SVG}g") if g.get("class") == "edge"]
    assert f"Horace He and {first.name} both have events about PyTorch" in edges


def test_names_with_markup_stay_text_in_both_pictures(horace, views: Views) -> None:
    hostile = "<script>alert('x')</script> & \"Co\""
    first = horace.related[0]
    profile = dataclasses.replace(
        horace,
        name=hostile,
        related=(dataclasses.replace(first, name=hostile),),
        timeline=(TimelineItem(d("2020-01-02", "day"), hostile, ()),),
        roles=(dataclasses.replace(horace.roles[0], organization_name=hostile, title=hostile),),
    )
    for drawn in (str(timeline_svg(profile, LINK)), network(profile, views)):
        root = parse(drawn)  # well-formed: nothing broke out of its text or attribute
        assert "<script>" not in drawn and root.find(f"{SVG}script") is None
        assert any(hostile in (t.text or "") for t in root.iter(f"{SVG}title"))
        assert hostile in root.get("aria-label") or any(hostile in (t.text or "") for t in root.iter(f"{SVG}text"))


def test_the_network_is_the_same_in_every_process(horace, tmp_path: Path) -> None:
    """A set's order changes from one process to the next (PYTHONHASHSEED); the drawing must not:
    a thing reached by two kinds of link of one rank ("was at", "same time") names the person's
    own tie on its edge, in every process (a static site's pages come from several)."""
    from kgprofiles.related import Component

    first, second = horace.related[:2]
    profile = dataclasses.replace(
        horace,
        related=(
            dataclasses.replace(first, components=(Component("overlap_org", 1, 1.0, ("Lab",)),)),
            dataclasses.replace(second, components=(Component("other_org", 1, 1.0, ("Lab",)),)),
        ),
    )
    pickled = tmp_path / "profile.pickle"
    pickled.write_bytes(pickle.dumps(profile))
    script = (
        "import pickle, sys\n"
        "from kgprofiles.render.network_svg import network_svg\n"
        "profile = pickle.loads(open(sys.argv[1], 'rb').read())\n"
        "print(network_svg(profile, lambda iri: None, lambda iri: None))\n"
    )
    drawings = {
        subprocess.run(
            [sys.executable, "-c", script, str(pickled)],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in range(6)
    }
    assert len(drawings) == 1
    assert "Horace He — was at — Lab" in drawings.pop()


@settings(max_examples=examples(200))
@given(text=st.text())
@example(text="&amp; <b> \"a\" 'b' &#34;")  # every character escaped, and an escape escaped again
@example(text="")
def test_picture_text_is_escaped_as_markupsafe_escapes_it(text: str) -> None:
    # svg.esc writes every label and attribute of the pictures: the bytes markupsafe (the pages')
    # would write, so that a picture's markup is the pages' and its golden files stay the same.
    assert esc(text) == str(escape(text))
