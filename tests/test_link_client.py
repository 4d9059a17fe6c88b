"""The Wikidata client against a scripted fault server on loopback: Retry-After on 429 and 503,
backoff, bounded attempts and the query's budget, HTML and other non-results, slow, silent and
trickling answers, redirects (followed on the same server only), answers past the size cap, texts
past the length cap, an unreachable endpoint, the on-disk cache, one request at a time, and VALUES
batches. Every test counts the requests the server saw, so no loop can run away, and measures the
time it took."""

from __future__ import annotations

import email.utils
import itertools
import re
import threading
import time
from pathlib import Path

import pyoxigraph as ox
import pytest

from conftest import ROOT
from kgprofiles.link.client import WikidataClient, retry_after
from kgprofiles.link.wikidata import Wikidata
from kgprofiles.link.wikidata_errors import (
    WikidataBadAnswer,
    WikidataRateLimited,
    WikidataRedirected,
    WikidataTimeout,
    WikidataUnreachable,
)
from kgprofiles.link.wikidata_settings import PROJECT_URL, ClientConfig
from wikidata.faults import (
    SPARQL_JSON,
    FaultServer,
    Reply,
    answer,
    closed_port_url,
    html,
    literal,
    ok,
    redirect,
    results,
    silent,
    tls_files,
    too_many,
    unavailable,
    uri,
)

pytest_plugins = ["wikidata.fixtures"]
pytestmark = pytest.mark.usefixtures("no_public_wikidata")

QUERY = "SELECT ?x WHERE { ?x ?p ?o } LIMIT 1"
WD = "http://www.wikidata.org/entity/"


def config(endpoint: str, **changes: object) -> ClientConfig:
    base = ClientConfig(
        endpoint=endpoint,
        connect_timeout_s=1.0,
        read_timeout_s=2.0,
        max_attempts=4,
        backoff_s=0.05,
        min_interval_s=0.0,
        query_budget_s=5.0,
        cache_dir=None,
    )
    return base.with_overrides(**changes)


class Sleeps:
    """Records the waits instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def test_request_is_descriptive_and_negotiates_sparql_json(fault_server: FaultServer) -> None:
    url = fault_server.script("/sparql", ok(("x",), [{"x": "1"}]))
    result = WikidataClient(config(url)).select(QUERY)
    assert [row["x"].value for row in result.rows] == ["1"]
    [request] = fault_server.requests("/sparql")
    assert request.method == "GET"
    assert request.query == QUERY
    agent = request.headers["User-Agent"]
    assert agent.startswith("kgprofiles/") and PROJECT_URL in agent
    assert "application/sparql-results+json" in request.headers["Accept"]


def test_429_waits_as_retry_after_says(fault_server: FaultServer) -> None:
    url = fault_server.script("/sparql", too_many("1"), ok())
    messages: list[str] = []
    client = WikidataClient(config(url), notify=messages.append)
    started = time.monotonic()
    client.select(QUERY)
    elapsed = time.monotonic() - started
    first, second = fault_server.requests("/sparql")
    assert second.at - first.at >= 1.0  # the server saw the retry only after the second it asked for
    assert elapsed < 3.0
    assert client.stats.requests == 2 and client.stats.retries == 1
    assert messages == ["wikidata: 429 Too Many Requests; waiting 1.0 s (as Retry-After asks) before attempt 2 of 4"]


def test_503_retry_after_as_an_http_date(fault_server: FaultServer) -> None:
    now = 1_900_000_000.0
    when = email.utils.formatdate(now + 30, usegmt=True)
    url = fault_server.script("/sparql", unavailable(when), ok())
    sleeps = Sleeps()
    client = WikidataClient(config(url, query_budget_s=60), sleep=sleeps, wall=lambda: now)
    client.select(QUERY)
    assert sleeps.waits == [30.0]
    assert len(fault_server.requests("/sparql")) == 2


def test_without_retry_after_the_wait_doubles(fault_server: FaultServer) -> None:
    url = fault_server.script("/sparql", unavailable(), unavailable(), Reply(502), ok())
    sleeps = Sleeps()
    WikidataClient(config(url), sleep=sleeps).select(QUERY)
    assert sleeps.waits == [0.05, 0.1, 0.2]
    assert len(fault_server.requests("/sparql")) == 4


def test_a_service_that_stays_unavailable_is_given_up_on(fault_server: FaultServer) -> None:
    url = fault_server.script("/sparql", unavailable("0"))
    started = time.monotonic()
    with pytest.raises(WikidataRateLimited) as caught:
        WikidataClient(config(url, max_attempts=3)).select(QUERY)
    assert time.monotonic() - started < 2.0
    assert len(fault_server.requests("/sparql")) == 3
    assert "503 Service Unavailable to all 3 attempts" in caught.value.message
    assert caught.value.exit_code == 4


def test_a_retry_after_beyond_the_budget_fails_at_once(fault_server: FaultServer) -> None:
    url = fault_server.script("/sparql", too_many("3600"), ok())
    started = time.monotonic()
    with pytest.raises(WikidataRateLimited) as caught:
        WikidataClient(config(url, query_budget_s=30)).select(QUERY)
    assert time.monotonic() - started < 1.0
    assert len(fault_server.requests("/sparql")) == 1
    assert "asks us to wait 3600 s; 30 s of the query's 30 s budget are left" in caught.value.message
    assert "query_budget_s" in (caught.value.hint or "")


def test_html_instead_of_results_is_an_error_not_data(fault_server: FaultServer) -> None:
    url = fault_server.script("/sparql", html())
    with pytest.raises(WikidataBadAnswer) as caught:
        WikidataClient(config(url)).select(QUERY)
    assert "answered text/html, not SPARQL results: an HTML page titled 'Wikimedia Error'" in caught.value.message
    assert "SPARQL endpoint itself" in (caught.value.hint or "")
    assert len(fault_server.requests("/sparql")) == 1


def test_a_content_type_with_control_characters_is_quoted_in_the_message(fault_server: FaultServer) -> None:
    url = fault_server.script("/sparql", html("text/\x1b[2Jhtml"))
    with pytest.raises(WikidataBadAnswer) as caught:
        WikidataClient(config(url)).select(QUERY)
    assert "\x1b" not in caught.value.message
    assert caught.value.message.startswith(f"{url} answered 'text/\\x1b[2jhtml', not SPARQL results")


def test_html_labelled_as_results_is_an_error(fault_server: FaultServer) -> None:
    url = fault_server.script("/sparql", html(SPARQL_JSON))
    with pytest.raises(WikidataBadAnswer) as caught:
        WikidataClient(config(url)).select(QUERY)
    assert "is not valid SPARQL results JSON" in caught.value.message


def test_a_refused_query_is_reported_not_retried(fault_server: FaultServer) -> None:
    url = fault_server.script("/sparql", Reply(400, b"Query is malformed: line 1", (("Content-Type", "text/plain"),)))
    with pytest.raises(WikidataBadAnswer) as caught:
        WikidataClient(config(url)).select(QUERY)
    assert caught.value.message.endswith("answered 400 Bad Request: 'Query is malformed: line 1'")
    assert len(fault_server.requests("/sparql")) == 1


def test_a_slow_answer_times_out(fault_server: FaultServer) -> None:
    url = fault_server.script("/sparql", Reply(200, results(), (("Content-Type", SPARQL_JSON),), delay_s=5))
    started = time.monotonic()
    with pytest.raises(WikidataTimeout) as caught:
        WikidataClient(config(url, read_timeout_s=0.3)).select(QUERY)
    assert time.monotonic() - started < 1.5
    assert "did not answer within 0.3 s" in caught.value.message
    assert len(fault_server.requests("/sparql")) == 1


def test_a_trickling_answer_is_cut_off(fault_server: FaultServer) -> None:
    url = fault_server.script("/sparql", Reply(200, results(), (("Content-Type", SPARQL_JSON),), trickle_s=0.05))
    started = time.monotonic()
    with pytest.raises(WikidataTimeout):
        WikidataClient(config(url, connect_timeout_s=0.2, read_timeout_s=0.4)).select(QUERY)
    assert time.monotonic() - started < 1.5  # the whole answer would take over 3 s


def test_a_server_that_never_answers_is_left_at_the_deadline(fault_server: FaultServer) -> None:
    url = fault_server.script("/sparql", silent())
    started = time.monotonic()
    with pytest.raises(WikidataTimeout) as caught:
        WikidataClient(config(url, read_timeout_s=1.0)).select(QUERY)
    assert time.monotonic() - started < 3.0
    assert caught.value.message == f"{url} did not answer within 1 s"
    assert "read_timeout_s" in (caught.value.hint or "")
    assert len(fault_server.requests("/sparql")) == 1  # a timeout is not retried


def test_an_answer_trickled_from_its_status_line_on_is_cut_at_the_deadline(fault_server: FaultServer) -> None:
    """A byte every 0.1 s never trips a 1 s timeout per read; the whole answer would take 20 s."""
    trickle = Reply(200, results(), (("Content-Type", SPARQL_JSON),), trickle_s=0.1)
    url = fault_server.script("/sparql", trickle)
    assert len(trickle.encode()) > 150
    started = time.monotonic()
    with pytest.raises(WikidataTimeout) as caught:
        WikidataClient(config(url, read_timeout_s=1.0)).select(QUERY)
    assert time.monotonic() - started < 3.0
    assert caught.value.message == f"{url} did not answer within 1 s"


def test_retries_stop_at_the_query_budget(fault_server: FaultServer) -> None:
    url = fault_server.script("/sparql", unavailable("1"))
    started = time.monotonic()
    with pytest.raises(WikidataRateLimited) as caught:
        WikidataClient(config(url, max_attempts=20, query_budget_s=2.5)).select(QUERY)
    assert time.monotonic() - started < 3.5
    assert 2 <= len(fault_server.requests("/sparql")) <= 3  # at 0, 1 and 2 s: another wait would overrun it
    assert re.search(r"asks us to wait 1 s; [0-9] s of the query's 2.5 s budget are left", caught.value.message)


def test_an_attempt_ends_with_the_query_budget(fault_server: FaultServer) -> None:
    url = fault_server.script("/sparql", unavailable("0"), silent())
    started = time.monotonic()
    with pytest.raises(WikidataTimeout) as caught:
        WikidataClient(config(url, read_timeout_s=30.0, query_budget_s=1.5)).select(QUERY)
    assert time.monotonic() - started < 3.0
    assert "(what was left of the query's budget, query_budget_s)" in caught.value.message
    assert len(fault_server.requests("/sparql")) == 2


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_to_another_server_is_refused_and_never_followed(fault_server: FaultServer, status: int) -> None:
    with FaultServer() as canary:
        target = canary.script("/sparql", ok())
        url = fault_server.script("/sparql", redirect(status, target))
        with pytest.raises(WikidataRedirected) as caught:
            WikidataClient(config(url)).select(QUERY)
        assert canary.requests() == []
    assert caught.value.message == f"{url} redirected ({status}) to {target}, another server: not followed"
    assert caught.value.exit_code == 4
    assert len(fault_server.requests("/sparql")) == 1


@pytest.mark.parametrize(
    "target",
    ["http://localhost:{port}/sparql", "https://127.0.0.1:{port}/sparql", "http://127.0.0.1:{port}@example.org/"],
)
def test_another_host_name_scheme_or_authority_is_another_server(fault_server: FaultServer, target: str) -> None:
    url = fault_server.url("/sparql")
    location = target.format(port=url.split(":")[2].split("/")[0])
    fault_server.script("/sparql", redirect(308, location))
    with pytest.raises(WikidataRedirected) as caught:
        WikidataClient(config(url)).select(QUERY)
    assert "another server: not followed" in caught.value.message
    assert len(fault_server.requests()) == 1


def test_a_redirect_on_the_same_server_is_followed(fault_server: FaultServer) -> None:
    fault_server.script("/moved", ok(("x",), [{"x": "here"}]))
    url = fault_server.script("/sparql", redirect(302, "/moved"))
    result = WikidataClient(config(url)).select(QUERY)
    assert [row["x"].value for row in result.rows] == ["here"]
    [moved] = fault_server.requests("/moved")
    assert moved.headers["User-Agent"].startswith("kgprofiles/")


def test_redirects_are_followed_a_few_times_at_most(fault_server: FaultServer) -> None:
    url = fault_server.script("/sparql", redirect(307, "/sparql"))
    with pytest.raises(WikidataRedirected) as caught:
        WikidataClient(config(url)).select(QUERY)
    assert "redirected more than 3 times" in caught.value.message
    assert len(fault_server.requests("/sparql")) == 4


def test_a_posted_query_is_not_redirected(fault_server: FaultServer) -> None:
    fault_server.script("/moved", ok())
    url = fault_server.script("/sparql", redirect(307, "/moved"))
    with pytest.raises(WikidataRedirected) as caught:
        WikidataClient(config(url)).select(QUERY + " #" + "x" * 3000)
    assert "redirected (307) a POSTed query" in caught.value.message
    assert fault_server.requests("/moved") == []


def test_a_redirect_without_a_target_is_an_error(fault_server: FaultServer) -> None:
    url = fault_server.script("/sparql", Reply(302, b"moved"))
    with pytest.raises(WikidataBadAnswer) as caught:
        WikidataClient(config(url)).select(QUERY)
    assert caught.value.message == f"{url} answered 302 Found without a target it may be followed to"


@pytest.mark.parametrize("announced", [True, False])
def test_an_answer_past_the_size_cap_is_refused(fault_server: FaultServer, announced: bool) -> None:
    body = results(("x",), [{"x": "y" * 5000}])
    url = fault_server.script("/sparql", Reply(200, body, (("Content-Type", SPARQL_JSON),), length=announced))
    with pytest.raises(WikidataBadAnswer) as caught:
        WikidataClient(config(url, max_bytes=1000)).select(QUERY)
    expected = f"announced an answer of {len(body):,} bytes" if announced else "sent more than 1,000 bytes"
    assert expected in caught.value.message
    assert "max_bytes" in (caught.value.hint or "")


def test_a_ten_megabyte_label_and_a_long_iri_are_left_out_with_a_notice(fault_server: FaultServer) -> None:
    q1 = uri(WD + "Q1")
    rows = [
        {"item": q1, "kind": literal("label"), "value": literal("A" * 10_000_000, "en")},
        {"item": q1, "kind": literal("alias"), "value": literal("Short alias", "en")},
        {"item": q1, "kind": literal("type"), "value": uri(WD + "Q5")},
        {"item": q1, "kind": literal("type"), "value": uri("http://example.org/" + "x" * 1500)},
    ]
    url = fault_server.script("/sparql", answer(("item", "kind", "value"), rows))
    notices: list[str] = []
    items = Wikidata(WikidataClient(config(url), notify=notices.append), ROOT / "queries").items(["Q1"])
    assert items["Q1"].exists and items["Q1"].labels == () and items["Q1"].aliases == ("Short alias",)
    assert items["Q1"].types == ("Q5",)
    assert notices == [
        "wikidata: left out a value of 10,000,000 characters (?value of http://www.wikidata.org/entity/Q1): "
        "longer than the 1,000 kept (max_text_chars in [kgprofiles.wikidata])",
        "wikidata: left out a value of 1,519 characters (?value of http://www.wikidata.org/entity/Q1): "
        "longer than the 1,000 kept (max_text_chars in [kgprofiles.wikidata])",
    ]


def test_a_notice_is_one_line_whatever_the_variable_is_called(fault_server: FaultServer) -> None:
    url = fault_server.script("/sparql", answer(("x\n\x1b[2J",), [{"x\n\x1b[2J": literal("y" * 1001)}]))
    notices: list[str] = []
    result = WikidataClient(config(url), notify=notices.append).select(QUERY)
    assert result.rows == ({},)
    assert notices == [
        "wikidata: left out a value of 1,001 characters (a value): longer than the 1,000 kept "
        "(max_text_chars in [kgprofiles.wikidata])"
    ]


def test_values_that_are_not_wikidata_items_are_not_taken_for_items(fault_server: FaultServer) -> None:
    rows = [
        {"item": uri(WD + "Q1"), "kind": literal("redirect"), "value": uri("http://evil.example/Q2")},
        {"item": uri(WD + "Q1"), "kind": literal("type"), "value": uri(WD + "Q5")},
        {"item": uri("http://evil.example/Q1"), "kind": literal("label"), "value": literal("Not Q1", "en")},
        {"item": uri(WD + "Q1"), "kind": literal("label")},  # no value: skipped
    ]
    url = fault_server.script("/sparql", answer(("item", "kind", "value"), rows))
    items = Wikidata(WikidataClient(config(url)), ROOT / "queries").items(["Q1"])
    assert set(items) == {"Q1"}
    assert items["Q1"].redirect is None and items["Q1"].labels == () and items["Q1"].types == ("Q5",)


def _document(binding: str) -> bytes:
    """A SPARQL JSON document with one row whose ?x is ``binding`` (JSON text)."""
    return b'{"head": {"vars": ["x"]}, "results": {"bindings": [{"x": ' + binding.encode() + b"}]}}"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"[" * 100_000, "nested too deeply"),
        (b'{"head": {"vars": ["x"]}, "results": {"bindings": [', "Expecting value"),
        (_document('{"type": "uri", "value": "not an iri"}'), "not an iri"),
        (_document('{"type": "uri", "value": "http://x/a> . <http://x/b"}'), "Invalid IRI"),
        (_document('{"type": "literal", "value": "\\ud800"}'), "must be a str"),
        (_document('{"type": "literal", "value": "x", "xml:lang": "not a tag!"}'), "language"),
        (_document('{"type": "triple", "value": "x"}'), "a term of unknown type 'triple'"),
        (_document('{"type": "literal"}'), "without a string value"),
        (_document('"just text"'), "?'x' is not a term"),
        (b'{"head": {}, "boolean": true}', "a boolean where rows were expected"),
        (b'{"results": {"bindings": []}}', "no head.vars list of names"),
        (b'{"head": {"vars": ["x"]}, "results": {}}', "no results.bindings list"),
        ("{}".encode("utf-16"), "not UTF-8"),
    ],
)
def test_an_answer_that_is_not_sparql_results_is_an_error(
    fault_server: FaultServer, body: bytes, expected: str
) -> None:
    url = fault_server.script("/sparql", Reply(200, body, (("Content-Type", SPARQL_JSON),)))
    with pytest.raises(WikidataBadAnswer) as caught:
        WikidataClient(config(url)).select(QUERY)
    assert caught.value.message.startswith(f"{url} answered application/sparql-results+json")
    assert expected in caught.value.message


@pytest.mark.parametrize(
    "raw", [b"SSH-2.0-OpenSSH_9.2\r\n", b"HTTP/1.1 200 OK\r\nX-Long: " + b"x" * 100_000 + b"\r\n\r\n"]
)
def test_an_answer_that_is_not_http_is_an_error(fault_server: FaultServer, raw: bytes) -> None:
    url = fault_server.script("/sparql", Reply(raw=raw))
    with pytest.raises(WikidataBadAnswer) as caught:
        WikidataClient(config(url)).select(QUERY)
    assert caught.value.message.startswith(f"{url} answered something that is not HTTP")


def test_the_deadline_and_the_redirect_rule_hold_over_https(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cert, key = tls_files(tmp_path)
    with FaultServer(tls=(cert, key)) as server:
        silent_url = server.script("/silent", silent())
        away_url = server.script("/away", redirect(302, "http://127.0.0.1:1/sparql"))
        fine_url = server.script("/sparql", ok(("x",), [{"x": "over tls"}]))
        with pytest.raises(WikidataUnreachable) as untrusted:
            WikidataClient(config(fine_url)).select(QUERY)
        assert "certificate verify failed" in untrusted.value.message
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))
        assert WikidataClient(config(fine_url)).select(QUERY).rows[0]["x"].value == "over tls"
        started = time.monotonic()
        with pytest.raises(WikidataTimeout):
            WikidataClient(config(silent_url, read_timeout_s=1.0)).select(QUERY)
        assert time.monotonic() - started < 3.0
        with pytest.raises(WikidataRedirected):
            WikidataClient(config(away_url)).select(QUERY)


def test_an_unreachable_endpoint_is_reported_clearly() -> None:
    url = closed_port_url()
    started = time.monotonic()
    with pytest.raises(WikidataUnreachable) as caught:
        WikidataClient(config(url)).select(QUERY)
    assert time.monotonic() - started < 1.0
    assert caught.value.message.startswith(f"cannot reach the Wikidata endpoint {url}: ")
    assert "--wikidata-endpoint" in (caught.value.hint or "")


def test_answers_are_cached_until_they_age(fault_server: FaultServer, tmp_path: Path) -> None:
    url = fault_server.script("/sparql", ok(("x",), [{"x": "cached"}]))
    clock = [1_000_000.0]
    settings = config(url, cache_dir=tmp_path / "cache", cache_max_age_s=60)
    client = WikidataClient(settings, wall=lambda: clock[0])
    assert client.select(QUERY).rows[0]["x"].value == "cached"
    assert client.select(QUERY).rows[0]["x"].value == "cached"
    assert len(fault_server.requests("/sparql")) == 1 and client.stats.cache_hits == 1
    clock[0] += 61
    client.select(QUERY)
    assert len(fault_server.requests("/sparql")) == 2
    WikidataClient(settings, use_cache=False, wall=lambda: clock[0]).select(QUERY)
    assert len(fault_server.requests("/sparql")) == 3


def test_a_damaged_cache_entry_is_ignored(fault_server: FaultServer, tmp_path: Path) -> None:
    url = fault_server.script("/sparql", ok())
    settings = config(url, cache_dir=tmp_path / "cache")
    WikidataClient(settings).select(QUERY)
    [entry] = (tmp_path / "cache").rglob("*.json")
    entry.write_text("<html>not json", encoding="utf-8")
    WikidataClient(settings).select(QUERY)
    assert len(fault_server.requests("/sparql")) == 2


def test_one_request_at_a_time(fault_server: FaultServer) -> None:
    url = fault_server.script("/sparql", Reply(200, results(), (("Content-Type", SPARQL_JSON),), delay_s=0.2))
    client = WikidataClient(config(url))
    threads = [threading.Thread(target=client.select, args=(f"{QUERY} # {i}",)) for i in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    arrivals = sorted(r.at for r in fault_server.requests("/sparql"))
    assert len(arrivals) == 3
    assert all(b - a >= 0.18 for a, b in itertools.pairwise(arrivals))


def test_a_minimum_interval_between_requests(fault_server: FaultServer) -> None:
    url = fault_server.script("/sparql", ok())
    client = WikidataClient(config(url, min_interval_s=0.3))
    client.select(QUERY)
    client.select(QUERY + " # again")
    first, second = fault_server.requests("/sparql")
    assert second.at - first.at >= 0.29


def test_long_queries_are_posted(fault_server: FaultServer) -> None:
    url = fault_server.script("/sparql", ok())
    long_query = QUERY + " #" + "x" * 3000
    WikidataClient(config(url)).select(long_query)
    [request] = fault_server.requests("/sparql")
    assert request.method == "POST" and request.query == long_query


def test_ids_are_sent_in_batches_of_values(fault_server: FaultServer) -> None:
    url = fault_server.script("/sparql", ok(("item", "kind", "value"), []))
    wikidata = Wikidata(WikidataClient(config(url, batch_size=2)), ROOT / "queries")
    items = wikidata.items(["Q1", "Q2", "Q3", "Q42", "Q5"])
    assert not any(i.exists for i in items.values())
    sent = fault_server.requests("/sparql")
    assert len(sent) == 3
    assert [q.query.count("<http://www.wikidata.org/entity/Q") for q in sent if q.query] == [2, 2, 1]
    for request in sent:  # each batch is a query an engine accepts
        ox.Store().query(request.query or "")


def test_values_are_bound_never_pasted(fault_server: FaultServer) -> None:
    url = fault_server.script("/sparql", ok(("name", "item", "how"), []))
    hostile = 'Evil" } } DROP ALL ; SELECT * { "'
    Wikidata(WikidataClient(config(url)), ROOT / "queries").search([hostile])
    [request] = fault_server.requests("/sparql")
    assert str(ox.Literal(hostile, language="en")) in (request.query or "")
    solutions = ox.Store().query(request.query or "")
    assert [v.value for v in solutions.variables] == ["name", "item", "how"]


@pytest.mark.parametrize(
    ("header", "expected"),
    [("120", 120.0), ("0", 0.0), ("1.5", 1.5), ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0), ("soon", None), (None, None)],
)
def test_retry_after_values(header: str | None, expected: float | None) -> None:
    assert retry_after(header, time.time()) == expected
