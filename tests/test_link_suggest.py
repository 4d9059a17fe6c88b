"""`kgprofiles link suggest` against the local Wikidata fixture server: candidates ranked with their
evidence, and `--apply` as one clean edit of a COPY of the data files (never of data/), refused
below the threshold without --yes, and on ties."""

from __future__ import annotations

import json
from pathlib import Path

import pyoxigraph as ox
import pytest

from kgprofiles.link.turtle import add_same_as, triples_of
from kgprofiles.link.wikidata_errors import NotApplied
from wikidata.project import DATA, copy_data, project, run_cli

pytest_plugins = ["wikidata.fixtures"]
pytestmark = [pytest.mark.realdata, pytest.mark.usefixtures("no_public_wikidata")]

PERSON = "https://w3id.org/kgprofiles/id/person/"
WD = "http://www.wikidata.org/entity/"
SAME_AS = "<http://www.w3.org/2002/07/owl#sameAs>"


def suggest_json(root: Path, *args: str) -> dict[str, dict]:
    result = run_cli(root, "link", "suggest", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    return {s["entity"].rsplit("/", 1)[1]: s for s in json.loads(result.stdout)}


def test_the_right_item_ranks_first_with_its_evidence(wikidata_endpoint: str, tmp_path: Path) -> None:
    found = suggest_json(project(tmp_path, DATA / "suggest", wikidata_endpoint), "--all")
    adams = found["douglas-adams"]
    assert [(c["wikidata"], c["score"]) for c in adams["candidates"]] == [("Q42", 0.85), ("Q99900000003", 0.5)]
    assert [e["text"] for e in adams["candidates"][0]["evidence"]] == [
        "the label 'Douglas Adams' is our name",
        "shared employer BBC (Q9531), via employer (P108)",
        "work The Hitchhiker's Guide to the Galaxy (Q25169), notable work (P800)",
    ]
    assert [(c["wikidata"], c["excluded"]) for c in adams["excluded"]] == [
        ("Q99900000004", "not a human (instance of Q482994)")
    ]
    widgets = found["fixture-widgets"]
    assert [(c["wikidata"], c["score"]) for c in widgets["candidates"]] == [("Q99900000005", 0.7)]
    assert [e["text"] for e in widgets["candidates"][0]["evidence"]] == [
        "the alias 'Fixture Widgets' is our name",
        "employer of Q99900000006 (Robin Fixture), who has a role here in our data",
    ]
    assert found["nomatch-fixture"]["candidates"] == []
    assert "robin-fixture" not in found  # already linked


def test_text_output(wikidata_endpoint: str, tmp_path: Path) -> None:
    result = run_cli(project(tmp_path, DATA / "suggest", wikidata_endpoint), "link", "suggest", "douglas-adams")
    lines = result.stdout.splitlines()
    assert lines[0].startswith("person:douglas-adams  Douglas Adams  (")
    assert lines[1:] == [
        "  1. Q42           0.85  Douglas Adams — English writer and humorist",
        "       +0.50 the label 'Douglas Adams' is our name",
        "       +0.20 shared employer BBC (Q9531), via employer (P108)",
        "       +0.15 work The Hitchhiker's Guide to the Galaxy (Q25169), notable work (P800)",
        "  2. Q99900000003  0.50  Douglas Adams — synthetic test item: a namesake of Q42 for ranking"
        "  (below the threshold)",
        "       +0.50 the label 'Douglas Adams' is our name",
        "  excluded: Q99900000004 Douglas Adams: not a human (instance of Q482994)",
        "summary: 1 without a link, 1 with candidates, 1 at or above 0.80",
    ]
    assert result.exit_code == 0


def test_apply_is_one_clean_edit(wikidata_endpoint: str, tmp_path: Path) -> None:
    data = copy_data("suggest", tmp_path)
    path = data / "people" / "douglas-adams.ttl"
    before = path.read_text(encoding="utf-8")
    result = run_cli(project(tmp_path, data, wikidata_endpoint), "link", "suggest", "douglas-adams", "--apply")
    assert result.exit_code == 0, result.output
    assert "applied: person:douglas-adams owl:sameAs wd:Q42 in " in result.stdout
    after = path.read_text(encoding="utf-8")
    added = [line for line in after.splitlines() if line not in before.splitlines()]
    assert added == [
        "@prefix owl:          <http://www.w3.org/2002/07/owl#> .",
        "@prefix wd:           <http://www.wikidata.org/entity/> .",
        "    owl:sameAs wd:Q42 ;",
    ]
    assert [line for line in after.splitlines() if line not in added] == before.splitlines()
    base = path.resolve().as_uri()
    assert triples_of(after, base) == triples_of(before, base) | {f"<{PERSON}douglas-adams> {SAME_AS} <{WD}Q42>"}
    # the data under tests/ is untouched, and the link now checks out
    assert "owl:sameAs" not in (DATA / "suggest" / "people" / "douglas-adams.ttl").read_text(encoding="utf-8")
    check = run_cli(project(tmp_path, data, wikidata_endpoint), "link", "check", "--format", "json")
    statuses = {r["entity"]: r["status"] for r in json.loads(check.stdout)["links"]}
    assert statuses[PERSON + "douglas-adams"] == "ok"


def test_apply_refuses_below_the_threshold_without_yes(wikidata_endpoint: str, tmp_path: Path) -> None:
    data = copy_data("suggest", tmp_path)
    path = data / "people" / "jordan-fixture.ttl"
    before = path.read_bytes()
    root = project(tmp_path, data, wikidata_endpoint)
    refused = run_cli(root, "link", "suggest", "jordan-fixture", "--apply")
    assert refused.exit_code == 1
    assert refused.stderr == (
        "kgprofiles: not applied: person:jordan-fixture: the best candidate Q99900000007 scores 0.50, below the "
        "threshold 0.80; check it, then give --yes to apply it anyway\n"
    )
    assert path.read_bytes() == before
    applied = run_cli(root, "link", "suggest", "jordan-fixture", "--apply", "--yes")
    assert applied.exit_code == 0, applied.output
    text = path.read_text(encoding="utf-8")
    assert text.endswith(
        'person:jordan-fixture a kgp:Person ; kgp:name "Jordan Fixture" ; kgp:source source:suggest-fixture ;\n'
        "    owl:sameAs wd:Q99900000007 .\n"
    )
    assert text.count("@prefix") == before.decode().count("@prefix")  # owl: and wd: were declared already


def test_a_lower_threshold_is_the_curators_call(wikidata_endpoint: str, tmp_path: Path) -> None:
    data = copy_data("suggest", tmp_path)
    root = project(tmp_path, data, wikidata_endpoint)
    result = run_cli(root, "link", "suggest", "jordan-fixture", "--apply", "--threshold", "0.5")
    assert result.exit_code == 0, result.output


def test_apply_all_applies_what_passes_and_lists_the_rest(wikidata_endpoint: str, tmp_path: Path) -> None:
    data = copy_data("suggest", tmp_path)
    result = run_cli(project(tmp_path, data, wikidata_endpoint), "link", "suggest", "--all", "--apply")
    assert result.exit_code == 0, result.output
    assert [line for line in result.stdout.splitlines() if line.startswith("applied:")] == [
        "applied: person:douglas-adams owl:sameAs wd:Q42 in data/people/douglas-adams.ttl"
    ]
    assert "not applied: organization:fixture-widgets: the best candidate Q99900000005 scores 0.70" in result.stderr
    assert "not applied: person:nomatch-fixture: no candidate" in result.stderr


def test_a_tie_is_never_applied(wikidata_endpoint: str, tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "namesake.ttl").write_text(
        "@prefix kgp: <https://w3id.org/kgprofiles/ontology#> .\n<https://w3id.org/kgprofiles/id/person/da> a "
        'kgp:Person ; kgp:name "Douglas Adams" .\n',
        encoding="utf-8",
    )
    result = run_cli(project(tmp_path, data, wikidata_endpoint), "link", "suggest", "da", "--apply", "--yes")
    assert result.exit_code == 1
    assert "Q42 and Q99900000003 tie at 0.50; add the right link by hand" in result.stderr


def test_a_linked_person_is_not_suggested_for(wikidata_endpoint: str, tmp_path: Path) -> None:
    result = run_cli(project(tmp_path, DATA / "suggest", wikidata_endpoint), "link", "suggest", "robin-fixture")
    assert result.exit_code == 2
    assert "robin-fixture is already linked to Wikidata (http://www.wikidata.org/entity/Q99900000006)" in result.stderr


def test_a_person_or_all_is_required(tmp_path: Path) -> None:
    result = run_cli(project(tmp_path, DATA / "suggest"), "link", "suggest")
    assert result.exit_code == 2
    assert "give a person or organisation, or --all" in result.stderr


# ------------------------------------------------------------------------------ the edit itself


def edit(tmp_path: Path, text: str, subject: str = PERSON + "x", target: str = WD + "Q1") -> str:
    path = tmp_path / "f.ttl"
    path.write_bytes(text.encode("utf-8"))
    change = add_same_as(path, subject, target)
    change.write()
    after = path.read_bytes().decode("utf-8")
    base = path.resolve().as_uri()
    assert triples_of(after, base) == triples_of(text, base) | {f"<{subject}> {SAME_AS} <{target}>"}
    return after


def test_edit_finds_the_statement_past_strings_comments_and_blank_nodes(tmp_path: Path) -> None:
    text = (
        "@prefix p: <https://w3id.org/kgprofiles/id/person/> .\n"
        "@prefix k: <https://w3id.org/kgprofiles/ontology#> .\n"
        "# p:x a k:Person . (a comment that looks like the subject)\n"
        'p:y k:name "p:x ; not this ." .\n'
        "p:x a k:Person ;\n"
        '\tk:name """A ; multi-line . name\n"""@en ;\n'
        '\tk:about [ k:name "nested ; one" ; k:rank 1.5 ] .\n'
    )
    lines = edit(tmp_path, text).splitlines()
    at = lines.index("p:x a k:Person ;")
    assert lines[at : at + 3] == ["p:x a k:Person ;", "\towl:sameAs wd:Q1 ;", '\tk:name """A ; multi-line . name']
    assert lines[2:4] == [
        "@prefix owl: <http://www.w3.org/2002/07/owl#> .",
        "@prefix wd: <http://www.wikidata.org/entity/> .",
    ]


def test_edit_reuses_declared_prefixes_and_spells_iris_where_a_name_is_taken(tmp_path: Path) -> None:
    text = (
        "PREFIX o: <http://www.w3.org/2002/07/owl#>\n"
        "PREFIX wd: <https://example.org/not-wikidata/>\n"
        "<https://w3id.org/kgprofiles/id/person/x> a <https://w3id.org/kgprofiles/ontology#Person> .\n"
    )
    after = edit(tmp_path, text)
    assert after == (
        "PREFIX o: <http://www.w3.org/2002/07/owl#>\n"
        "PREFIX wd: <https://example.org/not-wikidata/>\n"
        "<https://w3id.org/kgprofiles/id/person/x> a <https://w3id.org/kgprofiles/ontology#Person> ;\n"
        "    o:sameAs <http://www.wikidata.org/entity/Q1> .\n"
    )


def test_edit_adds_prefixes_in_the_files_style_and_keeps_crlf(tmp_path: Path) -> None:
    text = (
        "PREFIX person: <https://w3id.org/kgprofiles/id/person/>\r\n\r\nperson:x a person:Kind ;\r\n  person:n 1 .\r\n"
    )
    after = edit(tmp_path, text)
    assert after == (
        "PREFIX person: <https://w3id.org/kgprofiles/id/person/>\r\n"
        "PREFIX owl: <http://www.w3.org/2002/07/owl#>\r\n"
        "PREFIX wd: <http://www.wikidata.org/entity/>\r\n"
        "\r\nperson:x a person:Kind ;\r\n  owl:sameAs wd:Q1 ;\r\n  person:n 1 .\r\n"
    )


def test_edit_of_an_existing_link_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "f.ttl"
    path.write_text(f"<{PERSON}x> {SAME_AS} <{WD}Q1> .\n", encoding="utf-8")
    assert not add_same_as(path, PERSON + "x", WD + "Q1").changed


def test_edit_refuses_a_subject_the_file_does_not_hold(tmp_path: Path) -> None:
    path = tmp_path / "f.ttl"
    path.write_text(f"<{PERSON}y> a <{PERSON}Kind> .\n", encoding="utf-8")
    with pytest.raises(NotApplied):
        add_same_as(path, PERSON + "x", WD + "Q1")
    assert ox.NamedNode(PERSON + "x")  # nothing else to clean up: nothing was written


def test_json_output_stays_one_document_when_applying(wikidata_endpoint: str, tmp_path: Path) -> None:
    data = copy_data("suggest", tmp_path)
    root = project(tmp_path, data, wikidata_endpoint)
    result = run_cli(root, "link", "suggest", "douglas-adams", "--apply", "--format", "json")
    assert result.exit_code == 0, result.output
    assert [s["candidates"][0]["wikidata"] for s in json.loads(result.stdout)] == ["Q42"]
    assert "applied: person:douglas-adams owl:sameAs wd:Q42" in result.stderr


def test_two_edits_of_one_file_at_once_are_made_one_after_the_other(tmp_path: Path) -> None:
    """Two `link suggest --apply` of one file at once (two organisations of organizations.ttl):
    each read the file, then replaced it with its own edit, so the second's replaced the first's.
    Under ``editing`` the second waits, then reads the first's result: both links are kept."""
    import threading

    from kgprofiles.link.turtle import editing

    path = tmp_path / "f.ttl"
    path.write_text(f"<{PERSON}x> a <{PERSON}Kind> .\n<{PERSON}y> a <{PERSON}Kind> .\n", encoding="utf-8")
    first_read = threading.Event()
    second_waiting = threading.Event()

    def first() -> None:
        with editing(path):
            change = add_same_as(path, PERSON + "x", WD + "Q1")
            first_read.set()
            second_waiting.wait(timeout=10)  # (the second is at the lock: it must wait for this write)
            change.write()

    def second() -> None:
        first_read.wait(timeout=10)
        second_waiting.set()
        with editing(path):
            add_same_as(path, PERSON + "y", WD + "Q2").write()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    base = path.resolve().as_uri()
    assert {f"<{PERSON}x> {SAME_AS} <{WD}Q1>", f"<{PERSON}y> {SAME_AS} <{WD}Q2>"} <= triples_of(path.read_text(), base)
