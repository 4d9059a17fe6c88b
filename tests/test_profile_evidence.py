"""A profile's source list and its undated roles, on a synthetic person (tests/fixtures/evidence-order):
a source with two addresses is one entry with both; roles without a start come newest evidence first."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kgprofiles.config import Settings
from kgprofiles.pipeline import build
from kgprofiles.profiles import Profile, Views
from kgprofiles.render import html, markdown, text
from kgprofiles.store.oxigraph import OxigraphStore

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "evidence-order"


@pytest.fixture(scope="module")
def reader_views(settings: Settings) -> Views:
    store = OxigraphStore("memory:")
    build(settings.with_overrides(data_dir=FIXTURE), store=store)
    return Views(store, settings.queries_dir)


@pytest.fixture(scope="module")
def reader(reader_views: Views) -> Profile:
    return reader_views.profile(reader_views.resolve_person("example-reader"))


def test_a_source_with_two_addresses_is_one_entry_with_both(reader: Profile) -> None:
    assert [s.number for s in reader.sources] == [1, 2, 3]
    first = reader.sources[0]
    assert first.urls == ("https://example.org/page", "https://mirror.example.org/page")
    assert first.url == "https://example.org/page"


def test_every_view_lists_the_source_once_with_both_addresses(reader: Profile) -> None:
    shown = text.profile(reader)
    assert shown.count("\n1. A page with two addresses") == 1
    assert "https://example.org/page; https://mirror.example.org/page" in shown
    md = markdown.profile(reader)
    assert md.count('<a id="source-1"></a>') == 1
    assert "[A page with two addresses](https://example.org/page) · [https://mirror.example.org/page]" in md
    page = html.profile(reader)
    ids = re.findall(r'id="(source-\d+)"', page)
    assert ids == ["source-1", "source-2", "source-3"]  # no id twice
    assert 'href="https://mirror.example.org/page"' in page


def test_the_source_page_shows_every_address(reader_views: Views) -> None:
    view = reader_views.source("https://w3id.org/kgprofiles/id/source/example-two-addresses")
    assert view.urls == ("https://example.org/page", "https://mirror.example.org/page")


def test_undated_roles_come_newest_evidence_first(reader: Profile) -> None:
    # Zeta's source supports a May 2021 event; Alpha's was retrieved in 2012. By name, Alpha would lead.
    assert [r.organization_name for r in reader.roles_with("not confirmed")] == ["Zeta Org", "Alpha Org"]
