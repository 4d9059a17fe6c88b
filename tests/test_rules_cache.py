"""The compiled rules are kept on disk (``fast/rules_cache.py``): a later process reads the plan
instead of running owlrl over the ontology again, gets exactly the plan it would have compiled, and a
damaged or unwritable cache only costs the compilation."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest
from rdflib import Graph

from kgprofiles.config import Settings
from kgprofiles.fast import rules, rules_cache
from kgprofiles.fast.rules import RulesPlan, compile_rules
from kgprofiles.validate import load_ontology


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache directory, and no plan compiled yet in this process."""
    monkeypatch.setenv("KGPROFILES_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(rules, "_PLANS", {})
    return tmp_path / "cache" / "rules"


@pytest.fixture
def ontology(settings: Settings) -> Graph:
    return load_ontology(settings.ontology_dir)


def as_data(plan: RulesPlan) -> dict[str, object]:
    """The plan's fields, comparable (triples as sorted strings)."""
    out: dict[str, object] = {}
    for f in fields(plan):
        if f.name.startswith("_"):
            continue
        value = getattr(plan, f.name)
        out[f.name] = sorted(map(str, value)) if f.name in ("ontology_new", "ontology_triples") else value
    return out


def no_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    """From here on, a plan can only come from the cache (or the process's own memory)."""
    monkeypatch.setattr(rules, "_PLANS", {})

    def refuse(*_: object) -> RulesPlan:
        raise AssertionError("compiled again: the cache was not used")

    monkeypatch.setattr(rules, "_compile", refuse)


def test_a_compiled_plan_is_read_back_whole(cache: Path, ontology: Graph, monkeypatch: pytest.MonkeyPatch) -> None:
    compiled = compile_rules(ontology)
    (written,) = cache.glob("*.json")
    no_compiling(monkeypatch)
    assert as_data(compile_rules(ontology)) == as_data(compiled)
    assert json.loads(written.read_text(encoding="utf-8"))["format"] == 1
    assert not list(cache.glob(".rules-*")), "no temporary file left behind"


def test_the_ontology_has_the_same_blank_nodes_in_every_process(settings: Settings) -> None:
    """The cache is found by the ontology's content, labels included: the parser's are random."""
    dump = "import sys, pathlib; from kgprofiles.validate import load_ontology as l; "
    dump += "print(sorted(' '.join(t.n3() for t in triple) for triple in l(pathlib.Path(sys.argv[1]))))"
    runs = {
        subprocess.run(
            [sys.executable, "-c", dump, str(settings.ontology_dir)], capture_output=True, text=True, check=True
        ).stdout
        for _ in range(2)
    }
    assert len(runs) == 1
    assert "_:" in runs.pop(), "the ontology has blank nodes (lists, the property chain's inverse)"


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda text: text[: len(text) // 2], id="truncated"),
        pytest.param(lambda text: "", id="empty"),
        pytest.param(lambda text: "[1, 2]", id="a list"),
        pytest.param(
            lambda text: text.replace('"ontology_new": "', '"ontology_new": "<not ntriples '), id="bad triples"
        ),
        pytest.param(lambda text: text.replace('"chains": [', '"chains": [7, '), id="a chain of the wrong shape"),
        pytest.param(lambda text: text.replace('"format": 1', '"format": 99'), id="another format"),
    ],
)
def test_a_damaged_plan_is_compiled_again_and_rewritten(
    damage: object, cache: Path, ontology: Graph, monkeypatch: pytest.MonkeyPatch
) -> None:
    compiled = compile_rules(ontology)
    (written,) = cache.glob("*.json")
    written.write_text(damage(written.read_text(encoding="utf-8")), encoding="utf-8")  # type: ignore[operator]
    monkeypatch.setattr(rules, "_PLANS", {})
    assert as_data(compile_rules(ontology)) == as_data(compiled)
    assert rules_cache.read_plan(written) is not None, "the damaged file was written again"


def test_a_cache_that_cannot_be_written_only_costs_the_compilation(
    tmp_path: Path, ontology: Graph, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory", encoding="utf-8")
    monkeypatch.setenv("KGPROFILES_CACHE_DIR", str(blocked))
    monkeypatch.setattr(rules, "_PLANS", {})
    assert compile_rules(ontology).unsupported == []
    assert blocked.read_text(encoding="utf-8") == "not a directory"


def test_an_edited_ontology_has_a_plan_of_its_own(cache: Path, ontology: Graph) -> None:
    compile_rules(ontology)
    edited = Graph()
    edited += ontology
    edited.parse(
        data="@prefix kgp: <https://w3id.org/kgprofiles/ontology#> . "
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . kgp:Curator rdfs:subClassOf kgp:Person .",
        format="turtle",
    )
    plan = compile_rules(edited)
    assert (
        "<https://w3id.org/kgprofiles/ontology#Person>"
        in plan.superclasses["<https://w3id.org/kgprofiles/ontology#Curator>"]
    )
    assert len(list(cache.glob("*.json"))) == 2


def test_the_default_place_is_the_users_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("KGPROFILES_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert rules_cache.cache_dir() == tmp_path / "kgprofiles"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert rules_cache.cache_dir() == tmp_path / "home" / ".cache" / "kgprofiles"
