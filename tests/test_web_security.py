"""Safe HTML and security headers (issue 14, item 3).

An address from the data becomes a link only when it is http, https or mailto: on the person and
source pages, the page of any other resource, the SPARQL results page, and the Markdown and HTML
renderings of the CLI. Every other address (``javascript:``, ``data:``, ``vbscript:``…) is shown
as text. Every response of the web app carries the Content-Security-Policy, nosniff, frame and
referrer headers. The fixture graph is synthetic: tests/fixtures/hostile-urls/."""

from __future__ import annotations

import dataclasses
import html
import json
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route
from typer.testing import CliRunner

from kgprofiles.cli import app as cli
from kgprofiles.config import Settings
from kgprofiles.pipeline import build
from kgprofiles.profiles import Views
from kgprofiles.render import html as html_view
from kgprofiles.render import markdown
from kgprofiles.render.links import external_href
from kgprofiles.store.oxigraph import OxigraphStore
from kgprofiles.web import create_app
from kgprofiles.web.headers import CONTENT_SECURITY_POLICY, SecurityHeaders
from web.server import serving

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ROOT / "tests" / "fixtures" / "hostile-urls"
#: The sources of the fixture whose address must never be a link, and that address.
HOSTILE_SOURCES = {
    "example-javascript": "javascript:alert(document.domain)//",
    "example-mixed-case": "JaVaScRiPt:alert(document.domain)//",
    "example-data": "data:text/html;base64,PHNjcmlwdD5hbGVydChkb2N1bWVudC5kb21haW4pPC9zY3JpcHQ+",
    "example-vbscript": "vbscript:msgbox(document.domain)",
}
#: The sources whose address stays a link.
SAFE_SOURCES = {
    "example-https": "https://example.org/a-page?x=1&y=2",
    "example-mailto": "mailto:someone@example.org",
}
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


def hrefs(page: str) -> list[str]:
    """Every href of an HTML page, as the browser reads it (entities decoded)."""
    quoted = re.findall(r"""href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", page, flags=re.I)
    return [html.unescape("".join(parts)) for parts in quoted]


def assert_no_dangerous_link(page: str) -> None:
    """Every href is a path, a fragment or a query on this site, or an http, https or mailto URL."""
    for href in hrefs(page):
        assert re.match(r"(https?:|mailto:|/|#|\?)", href), f"a link that must not be: {href!r}"
    assert not re.search(r"href\s*=\s*[\"']?\s*(javascript|data|vbscript):", page, flags=re.I)


# ------------------------------------------------------------------------------ the one decision


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(document.domain)//",
        "JaVaScRiPt:alert(document.domain)//",
        " JAVASCRIPT:alert(1)",
        "java\tscript:alert(1)",
        "java\nscript:alert(1)",
        "java\rscript:alert(1)",
        "javascript\t:alert(1)",
        "\x00javascript:alert(1)",
        "\x01\x1f javascript:alert(1)",
        "javascript://https://example.org/%0aalert(1)",
        "&#106;avascript:alert(1)",
        "&#x6A;avascript:alert(1)",
        "%6Aavascript:alert(1)",
        "\u00a0javascript:alert(1)",
        "\u212aavascript:alert(1)",  # KELVIN SIGN: not an ASCII letter, so no scheme
        "data:text/html,<script>alert(1)</script>",
        "DATA:text/html;base64,PHNjcmlwdD4=",
        "vbscript:msgbox(1)",
        "file:///etc/passwd",
        "ftp://example.org/",
        "//evil.example/x",
        "/id/person/horace-he",
        "relative/path",
        "https",
        "",
        " \t\n",
    ],
)
def test_only_http_https_and_mailto_may_be_links(url: str) -> None:
    assert external_href(url) is None


@pytest.mark.parametrize(
    ("url", "href"),
    [
        ("https://example.org/a-page?x=1&y=2", "https://example.org/a-page?x=1&y=2"),
        ("http://example.org/", "http://example.org/"),
        ("HTTPS://example.org/", "HTTPS://example.org/"),
        ("mailto:someone@example.org", "mailto:someone@example.org"),
        (" https://example.org/\n", "https://example.org/"),  # cleaned as the browser cleans it
        ("ht\ttps://exa\nmple.org/", "https://example.org/"),
        ("https://example.org/?next=javascript:alert(1)", "https://example.org/?next=javascript:alert(1)"),
    ],
)
def test_http_https_and_mailto_are_links_as_the_browser_reads_them(url: str, href: str) -> None:
    assert external_href(url) == href


@settings(derandomize=True, max_examples=200, deadline=None)
@given(
    noise=st.lists(st.sampled_from(["\t", "\n", "\r", " ", "\x00", "\x0b", "\x1f"]), max_size=4),
    where=st.integers(min_value=0, max_value=11),
    case=st.lists(st.booleans(), min_size=10, max_size=10),
)
@example(noise=["\t"], where=4, case=[False] * 10)
@example(noise=[" "], where=0, case=[True] * 10)
def test_javascript_in_any_case_with_any_whitespace_is_never_a_link(
    noise: list[str], where: int, case: list[bool]
) -> None:
    scheme = "".join(c.upper() if up else c for c, up in zip("javascript", case, strict=True))
    text = scheme + ":alert(1)"
    assert external_href(text[:where] + "".join(noise) + text[where:]) is None


# ------------------------------------------------------------------------------ pages over the hostile graph


@pytest.fixture(scope="module")
def hostile_settings(settings: Settings) -> Settings:
    return settings.with_overrides(data_dir=HOSTILE)


@pytest.fixture(scope="module")
def hostile_store(hostile_settings: Settings) -> OxigraphStore:
    store = OxigraphStore("memory:")
    build(hostile_settings, store=store)
    return store


@pytest.fixture(scope="module")
def hostile(hostile_settings: Settings, hostile_store: OxigraphStore) -> Iterator[httpx.Client]:
    with (
        serving(create_app(hostile_settings, hostile_store)) as url,
        httpx.Client(base_url=url, timeout=30, headers={"Accept": BROWSER}) as client,
    ):
        yield client


def test_the_person_page_shows_hostile_addresses_as_text_and_links_the_safe_ones(hostile: httpx.Client) -> None:
    page = hostile.get("/id/person/example-person")
    assert page.status_code == 200
    assert_no_dangerous_link(page.text)
    for url in HOSTILE_SOURCES.values():
        assert f'<code class="url">{html.escape(url)}</code>' in page.text
    assert set(SAFE_SOURCES.values()) <= set(hrefs(page.text))
    assert 'href="https://example.org/a-page?x=1&amp;y=2" rel="nofollow">Example source with an https: address' in (
        page.text
    )


def test_a_person_whose_iri_is_no_web_address_is_listed_as_text(hostile: httpx.Client) -> None:
    """``owl:sameAs <javascript:…>`` makes that IRI a person of the graph (OWL RL copies the name):
    the people list shows it as text, with no link (it was ``href="None"``), as the search does."""
    page = hostile.get("/people")
    assert page.status_code == 200
    assert_no_dangerous_link(page.text)
    assert page.text.count("Example Person (synthetic)") == 2 and 'href="None"' not in page.text


@pytest.mark.parametrize("slug", sorted(HOSTILE_SOURCES))
def test_a_source_page_shows_a_hostile_address_as_text(hostile: httpx.Client, slug: str) -> None:
    page = hostile.get(f"/id/source/{slug}")
    assert page.status_code == 200
    assert_no_dangerous_link(page.text)
    assert f"<dt>Address</dt><dd>{html.escape(HOSTILE_SOURCES[slug])}</dd>" in page.text


@pytest.mark.parametrize("slug", sorted(SAFE_SOURCES))
def test_a_source_page_links_a_safe_address(hostile: httpx.Client, slug: str) -> None:
    page = hostile.get(f"/id/source/{slug}")
    url = html.escape(SAFE_SOURCES[slug])
    assert f'<dt>Address</dt><dd><a href="{url}" rel="nofollow">{url}</a></dd>' in page.text


def test_the_page_of_any_resource_shows_a_hostile_iri_as_text(hostile: httpx.Client) -> None:
    page = hostile.get("/id/profile/example-person")
    assert page.status_code == 200
    assert_no_dangerous_link(page.text)
    assert "<td>javascript:alert(document.domain)//</td>" in page.text
    assert '<a href="https://example.org/see-also">https://example.org/see-also</a>' in page.text


def test_sparql_html_results_show_hostile_iris_as_text(hostile: httpx.Client) -> None:
    query = "SELECT ?source ?url WHERE { ?source kgp:url ?url } ORDER BY ?source"
    page = hostile.get("/sparql", params={"query": query})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert_no_dangerous_link(page.text)
    for url in HOSTILE_SOURCES.values():
        assert f"<td>{html.escape(url)}</td>" in page.text
    assert '<a href="/id/source/example-data">source:example-data</a>' in page.text
    assert set(SAFE_SOURCES.values()) <= set(hrefs(page.text))


def test_a_wikidata_link_that_is_not_http_is_text(views: Views) -> None:
    """The queries only read Wikidata entity IRIs; the templates check again all the same."""
    profile = views.profile(views.resolve_person("horace-he"))
    hostile_profile = dataclasses.replace(profile, wikidata="javascript:alert(document.domain)//")
    organization = views.organization("https://w3id.org/kgprofiles/id/organization/pytorch")
    hostile_organization = dataclasses.replace(organization, wikidata="JAVASCRIPT:alert(document.domain)//")
    for page in (
        html_view.profile(hostile_profile, standalone=False),
        html_view.page("organization.html", o=hostile_organization),
    ):
        assert_no_dangerous_link(page)
        assert "N-Triples</a>Wikidata</p>" in page


@pytest.mark.parametrize("name", ["<!--<script>", "</script><!--", "<!-- <script x>", "</SCRIPT >"])
def test_a_name_cannot_end_or_swallow_the_pages_json_ld_block(views: Views, name: str) -> None:
    """The person page's JSON-LD is a <script> data block: "</" was escaped, but a name with
    "<!--<script>" put the HTML parser in the script's double-escaped state, where the block's own
    </script> does not end it, and the whole page after it (the profile) became script text."""
    profile = dataclasses.replace(views.profile(views.resolve_person("horace-he")), name=name, headline=name)
    block = html_view.person_jsonld(profile)
    assert "<" not in block and json.loads(block)["name"] == name and json.loads(block)["description"] == name
    page = html_view.profile(profile, standalone=False)
    head, _, body = page.partition('<script type="application/ld+json">')[2].partition("</script>")
    assert head == block and "Horace" not in head and "<body" in body


# ------------------------------------------------------------------------------ the CLI's renderings


@pytest.fixture(scope="module")
def hostile_disk_store(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("hostile") / "store")
    runner = CliRunner()
    result = runner.invoke(
        cli, ["--project", str(ROOT), "build", "--store", path, "--quiet"], env={"KGPROFILES_DATA": str(HOSTILE)}
    )
    assert result.exit_code == 0, result.output
    return path


def cli_profile(store: str, fmt: str) -> str:
    result = CliRunner().invoke(cli, ["--project", str(ROOT), "profile", "example-person", "-f", fmt, "--store", store])
    assert result.exit_code == 0, result.output
    return result.output


def permissive_markdown() -> MarkdownIt:
    """A CommonMark renderer that links whatever the Markdown says (markdown-it's own filter of
    javascript: links turned off): what the Markdown itself is worth on a careless site."""
    md = MarkdownIt()
    md.validateLink = lambda url: True  # type: ignore[method-assign]
    return md


def test_the_markdown_profile_links_only_safe_addresses(hostile_disk_store: str) -> None:
    text = cli_profile(hostile_disk_store, "md")
    assert not re.search(r"\]\(\s*<?\s*(javascript|data|vbscript):", text, flags=re.I)
    for url in HOSTILE_SOURCES.values():
        assert url in text
    rendered = permissive_markdown().render(text)
    assert_no_dangerous_link(rendered)
    assert {"https://example.org/a-page?x=1&y=2", "mailto:someone@example.org"} <= set(hrefs(rendered))


def test_the_html_profile_links_only_safe_addresses(hostile_disk_store: str) -> None:
    page = cli_profile(hostile_disk_store, "html")
    assert_no_dangerous_link(page)
    for url in HOSTILE_SOURCES.values():
        assert html.escape(url) in page
    assert set(SAFE_SOURCES.values()) <= set(hrefs(page))


@settings(derandomize=True, max_examples=150, deadline=None)
@given(path=st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=30))
@example(path="a)[x](javascript:alert(1)")
@example(path="&#106;&amp;\\<>")
def test_a_markdown_link_destination_reads_back_as_the_address(path: str) -> None:
    href = "https://example.org/" + path
    md = permissive_markdown()
    rendered = md.render(f"[t]({markdown.destination(href)})")
    assert hrefs(rendered) == [md.normalizeLink(href)]


# ------------------------------------------------------------------------------ headers on every response

EXPECTED_HEADERS = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
}


@pytest.fixture(scope="module")
def client(settings: Settings, seed_store) -> Iterator[httpx.Client]:
    with serving(create_app(settings, seed_store)) as url, httpx.Client(base_url=url, timeout=30) as c:
        yield c


@pytest.mark.parametrize(
    ("method", "path", "accept", "status"),
    [
        ("GET", "/", BROWSER, 200),
        ("GET", "/people", BROWSER, 200),
        ("GET", "/id/person/horace-he", BROWSER, 200),
        ("GET", "/id/person/horace-he.ttl", "*/*", 200),
        ("GET", "/id/person/horace-he", "image/png", 406),
        ("GET", "/downloads/kgprofiles.nt", "*/*", 200),
        ("GET", "/static/style.css", "*/*", 200),
        ("GET", "/static/editor.js", "*/*", 200),
        ("GET", "/api/person/horace-he", "application/json", 200),
        ("GET", "/api/prefixes", "application/json", 200),
        ("GET", "/api/person/nobody", "application/json", 404),
        ("GET", "/sparql", BROWSER, 200),
        ("GET", "/sparql", "text/turtle", 200),
        ("GET", "/sparql?query=ASK%7B%7D", "application/sparql-results+json", 200),
        ("GET", "/sparql?query=SELECT%20*%20%7B%3Fs%20%3Fp%20%3Fo%7D%20LIMIT%201", BROWSER, 200),
        ("GET", "/sparql?query=SELECT%20%3Fx%20WHERE%20%7B", "*/*", 400),
        ("POST", "/sparql?update=CLEAR%20ALL", "*/*", 415),
        ("POST", "/sparql", "*/*", 403),
        ("PUT", "/sparql", "*/*", 405),
        ("GET", "/no/such/page", BROWSER, 404),
        ("GET", "/no/such/page", "text/plain", 404),
        ("GET", "/static/no-such-file.js", "*/*", 404),
        ("GET", "/favicon.ico", "*/*", 204),
        ("HEAD", "/", BROWSER, 200),
    ],
)
def test_every_kind_of_response_carries_the_security_headers(
    client: httpx.Client, method: str, path: str, accept: str, status: int
) -> None:
    form = {"update": "CLEAR ALL"} if (method, path) == ("POST", "/sparql") else None
    response = client.request(method, path, headers={"Accept": accept}, data=form)
    assert response.status_code == status, response.text
    for name, value in EXPECTED_HEADERS.items():
        assert response.headers.get_list(name) == [value], name


def test_the_policy_allows_no_inline_script_and_no_eval() -> None:
    directives = dict(d.split(" ", 1) for d in CONTENT_SECURITY_POLICY.split("; "))
    assert directives["default-src"] == "'self'" and "script-src" not in directives
    assert "unsafe-inline" not in CONTENT_SECURITY_POLICY and "unsafe-eval" not in CONTENT_SECURITY_POLICY
    assert directives["frame-ancestors"] == "'none'" and directives["base-uri"] == "'none'"
    assert directives["form-action"] == "'self'" and directives["object-src"] == "'none'"


def fail(request: Request) -> Response:
    raise RuntimeError("a synthetic failure inside a handler")


def stream(request: Request) -> Response:
    async def chunks() -> Iterator[bytes]:  # type: ignore[misc]
        for n in range(3):
            yield f"chunk {n}\n".encode()

    return StreamingResponse(chunks(), media_type="text/plain")


def framed(request: Request) -> Response:
    return PlainTextResponse("ok", headers={"X-Frame-Options": "SAMEORIGIN"})


@pytest.fixture(scope="module")
def small_app() -> Iterator[str]:
    """The middleware around a handler that fails, one that streams, one that sets its own header.
    Each test makes its own connection: the server closes one after a handler fails."""
    app = Starlette(
        routes=[Route("/fail", fail), Route("/stream", stream), Route("/framed", framed)],
        middleware=[Middleware(SecurityHeaders)],
    )
    with serving(app) as url:
        yield url


def test_a_handler_that_fails_answers_500_with_the_headers_and_no_traceback(small_app: str) -> None:
    response = httpx.get(small_app + "/fail")
    assert response.status_code == 500
    assert response.text == "Internal Server Error\n" and "synthetic" not in response.text
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY


def test_a_streamed_response_keeps_its_body_and_gets_the_headers(small_app: str) -> None:
    response = httpx.get(small_app + "/stream")
    assert response.text == "chunk 0\nchunk 1\nchunk 2\n"
    assert response.headers["x-content-type-options"] == "nosniff"


def test_the_middleware_decides_the_headers_not_the_handler(small_app: str) -> None:
    assert httpx.get(small_app + "/framed").headers.get_list("x-frame-options") == ["DENY"]
