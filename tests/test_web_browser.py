"""In a real browser: Debian's Chromium, headless, driven by Playwright, against a real server.
Every page of every test runs under the site's Content-Security-Policy and must report no
violation of it. Screenshots are kept in test-artifacts/web/ (git-ignored)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from kgprofiles.config import Settings
from kgprofiles.render.links import external_href
from kgprofiles.web import create_app
from kgprofiles.web.editor import find_editor
from kgprofiles.web.headers import CONTENT_SECURITY_POLICY
from web.browser import browser, screenshot_path
from web.server import serving

TIMEOUT_MS = 20_000


@pytest.fixture(scope="module")
def base_url(settings: Settings, seed_store) -> Iterator[str]:
    if find_editor(settings.root) is None:
        pytest.fail("YASGUI is not installed: run tools/install-test-deps.sh (npm ci)")
    with serving(create_app(settings, seed_store)) as url:
        yield url


@pytest.fixture(scope="module")
def context(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserContext]:
    with browser(tmp_path_factory.mktemp("chromium-profile")) as ctx:
        ctx.set_default_timeout(TIMEOUT_MS)
        yield ctx


#: Runs before any script of each page: every Content-Security-Policy violation goes to the test.
REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (e) => window.kgprofilesViolation({
  directive: e.violatedDirective, blocked: e.blockedURI, source: e.sourceFile, line: e.lineNumber, sample: e.sample
}));
"""


@pytest.fixture
def violations() -> list[dict[str, Any]]:
    """The Content-Security-Policy violations the page reported (events, and console messages)."""
    return []


@pytest.fixture
def page(context: BrowserContext, base_url: str, violations: list[dict[str, Any]]) -> Iterator[Page]:
    """A page that records every request it makes (none may leave this server) and every
    violation of the site's Content-Security-Policy (there must be none)."""
    tab = context.new_page()
    requested: list[str] = []
    tab.on("request", lambda request: requested.append(request.url))
    tab.expose_function("kgprofilesViolation", lambda violation: violations.append(violation))
    tab.add_init_script(REPORT_VIOLATIONS)
    tab.on("console", lambda m: violations.append({"console": m.text}) if "Content Security Policy" in m.text else None)
    yield tab
    tab.close()
    elsewhere = [url for url in requested if not url.startswith(base_url) and not url.startswith("data:")]
    assert elsewhere == [], f"the page fetched from elsewhere: {elsewhere}"
    assert violations == [], f"the page broke its Content-Security-Policy: {violations}"


def test_person_page_footnote_leads_to_its_source(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/id/person/horace-he")
    expect(page.locator("h1")).to_have_text("Horace He")
    page.screenshot(path=screenshot_path("person.png"), full_page=True)
    footnote = page.locator("sup.notes a").first
    number = footnote.inner_text()
    footnote.click()
    assert page.url.endswith(f"#source-{number}")
    entry = page.locator(f"li#source-{number}")
    expect(entry).to_be_in_viewport()
    title = entry.inner_text().split(" (")[0].strip()
    page.screenshot(path=screenshot_path("person-footnote.png"))
    entry.locator("a.record").click()
    page.wait_for_url(f"{base_url}/id/source/**")
    expect(page.locator("h1")).to_have_text(title)
    expect(page.locator(".citations a", has_text="Horace He")).to_be_visible()
    page.screenshot(path=screenshot_path("source.png"), full_page=True)


def test_person_page_related_person_is_a_link(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/id/person/horace-he")
    related = page.locator("ul.related a").first
    name = related.inner_text()
    related.click()
    page.wait_for_url(f"{base_url}/id/person/**")
    assert not page.url.endswith("/horace-he")
    expect(page.locator("h1")).to_have_text(name)
    page.screenshot(path=screenshot_path("related-person.png"), full_page=True)


def test_query_editor_runs_a_query_and_shows_the_table(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/sparql")
    expect(page.locator(".yasqe .CodeMirror")).to_be_visible()
    page.evaluate(
        "window.kgprofilesEditor.getTab().getYasqe().setValue("
        "'SELECT ?person ?name WHERE { ?person a kgp:Person ; kgp:name ?name } ORDER BY ?name')"
    )
    page.locator(".yasqe_queryButton").click()
    table = page.locator(".yasr table tbody")
    expect(table).to_contain_text("Horace He")
    expect(table.locator("tr")).to_have_count(11)
    page.screenshot(path=screenshot_path("sparql-editor.png"))


def test_query_editor_opens_an_example(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/sparql")
    expect(page.locator(".yasqe .CodeMirror")).to_be_visible()
    page.locator("#example-org-members .open-example").click()
    expect(page.locator(".tabPanel.active .yasqe")).to_contain_text("VALUES (?org)")
    page.locator(".tabPanel.active .yasqe_queryButton").click()
    expect(page.locator(".tabPanel.active .yasr table tbody tr").first).to_be_visible()
    page.screenshot(path=screenshot_path("sparql-example.png"))


def test_home_and_search(page: Page, base_url: str) -> None:
    page.goto(base_url + "/")
    page.screenshot(path=screenshot_path("home.png"), full_page=True)
    page.locator("form.search-large input[name=q]").fill("pytorch")
    page.locator("form.search-large button").click()
    page.wait_for_url("**/search?q=pytorch")
    page.locator(".results a", has_text="PyTorch").first.click()
    expect(page.locator("h1")).to_have_text("PyTorch")
    assert Path(screenshot_path("home.png")).stat().st_size > 10_000


def test_the_editor_works_under_the_content_security_policy(page: Page, base_url: str, violations: list) -> None:
    """A query, its results table, a column dragged wider, the tooltip of a syntax error: YASGUI
    does all of it under the policy (no inline script, no eval, its few inline styles by hash)."""
    response = page.goto(f"{base_url}/sparql")
    assert response is not None and response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    expect(page.locator(".yasqe .CodeMirror")).to_be_visible()
    page.evaluate(
        "window.kgprofilesEditor.getTab().getYasqe().setValue("
        "'SELECT ?person ?name WHERE { ?person a kgp:Person ; kgp:name ?name } ORDER BY ?name')"
    )
    page.locator(".yasqe_queryButton").click()
    table = page.locator(".yasr table tbody")
    expect(table).to_contain_text("Horace He")
    grip = page.locator(".grip-handle .grip-resizable").first.bounding_box()
    assert grip is not None
    page.mouse.move(grip["x"] + 3, grip["y"] + 3)
    page.mouse.down()
    page.mouse.move(grip["x"] + 60, grip["y"] + 3, steps=5)
    page.mouse.up()
    page.evaluate("window.kgprofilesEditor.getTab().getYasqe().setValue('SELECT ?x WHERE { ?x ?y }')")
    page.locator(".parseErrorIcon").first.hover()
    expect(page.get_by_text("This line is invalid. Expected:")).to_be_visible()
    page.screenshot(path=screenshot_path("sparql-editor-csp.png"))
    assert violations == []


def test_the_editors_results_table_links_only_safe_iris(page: Page, base_url: str) -> None:
    """YASR's table would link a javascript: IRI and let a quote in an IRI add attributes; the
    editor's script gives it the rule of the site's pages (only http, https, mailto; escaped)."""
    page.goto(f"{base_url}/sparql")
    expect(page.locator(".yasqe .CodeMirror")).to_be_visible()
    query = (
        "SELECT ?iri WHERE { VALUES ?iri { <javascript:alert(document.domain)//> <JaVaScRiPt:alert(1)>"
        " <data:text/html;base64,PHNjcmlwdD4=> <https://example.org/'onmouseover='alert(document.domain)'>"
        " person:horace-he } }"
    )
    page.evaluate("(query) => window.kgprofilesEditor.getTab().getYasqe().setValue(query)", query)
    page.locator(".yasqe_queryButton").click()
    table = page.locator(".yasr table tbody")
    expect(table.locator("tr")).to_have_count(5)
    expect(table).to_contain_text("javascript:alert(document.domain)//")
    expect(table).to_contain_text("data:text/html;base64,PHNjcmlwdD4=")
    links = table.locator("a").evaluate_all("(links) => links.map((a) => [a.protocol, a.textContent])")
    assert sorted(links) == [
        ["http:", "person:horace-he"],  # the graph's own IRI: its page on this site
        ["https:", "https://example.org/'onmouseover='alert(document.domain)'"],
    ]
    assert table.locator("[onmouseover]").count() == 0


def test_the_policy_stops_a_script_injected_into_a_page(page: Page, base_url: str, violations: list) -> None:
    """What an attacker's markup would try, had it got into a page: an inline script, an inline
    event handler, an inline style. None runs, and each is reported."""
    page.goto(f"{base_url}/id/person/horace-he")
    ran = page.evaluate(
        """() => new Promise((done) => {
          const script = document.createElement("script");
          script.textContent = "window.injected = true";
          document.body.appendChild(script);
          document.body.insertAdjacentHTML("beforeend", '<img src="data:," onerror="window.injected = true">');
          document.body.insertAdjacentHTML("beforeend", '<p style="color: red">styled</p>');
          setTimeout(() => done(window.injected === true), 300);
        })"""
    )
    assert ran is False
    page.wait_for_timeout(100)  # the last reports arrive after the page's own events
    directives = {v["directive"] for v in violations if "directive" in v}
    assert {"script-src-elem", "script-src-attr", "style-src-attr"} <= directives
    violations.clear()


#: Text a browser may turn into a scheme: the scheme's letters in any case, with what browsers
#: strip (spaces and C0 controls at the ends, tabs and line breaks anywhere) and what they do not
#: (other controls, Unicode spaces), entities and percent-escapes.
NOISE = [" ", "\t", "\n", "\r", "\x00", "\x01", "\x0b", "\x0c", "\x1f", "\x7f", "\u00a0", "\u2028", "\ufeff"]
SCHEMES = ["javascript", "JaVaScRiPt", "data", "vbscript", "file", "https", "HTTP", "mailto"]


def crafted_addresses() -> list[str]:
    found = ["&#106;avascript:alert(1)", "%6Aavascript:alert(1)", "javascript&colon;alert(1)", "https:", "//x.example/"]
    for scheme, noise in itertools.product(SCHEMES, NOISE):
        text = f"{scheme}:alert(1)" if scheme not in ("https", "HTTP", "mailto") else f"{scheme}://example.org/"
        for where in (0, 1, 4, len(scheme), len(scheme) + 1, len(text)):
            found.append(text[:where] + noise + text[where:])
    return found


def read_as_browser(page: Page, addresses: list[str]) -> list[tuple[str, str | None]]:
    """How Chromium reads each address: (the scheme of an <a href> to it, ":" when it is no URL;
    its scheme as an absolute URL, None when it is not one)."""
    found = page.evaluate(
        """(addresses) => addresses.map((text) => {
          const a = document.createElement("a");
          a.setAttribute("href", text);
          let absolute = null;
          try { absolute = new URL(text).protocol; } catch (e) {}
          return [a.protocol, absolute];
        })""",
        addresses,
    )
    return [(as_link, absolute) for as_link, absolute in found]


def test_links_are_decided_as_the_browser_reads_them(page: Page, base_url: str) -> None:
    """``external_href`` against Chromium's own URL parser: what it lets be a link, the browser
    reads as http, https or mailto (or as no URL at all: a link to nowhere), and reads the same
    from the cleaned address; every absolute address the browser reads as http, https or mailto,
    it lets be a link."""
    page.goto(f"{base_url}/downloads")
    addresses = crafted_addresses()
    hrefs = [external_href(text) for text in addresses]
    read = read_as_browser(page, addresses)
    read_cleaned = read_as_browser(page, [href or "" for href in hrefs])
    safe_or_nowhere = {"http:", "https:", "mailto:", ":"}
    for text, href, (as_link, absolute), (cleaned_as_link, _) in zip(addresses, hrefs, read, read_cleaned, strict=True):
        if href is not None:
            assert as_link in safe_or_nowhere and cleaned_as_link == as_link, (text, as_link, cleaned_as_link)
        if absolute in {"http:", "https:", "mailto:"}:
            assert href is not None, text
    dangerous = [text for text, (as_link, _) in zip(addresses, read, strict=True) if as_link not in safe_or_nowhere]
    assert len(dangerous) > 100  # the crafted addresses do reach schemes a browser would run


# ------------------------------------------------------------------------------ the person page's pictures


def test_person_page_has_a_summary_box_a_timeline_and_a_network(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/id/person/horace-he")
    expect(page.locator("aside.infobox")).to_contain_text("PyTorch")
    timeline = page.locator("svg.timeline-chart")
    expect(timeline).to_be_visible()
    page.locator("svg.timeline-chart a[href='#timeline-3']").click()
    assert page.url.endswith("#timeline-3")
    expect(page.locator("li#timeline-3")).to_be_in_viewport()
    network = page.locator("svg.network-chart")
    network.scroll_into_view_if_needed()
    network.screenshot(path=screenshot_path("person-network.png"))
    timeline.screenshot(path=screenshot_path("person-timeline.png"))
    page.locator("svg.network-chart g.person a[href$='/related/greg-chanan']").click()
    page.wait_for_url(f"{base_url}/id/person/horace-he/related/**")
    expect(page.locator("h1")).to_contain_text("Why ")
    page.locator("section.evidence sup.notes a").first.click()
    expect(page.locator("ol.sources li:target")).to_be_in_viewport()
    page.screenshot(path=screenshot_path("why.png"), full_page=True)


def test_the_person_page_at_375_px_wide(context: BrowserContext, base_url: str) -> None:
    """A phone's width: nothing wider than the screen, the box, the timeline and the network in view
    one after the other (screenshot kept: test-artifacts/web/person-375.png)."""
    tab = context.new_page()
    try:
        tab.set_viewport_size({"width": 375, "height": 812})
        tab.goto(f"{base_url}/id/person/horace-he")
        assert tab.evaluate("document.documentElement.scrollWidth") <= 375
        for selector in ("aside.infobox", "svg.timeline-chart", "svg.network-chart"):
            box = tab.locator(selector).bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375, selector
        tab.screenshot(path=screenshot_path("person-375.png"), full_page=True)
        assert placeholder_room(tab) >= 0
    finally:
        tab.close()


def placeholder_room(page: Page) -> float:
    """Room left in the header's search box after its placeholder (negative: it is cut off)."""
    return page.evaluate(
        """() => {
          const input = document.querySelector("header.site input[type=search]");
          const style = getComputedStyle(input);
          const canvas = document.createElement("canvas").getContext("2d");
          canvas.font = style.font;
          const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
          return room - canvas.measureText(input.placeholder).width;
        }"""
    )


def test_the_header_search_box_shows_its_whole_placeholder(page: Page, base_url: str) -> None:
    page.goto(base_url + "/")
    assert placeholder_room(page) >= 0


# ------------------------------------------------------------------------------ the query editor


def test_the_first_comment_line_is_not_under_the_editors_buttons(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/sparql")
    expect(page.locator(".yasqe .CodeMirror")).to_be_visible()
    first = page.locator(".yasqe .CodeMirror-code pre").first
    expect(first).to_contain_text("# summary:")
    overlaps = page.evaluate(
        """() => {
          const line = document.querySelector(".yasqe .CodeMirror-code pre");
          const range = document.createRange();
          range.selectNodeContents(line);
          const buttons = document.querySelector(".yasqe .yasqe_buttons").getBoundingClientRect();
          return [...range.getClientRects()].some((r) => r.width > 0 && r.right > buttons.left
            && r.left < buttons.right && r.bottom > buttons.top && r.top < buttons.bottom);
        }"""
    )
    assert overlaps is False
    page.screenshot(path=screenshot_path("sparql-first-line.png"))


def test_the_editors_links_to_the_graphs_own_iris_stay_on_this_site(page: Page, base_url: str) -> None:
    page.goto(f"{base_url}/sparql")
    expect(page.locator(".yasqe .CodeMirror")).to_be_visible()
    page.evaluate(
        "window.kgprofilesEditor.getTab().getYasqe().setValue('SELECT ?p WHERE { VALUES ?p { person:horace-he } }')"
    )
    page.locator(".yasqe_queryButton").click()
    link = page.locator(".yasr table tbody a", has_text="person:horace-he")
    expect(link).to_have_attribute("href", f"{base_url}/id/person/horace-he")
    assert link.get_attribute("target") is None
    link.click()
    page.wait_for_url(f"{base_url}/id/person/horace-he")
    expect(page.locator("h1")).to_have_text("Horace He")


# ------------------------------------------------------------------------------ accessibility (axe-core)

AXE = Path(__file__).resolve().parents[1] / "node_modules" / "axe-core" / "axe.min.js"


def serious_findings(page: Page) -> list[tuple[str, str, str, list[Any]]]:
    """axe-core's serious and critical findings on the page. axe is read from node_modules (npm
    ci, package-lock.json) and evaluated through the DevTools protocol: it is no script of the page,
    fetches nothing, and the page's Content-Security-Policy stays as it is."""
    if not AXE.is_file():
        pytest.fail("axe-core is not installed: run tools/install-test-deps.sh (npm ci)")
    page.evaluate(AXE.read_text(encoding="utf-8"))
    found = page.evaluate("() => axe.run(document, { resultTypes: ['violations'] })")
    return [
        (v["id"], v["impact"], v["help"], [n["target"] for n in v["nodes"]][:5])
        for v in found["violations"]
        if v["impact"] in ("serious", "critical")
    ]


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/id/person/horace-he",
        "/id/organization/pytorch",
        "/id/topic/inference-and-serving",
        "/search?q=torch",
        "/sparql",
        "/id/person/horace-he/related/greg-chanan",
    ],
)
def test_axe_finds_nothing_serious(page: Page, base_url: str, path: str) -> None:
    page.goto(base_url + path)
    if path == "/sparql":
        expect(page.locator(".yasqe .CodeMirror")).to_be_visible()
    assert serious_findings(page) == []


def test_the_pictures_in_print(context: BrowserContext, base_url: str) -> None:
    """Printed (A4 width), the pictures keep a readable size: neither the page's full width, which
    would blow their text up, nor a thumbnail; the summary box no longer floats."""
    tab = context.new_page()
    try:
        tab.set_viewport_size({"width": 794, "height": 1123})
        tab.emulate_media(media="print")
        tab.goto(f"{base_url}/id/person/horace-he")
        for selector in ("svg.timeline-chart", "svg.network-chart"):
            box = tab.locator(selector).bounding_box()
            assert box is not None and 300 < box["width"] <= 12 / 2.54 * 96 + 1, (selector, box)
        assert tab.locator("aside.infobox").evaluate("(e) => getComputedStyle(e).float") == "none"
        tab.locator("figure.chart").first.screenshot(path=screenshot_path("person-timeline-print.png"))
    finally:
        tab.close()
