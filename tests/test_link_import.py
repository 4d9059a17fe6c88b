"""`kgprofiles import wikidata Q…` against the local Wikidata fixture server: the draft's sources
match the item's references, every claim cites them and the item, dates keep their precision, and
the draft validates — or `validate` lists exactly what the curator must add."""

from __future__ import annotations

import json
from pathlib import Path

import pyoxigraph as ox
import pytest

from conftest import ROOT
from kgprofiles.config import Settings
from wikidata.faults import closed_port_url
from wikidata.project import DATA, copy_data, project, real_json_files, run_cli

pytest_plugins = ["wikidata.fixtures"]
pytestmark = [pytest.mark.realdata, pytest.mark.usefixtures("no_public_wikidata")]

KGP = "https://w3id.org/kgprofiles/ontology#"
ID = "https://w3id.org/kgprofiles/id/"
XSD = "http://www.w3.org/2001/XMLSchema#"
IMPORTED = ("P108", "P39", "P800", "P101")  # the item's own statements the draft holds


def graph(path: Path) -> ox.Store:
    store = ox.Store()
    store.load(path.read_bytes(), format=ox.RdfFormat.TURTLE, base_iri=path.resolve().as_uri())
    return store


def values(store: ox.Store, subject: str, predicate: str) -> set[str]:
    return {q.object.value for q in store.quads_for_pattern(ox.NamedNode(subject), ox.NamedNode(predicate), None)}


def wikidata_sources(store: ox.Store) -> set[str]:
    kind = ox.NamedNode(KGP + "sourceKind")
    return {q.subject.value for q in store.quads_for_pattern(None, kind, ox.Literal("Wikidata reference"))}


def test_q42_draft_sources_match_its_references(wikidata_endpoint: str, tmp_path: Path) -> None:
    draft = tmp_path / "q42.ttl"
    before = {p: p.read_bytes() for p in (ROOT / "data").rglob("*.ttl")}
    result = run_cli(project(tmp_path, ROOT / "data", wikidata_endpoint), "import", "wikidata", "Q42", "-o", str(draft))
    assert {p: p.read_bytes() for p in (ROOT / "data").rglob("*.ttl")} == before  # data/ is never written

    claims = json.loads(real_json_files()[0].read_text(encoding="utf-8"))["entities"]["Q42"]["claims"]
    expected: dict[str, set[str]] = {}  # statement value → its references' hashes
    for prop in IMPORTED:
        for statement in claims.get(prop, []):
            value = f"q{statement['mainsnak']['datavalue']['value']['numeric-id']}"
            expected[value] = {r["hash"][:12] for r in statement.get("references", [])}
    store = graph(draft)
    all_refs = set().union(*expected.values())
    assert all_refs  # Q42's notable works carry references
    assert wikidata_sources(store) == {f"{ID}source/wikidata-ref-{h}" for h in all_refs}
    item_source = f"{ID}source/wikidata-q42"
    assert values(store, item_source, KGP + "url") == {"https://www.wikidata.org/wiki/Q42"}
    for value, refs in expected.items():
        kind = "employer" if value == "q9531" else "work"
        cited = values(store, f"{ID}claim/douglas-adams-{kind}-{value}", KGP + "source")
        assert cited == {item_source} | {f"{ID}source/wikidata-ref-{h}" for h in refs}
    numbers = {q.object.value for q in store.quads_for_pattern(None, ox.NamedNode(KGP + "number"), None)}
    assert numbers == {str(n) for n in range(1, len(all_refs) + 2)}
    assert values(store, f"{ID}person/douglas-adams", KGP + "headline") == {"English writer and humorist"}

    # the fixture has no labels for Q9531, Q25169 and Q902712: validate says exactly what to add
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert (
        lines[0] == "wrote q42.ttl: person:douglas-adams from Q42, 3 source(s) (2 Wikidata reference(s) and the item)"
    )
    assert lines[1] == "`kgprofiles validate` lists 3 thing(s) the curator must add:"
    problems = [line.split(": violation: ", 1)[1] for line in lines[2:]]
    assert problems == [
        "An organisation needs exactly one kgp:name, a plain string. "
        "(organization:wikidata-q9531, kgp:name, kgs:OrganizationShape)",
        "A work needs exactly one kgp:title. (work:wikidata-q25169, kgp:title, kgs:WorkShape)",
        "A work needs exactly one kgp:title. (work:wikidata-q902712, kgp:title, kgs:WorkShape)",
    ]
    text = draft.read_text(encoding="utf-8")
    assert "# TODO: organization:wikidata-q9531: add kgp:name (Wikidata has no English label for Q9531)" in text


def test_a_fully_labelled_person_gives_a_draft_that_validates(wikidata_endpoint: str, tmp_path: Path) -> None:
    draft = tmp_path / "robin.ttl"
    root = project(tmp_path, DATA / "check", wikidata_endpoint)
    result = run_cli(root, "import", "wikidata", "Q99900000006", "-o", str(draft))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1].startswith("the draft validates (")
    store = graph(draft)
    claim = f"{ID}claim/robin-fixture-"

    def typed(subject: str, predicate: str) -> set[tuple[str, str]]:
        found = store.quads_for_pattern(ox.NamedNode(subject), ox.NamedNode(KGP + predicate), None)
        return {(q.object.value, q.object.datatype.value[len(XSD) :]) for q in found}

    # dates at Wikidata's precision: month, year, day, year
    assert typed(claim + "employer-q99900000005", "start") == {("2019-06", "gYearMonth")}
    assert typed(claim + "employer-q99900000005", "end") == {("2021", "gYear")}
    assert typed(claim + "employer-q99900000021", "start") == {("2021-09-01", "date")}
    assert typed(claim + "position-q99900000022", "start") == {("2022", "gYear")}
    # our linked organisation is reused; the unknown one is drafted with its link
    assert values(store, claim + "employer-q99900000005", KGP + "organization") == {f"{ID}organization/fixture-widgets"}
    assert values(store, claim + "position-q99900000022", KGP + "organization") == {
        f"{ID}organization/wikidata-q99900000021"
    }
    assert values(store, claim + "position-q99900000022", KGP + "title") == {"Fixture Chief Scientist"}
    assert values(store, claim + "work-q99900000024", KGP + "contributionKind") == {KGP + "Author"}
    assert values(store, f"{ID}work/wikidata-q99900000024", KGP + "date") == {"2020-03-15"}
    # one source per reference, with its URL and retrieval date
    cv = f"{ID}source/wikidata-ref-a1a1a1a1a1a1"
    assert wikidata_sources(store) == {
        cv,
        f"{ID}source/wikidata-ref-b2b2b2b2b2b2",
        f"{ID}source/wikidata-ref-c3c3c3c3c3c3",
    }
    assert values(store, cv, KGP + "url") == {"https://example.org/robin-fixture/cv"}
    assert values(store, cv, KGP + "retrieved") == {"2024-05-01"}
    assert values(store, cv, KGP + "site") == {"Fixture Annual Report"}
    assert values(store, f"{ID}person/robin-fixture", KGP + "source") == {f"{ID}source/wikidata-q99900000006", cv}


def test_the_default_path_is_under_data_people(wikidata_endpoint: str, tmp_path: Path) -> None:
    data = copy_data("check", tmp_path)
    root = project(tmp_path, data, wikidata_endpoint)
    result = run_cli(root, "import", "wikidata", "Q99900000006")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("wrote data/people/robin-fixture.ttl: person:robin-fixture from Q99900000006")
    assert run_cli(root, "validate").exit_code == 0
    again = run_cli(root, "import", "wikidata", "Q99900000006")
    assert again.exit_code == 2
    assert "Q99900000006 is already in the graph as person:robin-fixture" in again.stderr


def test_an_existing_file_is_never_overwritten_without_force(wikidata_endpoint: str, tmp_path: Path) -> None:
    draft = tmp_path / "robin.ttl"
    draft.write_text("# mine\n", encoding="utf-8")
    root = project(tmp_path, DATA / "check", wikidata_endpoint)
    result = run_cli(root, "import", "wikidata", "Q99900000006", "-o", str(draft))
    assert result.exit_code == 2 and "exists; nothing was written" in result.stderr
    assert draft.read_text(encoding="utf-8") == "# mine\n"
    assert run_cli(root, "import", "wikidata", "Q99900000006", "-o", str(draft), "--force").exit_code == 0


def test_a_redirect_is_followed_and_said(wikidata_endpoint: str, tmp_path: Path) -> None:
    draft = tmp_path / "kahn.ttl"
    root = project(tmp_path, DATA / "compare", wikidata_endpoint)
    result = run_cli(root, "import", "wikidata", "Q99900000001", "-o", str(draft))
    assert result.exit_code == 0, result.output
    assert "note: Q99900000001 redirects to Q131261; imported Q131261" in result.stdout
    assert values(graph(draft), f"{ID}person/oliver-kahn", "http://www.w3.org/2002/07/owl#sameAs") == {
        "http://www.wikidata.org/entity/Q131261"
    }


@pytest.mark.parametrize(
    ("qid", "message"),
    [
        ("Q99900000002", "Q99900000002 is not a human (instance of Q43229)"),
        ("Q6", "Wikidata has no item Q6"),
        ("X42", "not a Wikidata item id: 'X42'"),
        ("Q42", "Q42 is already in the graph as person:douglas-adams"),
    ],
)
def test_what_cannot_be_imported(wikidata_endpoint: str, tmp_path: Path, qid: str, message: str) -> None:
    draft = tmp_path / "draft.ttl"
    result = run_cli(
        project(tmp_path, DATA / "compare", wikidata_endpoint), "import", "wikidata", qid, "-o", str(draft)
    )
    assert result.exit_code == 2
    assert message in result.stderr
    assert not draft.exists()


def test_an_unreachable_endpoint_writes_nothing(tmp_path: Path) -> None:
    draft = tmp_path / "draft.ttl"
    result = run_cli(
        project(tmp_path, DATA / "compare", closed_port_url()), "import", "wikidata", "Q42", "-o", str(draft)
    )
    assert result.exit_code == 4
    assert "cannot reach the Wikidata endpoint" in result.stderr
    assert not draft.exists()


def test_import_knows_a_person_iri_already_in_use_before_minting_it(settings: Settings) -> None:
    """A new person whose slug is taken gets the Q-id appended: `iri-in-use` tells which."""
    from kgprofiles.link.local import LocalData
    from seed_ids import PERSON

    local = LocalData(settings)
    try:
        assert local.ask("iri-in-use", resource=ox.NamedNode(str(PERSON) + "horace-he"))
        assert not local.ask("iri-in-use", resource=ox.NamedNode(str(PERSON) + "nobody-by-this-slug"))
    finally:
        local.close()
