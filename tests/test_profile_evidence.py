"""A profile's source list and its undated roles, on a synthetic person (tests/fixtures/evidence-order):
a source with two addresses is one entry with both; roles without a start come newest evidence first.
And the source list as every page writes it (profile and "Why?" pages alike)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from kgprofiles.config import Settings
from kgprofiles.evidence import Line, Part, _Numbering
from kgprofiles.pipeline import build
from kgprofiles.profiles import Profile, SourceItem, Views
from kgprofiles.related import Component
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


def test_a_source_list_is_written_the_same_on_every_page() -> None:
    # html.source_list writes the numbered sources of profile and "Why?" pages: escaped, a link
    # only to an http(s) address (a javascript: one shown as code), every address, site, kind and
    # retrieval date, and the record's page on this site.
    two = SourceItem(1, "https://w3id.org/kgprofiles/id/source/a", "A <b>page</b>", "Example", "https://example.org/p",
                     "web page", "2024-05-01", ("https://example.org/p", "https://mirror.example.org/p"))  # fmt: skip
    bad = SourceItem(2, "https://w3id.org/kgprofiles/id/source/b", "Bad", None, "javascript:alert(1)", None, None,
                     ("javascript:alert(1)",))  # fmt: skip
    written = html.source_list((two, bad), html.local_link(""))
    assert written == (
        '<ol class="sources"><li id="source-1" value="1"><a href="https://example.org/p" rel="nofollow">'
        "A &lt;b&gt;page&lt;/b&gt;</a> · "
        '<a href="https://mirror.example.org/p" rel="nofollow">https://mirror.example.org/p</a>'
        ' <span class="muted">(Example; web page, retrieved 2024-05-01)</span>'
        ' <a class="record" href="/id/source/a" aria-label="source 1: its record">record</a></li>\n'
        '<li id="source-2" value="2">Bad <code class="url">javascript:alert(1)</code>'
        ' <a class="record" href="/id/source/b" aria-label="source 2: its record">record</a></li>\n</ol>'
    )


def test_a_why_page_numbers_the_same_source_entries(reader: Profile) -> None:
    # The "Why?" page renumbers the two profiles' sources in order of citation, each entry whole:
    # the source with two addresses keeps both (the list is the profile's, html.source_list).
    numbering = _Numbering(reader, reader)
    assert numbering.notes(1, (3, 1)) == (1, 2) and numbering.notes(0, (1,)) == (2,)
    first, second = numbering.sources()
    assert (first.number, second.number) == (1, 2)
    assert second == replace(reader.sources[0], number=2)
    assert second.urls == ("https://example.org/page", "https://mirror.example.org/page")


def test_a_why_page_writes_its_evidence_escaped_with_footnotes() -> None:
    # html.evidence_sections writes a "Why?" page's sections: the shared thing linked where it has
    # a page on this site (an address elsewhere is not a page here), every text escaped, each
    # line's footnote marks; html.score_terms the score's sum in words.
    shared = Part("work", "Both contributed to", "A <i>work</i>", "https://w3id.org/kgprofiles/id/work/w", 2.5,
                  (Line("Ann (author): <script>x</script>", (1, 3)), Line("Bo (editor)", ())))  # fmt: skip
    elsewhere = Part("topic", "Both work on", "Graphs", "javascript:alert(1)", 1, ())
    assert html.evidence_sections((shared, elsewhere), html.local_link("..")) == (
        '<section class="evidence">\n<h2>Both contributed to <a href="../id/work/w">A &lt;i&gt;work&lt;/i&gt;</a>'
        ' <span class="count">2.5 points</span></h2>\n<ul><li>Ann (author): &lt;script&gt;x&lt;/script&gt;'
        '<sup class="notes"><a href="#source-1" aria-label="source 1">1</a>,'
        '<a href="#source-3" aria-label="source 3">3</a></sup></li>\n<li>Bo (editor)</li>\n</ul>\n</section>\n'
        '<section class="evidence">\n<h2>Both work on Graphs <span class="count">1 point</span></h2>\n'
        "<ul></ul>\n</section>\n"
    )
    terms = (Component("work", 2, 3.0, ("A",)), Component("topic", 1, 0.5, ("B",)))
    assert html.score_terms(terms) == "shared works 2 × 3 + shared topics 1 × 0.5"
