"""``kgprofiles load --check``: the files validated as a load validates them, against the built
store, every result printed, and nothing written — the quick check of an edited file."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from kgprofiles.cli import app
from kgprofiles.config import Settings
from kgprofiles.errors import InputError
from kgprofiles.pipeline import build, check_load, validate
from kgprofiles.store.generations import generations_dir
from test_build import FIXTURES, canonical_dump

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def built(tmp_path: Path, settings: Settings) -> Settings:
    """A copy of the project's data, built into a store in a temporary directory."""
    shutil.copytree(ROOT / "data", tmp_path / "data")
    project = settings.with_overrides(data_dir=tmp_path / "data", store=str(tmp_path / "store"))
    build(project)
    return project


def state(project: Settings) -> tuple[list[str], list[str]]:
    """Every quad of the store and every entry beside its published generation."""
    return canonical_dump(project.store), sorted(p.name for p in generations_dir(Path(project.store)).iterdir())


#: The commands that read a data file, as a user names it.
READERS = (["load", "--check"], ["load"], ["build"], ["validate"])


def refused_by_each(
    built: Settings,
    monkeypatch: pytest.MonkeyPatch,
    path: Path,
    says: str,
    commands: tuple[list[str], ...] = READERS,
    *,
    code: int = 2,
    stream: str = "stderr",
) -> None:
    """Each of ``commands`` run on ``path`` exits ``code`` saying ``says`` (on ``stream``: stderr,
    or output, both together), and leaves the store as it was."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("KGPROFILES_DATA", str(built.data_dir))
    before = state(built)
    for command in commands:
        store = [] if command[0] == "validate" else ["--store", built.store]
        result = CliRunner().invoke(app, [*command, *store, str(path)], catch_exceptions=False)
        assert result.exit_code == code, (command, result.output)
        assert says in getattr(result, stream), command
        assert state(built) == before, command


def test_a_violation_is_reported_at_its_line_and_nothing_is_written(built: Settings) -> None:
    before = state(built)
    report, _ = check_load(built, [FIXTURES / "role-ends-before-start.ttl"])
    assert not report.conforms
    assert any("role-ends-before-start.ttl:8: violation" in r.format() for r in report.violations)
    assert state(built) == before


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(("", ""), id="as it is (its warnings)"),
        pytest.param(
            ("kgp:organization organization:pytorch ;", "kgp:organization organization:nowhere ;"),
            id="a role at an organisation no file defines",
        ),
    ],
)
def test_a_file_gets_the_results_validate_gives_in_the_projects_context(built: Settings, edit: tuple[str, str]) -> None:
    path = built.data_dir / "people" / "horace-he.ttl"
    text = path.read_text(encoding="utf-8")
    assert edit[0] in text
    path.write_text(text.replace(*edit) if edit[0] else text, encoding="utf-8")
    before = state(built)
    checked, _ = check_load(built, [path])
    validated = validate(built, [path])
    assert checked.results, "the seed person has warnings at least"
    assert [r.format() for r in checked.results] == [r.format() for r in validated.results]
    assert checked.conforms == validated.conforms == (not edit[0])
    assert state(built) == before


def test_an_in_memory_store_has_nothing_to_check_against(built: Settings) -> None:
    with pytest.raises(InputError, match="in-memory store"):
        check_load(built.with_overrides(store="memory:"), [built.data_dir / "people" / "horace-he.ttl"])


Run = Callable[..., Result]


@pytest.fixture
def cli(built: Settings, monkeypatch: pytest.MonkeyPatch) -> Run:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("KGPROFILES_DATA", str(built.data_dir))

    def run(*args: str) -> Result:
        return CliRunner().invoke(app, ["load", "--check", "--store", built.store, *args], catch_exceptions=False)

    return run


def test_the_command_exits_0_for_a_file_the_load_would_take(built: Settings, cli: Run) -> None:
    before = state(built)
    result = cli("-q", str(built.data_dir / "people" / "horace-he.ttl"))
    assert result.exit_code == 0, result.output
    assert "1 file(s) checked: 0 violations" in result.stdout
    assert "nothing written" in result.stdout
    assert state(built) == before


def test_the_command_exits_1_for_a_violation_and_writes_nothing(built: Settings, cli: Run) -> None:
    before = state(built)
    result = cli("-q", str(FIXTURES / "role-ends-before-start.ttl"))
    assert result.exit_code == 1
    assert "role-ends-before-start.ttl:8: violation" in result.stdout
    assert state(built) == before


def test_check_with_the_reference_engines_is_refused_with_a_hint(cli: Run, built: Settings) -> None:
    result = cli("--reference", str(built.data_dir / "people" / "horace-he.ttl"))
    assert result.exit_code == 2
    assert "validate --reference" in result.output


def test_a_file_that_does_not_parse_exits_2_with_its_line_and_writes_nothing(built: Settings, cli: Run) -> None:
    before = state(built)
    result = cli("-q", str(FIXTURES / "broken-syntax.ttl"))
    assert result.exit_code == 2
    assert "broken-syntax.ttl:6:1: syntax error" in result.output
    assert state(built) == before


def test_a_directory_without_rdf_files_is_refused_and_the_store_kept(
    built: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``build DIR`` of a directory that holds no .ttl or .nt file (empty, or only notes) published
    an empty graph in place of the store's (exit 0, "built: 0 file(s)"); ``load DIR`` wrote a new
    generation of nothing, and ``validate DIR`` reported on the rest of data/ instead."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "README.txt").write_text("no RDF here\n", encoding="utf-8")
    says = f"{notes}: no RDF files in this directory; nothing was read"
    refused_by_each(built, monkeypatch, notes, says, (["build"], ["load"], ["validate"]), stream="output")


@pytest.mark.parametrize(
    "statement",
    [
        "<< ex:a ex:p ex:b >> ex:q 1 .",  # a reified triple
        "ex:a ex:p ex:b {| ex:q 1 |} .",  # an annotation
        "ex:a ex:p ex:b ~ ex:r .",  # a reifier
        "ex:a ex:q <<( ex:a ex:p ex:b )>> .",  # a triple term
    ],
)
def test_an_rdf_1_2_triple_term_is_refused_at_its_line_and_the_store_kept(
    built: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, statement: str
) -> None:
    """pyoxigraph parses RDF 1.2; rdflib (pyshacl, owlrl, the validation report) holds no triple
    term. ``load --check`` and ``load`` asked the store for one as a subject ("internal error:
    TypeError: failed to extract enum PyNamedOrBlankNodeRef … a bug in kgprofiles", exit 70;
    found by fuzzing), ``--reference`` failed in rdflib, and ``build`` when a shape reported one."""
    path = tmp_path / "reified.ttl"
    path.write_text(
        '@prefix ex: <http://example.org/> .\n# a comment: << ~\nex:a ex:name "<< {| ~" .\n' + statement + "\n",
        encoding="utf-8",
    )
    commands = (*READERS, ["validate", "--reference"])
    refused_by_each(built, monkeypatch, path, f"{path}:4: an RDF 1.2 triple term", commands, stream="output")


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("my topics.ttl", "Invalid IRI code point ' '"),
        ("a|b.ttl", "Invalid IRI code point '|'"),
        ("100%zz.ttl", "Invalid IRI percent encoding '%zz'"),
        (b"caf\xe9.ttl", "the path is not UTF-8"),  # Latin-1
    ],
    ids=["space", "pipe", "bad percent", "not UTF-8"],
)
def test_a_file_whose_name_makes_no_graph_iri_is_refused_and_the_store_kept(
    built: Settings, monkeypatch: pytest.MonkeyPatch, name: str | bytes, why: str
) -> None:
    """A file's named graph is its path under data/: a name with a space (or ``|``, ``%zz``,
    bytes that are not UTF-8) made no IRI, and validate and build ended with "internal error:
    ValueError: Invalid IRI code point ' ' … a bug in kgprofiles" (exit 70; UnicodeEncodeError
    for a name that is not UTF-8), load with a store error (exit 3). Found by fuzzing."""
    directory = built.data_dir / "topics"
    try:
        path = Path(os.fsdecode(os.path.join(os.fsencode(directory), os.fsencode(name))))
        shutil.copy(directory / "topics.ttl", path)
    except (OSError, UnicodeError):
        pytest.skip("this file system does not take the name")
    (directory / "topics.ttl").unlink()  # (the same topics, in the file with the odd name only)
    shown = f"{path}".encode("utf-8", "backslashreplace").decode("utf-8")
    refused_by_each(built, monkeypatch, path, f"{shown}: the file's path cannot be part of the IRI of its graph: {why}")


def test_an_owl_same_as_chain_is_refused_by_load_as_build_refuses_it(
    built: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """600 owl:sameAs links in a chain (a 35 KB file) make a class of 601 names, 361,201 inferred
    triples: build stops at its budget (inferred_triples_factor) at once. The local closure of
    load had a time budget only: it stored them all (3,000 links: minutes, and gigabytes, past
    any timeout; found by fuzzing). Past the factor on its own data, the load infers in full,
    under build's budget, and refuses as build does; load --check says so too."""
    path = tmp_path / "chain.ttl"
    path.write_text(
        "".join(
            f"<http://example.org/n{i}> <http://www.w3.org/2002/07/owl#sameAs> <http://example.org/n{i + 1}> .\n"
            for i in range(600)
        ),
        encoding="utf-8",
    )
    commands = (["load", "--check", "-q"], ["load", "-q"])
    refused_by_each(built, monkeypatch, path, "inference stopped at its budget: more than", commands, code=1)


@pytest.mark.parametrize(
    "lists",
    [
        "_:l rdf:first kgp:topic ; rdf:rest _:l .",
        "_:l rdf:first kgp:topic ; rdf:rest _:m .\n_:m rdf:first kgp:topic ; rdf:rest _:l .",
    ],
    ids=["onto itself", "through another cell"],
)
def test_an_rdf_list_that_loops_is_refused_at_its_line_and_the_store_kept(
    built: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lists: str
) -> None:
    """owlrl reads the list of an owl:propertyChainAxiom (owl:unionOf, owl:members…) and stopped
    on one whose rdf:rest leads back into it: "internal error: owlrl failed: ValueError: List
    contains a recursive rdf:rest reference … a bug in kgprofiles" (exit 70; found by fuzzing)."""
    path = tmp_path / "loop.ttl"
    path.write_text(
        "@prefix kgp: <https://w3id.org/kgprofiles/ontology#> .\n"
        "@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        "@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .\n"
        "kgp:x owl:propertyChainAxiom _:l .\n" + lists + "\n",
        encoding="utf-8",
    )
    refused_by_each(built, monkeypatch, path, f"{path}:4: an RDF list whose rdf:rest leads back into itself")
