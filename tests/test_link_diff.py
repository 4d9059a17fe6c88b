"""`kgprofiles link diff` against the local Wikidata fixture server: Q42 from the real JSON, and the
synthetic Robin Fixture for every case (agrees, differs, only ours, only Wikidata; dates at their
precision; employers, positions, works, fields of work)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wikidata.project import DATA, project, run_cli

pytest_plugins = ["wikidata.fixtures"]
pytestmark = [pytest.mark.realdata, pytest.mark.usefixtures("no_public_wikidata")]


def diff(root: Path, *args: str) -> list[str]:
    result = run_cli(root, "link", "diff", *args)
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def test_q42_differences(wikidata_endpoint: str, tmp_path: Path) -> None:
    lines = diff(project(tmp_path, DATA / "compare", wikidata_endpoint), "douglas-adams")
    assert lines[0].startswith("person:douglas-adams  Douglas Adams  ↔  Q42 Douglas Adams  (")
    assert lines[1:] == [
        "  name (label, aliases)",
        "    agrees         'Douglas Adams'",
        "  employers and positions (P108, P39; start P580, end P582)",
        "    agrees         employer BBC (Q9531)",
        "    only ours      start at BBC (Q9531): 1978 (year) (Wikidata has no P580)",
        "    only ours      end at BBC (Q9531): 1980 (year) (Wikidata has no P582)",
        "  works (P50 author, P800 notable work; date P577)",
        "    agrees         work The Hitchhiker's Guide to the Galaxy (Q25169): notable work (P800)",
        "    only Wikidata  work Q902712: notable work (P800)",
        "  fields of work (P101)",
        "    only ours      topic Science fiction: not a field of work (P101) on Wikidata",
        "  birth and death (P569, P570, P19, P20)",
        "    only Wikidata  date born: Mar 11, 1952 (day) (P569; we give none)",
        "    only Wikidata  place born: Q350 (P19)",
        "    only Wikidata  date died: May 11, 2001 (day) (P570; we give none)",
        "    only Wikidata  place died: Q159288 (P20)",
        "  education (P69; start P580, end P582)",
        "    only Wikidata  educated at Q35794, until 1974 (year)",
        "    only Wikidata  educated at Q691283",
        "    only Wikidata  educated at Q4961791",
        "  3 agree, 0 differ, 3 only ours, 8 only Wikidata",
        "summary: 1 person(s) compared: 3 agree, 0 differ, 3 only ours, 8 only Wikidata",
    ]


def test_every_case_with_dates_at_their_precision(wikidata_endpoint: str, tmp_path: Path) -> None:
    lines = diff(project(tmp_path, DATA / "compare", wikidata_endpoint), "Q99900000006")
    assert lines[1:] == [
        "  name (label, aliases)",
        "    agrees         'Robin Fixture'",
        "  employers and positions (P108, P39; start P580, end P582)",
        "    agrees         employer Fixture Widgets Ltd (Q99900000005)",
        "    differs        start at Fixture Widgets Ltd: ours 2019 (year), Wikidata Jun 2019 (month)"
        " (same at the coarser one)",
        "    agrees         end at Fixture Widgets Ltd: 2021 (year)",
        "    agrees         employer Fixture Institute (Q99900000021)",
        "    differs        start at Fixture Institute: ours Oct 1, 2021 (day), Wikidata Sep 1, 2021 (day)",
        "    agrees         position Fixture Chief Scientist (Q99900000022) of Fixture Institute",
        "    differs        start as Fixture Chief Scientist of Fixture Institute: ours Oct 1, 2021 (day),"
        " Wikidata 2022 (year)",
        "    only ours      role at Fixture Labs: no Wikidata statement",
        "  works (P50 author, P800 notable work; date P577)",
        "    agrees         work A Fixture Paper (Q99900000024): author (P50)",
        "    differs        date of A Fixture Paper: ours Mar 2020 (month), Wikidata Mar 15, 2020 (day)"
        " (same at the coarser one)",
        "    agrees         work Fixture Toolkit (Q99900000025): notable work (P800)",
        "    only ours      work An Essay Only We Know: Wikidata names no such work (P50, P800)",
        "  fields of work (P101)",
        "    agrees         field of work Fixture Studies (Q99900000023)",
        "    only ours      topic Other Fixture Topic: not a field of work (P101) on Wikidata",
        "  doctoral advisors and students (P184, P185)",
        "    only ours      doctoral student Sam Fixture (Q99900000008): no Wikidata statement",
        "  8 agree, 4 differ, 4 only ours, 0 only Wikidata",
        "summary: 1 person(s) compared: 8 agree, 4 differ, 4 only ours, 0 only Wikidata",
    ]


def test_all_linked_people_and_json(wikidata_endpoint: str, tmp_path: Path) -> None:
    root = project(tmp_path, DATA / "compare", wikidata_endpoint)
    assert diff(root, "--all")[-1] == "summary: 3 person(s) compared: 18 agree, 6 differ, 8 only ours, 9 only Wikidata"
    result = run_cli(root, "link", "diff", "--all", "--format", "json")
    found = {d["wikidata"]: d for d in json.loads(result.stdout)}
    assert found["Q42"]["summary"] == {"agrees": 3, "differs": 0, "only ours": 3, "only Wikidata": 8}
    assert {"section": "roles", "outcome": "only Wikidata", "text": "employer Q9531"} not in found["Q42"]["findings"]


def test_a_redirected_or_missing_item(wikidata_endpoint: str, tmp_path: Path) -> None:
    root = project(tmp_path, DATA / "check", wikidata_endpoint)
    redirected = diff(root, "oliver-kahn")
    assert redirected[0].startswith("person:oliver-kahn  Oliver Kahn  ↔  Q131261 Oliver Kahn")
    assert redirected[1:3] == [
        "  link",
        "    differs        our link Q99900000001 redirects to Q131261: compared with that",
    ]
    missing = diff(root, "missing-fixture")
    assert missing[1:4] == [
        "  link",
        "    only ours      Wikidata has no item Q6",
        "  0 agree, 0 differ, 1 only ours, 0 only Wikidata",
    ]


def test_a_person_without_a_link(wikidata_endpoint: str, tmp_path: Path) -> None:
    result = run_cli(project(tmp_path, DATA / "check", wikidata_endpoint), "link", "diff", "unlinked-fixture")
    assert result.exit_code == 2
    assert "unlinked-fixture has no Wikidata link" in result.stderr
    assert "hint: `kgprofiles link suggest` finds candidates" in result.stderr


def test_birth_places_awards_education_and_identifiers(wikidata_endpoint: str, tmp_path: Path) -> None:
    """Sam Fixture (synthetic): a birth date at a coarser precision, a linked birthplace, an award in
    another year, an education without its end, the same doctoral advisor, an ORCID iD both give and a
    GitHub account only we give."""
    lines = diff(project(tmp_path, DATA / "compare", wikidata_endpoint), "Q99900000008")
    assert lines[1:] == [
        "  name (label, aliases)",
        "    agrees         'Sam Fixture'",
        "  birth and death (P569, P570, P19, P20)",
        "    differs        date born: ours Feb 1970 (month), Wikidata Feb 3, 1970 (day) (same at the coarser one)",
        "    agrees         place born: Fixture City (Q99900000040)",
        "  awards (P166; point in time P585)",
        "    agrees         award Fixture Prize (Q99900000041)",
        "    differs        date of Fixture Prize: ours 2011 (year), Wikidata 2010 (year)",
        "  education (P69; start P580, end P582)",
        "    agrees         educated at Fixture University (Q99900000042)",
        "    agrees         start at Fixture University: 1992 (year)",
        "    only Wikidata  end at Fixture University: 1996 (year) (P582; we give none)",
        "  doctoral advisors and students (P184, P185)",
        "    agrees         doctoral advisor Robin Fixture (Q99900000006)",
        "  identifiers (P496 ORCID, P2456 DBLP, P1960 Google Scholar, P2037 GitHub)",
        "    agrees         ORCID 0000-0002-1825-0097",
        "    only ours      GitHub sam-fixture: Wikidata has no P2037",
        "  7 agree, 2 differ, 1 only ours, 1 only Wikidata",
        "summary: 1 person(s) compared: 7 agree, 2 differ, 1 only ours, 1 only Wikidata",
    ]
