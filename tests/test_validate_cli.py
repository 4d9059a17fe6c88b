"""`kgprofiles validate`, run as a curator runs it: what it prints, and the exit code.

Exit 0: no violation (warnings never fail); 1: violations; 2: unreadable input.
The broken inputs are in tests/fixtures/broken/.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from conftest import ROOT
from kgprofiles.cli import app
from kgprofiles.config import Settings
from kgprofiles.errors import ValidationFailed
from kgprofiles.pipeline import build
from kgprofiles.store.oxigraph import OxigraphStore

BROKEN = "tests/fixtures/broken"
Run = Callable[..., Result]
SUMMARY = re.compile(r"^(\d+) file\(s\) checked: (\d+) violations?, (\d+) warnings?$")


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch) -> Iterator[Run]:
    """Run the CLI in-process from the project root, the way a curator runs it from the checkout."""
    monkeypatch.chdir(ROOT)
    runner = CliRunner()

    def run(*args: str) -> Result:
        return runner.invoke(app, list(args), catch_exceptions=False)

    yield run


def data_files() -> list[Path]:
    return sorted(p for p in (ROOT / "data").rglob("*") if p.suffix in (".ttl", ".nt"))


def stdout_lines(result: Result) -> list[str]:
    return result.stdout.splitlines()


########################################################################### the seed data


def test_validate_data_exits_0_with_no_violation(cli: Run) -> None:
    result = cli("validate", "data/")

    assert result.exit_code == 0, result.output
    summary = SUMMARY.match(stdout_lines(result)[-1])
    assert summary, stdout_lines(result)[-1]
    assert int(summary.group(1)) == len(data_files())
    assert summary.group(2) == "0"
    assert ": violation: " not in result.stdout


def test_validate_without_paths_checks_data(cli: Run) -> None:
    with_default = cli("validate")
    explicit = cli("validate", "data/")

    assert with_default.exit_code == 0
    assert with_default.stdout == explicit.stdout


########################################################################### violations


def test_a_violation_exits_1_and_points_at_file_and_line(cli: Run) -> None:
    result = cli("validate", f"{BROKEN}/role-without-holder.ttl")

    assert result.exit_code == 1
    assert stdout_lines(result) == [
        f"{BROKEN}/role-without-holder.ttl:8: violation: A role needs exactly one kgp:holder, a kgp:Person. "
        "(claim:broken-role, kgp:holder, kgs:RoleShape)",
        "1 file(s) checked: 1 violation, 0 warnings",
    ]
    assert result.stderr == ""


def test_results_are_grouped_by_file_then_summed_up(cli: Run) -> None:
    result = cli("validate", f"{BROKEN}/warnings-only.ttl", f"{BROKEN}/role-without-holder.ttl")

    assert result.exit_code == 1
    lines = stdout_lines(result)
    assert [line.split(":", 1)[0] for line in lines[:3]] == [
        f"{BROKEN}/role-without-holder.ttl",
        "",  # a blank line between files
        f"{BROKEN}/warnings-only.ttl",
    ]
    assert lines[-1] == "2 file(s) checked: 1 violation, 1 warning"


def test_a_relative_iri_is_refused_with_file_and_line(cli: Run) -> None:
    """Data files have no base IRI: `<#broken-topic>` is an input error, not a silent
    `file:///…/relative-iri.ttl#broken-topic` that changes with the checkout's location."""
    result = cli("validate", f"{BROKEN}/relative-iri.ttl")

    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.splitlines()[0] == (
        f"kgprofiles: input error: {BROKEN}/relative-iri.ttl:5:1: relative IRI: No scheme found in an absolute IRI"
    )
    assert "@base" in result.stderr


def test_a_relative_iri_under_the_files_own_base_points_at_file_and_line(cli: Run) -> None:
    """`@base` in the file still resolves `<#broken-topic>`, and its line is still found."""
    result = cli("validate", f"{BROKEN}/relative-iri-with-base.ttl")

    assert result.exit_code == 1
    assert stdout_lines(result)[0] == (
        f"{BROKEN}/relative-iri-with-base.ttl:6: violation: A topic needs exactly one kgp:name, a plain string. "
        "(<http://example.org/kgprofiles-test/#broken-topic>, kgp:name, kgs:TopicShape)"
    )


def test_a_violation_5000_blank_nodes_deep_points_at_the_outer_subject(cli: Run, tmp_path: Path) -> None:
    """The innermost of 5,000 nested ``[ ]`` is a role with nothing else: its violations point
    at the line of the person that holds the outermost one."""
    from test_ingest_lines import nested_brackets

    path = tmp_path / "nested.ttl"
    path.write_text(nested_brackets(5000, innermost="[ a kgp:Role ]"))

    result = cli("validate", str(path), "--format", "json")

    assert result.exit_code == 1
    roles = [r for r in json.loads(result.stdout)["results"] if r["shape"] == "kgs:RoleShape"]
    assert roles and {(r["file"], r["line"]) for r in roles} == {(str(path), 3)}


@pytest.mark.parametrize("share", ['"NaN"^^xsd:decimal', '"sNaN"^^xsd:decimal', '"Infinity"^^xsd:decimal'])
def test_a_decimal_that_is_not_a_number_is_a_violation_not_a_crash(cli: Run, tmp_path: Path, share: str) -> None:
    """rdflib reads "NaN"^^xsd:decimal as Decimal('NaN'), which no bound can be compared with
    (pyshacl itself stops on it with decimal.InvalidOperation): the share's range is violated."""
    fixture = (ROOT / "tests/shapes/award-receipt/bad-share-above-one.ttl").read_text(encoding="utf-8")
    path = tmp_path / "share.ttl"
    path.write_text(fixture.replace("kgp:share 1.5 ;", f"kgp:share {share} ;"), encoding="utf-8")

    result = cli("validate", str(path), "--format", "json")

    assert result.exit_code == 1, result.output
    found = [(r["path"], r["constraint"], r["line"]) for r in json.loads(result.stdout)["results"]]
    if "Infinity" in share:  # (a number, above 1)
        assert found == [("kgp:share", "MaxInclusive", 13)]
    else:
        assert sorted(found) == [("kgp:share", "MaxInclusive", 13), ("kgp:share", "MinExclusive", 13)]


def test_a_literal_owl_rl_refuses_where_no_shape_looks_is_a_violation_too(cli: Run, tmp_path: Path) -> None:
    """``build`` would refuse it (OWL RL: the data is inconsistent); ``validate`` says so first,
    at the line of its subject, and does not repeat what a shape already says (a bad date)."""
    fixture = (ROOT / "tests/shapes/award-receipt/bad-share-above-one.ttl").read_text(encoding="utf-8")
    text = fixture.replace("kgp:share 1.5 ;", "kgp:share 0.5 ;").replace('"1903"^^xsd:gYear', '"1903-02-30"^^xsd:date')
    xml = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#XMLLiteral>"
    path = tmp_path / "receipt.ttl"
    named = 'kgp:name "Example Person" ;'
    path.write_text(text.replace(named, f'{named} kgp:altName "]]>"^^{xml} ;'))

    result = cli("validate", str(path), "--format", "json")

    assert result.exit_code == 1, result.output
    results = json.loads(result.stdout)["results"]
    found = {(r["focus"], r["path"], r["shape"], r["constraint"], r["line"]) for r in results}
    assert ("person:example-person", "kgp:altName", "OWL RL", "Datatype", 25) in found
    dates = [f for f in found if f[1] == "kgp:date"]
    assert dates == [("claim:example-receipt", "kgp:date", "kgs:DateShape", "Or", 13)]


@pytest.mark.parametrize(
    "literal", ['"abc"^^xsd:decimal', '""^^xsd:decimal', '""^^xsd:date', '""^^xsd:dateTime', '""^^xsd:time']
)
@pytest.mark.parametrize("reference", [False, True], ids=["fast", "reference"])
def test_a_lexical_form_owlrl_cannot_convert_is_a_violation_not_a_crash(
    cli: Run, tmp_path: Path, literal: str, reference: bool
) -> None:
    """owlrl's converters fail on these with decimal.InvalidOperation or IndexError, not the
    ValueError its dt-not-type rule catches: validate, load and build ended with "internal error
    … a bug in kgprofiles" (exit 70; found by fuzzing). The literal is ill-typed, as OWL RL says."""
    path = tmp_path / "ill-typed.ttl"
    path.write_text(
        "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
        f"<https://example.org/thing> <https://example.org/value> {literal} .\n",
        encoding="utf-8",
    )

    result = cli("validate", "--format", "json", *(["--reference"] if reference else []), str(path))

    assert result.exit_code == 1, result.output
    found = [(r["shape"], r["constraint"], r["line"]) for r in json.loads(result.stdout)["results"]]
    assert found == [("OWL RL", "Datatype", 2)]


DISJOINT = """@prefix kgp:    <https://w3id.org/kgprofiles/ontology#> .
@prefix owl:    <http://www.w3.org/2002/07/owl#> .
@prefix person: <https://w3id.org/kgprofiles/id/person/> .

kgp:Person owl:disjointWith kgp:Organization .
person:jane-xu a kgp:Organization .
"""


def test_an_individual_of_disjoint_classes_is_a_violation_as_build_refuses_it(
    cli: Run, tmp_path: Path, settings: Settings
) -> None:
    """No shape says a person is not an organisation; OWL RL does once the data (or a project's
    ontology) declares the classes disjoint, and ``build`` refused such data that ``validate``
    passed. ``validate`` runs the inference when an axiom data can break is used anywhere."""
    path = tmp_path / "disjoint.ttl"
    path.write_text(DISJOINT, encoding="utf-8")

    result = cli("validate", str(path), "--format", "json")

    assert result.exit_code == 1, result.output
    (found,) = (r for r in json.loads(result.stdout)["results"] if r["severity"] == "violation")
    assert (found["focus"], found["shape"], found["constraint"], found["line"]) == (
        "person:jane-xu",
        "OWL RL",
        "Disjointness",
        6,
    )
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data", data)
    shutil.copy(path, data / "people" / "zz-disjoint.ttl")
    with pytest.raises(
        ValidationFailed, match=re.escape("a common individual https://w3id.org/kgprofiles/id/person/jane-xu")
    ):
        build(settings.with_overrides(data_dir=data), store=OxigraphStore("memory:"))


def test_the_python_api_gives_the_report_the_command_gives(tmp_path: Path) -> None:
    import kgprofiles

    path = tmp_path / "disjoint.ttl"
    path.write_text(DISJOINT, encoding="utf-8")
    report = kgprofiles.Project(ROOT).validate(paths=[path])
    assert not report.conforms
    assert [(r.focus, r.constraint, r.line) for r in report.results if r.severity == "violation"] == [
        ("person:jane-xu", "Disjointness", 6)
    ]


@pytest.mark.parametrize("how", [(), ("--reference",)], ids=["fast", "reference"])
def test_an_individual_typed_owl_nothing_is_a_violation_at_its_file(
    cli: Run, tmp_path: Path, how: tuple[str, ...]
) -> None:
    path = tmp_path / "nothing.ttl"
    axiom = "kgp:Person owl:disjointWith kgp:Organization ."
    path.write_text(DISJOINT.replace(axiom, "").replace("kgp:Organization", "owl:Nothing"))

    result = cli("validate", str(path), *how)

    assert result.exit_code == 1, result.output
    said = f"{path}: violation: https://w3id.org/kgprofiles/id/person/jane-xu is defined of type 'Nothing'"
    assert said in result.stdout


def test_without_axioms_data_can_break_validate_runs_no_inference(cli: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    """The project's ontology and the seed data use none: ``validate`` costs what the shapes cost."""
    import kgprofiles.fast

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("validate ran the inference")

    monkeypatch.setattr(kgprofiles.fast, "infer_triples", refuse)
    assert cli("validate").exit_code == 0


########################################################################### warnings


def test_warnings_alone_exit_0(cli: Run) -> None:
    result = cli("validate", f"{BROKEN}/warnings-only.ttl")

    assert result.exit_code == 0
    assert stdout_lines(result) == [
        f"{BROKEN}/warnings-only.ttl:5: warning: This source has no kgp:url; add one once it is verified. "
        "(source:broken-example-unverified, kgp:url, kgs:SourceUrlWarningShape)",
        "1 file(s) checked: 0 violations, 1 warning",
    ]


########################################################################### unreadable input


def test_a_syntax_error_exits_2_with_file_line_and_column(cli: Run) -> None:
    result = cli("validate", f"{BROKEN}/syntax-error.ttl")

    assert result.exit_code == 2
    assert result.stdout == ""
    first = result.stderr.splitlines()[0]
    assert first.startswith(f"kgprofiles: input error: {BROKEN}/syntax-error.ttl:7:14: syntax error: ")


def test_a_missing_path_exits_2(cli: Run) -> None:
    result = cli("validate", "no/such/file.ttl")

    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.splitlines()[0] == "kgprofiles: input error: no/such/file.ttl: no such file or directory"


def test_a_loop_of_symbolic_links_is_named_so(cli: Run, tmp_path: Path) -> None:
    (tmp_path / "a.ttl").symlink_to(tmp_path / "b.ttl")
    (tmp_path / "b.ttl").symlink_to(tmp_path / "a.ttl")

    result = cli("validate", str(tmp_path / "a.ttl"))

    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == f"kgprofiles: input error: {tmp_path / 'a.ttl'}: a loop of symbolic links"


def test_a_file_that_is_not_rdf_exits_2(cli: Run) -> None:
    result = cli("validate", f"{BROKEN}/notes.txt")

    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"kgprofiles: input error: {BROKEN}/notes.txt: not an RDF file",
        "hint: name .ttl or .nt files, or a directory",
    ]


def test_one_unreadable_file_stops_the_whole_run(cli: Run) -> None:
    result = cli("validate", f"{BROKEN}/role-without-holder.ttl", f"{BROKEN}/syntax-error.ttl")

    assert result.exit_code == 2
    assert result.stdout == ""


########################################################################### --format json


def test_json_format_has_every_result(cli: Run) -> None:
    result = cli("validate", "--format", "json", f"{BROKEN}/role-without-holder.ttl", f"{BROKEN}/warnings-only.ttl")

    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["conforms"] is False
    assert report["files"] == [f"{BROKEN}/role-without-holder.ttl", f"{BROKEN}/warnings-only.ttl"]
    assert (report["violations"], report["warnings"]) == (1, 1)
    assert report["results"] == [
        {
            "severity": "violation",
            "message": "A role needs exactly one kgp:holder, a kgp:Person.",
            "focus": "claim:broken-role",
            "path": "kgp:holder",
            "shape": "kgs:RoleShape",
            "constraint": "MinCount",
            "value": None,
            "file": f"{BROKEN}/role-without-holder.ttl",
            "line": 8,
        },
        {
            "severity": "warning",
            "message": "This source has no kgp:url; add one once it is verified.",
            "focus": "source:broken-example-unverified",
            "path": "kgp:url",
            "shape": "kgs:SourceUrlWarningShape",
            "constraint": "MinCount",
            "value": None,
            "file": f"{BROKEN}/warnings-only.ttl",
            "line": 5,
        },
    ]


def test_json_format_of_the_seed_data_conforms(cli: Run) -> None:
    result = cli("validate", "--format", "json", "data/")

    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert report["conforms"] is True
    assert report["violations"] == 0
    assert len(report["files"]) == len(data_files())
    assert report["warnings"] == len(report["results"])
    assert {r["severity"] for r in report["results"]} <= {"warning"}


########################################################################### the installed command


def run_installed(*args: str) -> subprocess.CompletedProcess[str]:
    """The `kgprofiles` console script installed beside this interpreter."""
    script = Path(sys.executable).parent / "kgprofiles"
    assert script.exists(), f"no console script at {script}: install the package (make .venv/.installed-test)"
    return subprocess.run([str(script), *args], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)


def test_installed_command_reports_a_violation() -> None:
    done = run_installed("validate", f"{BROKEN}/role-without-holder.ttl")

    assert done.returncode == 1
    assert done.stdout.splitlines()[0].startswith(
        f"{BROKEN}/role-without-holder.ttl:8: violation: A role needs exactly one kgp:holder"
    )


def test_installed_command_reports_an_impossible_date_without_a_traceback(tmp_path: Path) -> None:
    """rdflib logs every literal it cannot convert, with a traceback, on stderr: the program
    prints none of it (the shapes report the date, with its file and line)."""
    fixture = (ROOT / "tests/shapes/award-receipt/bad-share-above-one.ttl").read_text(encoding="utf-8")
    path = tmp_path / "receipt.ttl"
    path.write_text(
        fixture.replace("kgp:share 1.5 ;", "kgp:share 0.5 ;").replace('"1903"^^xsd:gYear', '"1903-02-30"^^xsd:date'),
        encoding="utf-8",
    )

    done = run_installed("validate", str(path))

    assert done.returncode == 1, done.stderr
    assert f"{path}:13: violation: kgp:date must be a valid xsd:gYear" in done.stdout
    assert "Traceback" not in done.stderr and "Failed to convert" not in done.stderr, done.stderr


def test_the_programs_log_lines_are_set_up_once(capsys: pytest.CaptureFixture[str]) -> None:
    """One line a record, ``kgprofiles: warning: …``, however often the program's app is called in
    one process (each call sets the logging up)."""
    import logging

    from kgprofiles.cli.boundary import _OneLine, configure_logging

    root = logging.getLogger()
    kept = list(root.handlers)
    # (an earlier test in this process may have called the app: start from no handler of its own)
    before = [h for h in kept if not isinstance(h.formatter, _OneLine)]
    root.handlers[:] = before
    try:
        configure_logging()
        configure_logging()
        added = [h for h in root.handlers if h not in before]
        assert len(added) == 1
        added[0].stream = sys.stderr  # (pytest's capture of this test)
        logging.getLogger("kgprofiles.test").warning("a %s", "warning")
        assert capsys.readouterr().err == "kgprofiles: warning: a warning\n"
    finally:
        root.handlers[:] = kept


def test_python_dash_m_validates_the_seed_data() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "kgprofiles", "validate", "data/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    summary = SUMMARY.match(done.stdout.splitlines()[-1])
    assert summary
    assert (int(summary.group(1)), summary.group(2)) == (len(data_files()), "0")


def test_installed_command_exits_2_on_a_syntax_error() -> None:
    done = run_installed("validate", f"{BROKEN}/syntax-error.ttl")

    assert done.returncode == 2
    assert f"{BROKEN}/syntax-error.ttl:7:14: syntax error" in done.stderr
    assert "Traceback" not in done.stderr


########################################################################### in context


def test_a_seed_person_file_validates_in_the_context_of_the_project(cli: Run) -> None:
    """Its roles point at organisations and its claims at sources defined in other files of data/."""
    result = cli("validate", "data/people/jane-xu.ttl", "--severity", "violation")
    assert result.exit_code == 0, result.stdout
    assert stdout_lines(result) == ["1 file(s) checked: 0 violations, 1 warning"]  # the hidden one is counted


def test_a_broken_reference_in_a_named_file_is_still_reported_with_its_line(cli: Run, tmp_path: Path) -> None:
    broken = tmp_path / "jane-xu.ttl"
    text = (ROOT / "data" / "people" / "jane-xu.ttl").read_text(encoding="utf-8")
    broken.write_text(text.replace("organization:pytorch", "organization:no-such-organization"), encoding="utf-8")
    result = cli("validate", str(broken))
    assert result.exit_code == 1
    line = next(n for n, t in enumerate(broken.read_text().splitlines(), start=1) if t.startswith("claim:"))
    assert f"jane-xu.ttl:{line}: violation:" in result.stdout and "claim:jane-xu-role-pytorch" in result.stdout
    assert "horace-he.ttl" not in result.stdout  # results about the other files are not reported


def test_severity_violation_hides_warnings_and_an_unknown_one_is_an_error(cli: Run) -> None:
    everything = cli("validate")
    only = cli("validate", "--severity", "violation")
    assert "warning:" in everything.stdout and "warning:" not in only.stdout
    assert stdout_lines(only)[-1] == stdout_lines(everything)[-1]  # the summary still counts them
    assert cli("validate", "--severity", "info").exit_code == 2


def test_the_fast_path_and_pyshacl_report_the_same(cli: Run) -> None:
    fast = cli("validate", "--format", "json", f"{BROKEN}/role-without-holder.ttl", "data")
    reference = cli("validate", "--format", "json", "--reference", f"{BROKEN}/role-without-holder.ttl", "data")
    assert json.loads(fast.stdout)["results"] == json.loads(reference.stdout)["results"]
    assert fast.exit_code == reference.exit_code == 1


def test_the_fast_path_reads_the_files_as_build_does_and_reports_what_pyshacl_and_owlrl_do(
    cli: Run, tmp_path: Path
) -> None:
    """The fast path parses into a scratch store and a spill, file by file, keeping no file's
    triples (``pipeline.validate``): what it finds from each file as it goes (a literal OWL RL
    refuses, where it is written; the first file that uses an axiom) equals what the reference
    finds with every triple in memory, for a named file in the context of data/."""
    fixture = (ROOT / "tests/shapes/award-receipt/bad-share-above-one.ttl").read_text(encoding="utf-8")
    xml = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#XMLLiteral>"
    named = 'kgp:name "Example Person" ;'
    path = tmp_path / "receipt.ttl"
    path.write_text(fixture.replace(named, f'{named} kgp:altName "]]>"^^{xml} ;') + DISJOINT.split("\n", 3)[3])

    fast = cli("validate", "--format", "json", str(path), "data")
    reference = cli("validate", "--format", "json", "--reference", str(path), "data")

    assert fast.exit_code == reference.exit_code == 1
    results = json.loads(fast.stdout)["results"]
    assert results == json.loads(reference.stdout)["results"]
    found = {(r["shape"], r["constraint"]) for r in results}
    assert {("OWL RL", "Datatype"), ("OWL RL", "Disjointness"), ("kgs:AwardReceiptShape", "MaxInclusive")} <= found
