"""The in-memory related-people index gives exactly what the per-person queries give: the same
people, scores, components, reasons and order, for every person, limit and weighting; and so do
the per-person queries with a limit (which read the people who share only topics with a bound)."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from kgprofiles.config import Settings
from kgprofiles.errors import QueryError
from kgprofiles.pipeline import build
from kgprofiles.profiles import Views
from kgprofiles.queries import load_queries
from kgprofiles.related import related_people
from kgprofiles.related_index import BATCH, RelatedIndex
from kgprofiles.store.oxigraph import OxigraphStore

ROOT = Path(__file__).resolve().parents[1]
LIMITS = (None, 1, 3, 10, 25)
#: The limits the per-person queries are also run with (each run costs a few milliseconds).
BOUNDED_LIMITS = (1, 10)


def assert_same_as_queries(
    store: OxigraphStore,
    settings: Settings,
    weights: dict[str, float] | None = None,
    every: int = 1,
    bounded_every: int = 1,
) -> int:
    """Compare the index with the per-person queries for every ``every``-th person, and the
    per-person queries with a limit for every ``bounded_every``-th of those; how many (person,
    limit) pairs were compared."""
    queries = load_queries(settings.queries_dir)
    index = RelatedIndex(store, queries, weights)
    compared = 0
    for position, person in enumerate(index.people[::every]):
        everyone = related_people(store, queries, person, weights)  # type: ignore[arg-type]
        for limit in LIMITS:  # related_people(..., limit) is everyone[:limit], read with a bound
            assert index.related(person, limit) == everyone[:limit], (person, limit)
            if limit in BOUNDED_LIMITS and position % bounded_every == 0:
                assert related_people(store, queries, person, weights, limit) == everyone[:limit], (person, limit)
            compared += 1
    return compared


def test_the_index_ranks_the_seed_people_as_the_queries_do(seed_store: OxigraphStore, settings: Settings) -> None:
    assert assert_same_as_queries(seed_store, settings) == 11 * len(LIMITS)


def test_the_index_gives_horace_he_the_seed_pages_related_people(seed_store: OxigraphStore, settings: Settings) -> None:
    index = RelatedIndex(seed_store, load_queries(settings.queries_dir))
    people = index.related("https://w3id.org/kgprofiles/id/person/horace-he", 6)
    assert [(p.name, p.reason) for p in people] == [
        ("Greg Chanan", "Also at PyTorch"),
        ("Jane Xu", "Also at PyTorch"),
        ("Joe Spisak", "Also at PyTorch"),
        ("Mikayla Gawarecki", "Also at PyTorch"),
        ("Piotr Bialecki", "Also at PyTorch"),
        ("Chris Lattner", "ML frameworks and libraries · Inference and serving"),
    ]


def test_the_index_ranks_the_lives_fixture_as_the_queries_do(settings: Settings) -> None:
    """Shared prizes, a supervision, shared events, roles at points in time and overlapping roles
    (tests/fixtures/lives): the new evidence, the same ranks both ways."""
    store = OxigraphStore("memory:")
    build(settings.with_overrides(data_dir=ROOT / "tests" / "fixtures" / "lives"), store=store)
    assert assert_same_as_queries(store, settings) == 5 * len(LIMITS)
    for weights in ({"award": 0.5, "supervision": 0.5}, {"overlap_org": 0.5, "event": 3.0}):
        assert assert_same_as_queries(store, settings, weights) == 5 * len(LIMITS)


def test_the_index_ranks_a_synthetic_graph_as_the_queries_do(
    synthetic_store: OxigraphStore, settings: Settings
) -> None:
    # every fifth person (the per-person queries are the cost: ~25 s of the suite's CPU for all 300)
    assert assert_same_as_queries(synthetic_store, settings, every=5, bounded_every=3) == 60 * len(LIMITS)


@pytest.mark.parametrize(
    "weights",
    [
        {"topic": 0.0},  # topic-only candidates score 0 but are still listed
        {"current_org": 0.5, "other_org": 2.0, "event": 1.0},  # a former colleague outweighs a current one
        {"topic": 0.1, "event": 0.7},  # scores that are not whole halves
        {"work": -1.0},  # a negative weight: no upper bound holds, every candidate is scored
        {"topic": 4.0},  # topics outweigh a current organisation: the topic sharers are read, tier by tier
        {"topic": 3.0},  # one topic ties with one current organisation (score and links): the name decides
        {"topic": -1.0},  # fewer shared topics rank higher: no bound, every topic sharer is read
    ],
)
def test_the_index_follows_configured_weights(
    synthetic_store: OxigraphStore, settings: Settings, weights: dict[str, float]
) -> None:
    # every fifteenth person for each set of weights (every fifth under the default weights, above)
    assert assert_same_as_queries(synthetic_store, settings, weights, every=15, bounded_every=2) == 20 * len(LIMITS)


def test_a_person_with_no_links_has_no_related_people(seed_store: OxigraphStore, settings: Settings) -> None:
    index = RelatedIndex(seed_store, load_queries(settings.queries_dir))
    assert index.related("https://example.org/nobody") == []
    assert index.related("https://w3id.org/kgprofiles/id/person/horace-he", 0) == []


def loose_bounds_store() -> OxigraphStore:
    """Two topics both named "ML": a candidate on both shares one topic name (score 1), though
    the index's bound counts each topic (2). BATCH such candidates (one batch), named Z…, come before
    Aaron in bound order; Aaron shares only one of the topics (bound 1, score 1) and wins the tie
    by name, so the index must read past its first batch of candidates to find him."""
    kgp, person = "https://w3id.org/kgprofiles/ontology#", "https://example.org/person/"
    lines = [
        f"@prefix kgp: <{kgp}> .",
        '<https://example.org/t1> kgp:name "ML" .',
        '<https://example.org/t2> kgp:name "ML" .',
    ]
    lines.append(f'<{person}me> kgp:name "Me" ; kgp:topic <https://example.org/t1>, <https://example.org/t2> .')
    for i in range(BATCH):  # exactly one batch of exact scores
        lines.append(
            f'<{person}z{i:02}> kgp:name "Z{i:02}" ; kgp:topic <https://example.org/t1>, <https://example.org/t2> .'
        )
    lines.append(f'<{person}aaron> kgp:name "Aaron" ; kgp:topic <https://example.org/t2> .')
    store = OxigraphStore("memory:")
    store.replace_graph("https://example.org/graph", ox.parse("\n".join(lines), format=ox.RdfFormat.TURTLE))
    return store


def test_the_index_reads_on_while_a_later_candidate_could_still_win(settings: Settings) -> None:
    store = loose_bounds_store()
    queries = load_queries(settings.queries_dir)
    index = RelatedIndex(store, queries)
    best = index.related("https://example.org/person/me", 1)
    assert [(p.name, p.score, p.reason) for p in best] == [("Aaron", 1.0, "ML")]
    everyone = related_people(store, queries, "https://example.org/person/me")  # type: ignore[arg-type]
    assert [p.score for p in everyone] == [1.0] * (BATCH + 1)
    for limit in LIMITS:
        assert index.related("https://example.org/person/me", limit) == everyone[:limit]


def topics_or_work_store() -> OxigraphStore:
    """Me: two topics (ML, Compilers) and a work. Zed shares the work (2 points, one link);
    Aaron both topics (2 points, two links: he ranks first); a hundred others only ML."""
    kgp, person, ex = "https://w3id.org/kgprofiles/ontology#", "https://example.org/person/", "https://example.org/"
    lines = [
        f"@prefix kgp: <{kgp}> .",
        f'<{ex}ml> kgp:name "ML" .',
        f'<{ex}compilers> kgp:name "Compilers" .',
        f'<{ex}paper> a kgp:Paper ; kgp:title "A paper" .',
        f'<{person}me> kgp:name "Me" ; kgp:topic <{ex}ml>, <{ex}compilers> .',
        f"<{ex}c1> kgp:contributor <{person}me> ; kgp:work <{ex}paper> .",
        f'<{person}zed> kgp:name "Zed" .',
        f"<{ex}c2> kgp:contributor <{person}zed> ; kgp:work <{ex}paper> .",
        f'<{person}aaron> kgp:name "Aaron" ; kgp:topic <{ex}ml>, <{ex}compilers> .',
    ]
    lines += [f'<{person}o{i:03}> kgp:name "O{i:03}" ; kgp:topic <{ex}ml> .' for i in range(100)]
    store = OxigraphStore("memory:")
    store.replace_graph(ex + "graph", ox.parse("\n".join(lines), format=ox.RdfFormat.TURTLE))
    return store


def test_people_who_share_only_topics_are_ranked_only_when_they_may_win(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The best are looked for first among those who share more than topics; the topic sharers are
    scored only where one of them may still be among the best (Aaron: as many points as Zed, more
    links), and the answer is the per-person queries' either way."""
    store = topics_or_work_store()
    queries = load_queries(settings.queries_dir)
    me = "https://example.org/person/me"
    everyone = related_people(store, queries, me)  # type: ignore[arg-type]
    assert [(p.name, p.score, p.links) for p in everyone[:3]] == [("Aaron", 2.0, 2), ("Zed", 2.0, 1), ("O000", 1.0, 1)]
    index = RelatedIndex(store, queries)
    scored: list[str] = []
    exact = RelatedIndex._exact

    def counted(self: RelatedIndex, iri: str, number: int) -> object:
        scored.append(self._iris[number])
        return exact(self, iri, number)

    monkeypatch.setattr(RelatedIndex, "_exact", counted)
    assert index.related(me, 1) == everyone[:1]  # Aaron: the topic sharers had to be ranked
    assert "https://example.org/person/aaron" in scored
    # With the work worth more than every topic, Zed is the best, and no topic sharer is scored.
    heavier = {"work": 3.0}
    index, scored[:] = RelatedIndex(store, queries, heavier), []
    assert index.related(me, 1) == related_people(store, queries, me, heavier)[:1]  # type: ignore[arg-type]
    assert [p.name for p in index.related(me, 1)] == ["Zed"]
    assert scored == ["https://example.org/person/zed"] * 2


@pytest.mark.parametrize("store_name", ["seed_store", "synthetic_store"])
def test_stable_views_give_the_same_profiles_as_one_shot_views(
    store_name: str, request: pytest.FixtureRequest, settings: Settings
) -> None:
    """Views over a stable store read related people and organisation sizes once, for the whole
    graph; the profiles are the ones the per-person queries give."""
    store = request.getfixturevalue(store_name)
    one_shot, stable = Views(store, settings.queries_dir), Views(store, settings.queries_dir, stable=True)
    people = [row["person"] for row in one_shot.select("people").rows][:30]  # (each one-shot: ~0.1 s)
    assert len(people) >= 11
    for person in people:
        assert stable.profile(person) == one_shot.profile(person), person
        assert stable.profile(person, None) == one_shot.profile(person, None), person
        assert stable.profile(person).roles is stable.profile(person, 0).roles  # made once: a page, its "Why?" pages


def test_warming_reads_the_whole_graph_results_in_the_background(seed_store: OxigraphStore, settings: Settings) -> None:
    views = Views(seed_store, settings.queries_dir, stable=True)
    horace = views.resolve_person("horace-he")
    views.warm().join(timeout=60)
    assert views.related_index() is views.related_index() and len(views.related_index()) == 11
    assert views.profile(horace) == Views(seed_store, settings.queries_dir).profile(horace)


def test_views_sharing_a_shelf_rank_a_persons_related_people_once(
    seed_store: OxigraphStore, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A site build's processes share a shelf: related people ranked by one (for a person's page)
    are taken from it by another (for that person's "Why?" pages), the same list, unranked."""
    from kgprofiles.profile_shelf import ProfileShelf

    shelf = ProfileShelf(tmp_path / "profiles.sqlite")
    page, whys = (Views(seed_store, settings.queries_dir, stable=True) for _ in range(2))
    page.shelf = whys.shelf = shelf
    horace = page.resolve_person("horace-he")
    ranked = page.related(horace, 10)
    assert len(ranked) == 10
    monkeypatch.setattr(RelatedIndex, "related", lambda *args: pytest.fail("ranked again"))
    assert whys.related(horace, 10) == ranked
    with pytest.raises(pytest.fail.Exception, match="ranked again"):  # (another limit: ranked)
        whys.related(horace, 3)
    shelf.close()


def test_a_missing_query_is_named_not_a_key_error(synthetic_store: OxigraphStore, settings: Settings) -> None:
    queries = {k: v for k, v in load_queries(settings.queries_dir).items() if k != "related-index-titles"}
    with pytest.raises(QueryError, match="no named query 'related-index-titles'"):
        RelatedIndex(synthetic_store, queries)


def test_a_person_page_over_stable_views_runs_each_named_query_once(
    seed_store: OxigraphStore, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page's box and the profile both read the person's topics and timeline: stable views
    run each named query once for a page, and give the rows the query gives."""
    import kgprofiles.profiles as profiles_module
    from kgprofiles.web.pages import resource_page

    ran: list[str] = []
    real = profiles_module.select_rows
    monkeypatch.setattr(profiles_module, "select_rows", lambda s, q, v: ran.append(q.name) or real(s, q, v))

    class Site:
        views = Views(seed_store, settings.queries_dir, stable=True)

    horace = Site.views.resolve_person("horace-he")
    ran.clear()
    page = resource_page(Site, "person", horace.value)
    assert "<h1>Horace He</h1>" in page and "person-topics" in ran and "person-timeline" in ran
    assert sorted(ran) == sorted(set(ran)), [name for name in set(ran) if ran.count(name) > 1]
    kept = Site.views.select("person-topics", person=horace)
    assert kept is Site.views.select("person-topics", person=horace)
    assert kept == Views(seed_store, settings.queries_dir).select("person-topics", person=horace)


def shared_org_store() -> OxigraphStore:
    """One organisation: "Me" held a former role there in 2000–2005 and holds a current one since
    2020; "Before" was there in 1990–1995, "During" in 2003–2008 (overlapping mine), "Now" holds a
    current role since 2021 and held one in 2001 (current with me, and overlapping)."""
    kgp, ex = "https://w3id.org/kgprofiles/ontology#", "https://example.org/"
    lines = [f"@prefix kgp: <{kgp}> .", f'<{ex}org> kgp:name "Org" .']
    roles = {
        "me": [("Former", "2000", "2005"), ("Current", "2020", None)],
        "before": [("Former", "1990", "1995")],
        "during": [("Former", "2003", "2008")],
        "now": [("Current", "2021", None), ("Former", "2001", "2001")],
    }
    for person, held in roles.items():
        lines.append(f'<{ex}{person}> kgp:name "{person.title()}" .')
        for i, (status, start, end) in enumerate(held):
            ended = f' ; kgp:end "{end}"^^<http://www.w3.org/2001/XMLSchema#gYear>' if end else ""
            lines.append(
                f"<{ex}{person}-role{i}> kgp:holder <{ex}{person}> ; kgp:organization <{ex}org> ; "
                f'kgp:status kgp:{status} ; kgp:start "{start}"^^<http://www.w3.org/2001/XMLSchema#gYear>{ended} .'
            )
    store = OxigraphStore("memory:")
    store.replace_graph("https://example.org/graph", ox.parse("\n".join(lines), format=ox.RdfFormat.TURTLE))
    return store


def test_the_bound_of_a_shared_organisation_is_the_best_weight_that_may_apply(settings: Settings) -> None:
    """The index scores exactly only the candidates whose bound can still win: for a shared
    organisation the bound is the one weight that may apply (current with me, else roles that
    share a day, else other), so "Before" is bounded by "other", not by "overlap" or their sum."""
    index = RelatedIndex(shared_org_store(), load_queries(settings.queries_dir))
    me = "https://example.org/me"
    candidates, bound, _ = index._bounds(me)
    by_number = dict(zip(candidates.tolist(), bound.tolist(), strict=True))
    exact = {r.name: r.score for r in index.related(me)}
    assert exact == {"Now": 3.0, "During": 2.0, "Before": 1.0}
    assert {name: by_number[index._number[f"https://example.org/{name.lower()}"]] for name in exact} == exact


@pytest.mark.parametrize("store_name", ["seed_store", "synthetic_store"])
def test_every_bound_is_at_least_the_exact_score(
    store_name: str, request: pytest.FixtureRequest, settings: Settings
) -> None:
    index = RelatedIndex(request.getfixturevalue(store_name), load_queries(settings.queries_dir))
    for person in index.people:
        candidates, bound, links = index._bounds(person)
        at = {number: i for i, number in enumerate(candidates.tolist())}
        for r in index.related(person):
            i = at[index._number[r.iri]]  # (every related person is a candidate)
            assert bound[i] >= r.score - 1e-9 and links[i] >= r.links, (person, r)


@pytest.mark.parametrize("graph", ["seed_store", "lives_store", "synthetic_store"])
def test_topic_pages_from_the_index_are_the_queries_pages(
    graph: str, settings: Settings, request: pytest.FixtureRequest
) -> None:
    """A stable site (``serve``, ``site build``) makes a topic's page from the index in memory;
    one-shot views ask the store: the same members, names, order and current organisations."""
    store = request.getfixturevalue(graph)
    stable = Views(store, settings.queries_dir, stable=True)
    stable.read_once()
    asked = Views(store, settings.queries_dir)
    topics = [r["topic"].value for r in asked.select("topics").rows]
    assert topics
    for topic in topics:
        assert stable.topic(topic) == asked.topic(topic), topic
    members = [stable.topic(topic).members for topic in topics]
    assert any(m.organizations for ms in members for m in ms)  # (current organisations were compared)
    assert all(list(ms) == sorted(ms, key=lambda m: (m.name, m.iri)) for ms in members)
