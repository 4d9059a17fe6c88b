"""The pages, the /id/ IRIs with content negotiation, the downloads and the JSON API, over HTTP
from a real server (uvicorn on 127.0.0.1) over the seed graph."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import httpx
import pyoxigraph as ox
import pytest

from kgprofiles.config import Settings
from kgprofiles.export import export_profile, export_store
from kgprofiles.profiles import Views
from kgprofiles.queries import get_query
from kgprofiles.render import json as json_view
from kgprofiles.web import create_app
from seed_ids import PERSON
from web.rdf import subjects
from web.server import serving

HORACE = str(PERSON["horace-he"])
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


@pytest.fixture(scope="module")
def client(settings: Settings, seed_store) -> Iterator[httpx.Client]:
    with serving(create_app(settings, seed_store)) as url, httpx.Client(base_url=url, timeout=30) as c:
        yield c


def links(html: str) -> list[str]:
    return re.findall(r'href="([^"]+)"', html)


def test_home_has_search_counts_topics_and_organisations(client: httpx.Client) -> None:
    page = client.get("/")
    assert page.status_code == 200
    html = page.text
    assert 'action="/search"' in html
    assert "<strong>11</strong> people" in html and "<strong>3</strong> organisations" in html
    assert 'href="/id/topic/inference-and-serving"' in html
    assert 'href="/id/organization/pytorch"' in html and "6 people in the graph" in html


def test_person_page_has_linked_footnotes_and_related_people(client: httpx.Client, views: Views) -> None:
    page = client.get("/id/person/horace-he", headers={"Accept": BROWSER})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert page.headers["content-location"] == "/id/person/horace-he.html"
    html = page.text
    profile = views.profile(views.resolve_person("horace-he"))
    for source in profile.sources:  # every footnote number points at an entry of the source list
        assert f'id="source-{source.number}"' in html
    footnotes = set(re.findall(r'href="#source-(\d+)"', html))
    assert footnotes and footnotes <= {str(s.number) for s in profile.sources}
    for person in profile.related:
        assert f'href="/id/person/{person.iri.rsplit("/", 1)[-1]}"' in html
    jsonld = json.loads(html.split('<script type="application/ld+json">', 1)[1].split("</script>", 1)[0])
    assert jsonld["@type"] == "Person" and jsonld["@id"] == HORACE
    assert '<link rel="alternate" type="text/turtle" href="/id/person/horace-he.ttl">' in html
    assert 'href="/static/style.css"' in html and "<script src" not in html  # no JavaScript


@pytest.mark.parametrize(
    ("accept", "media_type"),
    [
        ("text/turtle", "text/turtle"),
        ("application/ld+json", "application/ld+json"),
        ("application/n-triples", "application/n-triples"),
        ("application/json", "application/ld+json"),
        ("text/turtle;q=0.5, application/n-triples;q=0.9", "application/n-triples"),
    ],
)
def test_person_data_by_content_negotiation_is_the_profile_export(
    client: httpx.Client, seed_store, settings: Settings, accept: str, media_type: str
) -> None:
    response = client.get("/id/person/horace-he", headers={"Accept": accept})
    assert response.status_code == 200
    assert response.headers["content-type"].split(";")[0] == media_type
    assert "accept" in response.headers["vary"].lower()
    fmt = {"text/turtle": "ttl", "application/ld+json": "jsonld", "application/n-triples": "nt"}[media_type]
    expected = export_profile(seed_store, get_query(settings.queries_dir, "person-export"), ox.NamedNode(HORACE), fmt)
    assert response.content == expected
    assert response.headers["content-location"] == f"/id/person/horace-he.{fmt}"


@pytest.mark.parametrize("suffix", [".ttl", ".jsonld", ".nt"])
def test_suffixes_give_the_same_data(client: httpx.Client, suffix: str) -> None:
    media = {".ttl": "text/turtle", ".jsonld": "application/ld+json", ".nt": "application/n-triples"}[suffix]
    by_suffix = client.get(f"/id/person/horace-he{suffix}")
    by_accept = client.get("/id/person/horace-he", headers={"Accept": media})
    assert by_suffix.status_code == 200 and by_suffix.content == by_accept.content
    assert HORACE in subjects(by_suffix.content, media)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/id/organization/pytorch", ["PyTorch", "Current roles", 'href="/id/person/horace-he"']),
        ("/id/topic/inference-and-serving", ["Inference and serving", "work on this topic"]),
        (
            "/id/work/flexattention",
            ["FlexAttention", "Published research", "Dec 7, 2024", 'href="/id/person/horace-he"'],
        ),
        ("/id/source/pytorch-2-paper", ["PyTorch 2 paper", "ASPLOS 2024", 'href="/id/person/horace-he#source-3"']),
        ("/id/claim/horace-he-role-pytorch", ["claim:horace-he-role-pytorch", 'href="/id/organization/pytorch"']),
        ("/id/profile/horace-he", ["profile:horace-he", "kgp:citation"]),
    ],
)
def test_every_kind_of_iri_has_a_page_and_data(client: httpx.Client, path: str, expected: list[str]) -> None:
    page = client.get(path, headers={"Accept": BROWSER})
    assert page.status_code == 200, page.text
    for text in expected:
        assert text in page.text
    iri = "https://w3id.org/kgprofiles" + path
    for suffix in (".ttl", ".jsonld", ".nt"):
        data = client.get(path + suffix)
        assert data.status_code == 200
        assert iri in subjects(data.content, data.headers["content-type"])


def test_page_links_lead_somewhere(client: httpx.Client) -> None:
    """Every local link on the person page and the pages it links to answers 200."""
    seen: set[str] = set()
    for start in ("/", "/id/person/horace-he"):
        for href in links(client.get(start).text):
            target = href.split("#", 1)[0]
            if target.startswith("/") and target not in seen:
                seen.add(target)
                assert client.get(target).status_code == 200, target
    assert len(seen) > 15


def test_search_people_and_downloads_pages(client: httpx.Client) -> None:
    found = client.get("/search", params={"q": "torch"}).text
    assert 'href="/id/organization/pytorch"' in found
    none = client.get("/search", params={"q": "zzzz"})
    assert none.status_code == 200 and "Nothing in the graph" in none.text
    people = client.get("/people").text
    assert people.count('href="/id/person/') == 11
    assert client.get("/people", params={"q": "horace"}).text.count('href="/id/person/') == 1
    downloads = client.get("/downloads").text
    for name in ("kgprofiles.nq", "kgprofiles.ttl", "kgprofiles.nt", "kgprofiles.jsonld"):
        assert f'href="/downloads/{name}"' in downloads


@pytest.mark.parametrize("fmt", ["nq", "ttl", "nt", "jsonld"])
def test_downloads_are_the_whole_graph_exports(client: httpx.Client, seed_store, fmt: str) -> None:
    response = client.get(f"/downloads/kgprofiles.{fmt}")
    assert response.status_code == 200
    assert response.content == export_store(seed_store, fmt)
    assert f'filename="kgprofiles.{fmt}"' in response.headers["content-disposition"]


def test_a_helpful_404(client: httpx.Client) -> None:
    page = client.get("/id/person/horace-hee", headers={"Accept": BROWSER})
    assert page.status_code == 404
    assert "Not found" in page.text and 'href="/id/person/horace-he"' in page.text  # a suggestion
    assert 'action="/search"' in page.text
    assert client.get("/no/such/page").status_code == 404
    assert client.get("/id/planet/mars").status_code == 404
    plain = client.get("/id/person/nobody", headers={"Accept": "text/turtle"})
    assert plain.status_code == 404 and plain.headers["content-type"].startswith("text/plain")


def test_406_when_no_form_of_a_resource_is_acceptable(client: httpx.Client) -> None:
    response = client.get("/id/person/horace-he", headers={"Accept": "image/png"})
    assert response.status_code == 406
    assert "text/turtle" in response.text


def test_api_person_is_the_cli_json(client: httpx.Client, views: Views) -> None:
    profile = views.profile(views.resolve_person("horace-he"))
    for ident in ("horace-he", "person:horace-he", "Horace He", HORACE):
        response = client.get(f"/api/person/{ident}")
        assert response.status_code == 200 and response.headers["content-type"] == "application/json"
        assert response.text == json_view.profile(profile)
    related = client.get("/api/person/horace-he/related")
    assert related.text == json_view.related(views.related(views.resolve_person("horace-he")))
    two = client.get("/api/person/horace-he/related", params={"limit": 2}).json()
    assert len(two) == 2 and two[0]["name"] == json.loads(related.text)[0]["name"]


def test_api_errors_are_json(client: httpx.Client) -> None:
    missing = client.get("/api/person/nobody-at-all")
    assert missing.status_code == 404 and "error" in missing.json()
    assert client.get("/api/person/horace-he/related", params={"limit": "x"}).status_code == 400
    assert client.get("/api/nothing").status_code == 404
