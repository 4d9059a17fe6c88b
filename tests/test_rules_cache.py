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


@pytest.fixture(scope="module")
def ontology(settings: Settings) -> Graph:
    return load_ontology(settings.ontology_dir)


@pytest.fixture(scope="module")
def compiled(ontology: Graph, tmp_path_factory: pytest.TempPathFactory) -> tuple[RulesPlan, str]:
    """The project ontology's plan, compiled once (owlrl), and the file the cache wrote for it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KGPROFILES_CACHE_DIR", str(tmp_path_factory.mktemp("compiled")))
        patch.setattr(rules, "_PLANS", {})
        plan = compile_rules(ontology)
        (written,) = (rules_cache.cache_dir() / "rules").glob("*.json")
        return plan, written.read_text(encoding="utf-8")


def as_data(plan: RulesPlan) -> dict[str, object]:
    """The plan's fields, comparable (triples as sorted strings)."""
    out: dict[str, object] = {}
    for f in fields(plan):
        if f.name.startswith("_"):
            continue
        value = getattr(plan, f.name)
        out[f.name] = sorted(map(str, value)) if f.name in ("ontology_new", "ontology_triples") else value
    return out


def counting_compiler(monkeypatch: pytest.MonkeyPatch, plan: RulesPlan) -> list[Graph]:
    """From here on, compiling gives ``plan`` at once and is counted (no owlrl run)."""
    calls: list[Graph] = []

    def compile_(ontology: Graph, budget: object) -> RulesPlan:
        calls.append(ontology)
        return plan

    monkeypatch.setattr(rules, "_compile", compile_)
    return calls


def test_a_compiled_plan_is_read_back_whole(
    compiled: tuple[RulesPlan, str], cache: Path, ontology: Graph, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan, text = compiled
    path = rules_cache.plan_path(rules.ontology_key(ontology))
    assert path.parent == cache
    cache.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    calls = counting_compiler(monkeypatch, plan)
    assert as_data(compile_rules(ontology)) == as_data(plan)
    assert calls == [], "compiled again: the cache was not used"
    assert json.loads(text)["format"] == 1


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


DAMAGES = [
    pytest.param(lambda text: text[: len(text) // 2], id="truncated"),
    pytest.param(lambda text: "", id="empty"),
    pytest.param(lambda text: "[1, 2]", id="a list"),
    pytest.param(lambda text: text.replace('"ontology_new": "', '"ontology_new": "<not ntriples '), id="bad triples"),
    pytest.param(lambda text: text.replace('"chains": [', '"chains": [7, '), id="a chain of the wrong shape"),
    pytest.param(lambda text: text.replace('"superclasses": {', '"superclasses": {"x": 3, '), id="a wrong relation"),
    pytest.param(lambda text: text.replace('"format": 1', '"format": 99'), id="another format"),
]


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_plan_is_not_read(damage: object, compiled: tuple[RulesPlan, str], tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_text(compiled[1], encoding="utf-8")
    assert rules_cache.read_plan(path) is not None
    path.write_text(damage(compiled[1]), encoding="utf-8")  # type: ignore[operator]
    assert rules_cache.read_plan(path) is None


def test_a_damaged_plan_is_compiled_again_and_rewritten(
    compiled: tuple[RulesPlan, str], cache: Path, ontology: Graph, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan, text = compiled
    path = rules_cache.plan_path(rules.ontology_key(ontology))
    cache.mkdir(parents=True)
    path.write_text(text[:100], encoding="utf-8")
    calls = counting_compiler(monkeypatch, plan)
    assert compile_rules(ontology) is plan
    assert len(calls) == 1
    assert as_data(rules_cache.read_plan(path)) == as_data(plan)  # type: ignore[arg-type]


def test_a_cache_that_cannot_be_written_only_costs_the_compilation(
    compiled: tuple[RulesPlan, str], tmp_path: Path, ontology: Graph, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory", encoding="utf-8")
    monkeypatch.setenv("KGPROFILES_CACHE_DIR", str(blocked))
    monkeypatch.setattr(rules, "_PLANS", {})
    calls = counting_compiler(monkeypatch, compiled[0])
    assert compile_rules(ontology) is compiled[0]
    assert len(calls) == 1
    assert blocked.read_text(encoding="utf-8") == "not a directory"


def test_an_edited_ontology_has_a_plan_of_its_own(cache: Path, ontology: Graph) -> None:
    """Compiled for real (owlrl): a subclass added to the ontology is in the plan."""
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
    assert len(list(cache.glob("*.json"))) == 1


def test_the_default_place_is_the_users_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("KGPROFILES_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert rules_cache.cache_dir() == tmp_path / "kgprofiles"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert rules_cache.cache_dir() == tmp_path / "home" / ".cache" / "kgprofiles"
