"""kgprofiles query / build / export from the command line, on an on-disk store."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgprofiles.cli import app

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("cli") / "store")
    result = runner.invoke(app, ["--project", str(ROOT), "build", "--store", path, "--quiet"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("built: 14 file(s)")
    return path


def kg(store: str, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["--project", str(ROOT), *args, "--store", store])
    return result.exit_code, result.output


def test_count_triples(store: str) -> None:
    code, out = kg(store, "query", "-e", "SELECT (COUNT(*) AS ?n) {?s ?p ?o}", "--format", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert int(rows[0]["n"]) > 1000


def test_named_query_with_a_param(store: str) -> None:
    code, out = kg(store, "query", "org-members", "--param", "org=pytorch", "--format", "json")
    assert code == 0, out
    names = [b["name"]["value"] for b in json.loads(out)["results"]["bindings"]]
    assert names == sorted(names) and "Horace He" in names and len(names) == 6


@pytest.mark.parametrize(
    ("fmt", "marker"), [("tsv", "?name"), ("xml", "<sparql"), ("csv", "name"), ("table", "Horace He")]
)
def test_result_formats(store: str, fmt: str, marker: str) -> None:
    code, out = kg(
        store, "query", "-e", "SELECT ?name { ?p a kgp:Person ; kgp:name ?name } ORDER BY ?name", "--format", fmt
    )
    assert code == 0 and marker in out


def test_construct_as_turtle(store: str) -> None:
    code, out = kg(store, "query", "-e", "CONSTRUCT { ?p kgp:name ?n } WHERE { ?p a kgp:Person ; kgp:name ?n }")
    assert code == 0 and 'kgp:name "Horace He"' in out


def test_a_syntax_error_shows_line_and_column(store: str) -> None:
    code, out = kg(store, "query", "-e", "SELECT ?x WHERE {\n  ?x ?y \n}")
    assert code == 2
    assert "line 3" in out and "column" in out


def test_an_unknown_param_is_a_clear_error(store: str) -> None:
    code, out = kg(store, "query", "org-members", "--param", "organisation=pytorch")
    assert code == 2 and "has no parameter organisation" in out and "its parameters: org" in out


def test_a_param_given_twice_is_a_clear_error(store: str) -> None:
    """``--param org=pytorch --param org=meta`` ran with the last value alone (exit 0)."""
    code, out = kg(store, "query", "org-members", "--param", "org=pytorch", "--param", "org=meta")
    assert code == 2 and "--param org is given more than once" in out, out


def test_profile_related_org_topic_people_commands(store: str) -> None:
    code, out = kg(store, "profile", "Horace He")
    assert code == 0 and out.startswith("Horace He\n\nPyTorch and compilers\n")
    code, out = kg(store, "related", "horace-he", "--limit", "3", "--explain")
    assert code == 0 and "current_org: 1 × 3 = 3  (PyTorch)" in out
    code, out = kg(store, "org", "pytorch")
    assert code == 0 and "Current (6)" in out
    code, out = kg(store, "topic", "inference-and-serving")
    assert code == 0 and "6 people in the graph" in out
    code, out = kg(store, "people", "--topic", "inference-and-serving", "--name", "lin")
    assert code == 0 and "Lin Qiao" in out and "1 person" in out


def test_a_profile_shows_as_many_related_people_as_asked(store: str) -> None:
    code, out = kg(store, "profile", "horace-he", "--related", "2")
    related = out.split("Related people\n\n")[1].split("\n\n")[0]
    assert code == 0 and related == "• Greg Chanan — Also at PyTorch\n• Jane Xu — Also at PyTorch"


def test_related_for_everyone_writes_one_json_line_per_person(store: str, tmp_path: Path) -> None:
    target = tmp_path / "related.jsonl"
    code, out = kg(store, "related", "--all", "--limit", "2", "--out", str(target), "--quiet")
    assert code == 0 and "wrote related people for 11 people" in out
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    assert len(lines) == 11 and all(len(line["related"]) == 2 for line in lines)
    horace = next(line for line in lines if line["name"] == "Horace He")
    code, alone = kg(store, "related", "horace-he", "--limit", "2", "--format", "json")
    assert code == 0 and horace["related"] == json.loads(alone)


def test_related_for_everyone_stopped_midway_keeps_the_previous_file(
    store: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while the lines are written: the file an earlier run wrote is still whole (the new
    one is written beside it and put in its place at the end), and nothing is left beside it."""
    from kgprofiles.related_index import RelatedIndex

    target = tmp_path / "related.jsonl"
    assert kg(store, "related", "--all", "--limit", "2", "--out", str(target), "--quiet")[0] == 0
    before = target.read_bytes()
    ranked = RelatedIndex.related

    def interrupted(self: RelatedIndex, person: str, limit: int | None = None) -> object:
        if person.endswith("horace-he"):
            raise KeyboardInterrupt
        return ranked(self, person, limit)

    monkeypatch.setattr(RelatedIndex, "related", interrupted)
    assert kg(store, "related", "--all", "--limit", "3", "--out", str(target), "--quiet")[0] != 0
    assert target.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["related.jsonl"]


def test_related_for_everyone_never_writes_into_the_projects_data(
    store: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--out is checked as export's --output is: never the data directory (a JSON Lines file there
    replaced a data file and was read by the next build), never a directory, never a missing one;
    and --out without --all is refused (it was silently ignored)."""
    data = tmp_path / "data"
    (data / "people").mkdir(parents=True)
    mine = data / "people" / "mine.ttl"
    mine.write_text("# my only copy\n")
    monkeypatch.setenv("KGPROFILES_DATA", str(data))
    for target, says in (
        (mine, "data directory"),
        (data / "related.jsonl", "data directory"),
        (tmp_path, "is a directory"),
        (tmp_path / "missing" / "r.jsonl", "no directory"),
    ):
        code, out = kg(store, "related", "--all", "--out", str(target), "--quiet")
        assert code == 2 and says in out and "internal error" not in out, (target, out)
    code, out = kg(store, "related", "horace-he", "--out", str(tmp_path / "r.jsonl"))
    assert code == 2 and "--out goes with --all" in out
    assert mine.read_text() == "# my only copy\n" and sorted(p.name for p in tmp_path.rglob("*")) == [
        "data",
        "mine.ttl",
        "people",
    ]


def test_related_needs_a_person_or_all(store: str) -> None:
    code, out = kg(store, "related")
    assert code == 2 and "give a PERSON, or --all for everyone" in out


def test_export_to_a_file(store: str, tmp_path: Path) -> None:
    target = tmp_path / "horace.ttl"
    code, _ = kg(store, "export", "horace-he", "--format", "ttl", "--output", str(target))
    assert code == 0 and "person:horace-he" in target.read_text()


@pytest.mark.parametrize("fmt", ["nq", "nt", "ttl", "jsonld"])
def test_the_whole_graph_to_stdout_is_the_file_export(store: str, tmp_path: Path, fmt: str) -> None:
    """Streamed to standard output (never whole in memory where the format allows), the same bytes
    as into a file."""
    code, _ = kg(store, "export", "--format", fmt, "--output", str(tmp_path / "all"))
    piped = runner.invoke(app, ["--project", str(ROOT), "export", "--format", fmt, "--store", store])
    assert code == 0 and piped.exit_code == 0
    assert piped.stdout_bytes == (tmp_path / "all").read_bytes() and len(piped.stdout_bytes) > 10_000


def test_commands_without_a_store_say_how_to_make_one(tmp_path: Path) -> None:
    code, out = kg(str(tmp_path / "nothing"), "profile", "horace-he")
    assert code == 3 and "no store at" in out and "run `kgprofiles build` first" in out


def test_build_refuses_bad_data_with_exit_1(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data)
    shutil.copy(ROOT / "tests/fixtures/build/role-ends-before-start.ttl", data)
    result = runner.invoke(
        app,
        ["--project", str(ROOT), "build", "--store", str(tmp_path / "s"), "--quiet"],
        env={"KGPROFILES_DATA": str(data)},
    )
    assert result.exit_code == 1
    assert "role-ends-before-start.ttl:8: violation" in result.output


@pytest.mark.parametrize(
    ("fmt", "expected"), [("json", '"boolean":true'), ("xml", "<boolean>true</boolean>"), ("table", "true")]
)
def test_ask_in_each_format(store: str, fmt: str, expected: str) -> None:
    code, out = kg(store, "query", "-e", "ASK { ?p a kgp:Person }", "--format", fmt)
    assert code == 0, out
    assert expected in out.replace(" ", "")


def test_building_twice_into_one_store_swaps_the_link(tmp_path: Path) -> None:
    store = tmp_path / "store"
    for _ in range(2):
        result = runner.invoke(app, ["--project", str(ROOT), "build", "--store", str(store), "--quiet"])
        assert result.exit_code == 0, result.output
    assert store.is_symlink()
    published = store.resolve().name  # (the old generation removed; the published one and its lease file left)
    assert sorted(p.name for p in (tmp_path / "store.generations").iterdir()) == [published, published + ".lease"]


def test_a_runaway_query_is_stopped_at_the_timeout(store: str) -> None:
    started = time.monotonic()
    code, out = kg(store, "query", "-e", "SELECT (COUNT(*) AS ?n) { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }", "--timeout", "1")
    assert code == 2 and "time limit hit: the query ran for more than 1 s" in out and "--timeout" in out
    assert time.monotonic() - started < 10  # the worker's start is not counted; the query is stopped at 1 s


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("SELECT * WHERE " + "{" * 3000 + "}" * 3000, "nests brackets 3000 levels deep"),
        ("SELECT * WHERE { FILTER(" + "(" * 5000 + "1" + ")" * 5000 + ") }", "nests brackets 5002 levels deep"),
        ("PREFIX ex: <http://x\\u0041#> SELECT * { SERVICE <http://127.0.0.1:9/x> { ?x ?p ?o } }", "SERVICE is not"),
        ("SELECT * FROM <http://127.0.0.1:9/remote.ttl> { ?s ?p ?o }", "is not a graph of this store"),
    ],
    ids=["braces", "parentheses", "escaped-service", "from"],
)
def test_crafted_queries_are_refused_with_a_message(store: str, query: str, expected: str) -> None:
    code, out = kg(store, "query", "-e", query)
    assert code == 2 and expected in out and "Traceback" not in out


@pytest.mark.parametrize("timeout", ["0", "-1", "inf", "1e400", "nan", "1e10"])
def test_the_timeout_must_be_positive_and_finite(store: str, timeout: str) -> None:
    """No query runs without a time budget: infinity, NaN and more than a day are refused before
    a worker starts (inf and 1e10 overflowed the worker's poll: exit 70, then a hang; NaN was a
    time limit hit at once)."""
    started = time.monotonic()
    code, out = kg(store, "query", "-e", "ASK {}", "--timeout", timeout)
    assert code == 2 and "--timeout must be a number of seconds above 0 and at most 86,400" in out, out
    assert "internal error" not in out and "Traceback" not in out and time.monotonic() - started < 5


@pytest.mark.parametrize("params", [(), ("--param", "org=pytorch")], ids=["plain", "with-a-header"])
def test_a_query_file_that_is_not_utf8_is_an_input_error(store: str, tmp_path: Path, params: tuple[str, ...]) -> None:
    """A .rq file saved as Latin-1 was an 'internal error: UnicodeDecodeError … a bug' (exit 70)."""
    latin = tmp_path / "latin.rq"
    latin.write_bytes('# summary: café\n# param: org IRI\nSELECT * { ?s ?p "café" }\n'.encode("latin-1"))
    code, out = kg(store, "query", str(latin), *params)
    assert code == 2 and f"{latin}:1: not UTF-8 text (byte 0xe9 at offset 14)" in out, out
    assert "save the file as UTF-8" in out and "internal error" not in out


def test_a_projects_query_that_is_not_utf8_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "kgprofiles.toml").write_text("[kgprofiles]\n", encoding="utf-8")
    (tmp_path / "queries").mkdir()
    (tmp_path / "queries" / "mine.rq").write_bytes("# summary: caf\xe9\nASK {}\n".encode("latin-1"))
    result = runner.invoke(app, ["--project", str(tmp_path), "query", "--list"])
    assert result.exit_code == 2 and "mine.rq:1: not UTF-8 text (byte 0xe9" in result.output, result.output


def test_usage_errors_are_typers_own_message_with_exit_2() -> None:
    """The error boundary leaves a usage error to Typer: the usage line, exit 2, not a bug report."""
    missing = runner.invoke(app, ["--project", str(ROOT), "profile"])
    assert missing.exit_code == 2 and "Missing argument" in missing.output and "internal error" not in missing.output
    no_value = runner.invoke(app, ["--project", str(ROOT), "profile", "horace-he", "--format"])
    assert no_value.exit_code == 2 and "requires an argument" in no_value.output
    assert "internal error" not in no_value.output


def test_a_project_directory_that_does_not_exist_is_an_input_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["--project", str(tmp_path / "nowhere"), "people"])
    assert result.exit_code == 2 and "no project directory" in result.output


def test_a_syntax_error_shows_the_line_and_a_caret_in_words(store: str) -> None:
    code, out = kg(store, "query", "-e", "SELECT ?x WHERE {\n  ?x kgp:name ?y .\n  FILTER(?y = ) }")
    assert code == 2 and "\\u{" not in out
    column = int(re.search(r"line 3, column (\d+): expected ", out)[1])  # type: ignore[index]
    assert out.endswith("\n    FILTER(?y = ) }\n  " + " " * (column - 1) + "^\n")


def test_an_unknown_prefix_is_named_with_the_declared_ones(store: str) -> None:
    code, out = kg(store, "query", "-e", "PREFIX ex: <http://example.org/>\nSELECT ?x WHERE { ?x foo:bar ex:y }")
    assert code == 2
    assert "the prefix foo: is not declared" in out and "ex:" in out and "person:" in out and "\\u{" not in out


def test_a_query_of_the_embedded_store_never_loads_the_remote_client(store: str) -> None:
    """The SPARQL-server client (SPARQLWrapper and the rest: 50 ms of imports) is for --endpoint."""
    code = (
        "import sys\nfrom kgprofiles.cli import app\n"
        f"sys.argv = ['kgprofiles', '--project', {str(ROOT)!r}, 'query', 'person', '--param', 'person=horace-he', "
        f"'--store', {store!r}]\n"
        "try:\n    app()\nexcept SystemExit as done:\n    assert not done.code, done.code\n"
        "print('LOADED' if 'kgprofiles.store.remote' in sys.modules else 'NOT LOADED')"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert "Horace He" in out.stdout and out.stdout.strip().endswith("NOT LOADED"), out.stdout + out.stderr
