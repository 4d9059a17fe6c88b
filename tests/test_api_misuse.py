"""The public API (``kgprofiles.Project``, ``Graph``) used wrongly or carelessly: every mistake a
caller can make is a KgError with a message and a hint, and every query runs under a budget."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import kgprofiles
from kgprofiles.errors import LimitHit

ROOT = Path(__file__).resolve().parents[1]
#: Every triple against every triple, three times over: years of work on the seed graph.
ENDLESS = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> kgprofiles.Project:
    """A project over the seed data whose queries may run for one second, built once."""
    root = tmp_path_factory.mktemp("project")
    (root / "kgprofiles.toml").write_text(f"[kgprofiles]\ndata = {str(ROOT / 'data')!r}\nquery_timeout_s = 1\n")
    built = kgprofiles.Project(root)
    built.build()
    return built


@pytest.fixture
def graph(project: kgprofiles.Project) -> Iterator[kgprofiles.Graph]:
    with project.open() as opened:
        yield opened


def test_a_sparql_query_that_would_run_for_ever_stops_at_the_time_limit(graph: kgprofiles.Graph) -> None:
    started = time.monotonic()
    with pytest.raises(LimitHit, match="time limit hit") as stopped:
        graph.sparql(ENDLESS)
    assert stopped.value.which == "time" and stopped.value.hint
    assert time.monotonic() - started < 15
    assert graph.sparql("ASK { ?s ?p ?o }") is True  # the graph is still usable
