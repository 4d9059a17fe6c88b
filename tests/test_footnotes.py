"""Footnotes without bookkeeping: a profile with no hand-numbered source list numbers its sources
in order of first citation on the page; a hand-numbered list, when there is one, wins."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgprofiles.config import Settings
from kgprofiles.pipeline import build
from kgprofiles.profiles import Views, page_order_notes
from kgprofiles.render import text
from kgprofiles.store.oxigraph import OxigraphStore

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "footnotes"
GOLDEN = ROOT / "tests" / "golden" / "example-curator.txt"


@pytest.fixture(scope="module")
def curator_views(settings: Settings) -> Views:
    store = OxigraphStore("memory:")
    build(settings.with_overrides(data_dir=FIXTURE), store=store)
    return Views(store, settings.queries_dir)


def test_sources_are_numbered_in_order_of_first_citation(curator_views: Views) -> None:
    profile = curator_views.profile(curator_views.resolve_person("example-curator"))
    assert [(s.number, s.title) for s in profile.sources] == [
        (1, "Example source C"),  # the first event (2017)
        (2, "Example source A"),  # the second event (2019)
        (3, "Example source B"),  # the role, which cites B and A
    ]
    assert list(page_order_notes(profile)) == [(1,), (2,), (2, 3)]


def test_the_page_shows_every_sourced_claim_with_its_footnote(curator_views: Views) -> None:
    shown = text.profile(curator_views.profile(curator_views.resolve_person("example-curator")))
    assert shown == GOLDEN.read_text(encoding="utf-8")


def test_a_hand_numbered_list_wins(views: Views) -> None:
    """The seed person's own numbering (its kgp:Profile citation list) is kept as written."""
    profile = views.profile(views.resolve_person("horace-he"))
    assert [s.number for s in profile.sources] == list(range(1, 12))
    assert profile.sources[0].title == "PyTorch governance page"  # footnote 1 of the seed page, not first by IRI


def test_footnote_marks_and_links_are_escaped_markup() -> None:
    """A claim's footnote marks link to its numbered sources; whatever the marks or a link's text
    hold is escaped (the pages call these for every claim and every link of a list)."""
    from kgprofiles.render.html import anchor, notes

    assert notes((1, 12)) == (
        '<sup class="notes"><a href="#source-1" aria-label="source 1">1</a>,'
        '<a href="#source-12" aria-label="source 12">12</a></sup>'
    )
    assert notes(()) == notes(None) == ""
    assert "<b>" not in notes(["<b>"]) and "&lt;b&gt;" in notes(["<b>"])
    assert anchor("/id/x?a=1&b=2", "<i>Title</i>", "nofollow") == (
        '<a href="/id/x?a=1&amp;b=2" rel="nofollow">&lt;i&gt;Title&lt;/i&gt;</a>'
    )
    assert anchor(None, "<i>Title</i>") == "&lt;i&gt;Title&lt;/i&gt;"
