"""Every whole-graph form of a named query (``queries/<name>-whole.rq``, ``queries.whole_graph_form``)
gives the rows its query gives with no parameter bound, on three graphs; and a project's own
query is asked as it is, not the packaged whole-graph form."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from kgprofiles.config import SearchPath, Settings
from kgprofiles.queries import load_queries, select_rows, whole_graph_form
from kgprofiles.store.base import Term

ROOT = Path(__file__).resolve().parents[1]


def rows(result_rows: tuple[dict[str, Term], ...]) -> Counter[frozenset[tuple[str, Term]]]:
    return Counter(frozenset(row.items()) for row in result_rows)


def test_the_packaged_queries_have_whole_graph_forms(settings: Settings) -> None:
    queries = load_queries(settings.queries_dir)
    twins = sorted(name for name in queries if f"{name}-whole" in queries)
    assert twins == ["org-sizes", "people", "search-index", "search-index-links"]
    assert all(whole_graph_form(queries, name).name == f"{name}-whole" for name in twins)
    assert whole_graph_form(queries, "person").name == "person"  # (none: the query itself)


@pytest.mark.parametrize("graph", ["seed_store", "lives_store"])  # (100,000 people: bench/RESULTS.md)
def test_each_whole_graph_form_gives_its_querys_rows(
    graph: str, settings: Settings, request: pytest.FixtureRequest
) -> None:
    store = request.getfixturevalue(graph)
    queries = load_queries(settings.queries_dir)
    for name in (n for n in queries if f"{n}-whole" in queries):
        mine, whole = select_rows(store, queries[name], {}), select_rows(store, queries[f"{name}-whole"], {})
        assert whole.variables == mine.variables, name
        assert rows(whole.rows) == rows(mine.rows) and mine.rows, name


def test_a_projects_own_query_is_asked_as_it_is(settings: Settings, tmp_path: Path) -> None:
    (tmp_path / "queries").mkdir()
    (tmp_path / "queries" / "people.rq").write_text((ROOT / "queries" / "people.rq").read_text() + "\n# ours\n")
    queries = load_queries(SearchPath((*settings.queries_dir.dirs, tmp_path / "queries")))
    assert whole_graph_form(queries, "people").name == "people"
    assert whole_graph_form(queries, "org-sizes").name == "org-sizes-whole"
