"""Full-text search (src/kgprofiles/search.py): what it finds in the seed graph, how it ranks,
folds accents and matches prefixes, that no typed text can break it, that snippets never carry
markup from the data, and that build and load keep the index of each store generation."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from hypothesis import example, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from conftest import examples
from kgprofiles import search
from kgprofiles.cli import app
from kgprofiles.config import SearchPath, Settings
from kgprofiles.pipeline import DataRejected, build, load
from kgprofiles.queries import NamedQuery, load_queries, whole_graph_form
from kgprofiles.render.html import page
from kgprofiles.search import INDEX_FILE, MAX_CHUNKS, SearchIndex, documents, indexed_documents, match_expression
from kgprofiles.store import generations
from kgprofiles.store.oxigraph import OxigraphStore
from kgprofiles.web import create_app
from web.server import serving

ROOT = Path(__file__).resolve().parents[1]
HORACE = "https://w3id.org/kgprofiles/id/person/horace-he"
EX = "http://example.org/"
KGP = "https://w3id.org/kgprofiles/ontology#"
runner = CliRunner()

#: What users type that FTS5 would read as syntax, and what no index should choke on.
CRAFTED = [
    '"',
    '""',
    '"unbalanced',
    "NEAR(horace he)",
    "NEAR",
    "horace NEAR/2 he",
    "*",
    "**",
    "horace*",
    "^horace",
    "name:horace",
    "{name alt}: horace",
    "horace AND he",
    "OR",
    "NOT horace",
    "(((",
    ")",
    "-",
    "+",
    "a\x00b",
    "\x00",
    "\ud800horace",
    "flex\u0301attention",
    "x" * 10_000,
    "horace " * 2_000,
    "🙂",
    "\u202ehorace",
    "'; DROP TABLE docs; --",
]


@pytest.fixture(scope="module")
def seed_index(seed_store, settings: Settings) -> Iterator[SearchIndex]:
    index = SearchIndex.in_memory(seed_store, settings.queries_dir)
    yield index
    index.close()


def iris(index: SearchIndex, text: str) -> list[str]:
    return [hit.iri for hit in index.search(text).hits]


# ---------------------------------------------------------------------------------- what it finds


def test_the_seed_person_is_found_by_a_paper_and_by_a_word_of_the_headline(seed_index: SearchIndex) -> None:
    # "FlexAttention" is a work of Horace He's; "compilers" is in the headline "PyTorch and compilers".
    flex = seed_index.search("flexattention")
    assert HORACE in [hit.iri for hit in flex.hits]
    assert flex.hits[0].iri == "https://w3id.org/kgprofiles/id/work/flexattention"  # the work's own name first
    compilers = seed_index.search("compilers")
    assert compilers.hits[0].iri == HORACE
    assert compilers.hits[0].snippet == (("PyTorch and ", False), ("compilers", True))


def test_names_rank_first(seed_index: SearchIndex) -> None:
    # Meta is named "Meta" (and "Facebook"); Horace He's profile mentions both in its text.
    assert iris(seed_index, "meta")[:2] == ["https://w3id.org/kgprofiles/id/organization/meta", HORACE]
    assert iris(seed_index, "facebook")[0] == "https://w3id.org/kgprofiles/id/organization/meta"


def test_every_word_is_a_prefix_and_all_words_must_match(seed_index: SearchIndex) -> None:
    assert HORACE in iris(seed_index, "flexatt")
    assert HORACE in iris(seed_index, "gpt-fast")  # the phrase "gpt fast"
    assert iris(seed_index, "pytorch compilers") == [HORACE]
    assert iris(seed_index, "compilers zzzz") == []


def test_accents_and_case_are_folded(settings: Settings) -> None:
    store = OxigraphStore("memory:")
    store.update(
        f"""INSERT DATA {{ GRAPH <{EX}g> {{
            <{EX}zoe> a <{KGP}Person> ; <{KGP}name> "Zoë Ångström" ; <{KGP}headline> "Théorie des catégories" .
        }} }}"""
    )
    index = SearchIndex.in_memory(store, settings.queries_dir)
    try:
        for text in ("zoe", "ZOË", "angstrom", "ÅNGSTRÖM", "theorie categ", "Zoe\u0308"):
            assert iris(index, text) == [f"{EX}zoe"], text
    finally:
        index.close()


def test_matches_are_counted_up_to_a_thousand(settings: Settings) -> None:
    store = OxigraphStore("memory:")
    people = " ".join(f'<{EX}p{n}> a <{KGP}Person> ; <{KGP}name> "Many {n}" .' for n in range(1002))
    store.update(f"INSERT DATA {{ GRAPH <{EX}g> {{ {people} }} }}")
    index = SearchIndex.in_memory(store, settings.queries_dir)
    try:
        many = index.search("many", limit=5)
        assert (many.total, many.more, many.count_text(), len(many.hits)) == (1000, True, "1,000+ results", 5)
        one = index.search("many 1001")
        assert (one.total, one.more, one.count_text()) == (1, False, "1 result")
    finally:
        index.close()


def test_with_thousands_of_matches_a_matching_name_still_comes_first(settings: Settings) -> None:
    """2,100 people whose headline says "zeta", then (last in the index) the one named Zeta: past a
    thousand matches the search ranks tier by tier, names first, each tier among its first 2,000
    matches in index order (search.CANDIDATES), so the named one leads wherever it is. The bound
    is real: the last 100 headlines are shorter (BM25 would rank them first) and are not ranked."""
    store = OxigraphStore("memory:")
    people = " ".join(
        f'<{EX}p{n:04}> a <{KGP}Person> ; <{KGP}name> "Person {n}" ; <{KGP}headline> "Zeta studies" .'
        if n < 2000
        else f'<{EX}p{n:04}> a <{KGP}Person> ; <{KGP}name> "P{n}" ; <{KGP}headline> "Zeta" .'
        for n in range(2100)
    )
    store.update(f'INSERT DATA {{ GRAPH <{EX}g> {{ {people} <{EX}zz> a <{KGP}Person> ; <{KGP}name> "Zeta" . }} }}')
    index = SearchIndex.in_memory(store, settings.queries_dir)
    try:
        found = index.search("zeta", limit=20)
        assert (found.count_text(), len(found.hits)) == ("1,000+ results", 20)
        assert found.hits[0].iri == f"{EX}zz" and found.hits[0].snippet == (("Zeta", True),)
        assert {hit.iri for hit in found.hits[1:]} <= {f"{EX}p{n:04}" for n in range(2000)}  # the first 2,000
        assert found.hits[1].snippet == (("Zeta", True), (" studies", False))
        assert index.search("zeta", limit=5, offset=1).hits == found.hits[1:6]  # pages follow on
        assert iris(index, "zet")[0] == f"{EX}zz"  # a prefix as well
    finally:
        index.close()


def test_results_are_in_the_same_order_every_time(seed_index: SearchIndex, seed_store, settings: Settings) -> None:
    again = SearchIndex.in_memory(seed_store, settings.queries_dir)
    try:
        for text in ("pytorch", "and", "a", "horace"):
            assert again.search(text) == seed_index.search(text)
    finally:
        again.close()


# ---------------------------------------------------------------------------------- typed text is only text


@pytest.mark.parametrize("text", CRAFTED)
def test_crafted_text_never_raises(seed_index: SearchIndex, text: str) -> None:
    results = seed_index.search(text)
    assert results.total >= len(results.hits)
    expression = match_expression(text)
    assert expression is None or expression.count('"*') <= MAX_CHUNKS


def test_fts_syntax_in_typed_text_is_matched_as_words(seed_index: SearchIndex) -> None:
    # As syntax, each of these would find Horace He (or fail); as text they are words he lacks.
    assert iris(seed_index, "horace NOT zzzz") == []
    assert iris(seed_index, "zzzz OR horace") == []
    assert iris(seed_index, "name:horace") == []  # the phrase "name horace"


@hypothesis_settings(max_examples=examples(100), deadline=None)
@given(text=st.text(max_size=300))
@example(text='"*"')
@example(text="\x02horace\x03")
def test_any_text_is_a_search_that_answers(seed_index: SearchIndex, text: str) -> None:
    results = seed_index.search(text)
    assert len(results.hits) <= results.total


# ---------------------------------------------------------------------------------- snippets and markup


def test_snippets_never_carry_markup_from_the_data(settings: Settings) -> None:
    store = OxigraphStore("memory:")
    store.update(
        f"""INSERT DATA {{ GRAPH <{EX}g> {{
            <{EX}x> a <{KGP}Person> ; <{KGP}name> "Eve <script>alert(1)</script>" ;
                <{KGP}headline> "forged \\u0002mark\\u0003 and <b>bold</b> kernels" .
        }} }}"""
    )
    index = SearchIndex.in_memory(store, settings.queries_dir)
    try:
        (hit,) = index.search("kernels").hits
        # The control characters FTS5 uses to mark matches were removed from the text indexed.
        assert hit.snippet == (("forged  mark  and <b>bold</b> ", False), ("kernels", True))
        html = page("search.html", q="<i>kernels", results=index.search("kernels"))
    finally:
        index.close()
    assert "<script>" not in html and "<b>" not in html and "<i>" not in html
    assert "Eve &lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;b&gt;bold&lt;/b&gt; <mark>kernels</mark>" in html
    assert html.count("<mark>") == 1


# ---------------------------------------------------------------------------------- built with the store


def _noted(asked: list[str], query: NamedQuery) -> NamedQuery:
    asked.append(query.name)
    return query


@pytest.mark.parametrize("graph", ["seed_store", "lives_store"])
def test_the_whole_graph_forms_give_the_documents_the_bound_queries_give(
    graph: str, settings: Settings, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`build` reads the index's rows with search-index-whole.rq and search-index-links-whole.rq
    (hash joins), `load` with search-index.rq and search-index-links.rq bound to its items: the
    same documents."""
    store = request.getfixturevalue(graph)
    asked: list[str] = []
    real = search.whole_graph_form
    monkeypatch.setattr(search, "whole_graph_form", lambda queries, name: _noted(asked, real(queries, name)))
    whole = list(documents(store, settings.queries_dir))
    assert asked == ["search-index-whole", "search-index-links-whole"]
    bound = list(documents(store, settings.queries_dir, whole_graph_forms=False))
    assert whole == bound and len(whole) > 10
    if graph == "seed_store":  # (every column has texts: every branch of both queries was read)
        assert all(any(doc.columns[i] for doc in whole) for i in range(len(search.COLUMNS)))


def test_a_projects_own_index_query_is_read_as_it_is(settings: Settings, tmp_path: Path, seed_store) -> None:
    """A project's own search-index.rq is what `load` reads: `build` reads it too, not the
    packaged whole-graph form."""
    (tmp_path / "queries").mkdir()
    own = (ROOT / "queries" / "search-index.rq").read_text().replace('BIND ("headline"', 'BIND ("narrative"')
    (tmp_path / "queries" / "search-index.rq").write_text(own)
    project = settings.with_overrides(queries_dir=SearchPath((*settings.queries_dir.dirs, tmp_path / "queries")))
    queries = load_queries(project.queries_dir)
    assert whole_graph_form(queries, "search-index").name == "search-index"
    assert whole_graph_form(queries, "search-index-links").name == "search-index-links-whole"
    docs = {doc.iri: doc for doc in documents(seed_store, project.queries_dir)}
    horace = docs["https://w3id.org/kgprofiles/id/person/horace-he"]
    assert horace.columns[search.COLUMNS.index("headline")] == ""  # the project's query: headlines as narrative


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, settings: Settings) -> Settings:
    """The seed data built into an on-disk store (a copy of data/, so a test may change a file)."""
    root = tmp_path_factory.mktemp("search-project")
    shutil.copytree(ROOT / "data", root / "data")
    project = settings.with_overrides(data_dir=root / "data", store=str(root / "store"))
    build(project)
    return project


def published_index(project: Settings) -> Path:
    generation = generations.current(Path(project.store))
    assert generation is not None
    return generation / INDEX_FILE


def test_build_publishes_the_index_inside_the_generation(built: Settings) -> None:
    path = published_index(built)
    index = SearchIndex.open(path)
    assert index is not None
    try:
        assert HORACE in [hit.iri for hit in index.search("flexattention").hits]
    finally:
        index.close()
    reader = OxigraphStore(built.store, read_only=True)
    try:
        opened = SearchIndex.over(built, reader)
        assert opened.where == str(path)  # a reader uses the file of the generation it reads
        opened.close()
    finally:
        reader.close()


@contextmanager
def a_rejected_file(project: Settings) -> Iterator[Path]:
    """A person file the shapes reject, in the project's data while the block runs."""
    bad = project.data_dir / "people" / "role-ends-before-start.ttl"
    shutil.copy(ROOT / "tests/fixtures/build/role-ends-before-start.ttl", bad)
    try:
        yield bad
    finally:
        bad.unlink()


def test_a_rejected_build_leaves_the_published_index_as_it_was(built: Settings) -> None:
    before = published_index(built)
    content = before.read_bytes()
    with a_rejected_file(built), pytest.raises(DataRejected):
        build(built)
    assert published_index(built) == before and before.read_bytes() == content


def test_a_load_updates_the_index_as_a_full_build_would(built: Settings) -> None:
    """A load re-indexes what its files touch, and the people who show it: Meta's new other name
    reaches the people with a role at Meta. The result is the index a full build would write."""
    orgs = built.data_dir / "organizations" / "organizations.ttl"
    text = orgs.read_text(encoding="utf-8")
    orgs.write_text(text.replace('kgp:altName "Facebook"', 'kgp:altName "Facebook", "Quokka Example"'))
    load(built, [orgs])
    updated = SearchIndex.open(published_index(built))
    reader = OxigraphStore(built.store, read_only=True)
    full = SearchIndex.in_memory(reader, built.queries_dir)
    try:
        assert updated is not None
        found = updated.search("quokka")
        assert [h.name for h in found.hits] == ["Meta", "Horace He"]
        for words in ("quokka", "pytorch", "horace", "and", "flex", "meta"):
            assert updated.search(words) == full.search(words), words
        # what a static site reads instead of asking the store: the documents a full build indexes
        assert indexed_documents(published_index(built)) == list(documents(reader, built.queries_dir))
        with sqlite3.connect(published_index(built)) as raw:  # updated in place: new rows after the old
            (count, last) = raw.execute("SELECT count(*), max(id) FROM docs").fetchone()
        assert last > count
    finally:
        full.close()
        reader.close()
        if updated is not None:
            updated.close()


@pytest.mark.parametrize(
    "text",
    [
        f'<{EX}claim> <{KGP}subject> "0" .',  # a literal where search-index-linked.rq finds items
        f"<{EX}claim> <{KGP}holder> [] .",  # a blank node there
        f"[] <{KGP}topic> <{EX}topic> .\n<{EX}topic> <{EX}p> 1 .",  # a blank node with a topic
    ],
    ids=["literal subject", "blank holder", "blank with a topic"],
)
def test_a_load_of_a_thing_shown_by_a_literal_or_blank_node_updates_the_index(
    tmp_path: Path, settings: Settings, text: str
) -> None:
    """The items search-index-linked.rq finds may be literals or blank nodes, which the data
    allows where no shape looks (``x kgp:subject "0"``): the load took each for an IRI
    ("internal error: ValueError: No scheme found in an absolute IRI … a bug in kgprofiles",
    exit 70, after validation; found by fuzzing). Only IRIs are items of the index."""
    shutil.copytree(ROOT / "data", tmp_path / "data")
    project = settings.with_overrides(data_dir=tmp_path / "data", store=str(tmp_path / "store"))
    build(project)
    path = tmp_path / "data" / "odd.ttl"
    path.write_text(text + "\n", encoding="utf-8")

    load(project, [path])

    reader = OxigraphStore(project.store, read_only=True)
    try:
        assert indexed_documents(published_index(project)) == list(documents(reader, project.queries_dir))
    finally:
        reader.close()


def test_a_person_loaded_alone_reindexes_that_person_not_everyone_at_their_organisations(
    built: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A person's file names their organisations and topics: those are re-indexed, but the
    other people at them only when the organisation's or topic's own triples change (at 100,000
    people, re-indexing everyone who shares a topic rewrote the whole index: 340 s a load)."""
    person = built.data_dir / "people" / "horace-he.ttl"
    text = person.read_text(encoding="utf-8")
    person.write_text(text.replace('kgp:name "Horace He"', 'kgp:name "Horace He" ; kgp:altName "Wombat Example"'))
    rewritten: set[str] = set()
    insert = search._insert

    def recorded(connection: sqlite3.Connection, docs: Iterable[search.Document], start: int) -> int:
        docs = list(docs)
        rewritten.update(doc.iri for doc in docs)
        return insert(connection, docs, start)

    monkeypatch.setattr(search, "_insert", recorded)
    load(built, [person])
    assert "https://w3id.org/kgprofiles/id/person/horace-he" in rewritten
    assert "https://w3id.org/kgprofiles/id/organization/meta" in rewritten  # named by the file
    assert "https://w3id.org/kgprofiles/id/person/jane-xu" not in rewritten  # also at PyTorch, untouched
    updated = SearchIndex.open(published_index(built))
    reader = OxigraphStore(built.store, read_only=True)
    full = SearchIndex.in_memory(reader, built.queries_dir)
    try:
        assert updated is not None
        for words in ("wombat", "horace", "pytorch", "jane", "meta", "compilers"):
            assert updated.search(words) == full.search(words), words
    finally:
        full.close()
        reader.close()
        if updated is not None:
            updated.close()


def _stray_copies(project: Settings) -> list[Path]:
    return sorted(Path(project.store).parent.rglob(f".{INDEX_FILE}.*"))


def test_a_load_copies_the_index_beside_the_new_one_and_leaves_no_copy_behind(built: Settings) -> None:
    """The index before a load is copied while the load validates; a load that is refused
    leaves no copy (and the published index as it was), one that goes through renames it."""
    before = published_index(built)
    content = before.read_bytes()
    with a_rejected_file(built) as bad, pytest.raises(DataRejected):
        load(built, [bad])
    assert published_index(built) == before and before.read_bytes() == content
    assert _stray_copies(built) == []
    person = built.data_dir / "people" / "jane-xu.ttl"
    load(built, [person])
    assert published_index(built) != before and _stray_copies(built) == []
    with sqlite3.connect(published_index(built)) as raw:  # a load finds the documents it replaces by IRI
        assert raw.execute("SELECT name FROM sqlite_master WHERE name = 'docs_iri'").fetchone() == ("docs_iri",)


def test_an_index_is_updated_the_same_with_its_copy_made_early_late_or_not_at_all(
    built: Settings, tmp_path: Path
) -> None:
    """``update_index`` given the copy an IndexCopy made, or one whose copy failed (a directory
    squats its name), or none, writes the same index; an index written before it had its IRI
    index gets one."""
    reader = OxigraphStore(built.store, read_only=True)
    try:
        previous = tmp_path / "previous.sqlite"
        shutil.copy(published_index(built), previous)
        with sqlite3.connect(previous) as raw:
            raw.execute("DROP INDEX docs_iri")
        changed = {HORACE, "https://w3id.org/kgprofiles/id/organization/meta"}
        written = []
        for case in ("early", "failed", "none"):
            out = tmp_path / case / INDEX_FILE
            out.parent.mkdir()
            copy = search.IndexCopy(previous, out)
            if case == "failed":
                copy.path.mkdir()  # before the copy starts
            with copy:
                assert (copy.take() is None) == (case == "failed")
                search.update_index(
                    reader, built.queries_dir, previous, out, changed, set(), copy if case != "none" else None
                )
            if case == "failed":
                copy.path.rmdir()  # (the squatter, still empty)
            assert sorted(p.name for p in out.parent.iterdir()) == [INDEX_FILE]
            written.append(indexed_documents(out))
            with sqlite3.connect(out) as raw:
                assert raw.execute("SELECT count(*) FROM sqlite_master WHERE name = 'docs_iri'").fetchone() == (1,)
        assert written[0] == written[1] == written[2] == list(documents(reader, built.queries_dir))
    finally:
        reader.close()


def test_load_publishes_a_new_index_and_a_reader_keeps_its_own(built: Settings) -> None:
    reader = OxigraphStore(built.store, read_only=True)  # holds the generation published before the load
    old = SearchIndex.over(built, reader)
    person = built.data_dir / "people" / "jane-xu.ttl"
    text = person.read_text(encoding="utf-8")
    try:
        person.write_text(text.replace('kgp:name "Jane Xu"', 'kgp:name "Jane Xu" ; kgp:altName "Quetzalcoatl Example"'))
        load(built, [person])
        fresh = SearchIndex.open(published_index(built))
        assert fresh is not None
        assert [h.name for h in fresh.search("quetzalcoatl").hits] == ["Jane Xu"]
        assert old.search("quetzalcoatl").total == 0  # the reader's generation, and its index, unchanged
        fresh.close()
    finally:
        old.close()
        reader.close()
        person.write_text(text, encoding="utf-8")  # the store keeps the alias: no later test reads it


def test_an_update_sent_to_serve_publishes_a_generation_with_its_index(built: Settings) -> None:
    app = create_app(built, write_token="token")
    with serving(app) as url, httpx.Client(base_url=url, timeout=30) as client:
        update = f"INSERT DATA {{ GRAPH <{EX}g> {{ <{HORACE}> kgp:altName 'Xylophonist Example' }} }}"
        sent = client.post("/sparql", data={"update": update}, headers={"Authorization": "Bearer token"})
        assert sent.status_code == 204, sent.text
        assert [h["name"] for h in client.get("/api/search", params={"q": "xylophonist"}).json()["hits"]] == [
            "Horace He"
        ]
    index = SearchIndex.open(published_index(built))  # written into the generation the update published
    assert index is not None and index.search("xylophonist").total == 1
    index.close()


def test_the_search_command_in_text_and_json(built: Settings) -> None:
    base = ["--project", str(ROOT), "search", "--store", built.store]
    text = runner.invoke(app, [*base, "compilers"])
    assert text.exit_code == 0, text.output
    assert text.output.splitlines()[:2] == ["1 result for “compilers”", f"person       Horace He  <{HORACE}>"]
    assert "PyTorch and [compilers]" in text.output
    data = runner.invoke(app, [*base, "flexattention", "--format", "json", "--limit", "1"])
    assert data.exit_code == 0, data.output
    found = json.loads(data.output)
    assert found["total"] == 2 and [h["name"] for h in found["hits"]] == ["FlexAttention"]
    crafted = runner.invoke(app, [*base, 'NEAR("x" *'])
    assert crafted.exit_code == 0 and crafted.output.startswith("0 results")


# ---------------------------------------------------------------------------------- on the web


@pytest.fixture(scope="module")
def client(settings: Settings, seed_store) -> Iterator[httpx.Client]:
    with serving(create_app(settings, seed_store)) as url, httpx.Client(base_url=url, timeout=30) as c:
        yield c


def test_search_page_and_json_endpoint(client: httpx.Client) -> None:
    page_ = client.get("/search", params={"q": "compilers"})
    assert page_.status_code == 200
    assert 'href="/id/person/horace-he"' in page_.text
    assert "PyTorch and <mark>compilers</mark>" in page_.text
    answer = client.get("/api/search", params={"q": "flexattention", "limit": "5"})
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/json"
    assert [h["iri"] for h in answer.json()["hits"]][1] == HORACE
    assert client.get("/api/search", params={"q": "flexattention", "offset": "1"}).json()["hits"][0]["iri"] == HORACE


@pytest.mark.parametrize("raw", ["%22", "NEAR(a%20b)", "*", "x" * 10_000, "a%00b", "%ff%fe", "%ed%a0%80", "%2522"])
def test_crafted_text_on_the_web(client: httpx.Client, raw: str) -> None:
    """``raw``: the query string's value as sent (percent-encoded, some of it not UTF-8). The
    page echoes no control character (HTML allows none: a NUL went into the title as it came)."""
    page_ = client.get(f"/search?q={raw}")
    assert page_.status_code == 200
    assert not re.search(r"[\x00-\x08\x0b\x0e-\x1f\x7f]", page_.text)
    assert client.get(f"/api/search?q={raw}").status_code == 200


@pytest.mark.parametrize("query", ["limit=0", "limit=abc", "limit=99999999999", "offset=-1", "limit=1001"])
def test_bad_limits_are_a_400_in_json(client: httpx.Client, query: str) -> None:
    answer = client.get(f"/api/search?q=pytorch&{query}")
    assert answer.status_code == 400 and "error" in answer.json()
