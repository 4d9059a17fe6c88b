"""The Wikidata commands as a user runs them, against an endpoint that is broken or hostile: one
that never answers, one that redirects to another server (a canary that must see no request), one
whose labels are 10 MB long or carry Turtle meant to inject triples into the `import` draft. Each
command ends within its deadline with a one-line error and a hint, or writes a draft that holds
exactly the triples imported, the hostile text round-tripping as one literal.

The fake endpoint is the scripted FaultServer: `import wikidata` asks three queries in order
(the item, its statements, their references), so the script is three answers. Its items are
synthetic (Q999000000xx, "Fixture" names)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pyoxigraph as ox
import pytest

from kgprofiles.link.turtle import add_same_as
from kgprofiles.link.wikidata_errors import NotApplied
from wikidata.faults import FaultServer, Reply, answer, literal, redirect, silent, uri
from wikidata.project import DATA, copy_data, project, run_cli

pytest_plugins = ["wikidata.fixtures"]
pytestmark = pytest.mark.usefixtures("no_public_wikidata")

WD = "http://www.wikidata.org/entity/"
KGP = "https://w3id.org/kgprofiles/ontology#"
ID = "https://w3id.org/kgprofiles/id/"
PERSON_QID = "Q99900000090"
EMPLOYER_QID = "Q99900000091"
STATEMENT = f"http://www.wikidata.org/entity/statement/{PERSON_QID}-00000000-0000-4000-8000-000000000001"
REFERENCE = "http://www.wikidata.org/reference/" + "d4" * 20
HOSTILE = [
    'Fixture\n<http://example.org/a> <http://example.org/b> <http://example.org/c> .\n# "',
    'Fixture """ > . <http://example.org/x> a <http://example.org/Y> . """',
    "Fixture \\ \\\\ \\u0041 \\U00000041 \\n \\",
    "Fixture\r\u2028\u2029\u0085\x00\x1b[31m end",
    "Fixture ' '' ''' \" ; , . # [ ] ( )",
]


def person_script(label: str, qid: str = PERSON_QID, employer: str = WD + EMPLOYER_QID) -> list[Reply]:
    """The three answers `import wikidata` gets: a human named ``label`` (its description, its
    employer's label and its reference's title are ``label`` too), employed at ``employer``."""
    item = uri(WD + qid)
    entities = answer(
        ("item", "kind", "value"),
        [
            {"item": item, "kind": literal("label"), "value": literal(label, "en")},
            {"item": item, "kind": literal("description"), "value": literal(label, "en")},
            {"item": item, "kind": literal("type"), "value": uri(WD + "Q5")},
            {"item": item, "kind": literal("statements"), "value": literal("2")},
        ],
    )
    statements = answer(
        ("item", "prop", "statement", "rank", "value", "valueLabel"),
        [
            {
                "item": item,
                "prop": uri(WD + "P108"),
                "statement": uri(STATEMENT),
                "rank": uri("http://wikiba.se/ontology#NormalRank"),
                "value": uri(employer),
                "valueLabel": literal(label, "en"),
            }
        ],
    )
    references = answer(
        ("statement", "reference", "property", "value"),
        [
            {
                "statement": uri(STATEMENT),
                "reference": uri(REFERENCE),
                "property": uri("http://www.wikidata.org/prop/reference/P1476"),
                "value": literal(label, "en"),
            }
        ],
    )
    return [entities, statements, references]


def triples(path: Path) -> set[ox.Triple]:
    return {ox.Triple(q.subject, q.predicate, q.object) for q in ox.parse(path=path, format=ox.RdfFormat.TURTLE)}


def import_draft(fault_server: FaultServer, tmp_path: Path, label: str, name: str) -> tuple[Path, int]:
    url = fault_server.script("/sparql", *person_script(label))
    draft = tmp_path / f"{name}.ttl"
    root = project(tmp_path / name, DATA / "check", url)
    result = run_cli(root, "import", "wikidata", PERSON_QID, "--slug", "fixture-import", "-o", str(draft))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return draft, result.exit_code


def run_command(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m kgprofiles --project ROOT ARGS…`` in its own process, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "kgprofiles", "--project", str(root), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "KGPROFILES_WIKIDATA_CACHE": ""},
    )


# ------------------------------------------------------------------------------ deadline, redirect


def test_link_check_leaves_a_server_that_never_answers(fault_server: FaultServer, tmp_path: Path) -> None:
    url = fault_server.script("/sparql", silent())
    root = project(tmp_path, DATA / "check", url, connect_timeout_s=1, read_timeout_s=1)
    started = time.monotonic()
    done = run_command(root, "link", "check")
    elapsed = time.monotonic() - started
    assert done.returncode == 4
    assert elapsed < 6.0  # the deadline is 1 s; the rest is starting Python
    assert done.stderr.splitlines()[-2:] == [
        f"kgprofiles: wikidata: {url} did not answer within 1 s",
        "hint: the query may be too heavy or the service busy; try again later, or raise read_timeout_s "
        "in [kgprofiles.wikidata]",
    ]
    assert "Traceback" not in done.stderr
    assert len(fault_server.requests("/sparql")) == 1


def test_link_check_never_follows_a_redirect_to_another_server(fault_server: FaultServer, tmp_path: Path) -> None:
    with FaultServer() as canary:
        target = canary.script("/sparql", answer(("item", "kind", "value"), []))
        url = fault_server.script("/sparql", redirect(308, target))
        result = run_cli(project(tmp_path, DATA / "check", url), "link", "check")
        assert canary.requests() == []
    assert result.exit_code == 4
    assert f"kgprofiles: wikidata: {url} redirected (308) to {target}, another server: not followed" in result.stderr
    assert result.stdout == ""


def test_import_never_follows_a_redirect_to_another_server(fault_server: FaultServer, tmp_path: Path) -> None:
    draft = tmp_path / "draft.ttl"
    with FaultServer() as canary:
        target = canary.script("/sparql", *person_script("Fixture Person"))
        url = fault_server.script("/sparql", redirect(307, target))
        result = run_cli(project(tmp_path, DATA / "check", url), "import", "wikidata", PERSON_QID, "-o", str(draft))
        assert canary.requests() == []
    assert result.exit_code == 4
    assert "another server: not followed" in result.stderr
    assert not draft.exists()


# ------------------------------------------------------------------------------ texts in the draft


@pytest.mark.parametrize("label", HOSTILE, ids=["newline-triple", "triple-quotes", "backslashes", "controls", "punct"])
def test_a_hostile_label_is_one_literal_in_the_draft(fault_server: FaultServer, tmp_path: Path, label: str) -> None:
    """The hostile draft holds the same triples as a plainly named one, the hostile text in place
    of the plain name in each literal: it added, removed and changed nothing else."""
    plain, plain_exit = import_draft(fault_server, tmp_path, "Fixture Plain Name", "plain")
    hostile, hostile_exit = import_draft(fault_server, tmp_path, label, "hostile")
    assert hostile_exit == plain_exit == 0

    def with_plain_name(triple: ox.Triple) -> ox.Triple:
        obj = triple.object
        if isinstance(obj, ox.Literal) and label in obj.value:
            obj = ox.Literal(obj.value.replace(label, "Fixture Plain Name"), language=obj.language)
        return ox.Triple(triple.subject, triple.predicate, obj)

    assert {with_plain_name(t) for t in triples(hostile)} == triples(plain)
    person = ox.NamedNode(ID + "person/fixture-import")
    names = {t.object for t in triples(hostile) if t.subject == person and t.predicate.value == KGP + "name"}
    assert names == {ox.Literal(label)}
    text = hostile.read_text(encoding="utf-8")
    lines = text.split("\n")  # no line starts inside a hostile text: each is a comment, prefix, subject or pair
    assert all(not line or line.startswith(("#", "@prefix ", "    ")) or line[0].isalpha() for line in lines)


def test_a_ten_megabyte_label_is_left_out_of_the_draft(fault_server: FaultServer, tmp_path: Path) -> None:
    draft, exit_code = import_draft(fault_server, tmp_path, "A" * 10_000_000, "huge")
    assert exit_code == 1  # `validate` asks for the name Wikidata's answer could not give
    text = draft.read_text(encoding="utf-8")
    assert len(text) < 10_000
    assert f"# TODO: person:fixture-import: add kgp:name (Wikidata has no English label for {PERSON_QID})" in text


def test_the_notice_says_what_was_left_out(fault_server: FaultServer, tmp_path: Path) -> None:
    url = fault_server.script("/sparql", *person_script("A" * 2000))
    root = project(tmp_path, DATA / "check", url)
    result = run_cli(root, "import", "wikidata", PERSON_QID, "-o", str(tmp_path / "draft.ttl"))
    assert (
        f"wikidata: left out a value of 2,000 characters (?value of {WD}{PERSON_QID}): longer than the 1,000 kept "
        "(max_text_chars in [kgprofiles.wikidata])"
    ) in result.stderr.splitlines()
    assert "Traceback" not in result.output


def test_an_employer_that_is_not_an_item_is_left_out(fault_server: FaultServer, tmp_path: Path) -> None:
    """A "some value" employer (a blank-node IRI), or an IRI outside Wikidata, is never made into our IRIs."""
    for employer in ("http://www.wikidata.org/.well-known/genid/0123abc", "http://evil.example/Q1"):
        url = fault_server.script("/sparql", *person_script("Fixture Person", employer=employer))
        draft = tmp_path / "draft.ttl"
        result = run_cli(project(tmp_path, DATA / "check", url), "import", "wikidata", PERSON_QID, "-o", str(draft))
        assert result.exit_code == 0, result.output
        subjects = {t.subject.value for t in triples(draft)}
        assert not any(s.startswith((ID + "claim/", ID + "organization/")) for s in subjects)
        draft.unlink()


def test_a_reference_url_that_is_not_a_web_address_is_left_out(fault_server: FaultServer, tmp_path: Path) -> None:
    """A reference URL (P854) of ``javascript:`` or ``file:`` was written as the source's kgp:url
    (and as its title): data that `kgprofiles new source` refuses. Only http(s) addresses are
    kept; the others stay in the reference's comment, as text."""
    script = person_script("Fixture Person")
    reference_url = uri("http://www.wikidata.org/prop/reference/P854")
    values = ["javascript:alert(1)", "file:///etc/passwd", "https://example.org/ok"]
    references = answer(
        ("statement", "reference", "property", "value"),
        [
            {"statement": uri(STATEMENT), "reference": uri(REFERENCE), "property": reference_url, "value": uri(v)}
            for v in values
        ],
    )
    url = fault_server.script("/sparql", script[0], script[1], references)
    draft = tmp_path / "draft.ttl"
    result = run_cli(project(tmp_path, DATA / "check", url), "import", "wikidata", PERSON_QID, "-o", str(draft))
    assert result.exit_code == 0, result.output
    urls = {t.object.value for t in triples(draft) if t.predicate.value == KGP + "url"}
    titles = {t.object.value for t in triples(draft) if t.predicate.value == KGP + "title"}
    assert "https://example.org/ok" in urls and not any(u.startswith(("javascript:", "file:")) for u in urls)
    assert not any(t.startswith(("javascript:", "file:")) for t in titles)


@pytest.mark.parametrize("slug", ["x> . <http://example.org/a", "Fixture Name", "a\nb", "../escape", ""])
def test_a_slug_that_is_not_one_is_refused(fault_server: FaultServer, tmp_path: Path, slug: str) -> None:
    url = fault_server.script("/sparql", *person_script("Fixture Person"))
    draft = tmp_path / "draft.ttl"
    root = project(tmp_path, DATA / "check", url)
    result = run_cli(root, "import", "wikidata", PERSON_QID, "--slug", slug, "-o", str(draft))
    assert result.exit_code == 2
    assert "kgprofiles: input error: not a slug: " in result.stderr
    assert not draft.exists() and fault_server.requests() == []


def test_suggest_apply_writes_only_a_wikidata_item_link(tmp_path: Path) -> None:
    data = copy_data("suggest", tmp_path)
    path = next((data / "people").glob("*.ttl"))
    before = path.read_bytes()
    subject = next(t.subject.value for t in triples(path) if t.object.value == KGP + "Person")
    for target in (WD + "Q1> . <http://example.org/a", "http://evil.example/Q1", WD + "P31"):
        with pytest.raises(NotApplied):
            add_same_as(path, subject, target)
    assert path.read_bytes() == before


# ------------------------------------------------------------------------------ the limits' settings


@pytest.mark.parametrize(
    ("setting", "value", "message"),
    [
        ("read_timeout_s", 0, "wikidata.read_timeout_s must be more than 0, not 0.0"),
        ("query_budget_s", -1, "wikidata.query_budget_s must be more than 0, not -1.0"),
        ("max_bytes", 0, "wikidata.max_bytes must be more than 0, not 0"),
        ("max_text_chars", "many", "wikidata.max_text_chars = 'many' is not a number"),
        ("max_retry_after_s", 30, "unknown setting wikidata.max_retry_after_s"),
    ],
)
def test_a_limit_that_cannot_hold_is_refused(tmp_path: Path, setting: str, value: object, message: str) -> None:
    result = run_cli(project(tmp_path, DATA / "check", **{setting: value}), "link", "check")
    assert result.exit_code == 2
    assert result.stderr.startswith("kgprofiles: input error: ") and message in result.stderr


@pytest.mark.parametrize("endpoint", ["file:///etc/hosts", "ftp://127.0.0.1/sparql", "http:///sparql", "query"])
def test_an_endpoint_that_is_not_an_http_url_is_refused(tmp_path: Path, endpoint: str) -> None:
    root = project(tmp_path, DATA / "check")
    result = run_cli(root, "link", "check", "--wikidata-endpoint", endpoint)
    assert result.exit_code == 2
    assert result.stderr.startswith(
        f"kgprofiles: input error: the Wikidata endpoint must be an http or https URL, not {endpoint!r}"
    )


def test_the_readme_lists_the_limits_and_their_defaults() -> None:
    import tomllib

    from conftest import ROOT
    from kgprofiles.link.wikidata_settings import ClientConfig

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```toml\n[kgprofiles.wikidata]\n", 1)[1].split("```", 1)[0]
    listed = tomllib.loads(block)
    assert set(listed) == {"connect_timeout_s", "read_timeout_s", "query_budget_s", "max_bytes", "max_text_chars"}
    assert listed == {name: getattr(ClientConfig(), name) for name in listed}
