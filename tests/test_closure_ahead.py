"""A build's closure starts as soon as the files are parsed; over large data it runs in a child
process, on the other core while the data is stored and validated (``pipeline.CLOSURE_IN_CHILD_ABOVE``
triples). Here the threshold is set to 0, so that the seed data takes that path: the same inferred
graph as the passes give in the build's own process, the same budget errors, and no process left
behind when the data is refused."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import kgprofiles.fast.inference as inference_module
import kgprofiles.pipeline as pipeline
from kgprofiles.budget import BudgetExceeded
from kgprofiles.config import Settings, load_settings
from kgprofiles.errors import ValidationFailed
from kgprofiles.killable import Killable
from kgprofiles.store import generations
from kgprofiles.store.oxigraph import OxigraphStore
from kgprofiles.vocab import INFERRED_GRAPH
from test_budgets import cycle, make_project

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def children(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every build takes the child path; what each child was started for."""
    started: list[str] = []

    class Counted(Killable):
        def __init__(self, *args: object) -> None:
            started.append(str(args[-1]))
            super().__init__(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(pipeline, "CLOSURE_IN_CHILD_ABOVE", 0)
    monkeypatch.setattr(inference_module, "Killable", Counted)
    yield started


def inferred(store: OxigraphStore) -> set[str]:
    rows = store.query(f"SELECT ?s ?p ?o WHERE {{ GRAPH <{INFERRED_GRAPH}> {{ ?s ?p ?o }} }}").rows
    return {f"{r['s']} {r['p']} {r['o']}" for r in rows}


def test_the_child_infers_what_the_build_process_infers(
    settings: Settings, seed_store: OxigraphStore, children: list[str], no_process_left_behind: None
) -> None:
    store = OxigraphStore("memory:")
    report = pipeline.build(settings, store=store)
    assert children == ["the OWL RL closure"]
    assert inferred(store) == inferred(seed_store)
    assert report.inferred == len(inferred(seed_store)) > 900


def test_an_on_disk_build_through_the_child_publishes_the_same_graph(
    tmp_path: Path, settings: Settings, seed_store: OxigraphStore, children: list[str]
) -> None:
    location = tmp_path / "store"
    pipeline.build(settings.with_overrides(store=location))
    assert children == ["the OWL RL closure"]
    with OxigraphStore(location, read_only=True) as built:
        assert inferred(built) == inferred(seed_store)
    assert not list(tmp_path.rglob("inferred.nt"))  # the passes' file went with the build's scratch


def test_refused_data_stops_the_child_and_publishes_nothing(
    tmp_path: Path, children: list[str], monkeypatch: pytest.MonkeyPatch, no_process_left_behind: None
) -> None:
    """The child is made to sleep a minute instead of running the passes: the refusal must kill it."""
    make = inference_module.Killable
    monkeypatch.setattr(inference_module, "Killable", lambda _f, _a, *rest: make(time.sleep, (60,), *rest))
    refused = ROOT / "tests" / "fixtures" / "broken" / "role-without-holder.ttl"
    root = make_project(tmp_path, data={"refused.ttl": refused.read_text(encoding="utf-8")})
    started = time.monotonic()
    with pytest.raises(ValidationFailed):
        pipeline.build(load_settings(root))
    assert time.monotonic() - started < 30
    assert children == ["the OWL RL closure"]
    assert generations.current(root / ".kgprofiles" / "store") is None


def test_the_child_stops_at_the_triple_allowance(tmp_path: Path, children: list[str]) -> None:
    """1,000 people, each owl:sameAs the next (test_budgets: the closure would hold a million links)."""
    root = make_project(tmp_path, data={"people.ttl": cycle(1000, "owl:sameAs", typed=True)})
    with pytest.raises(BudgetExceeded, match="inference stopped at its budget: more than"):
        pipeline.build(load_settings(root))
    assert children == ["the OWL RL closure"]
    assert generations.current(root / ".kgprofiles" / "store") is None
