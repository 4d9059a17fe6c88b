"""Starting a graph of one's own: `kgprofiles init`, `kgprofiles new …`, and commands outside any
project. Run as a user runs them, from the project's directory."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pyoxigraph as ox
import pytest
from typer.testing import CliRunner

from kgprofiles.cli import app
from kgprofiles.drafts import placeholder_base_iri

runner = CliRunner()


def kg(*args: str, input: str | None = None) -> tuple[int, str]:
    result = runner.invoke(app, list(args), input=input)
    return result.exit_code, result.output


@pytest.fixture
def in_new_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KGPROFILES_PROJECT", raising=False)
    monkeypatch.delenv("KGPROFILES_DATA", raising=False)
    monkeypatch.delenv("KGPROFILES_STORE", raising=False)
    code, out = kg("init", "--name", "Who's who of examples")
    assert code == 0, out
    return tmp_path


def test_init_writes_a_project_that_validates_and_builds(in_new_project: Path) -> None:
    assert (in_new_project / "kgprofiles.toml").read_text(encoding="utf-8").count("Who's who of examples") == 1
    assert {p.name for p in (in_new_project / "data").iterdir()} == {"people", "organizations", "topics", "sources"}
    assert ".kgprofiles/" in (in_new_project / ".gitignore").read_text(encoding="utf-8")
    assert "EXAMPLE" in (in_new_project / "data" / "people" / "example-person.ttl").read_text(encoding="utf-8")
    assert kg("validate")[0] == 0
    code, out = kg("build", "-q")
    assert code == 0 and str(in_new_project / ".kgprofiles" / "store") in out
    assert kg("profile", "example-person")[1].startswith("Example Person\n")


def test_an_init_that_fails_can_be_run_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """kgprofiles.toml, which makes a directory a project, is written last: an init that failed
    before it (here a .gitignore that is a directory) leaves no half-project that a second init
    would refuse as "already a project"."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".gitignore").mkdir()
    code, out = kg("init")
    assert code == 2 and ".gitignore is a directory" in out and not (tmp_path / "kgprofiles.toml").exists()
    (tmp_path / ".gitignore").rmdir()
    code, out = kg("init")
    assert code == 0, out
    assert (tmp_path / "kgprofiles.toml").is_file() and (tmp_path / "data" / "people" / "example-person.ttl").is_file()


def test_init_refuses_an_existing_project(in_new_project: Path) -> None:
    code, out = kg("init")
    assert code == 2 and "already a project" in out


def test_a_new_person_with_a_hostile_name_is_one_literal(in_new_project: Path) -> None:
    name = 'Ada "Q" Lovelace\n""" ; kgp:name "Injected" .\\u0041'
    code, out = kg("new", "person", name, "--slug", "ada", "--source", "https://example.org/ada")
    assert code == 0, out
    path = in_new_project / "data" / "people" / "ada.ttl"
    triples = set(ox.parse(path=str(path), format=ox.RdfFormat.TURTLE))
    names = [t.object.value for t in triples if t.predicate.value.endswith("#name")]
    assert names == [name]
    assert len(triples) == 6  # the person's type, name and source; the source's type, title and url
    assert kg("validate")[0] == 0


def test_new_refuses_to_overwrite_or_reuse_a_slug(in_new_project: Path) -> None:
    code, out = kg("new", "person", "Example Person", "--source", "https://example.org/")
    assert code == 2 and "exists; nothing was written" in out
    (in_new_project / "data" / "people" / "group.ttl").write_text(
        "@prefix kgp: <https://w3id.org/kgprofiles/ontology#> .\n"
        f'<{placeholder_base_iri(in_new_project)}person/taken> kgp:name "Taken" .\n',
        encoding="utf-8",
    )
    code, out = kg("new", "person", "Taken", "--source", "https://example.org/")
    assert code == 2 and "already in use" in out
    assert not (in_new_project / "data" / "people" / "taken.ttl").exists()


def test_a_name_too_long_for_a_file_name_is_refused_before_anything_is_written(in_new_project: Path) -> None:
    """A 10,000-character name made a slug no file system takes ("system error: File name too
    long", exit 3, as if the store had failed)."""
    before = sorted((in_new_project / "data").rglob("*"))
    code, out = kg("new", "person", "Ab " * 3_400, "--source", "https://example.org/")
    assert code == 2 and "a slug of 10,199 characters, past 120" in out and "--slug" in out
    assert sorted((in_new_project / "data").rglob("*")) == before


def test_a_new_file_that_cannot_be_written_whole_leaves_nothing_in_data(in_new_project: Path) -> None:
    """A full disk (here a file-size limit, RLIMIT_FSIZE, in a child) as `new` writes its file: it
    left an empty data/people/ada.ttl (a longer file: a truncated one, which the next build
    cannot parse), and the same command run again, once there is room, refused: "exists;
    nothing was written"."""
    import resource
    import signal
    import subprocess
    import sys

    def no_room() -> None:  # (in the child, before it runs kgprofiles)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))

    command = [sys.executable, "-m", "kgprofiles", "new", "person", "Ada", "--source", "https://example.org/ada"]
    before = sorted((in_new_project / "data").rglob("*"))
    done = subprocess.run(command, preexec_fn=no_room, capture_output=True, text=True, timeout=60)
    assert done.returncode == 3 and "system error: File too large" in done.stderr, done.stderr
    assert sorted((in_new_project / "data").rglob("*")) == before
    code, out = kg("new", "person", "Ada", "--source", "https://example.org/ada")
    assert code == 0, out
    assert kg("validate")[0] == 0


def test_a_person_needs_a_source_and_a_source_a_web_address(in_new_project: Path) -> None:
    code, out = kg("new", "person", "No Source")
    assert code == 2 and "a person needs a source" in out
    code, out = kg("new", "source", "javascript:alert(1)")
    assert code == 2 and "not a web address" in out
    code, out = kg("new", "source", "https://example.org/paper", "--title", "A paper")
    assert code == 0 and (in_new_project / "data" / "sources" / "a-paper.ttl").exists()


def test_commands_outside_any_project_say_how_to_start_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KGPROFILES_PROJECT", raising=False)
    code, out = kg("validate")
    assert code == 2 and "not in a kgprofiles project" in out and "kgprofiles init" in out
    assert kg("--help")[0] == 0 and kg("validate", "--help")[0] == 0


def test_a_kgprofiles_toml_that_is_not_utf8_is_an_input_error(in_new_project: Path) -> None:
    """A Latin-1 "é" in kgprofiles.toml made every command an 'internal error' (exit 70)."""
    config = in_new_project / "kgprofiles.toml"
    config.write_bytes(config.read_bytes() + "# café\n".encode("latin-1"))
    code, out = kg("validate")
    lines = config.read_bytes().count(b"\n")
    assert code == 2 and f"kgprofiles.toml:{lines}: not UTF-8 text (byte 0xe9" in out, out
    assert "internal error" not in out


def test_a_project_mints_and_resolves_its_iris_under_its_own_base(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KGPROFILES_PROJECT", raising=False)
    base = "https://example.org/birds/"
    assert kg("init", "--name", "Ornithologists", "--base-iri", base)[0] == 0
    assert f'base_iri = "{base}"' in (tmp_path / "kgprofiles.toml").read_text(encoding="utf-8")
    code, out = kg("new", "person", "Ada Lovelace", "--source", "https://example.org/ada")
    assert code == 0, out
    draft = (tmp_path / "data" / "people" / "ada-lovelace.ttl").read_text(encoding="utf-8")
    assert f"<{base}person/>" in draft and "w3id.org/kgprofiles/id" not in draft
    assert kg("validate")[0] == 0 and kg("build", "-q")[0] == 0

    assert kg("profile", "ada-lovelace")[1].startswith("Ada Lovelace\n")  # a slug resolves under the base
    assert kg("profile", "person:ada-lovelace")[1].startswith("Ada Lovelace\n")  # so does the project's CURIE
    exported = kg("export", "--format", "nt")[1]
    assert f"<{base}person/ada-lovelace>" in exported and "w3id.org/kgprofiles/id/" not in exported
    assert f'"person": "{base}person/"' in kg("export", "--format", "jsonld")[1]
    code, out = kg("query", "-e", "SELECT ?p WHERE { ?p a kgp:Person } ORDER BY ?p")
    assert code == 0 and "person:ada-lovelace" in out and "person:example-person" in out
    assert kg("query", "-e", "ASK { person:ada-lovelace a kgp:Person }")[1].strip() == "true"  # in the worker too

    from starlette.testclient import TestClient

    from kgprofiles.config import load_settings
    from kgprofiles.web import create_app

    with TestClient(create_app(load_settings(tmp_path))) as client:
        page = client.get("/id/person/ada-lovelace", headers={"Accept": "text/html"})
        assert page.status_code == 200 and "Ada Lovelace" in page.text
        assert client.get("/id/person/nobody").status_code == 404


@pytest.mark.parametrize(
    "base",
    [
        "example.org/birds/",  # not absolute
        "https://example.org/birds",  # IRIs would run into the slug
        "https://example.org/bi rds/",  # a space
        'https://example.org/"><script>/',  # characters an IRI may not hold
        "javascript:alert(1)//",
        "https://w3id.org/kgprofiles/",  # kgprofiles' own namespaces
        "https://example.org/x\x7f/",  # a control character (DEL): no IRI holds it, nor a TOML string
        "https://example.org/x\x85/",  # a C1 control character
    ],
)
def test_a_base_iri_that_cannot_be_one_is_refused_with_the_reason(
    base: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out = kg("init", "--base-iri", base)
    assert code == 2 and "--base-iri" in out and "Traceback" not in out
    assert not (tmp_path / "kgprofiles.toml").exists()


def test_a_title_with_any_control_character_is_written_as_toml_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DEL (U+007F) is a control character TOML does not allow in a string: written as it was, the
    project's own kgprofiles.toml could not be read ("Illegal character '\\x7f'")."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KGPROFILES_PROJECT", raising=False)
    title = 'a\x7fb\x01c\x9fd"""\\e\n'
    code, out = kg("init", "--name", title)
    assert code == 0, out
    assert tomllib.loads((tmp_path / "kgprofiles.toml").read_text(encoding="utf-8"))["kgprofiles"]["title"] == title
    code, out = kg("validate")
    assert code == 0, out


def test_a_hand_edited_base_iri_is_refused_with_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KGPROFILES_PROJECT", raising=False)
    (tmp_path / "kgprofiles.toml").write_text('[kgprofiles]\nbase_iri = "ftp://example.org/x/"\n', encoding="utf-8")
    code, out = kg("validate")
    assert code == 2 and "kgprofiles.toml: base_iri" in out


HEADLINE_SHAPE = """@prefix sh:  <http://www.w3.org/ns/shacl#> .
@prefix kgp: <https://w3id.org/kgprofiles/ontology#> .
@prefix ex:  <https://example.org/shapes#> .
ex:PersonHasHeadline a sh:NodeShape ;
    sh:targetClass kgp:Person ;
    sh:property [ sh:path kgp:headline ; sh:minCount 1 ; sh:message "Our house rule: every person has a headline" ] .
"""

PEOPLE_BY_SLUG = """# summary: Our own listing of people: every person's IRI, newest-minted last.
SELECT ?person WHERE { ?person a kgp:Person } ORDER BY ?person
"""


def test_a_projects_own_shapes_and_queries_come_beside_kgprofiles_own(in_new_project: Path) -> None:
    (in_new_project / "shapes").mkdir()
    (in_new_project / "shapes" / "house-rules.ttl").write_text(HEADLINE_SHAPE, encoding="utf-8")
    (in_new_project / "queries").mkdir()
    (in_new_project / "queries" / "our-people.rq").write_text(PEOPLE_BY_SLUG, encoding="utf-8")

    code, out = kg("validate")  # the example person has no headline: the project's rule speaks
    assert code == 1 and "Our house rule: every person has a headline" in out
    (in_new_project / "data" / "people" / "example-person.ttl").write_text(
        (in_new_project / "data" / "people" / "example-person.ttl").read_text(encoding="utf-8")
        + '\nperson:example-person kgp:source "not a source" .\n',
        encoding="utf-8",
    )
    assert "kgp:source" in kg("validate")[1]  # kgprofiles' own shapes still apply beside it

    code, out = kg("query", "--list")
    assert code == 0 and "our-people" in out and "person-timeline" in out  # added, not replacing


def test_a_projects_query_of_the_same_name_overrides_kgprofiles_own(in_new_project: Path) -> None:
    (in_new_project / "queries").mkdir()
    people = Path(__file__).resolve().parents[1] / "queries" / "people.rq"
    mine = people.read_text(encoding="utf-8").replace("ORDER BY ?name ?person", "ORDER BY DESC(?name) ?person")
    (in_new_project / "queries" / "people.rq").write_text(mine, encoding="utf-8")
    assert kg("new", "person", "Ada Lovelace", "--source", "https://example.org/ada")[0] == 0
    assert kg("build", "-q")[0] == 0
    names = [line.split(maxsplit=1)[1] for line in kg("people")[1].splitlines()[:-1]]
    assert names == ["Example Person", "Ada Lovelace"]  # the project's order, not kgprofiles'


def test_replace_shapes_says_the_projects_shapes_are_the_only_ones(in_new_project: Path) -> None:
    (in_new_project / "shapes").mkdir()
    (in_new_project / "shapes" / "house-rules.ttl").write_text(HEADLINE_SHAPE, encoding="utf-8")
    config = in_new_project / "kgprofiles.toml"
    config.write_text(config.read_text(encoding="utf-8") + "replace_shapes = true\n", encoding="utf-8")
    (in_new_project / "data" / "people" / "example-person.ttl").write_text(
        (in_new_project / "data" / "people" / "example-person.ttl").read_text(encoding="utf-8")
        + '\nperson:example-person kgp:headline "An example" ; kgp:source "not a source" .\n',
        encoding="utf-8",
    )
    assert kg("validate")[0] == 0  # kgprofiles' rule on kgp:source no longer applies


def test_two_inits_of_one_directory_at_once_make_one_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two `kgprofiles init` in one directory at once, with different base IRIs: both had found no
    kgprofiles.toml, both wrote and both said so, leaving the config of one and the example
    person of the other (IRIs under another base than the project's). The second says another
    init is making the project, and writes nothing."""
    import kgprofiles.drafts as drafts

    monkeypatch.chdir(tmp_path)
    real = drafts._prefix_lines
    nested: list[tuple[int, str]] = []
    started: list[bool] = []

    def another_init_meanwhile(prefixes: dict[str, str]) -> list[str]:
        if not started:  # the second init runs while the first writes its example person
            started.append(True)
            nested.append(kg("init", "--yes", "--base-iri", "https://b.example.org/y/"))
        return real(prefixes)

    monkeypatch.setattr(drafts, "_prefix_lines", another_init_meanwhile)
    first = kg("init", "--yes", "--base-iri", "https://a.example.org/x/")
    monkeypatch.setattr(drafts, "_prefix_lines", real)
    assert first[0] == 0, first[1]
    assert nested and nested[0][0] == 2 and "another `kgprofiles init`" in nested[0][1], nested
    config = tomllib.loads((tmp_path / "kgprofiles.toml").read_text(encoding="utf-8"))
    assert config["kgprofiles"]["base_iri"] == "https://a.example.org/x/"
    example = (tmp_path / "data" / "people" / "example-person.ttl").read_text(encoding="utf-8")
    assert "b.example.org" not in example and "a.example.org" in example
    assert (tmp_path / ".gitignore").read_text(encoding="utf-8").count(".kgprofiles/") == 1


def test_two_news_of_one_slug_at_once_refuse_the_second_as_one_run_after(
    in_new_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two `kgprofiles new person "Ada"` at once: both found no file, one wrote it, and the other
    failed with "system error: File exists" and exit 3 (the code of a store error), where the
    same command run a moment later says "exists; nothing was written" (exit 2)."""
    import kgprofiles.drafts as drafts

    real = drafts.new_entity

    def another_new_meanwhile(*args: object, **options: object) -> drafts.Draft:
        draft = real(*args, **options)  # type: ignore[arg-type]
        draft.write()  # (the other `new`, done first)
        return draft

    monkeypatch.setattr(drafts, "new_entity", another_new_meanwhile)
    code, out = kg("new", "person", "Ada", "--source", "https://example.org/ada")
    assert code == 2 and "exists; nothing was written" in out, out
