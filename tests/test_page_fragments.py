"""The lists a person page writes in Python rather than in its template (``render.html``), as
pages show them: exact markup, every text escaped, links only where the graph has a page."""

from __future__ import annotations

from dataclasses import replace

from kgprofiles.infobox import PersonFacts
from kgprofiles.profiles import DateValue, Profile, TimelineItem
from kgprofiles.related import Related
from kgprofiles.render import html

PERSON = "https://w3id.org/kgprofiles/id/person/"
ANN = Profile(PERSON + "ann", "ann", "Ann <A>", None, None, (), (), (), (), (), (), (), (), ())
LINK = html.local_link("../../..")


def test_related_people_link_to_their_pages_and_why_pages() -> None:
    bo = Related(PERSON + "bo", "Bo & Co", 3.0, 'shared works: "X"', ())
    elsewhere = Related("https://example.org/cy", "Cy", 1.0, "a topic", ())  # (not this graph's: no "Why?" page)
    written = html.related_list(replace(ANN, related=(bo, elsewhere)), LINK)
    assert written == (
        '<ul class="plain related"><li><a href="../../../id/person/bo">Bo &amp; Co</a>'
        '<span class="reason">shared works: &#34;X&#34;</span> <a class="why" href="../../../id/person/ann/related/bo"'
        ' aria-label="Why is Bo &amp; Co related to Ann &lt;A&gt;?">Why?</a></li>\n'
        '<li><a href="https://example.org/cy">Cy</a><span class="reason">a topic</span></li>\n</ul>'
    )


def test_timeline_entries_are_numbered_with_their_notes_and_records() -> None:
    day = TimelineItem(DateValue("2021-05-03", "day", "3 May 2021"), "Joined <b>X</b>", (2, 1))
    year = TimelineItem(DateValue("2019", "year", "2019"), "Wrote Y", ())
    ann = replace(ANN, timeline=(day, year))
    events = ("https://w3id.org/kgprofiles/id/claim/ann-joined", "javascript:alert(1)")
    written = html.timeline_list(ann, PersonFacts(ann, (), (), events), LINK)
    assert written == (
        '<ol class="timeline">\n<li id="timeline-1"><time datetime="2021-05-03">3 May 2021</time>'
        'Joined &lt;b&gt;X&lt;/b&gt;<sup class="notes"><a href="#source-2" aria-label="source 2">2</a>,'
        '<a href="#source-1" aria-label="source 1">1</a></sup>'
        ' <a class="record" href="../../../id/claim/ann-joined" aria-label="entry 1: its record">record</a></li>\n'
        '<li id="timeline-2"><time datetime="2019">2019</time>Wrote Y</li>\n</ol>'
    )
    assert "record" not in html.timeline_list(ann, None, LINK)  # (no facts: no records to link)
