"""In a real browser: Debian's Chromium, headless, driven by Playwright, against a real server.
Screenshots are kept in test-artifacts/web/ (git-ignored)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from kgprofiles.config import Settings
from kgprofiles.web import create_app
from kgprofiles.web.editor import find_editor
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


@pytest.fixture
def page(context: BrowserContext, base_url: str) -> Iterator[Page]:
    """A page that records every request it makes: none may leave this server."""
    tab = context.new_page()
    requested: list[str] = []
    tab.on("request", lambda request: requested.append(request.url))
    yield tab
    tab.close()
    elsewhere = [url for url in requested if not url.startswith(base_url) and not url.startswith("data:")]
    assert elsewhere == [], f"the page fetched from elsewhere: {elsewhere}"


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
