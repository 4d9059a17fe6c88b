"""`kgprofiles link check` against the local Wikidata fixture server: each case (good, redirect,
wrong type, label mismatch, missing), the summary and exit codes; a busy, broken or unreachable
endpoint; the client settings; and that build and serve never load the Wikidata code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from kgprofiles.config import load_settings
from kgprofiles.link import wikidata_settings as config
from kgprofiles.link.wikidata_settings import ClientConfig, client_config
from wikidata.faults import FaultServer, closed_port_url, html, ok, too_many
from wikidata.project import DATA, project, run_cli

pytest_plugins = ["wikidata.fixtures"]
pytestmark = [pytest.mark.realdata, pytest.mark.usefixtures("no_public_wikidata")]

EXPECTED = [
    "wrong type     organization:adams-fixture-org  Q42           Douglas Adams",
    "    an organisation must not link to a human; Q42 is an instance of Q5",
    "ok             organization:fixture-widgets    Q99900000005  Fixture Widgets Ltd",
    "wrong type     person:casey-fixture            Q99900000002  Casey Fixture",
    "    a person must link to a human (instance of Q5); Q99900000002 is an instance of Q43229",
    "ok             person:douglas-adams            Q42           Douglas Adams",
    "missing        person:missing-fixture          Q6            (no label)",
    "    Wikidata has no item Q6 (deleted, or a typo)",
    "redirect       person:oliver-kahn              Q99900000001  → Q131261 Oliver Kahn",
    "    Q99900000001 redirects to Q131261: link to Q131261 instead",
    "label mismatch person:olivia-kahnfixture       Q131261       Oliver Kahn",
    "    ours 'Olivia Kahnfixture', Wikidata 'Oliver Kahn'",
    "summary: 7 link(s) checked: 2 ok, 1 label mismatch, 2 wrong type, 1 redirect, 1 missing",
]


def test_each_case_is_reported_with_a_summary(wikidata_endpoint: str, tmp_path: Path) -> None:
    result = run_cli(project(tmp_path, DATA / "check", wikidata_endpoint), "link", "check")
    assert result.stdout.splitlines() == EXPECTED
    assert result.stderr == f"checking 7 Wikidata link(s) against {wikidata_endpoint}\n"
    assert result.exit_code == 1


def test_json_report(wikidata_endpoint: str, tmp_path: Path) -> None:
    result = run_cli(project(tmp_path, DATA / "check", wikidata_endpoint), "link", "check", "--format", "json")
    report = json.loads(result.stdout)
    by_entity = {r["entity"].rsplit("/", 1)[1]: r for r in report["links"]}
    assert by_entity["oliver-kahn"]["status"] == "redirect"
    assert by_entity["oliver-kahn"]["redirect_target"] == "Q131261"
    assert by_entity["missing-fixture"]["status"] == "missing"
    assert by_entity["douglas-adams"]["file"].endswith("check/people/cases.ttl")
    assert report["summary"] == {
        "ok": 2,
        "label mismatch": 1,
        "wrong type": 2,
        "redirect": 1,
        "missing": 1,
        "not an item": 0,
    }


def test_all_good_links_exit_zero(wikidata_endpoint: str, tmp_path: Path) -> None:
    data = tmp_path / "data" / "people"
    data.mkdir(parents=True)
    text = (DATA / "check" / "people" / "cases.ttl").read_text(encoding="utf-8")
    (data / "one.ttl").write_text(text.split("person:oliver-kahn")[0], encoding="utf-8")
    result = run_cli(project(tmp_path, tmp_path / "data", wikidata_endpoint), "link", "check")
    assert result.stdout.splitlines()[-1] == "summary: 1 link(s) checked: 1 ok"
    assert result.exit_code == 0


def test_an_alias_is_a_good_label(wikidata_endpoint: str, tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "alias.ttl").write_text(
        "@prefix kgp: <https://w3id.org/kgprofiles/ontology#> .\n"
        '<https://w3id.org/kgprofiles/id/person/dna> a kgp:Person ; kgp:name "Douglas Noël Adams" ;\n'
        "    <http://www.w3.org/2002/07/owl#sameAs> <http://www.wikidata.org/entity/Q42> .\n",
        encoding="utf-8",
    )
    result = run_cli(project(tmp_path, data, wikidata_endpoint), "link", "check")
    assert result.stdout.splitlines()[:2] == [
        "ok             person:dna  Q42           Douglas Adams",
        "    our name matches the alias 'Douglas Noël Adams', not the label 'Douglas Adams'",
    ]
    assert result.exit_code == 0


def test_unreachable_endpoint_says_so_and_exits_4(tmp_path: Path) -> None:
    url = closed_port_url()
    result = run_cli(project(tmp_path, DATA / "check", url), "link", "check")
    assert result.exit_code == 4
    assert f"kgprofiles: wikidata: cannot reach the Wikidata endpoint {url}: " in result.stderr
    assert "hint: check the network and the endpoint (--wikidata-endpoint" in result.stderr
    assert result.stdout == ""


def test_the_option_overrides_the_configured_endpoint(wikidata_endpoint: str, tmp_path: Path) -> None:
    root = project(tmp_path, DATA / "check", closed_port_url())
    result = run_cli(root, "link", "check", "--wikidata-endpoint", wikidata_endpoint)
    assert result.stdout.splitlines() == EXPECTED


def test_html_answer_is_an_error_at_the_command_too(fault_server: FaultServer, tmp_path: Path) -> None:
    url = fault_server.script("/sparql", html())
    result = run_cli(project(tmp_path, DATA / "check", url), "link", "check")
    assert result.exit_code == 4
    assert "answered text/html, not SPARQL results: an HTML page titled 'Wikimedia Error'" in result.stderr
    assert len(fault_server.requests("/sparql")) == 1


def test_waits_are_told_on_stderr(fault_server: FaultServer, tmp_path: Path) -> None:
    url = fault_server.script("/sparql", too_many("0"), ok(("item", "kind", "value"), []))
    result = run_cli(project(tmp_path, DATA / "check", url), "link", "check")
    assert "wikidata: 429 Too Many Requests; waiting 0.0 s (as Retry-After asks) before attempt 2 of 4" in result.stderr
    assert result.stdout.splitlines()[-1] == "summary: 7 link(s) checked: 7 missing"
    assert len(fault_server.requests("/sparql")) == 2


def test_client_settings_come_from_toml_then_environment_then_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KGPROFILES_WIKIDATA_CACHE")
    assert ClientConfig().endpoint == "https://query.wikidata.org/sparql"
    (tmp_path / "bare").mkdir()
    (tmp_path / "bare" / "kgprofiles.toml").write_text("[kgprofiles]\n", encoding="utf-8")
    bare = load_settings(tmp_path / "bare")
    assert client_config(bare).endpoint == config.DEFAULT_ENDPOINT  # (a closed port in the tests)
    settings = load_settings(project(tmp_path / "p", DATA / "check", "http://127.0.0.1:1/a", batch_size=50))
    assert client_config(settings).endpoint == "http://127.0.0.1:1/a"
    assert client_config(settings).batch_size == 50
    assert client_config(settings).cache_dir == settings.root / ".kgprofiles" / "cache" / "wikidata"
    monkeypatch.setenv("KGPROFILES_WIKIDATA_ENDPOINT", "http://127.0.0.1:2/b")
    assert client_config(settings).endpoint == "http://127.0.0.1:2/b"
    assert client_config(settings, endpoint="http://127.0.0.1:3/c").endpoint == "http://127.0.0.1:3/c"
    bad = load_settings(project(tmp_path / "bad", DATA / "check", batch_size=500))
    with pytest.raises(Exception, match="batch_size must be 1 to 200"):
        client_config(bad)


def test_build_and_serve_never_load_the_wikidata_code() -> None:
    code = (
        "import sys, kgprofiles.cli, kgprofiles.pipeline, kgprofiles.web.app; "
        "print(sorted(m for m in sys.modules if m.startswith('kgprofiles.link.') and m != 'kgprofiles.link.command'))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.strip() == "[]"
