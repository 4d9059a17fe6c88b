"""Summary boxes: the person's (name, headline, where they work now, topics, Wikidata and other
identifiers), the organisation's and the topic's, over the seed graph and over hostile addresses."""

from __future__ import annotations

import dataclasses
import re

import pytest

from kgprofiles.infobox import PERSON_ROWS, InfoBox, Item, organization_box, person_box, person_facts, topic_box
from kgprofiles.profiles import Views
from kgprofiles.render import html as html_view
from kgprofiles.render import markdown


@pytest.fixture(scope="module")
def facts(views: Views):
    return person_facts(views, views.profile(views.resolve_person("horace-he")))


def rows(box: InfoBox) -> dict[str, tuple[Item, ...]]:
    return {row.label: row.items for row in box.rows}


def test_the_seed_persons_box(facts) -> None:
    box = rows(person_box(facts))
    assert list(box) == ["Known for", "Works at", "Topics", "Sources"]  # no Wikidata link, no identifier
    assert box["Known for"] == (Item("PyTorch and compilers"),)
    assert box["Works at"] == (Item("PyTorch", "https://w3id.org/kgprofiles/id/organization/pytorch"),)
    assert [i.iri for i in box["Topics"]] == [
        "https://w3id.org/kgprofiles/id/topic/inference-and-serving",
        "https://w3id.org/kgprofiles/id/topic/ml-frameworks-and-libraries",
    ]


def test_wikidata_and_identifiers_rows(facts) -> None:
    linked = dataclasses.replace(
        facts,
        profile=dataclasses.replace(facts.profile, wikidata="http://www.wikidata.org/entity/Q42"),
        same_as=(
            "http://www.wikidata.org/entity/Q42",
            "https://orcid.org/0000-0002-1825-0097",
            "https://example.org/x",
        ),
    )
    box = rows(person_box(linked))
    assert box["Wikidata"] == (Item("Q42", "http://www.wikidata.org/entity/Q42"),)  # once
    assert box["Identifiers"] == (
        Item("ORCID 0000-0002-1825-0097", "https://orcid.org/0000-0002-1825-0097"),
        Item("https://example.org/x", "https://example.org/x"),
    )


def test_a_javascript_address_in_the_box_is_never_a_link(facts) -> None:
    hostile = dataclasses.replace(
        facts,
        profile=dataclasses.replace(facts.profile, wikidata="javascript:alert(1)//"),
        same_as=(" JaVaScRiPt:alert(document.domain)//", "data:text/html,<script>x</script>"),
    )
    box = person_box(hostile)
    page = html_view.profile(hostile.profile, standalone=False, facts=hostile)
    aside = page.split('<aside class="infobox"', 1)[1].split("</aside>", 1)[0]
    assert "JaVaScRiPt:alert(document.domain)//" in aside and "data:text/html,&lt;script&gt;" in aside
    assert re.findall(r'href="([^"]*)"', aside) == [
        "/id/organization/pytorch",
        "/id/topic/inference-and-serving",
        "/id/topic/ml-frameworks-and-libraries",
    ]
    text = markdown.profile(hostile.profile, box=box)
    assert "](javascript" not in text.lower() and "](<javascript" not in text.lower() and "](data" not in text


def test_the_markdown_box_links_topics_and_workplaces(facts) -> None:
    text = markdown.profile(facts.profile, box=person_box(facts))
    assert "- **Works at:** [PyTorch](https://w3id.org/kgprofiles/id/organization/pytorch)\n" in text
    assert text.index("- **Topics:**") < text.index("## Research and writing")


def test_a_new_row_is_one_line() -> None:
    labels = [label for label, _ in PERSON_ROWS]
    assert labels == [
        "Known for", "Born", "Died", "Works at", "Education", "Awards", "Topics", "Wikidata", "Identifiers", "Sources"
    ]


def test_organization_and_topic_boxes(views: Views) -> None:
    pytorch = rows(organization_box(views.organization("pytorch")))
    assert pytorch["People in the graph"] == (Item("6 people"),)
    assert pytorch["Current roles"] == (Item("6 people"),)
    assert "Former roles" not in pytorch and "Wikidata" not in pytorch
    meta = rows(organization_box(views.organization("meta")))
    assert "Not confirmed as current" in meta
    topic = views.topic("inference-and-serving")
    box = rows(topic_box(dataclasses.replace(topic, wikidata="http://www.wikidata.org/entity/Q1")))
    assert box["People in the graph"] == (Item(f"{topic.people} people"),)
    assert box["Wikidata"] == (Item("Q1", "http://www.wikidata.org/entity/Q1"),)
    assert box["Where they work now"][0].text.startswith("PyTorch (")
