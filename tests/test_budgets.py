"""Every engine runs with a time and a triple budget, and fails closed at it.

The crafted inputs of issue 14, each as a tiny synthetic project (example IRIs) with a budget of a
few seconds: a cartesian sh:sparql constraint (the fast build and `kgprofiles validate`), a
self-referential property chain over a 300-node cycle (owlrl, killed at the deadline), a
1,000-person owl:sameAs cycle (stopped at ten times the asserted triples). Each stops with
"stopped at its budget", exit 1, nothing published and no process left behind. Then the
machinery: the limits in kgprofiles.toml, and the child process an engine runs in (its deadline,
its memory cap, what it raises).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from rdflib import Graph

from conftest import ROOT
from kgprofiles.budget import Budget, BudgetExceeded
from kgprofiles.config import Limits, load_settings
from kgprofiles.errors import InputError
from kgprofiles.infer import closure_in_process
from kgprofiles.killable import EngineCrashed, run_killable
from kgprofiles.pipeline import build
from kgprofiles.store import generations
from kgprofiles.validate import load_ontology

PREFIXES = """\
@prefix sh:   <http://www.w3.org/ns/shacl#> .
@prefix kgp:  <https://w3id.org/kgprofiles/ontology#> .
@prefix owl:  <http://www.w3.org/2002/07/owl#> .
@prefix ex:   <http://example.org/budget/> .
"""
#: Four unrelated triple patterns and a filter that never holds: every combination is tried.
CARTESIAN_SHAPE = '''
ex:CartesianShape a sh:NodeShape ;
    sh:targetClass kgp:Person ;
    sh:sparql [
        a sh:SPARQLConstraint ;
        sh:message "never" ;
        sh:select """
            SELECT $this WHERE {
                $this ?p ?o . ?a ?b ?c . ?d ?e ?f . ?g ?h ?i .
                FILTER (STR(?c) = CONCAT(STR(?f), STR(?i), "never"))
            }
        """ ] .
'''
#: `linked` is its own chain: over a cycle of n nodes, owlrl derives all n² links, slowly.
SELF_CHAIN_ONTOLOGY = """
ex:linked a owl:ObjectProperty ;
    owl:propertyChainAxiom ( ex:linked ex:linked ) .
"""


def make_project(
    tmp_path: Path,
    *,
    limits: str = "",
    data: dict[str, str] | None = None,
    shapes: str = "",
    ontology: str = "",
) -> Path:
    """A project using the repository's shapes and ontology (plus ``shapes`` and ``ontology``,
    written as extra files), the seed data or ``data`` (file name → Turtle), and ``limits``."""
    root = tmp_path / "project"
    for name, extra in (("shapes", shapes), ("ontology", ontology)):
        shutil.copytree(ROOT / name, root / name)
        if extra:
            (root / name / "extra.ttl").write_text(PREFIXES + textwrap.dedent(extra), encoding="utf-8")
    data_dir = ROOT / "data"
    if data is not None:
        data_dir = root / "data"
        data_dir.mkdir()
        for name, text in data.items():
            (data_dir / name).write_text(text, encoding="utf-8")
    (root / "kgprofiles.toml").write_text(
        f'[kgprofiles]\nstore = ".kgprofiles/store"\ndata = "{data_dir}"\nqueries = "{ROOT / "queries"}"\n'
        f"[kgprofiles.limits]\n{textwrap.dedent(limits)}",
        encoding="utf-8",
    )
    return root


def cycle(n: int, predicate: str, typed: bool = False) -> str:
    """Nodes ex:p0 … ex:p{n-1}, each linked to the next by ``predicate``, the last to the first;
    ``typed``: each also a complete kgp:Person (name, source), as the shapes want."""
    lines = [PREFIXES, 'ex:source a kgp:Source ; kgp:title "Synthetic source" .\n']
    for i in range(n):
        person = f' a kgp:Person ; kgp:name "Synthetic Person {i}" ; kgp:source ex:source ;' if typed else ""
        lines.append(f"ex:p{i}{person} {predicate} ex:p{(i + 1) % n} .\n")
    return "".join(lines)


def peak_rss_reset() -> None:
    """Reset this process's peak resident size (Linux), so that the next peak is this test's."""
    Path("/proc/self/clear_refs").write_text("5")


def peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM in /proc/self/status")


def run_cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`kgprofiles …` as a user runs it, in the project directory."""
    return subprocess.run(
        [sys.executable, "-m", "kgprofiles", *args], cwd=root, capture_output=True, text=True, timeout=120
    )


########################################################################### the crafted inputs


def test_a_cartesian_sparql_constraint_stops_the_build_at_its_budget(tmp_path: Path) -> None:
    root = make_project(tmp_path, limits="engine_timeout_s = 1", shapes=CARTESIAN_SHAPE)

    result = run_cli(root, "build", "-q")

    assert result.returncode == 1, result.stderr
    assert "kgprofiles: budget: validation stopped at its budget: 1 s" in result.stderr
    assert "engine_timeout_s" in result.stderr  # the hint says how to raise it
    assert "Traceback" not in result.stderr
    assert generations.current(root / ".kgprofiles" / "store") is None  # nothing published


def test_a_cartesian_sparql_constraint_stops_validate_at_its_budget(tmp_path: Path) -> None:
    """`kgprofiles validate` runs pyshacl itself: in a child process, killed at the deadline."""
    root = make_project(tmp_path, limits="engine_timeout_s = 1", shapes=CARTESIAN_SHAPE)

    result = run_cli(root, "validate")

    assert result.returncode == 1, result.stderr
    assert "validation stopped at its budget: 1 s" in result.stderr
    assert "0 violations" not in result.stdout  # never "conforms"


def test_the_sparql_child_is_killed_with_the_build(tmp_path: Path, no_process_left_behind: None) -> None:
    root = make_project(tmp_path, limits="engine_timeout_s = 1", shapes=CARTESIAN_SHAPE)

    with pytest.raises(BudgetExceeded, match="validation stopped at its budget: 1 s"):
        build(load_settings(root))

    assert generations.current(root / ".kgprofiles" / "store") is None


def test_a_self_referential_property_chain_over_300_people_stops_inference_at_its_time_budget(
    tmp_path: Path, no_process_left_behind: None
) -> None:
    """The chain feeds itself, so owlrl does the work (the fast passes cannot), in a child
    process killed at the deadline; the triple allowance is set out of the way."""
    root = make_project(
        tmp_path,
        limits="engine_timeout_s = 2\ninferred_triples_factor = 100000",
        data={"cycle.ttl": cycle(300, "ex:linked", typed=True)},
        ontology=SELF_CHAIN_ONTOLOGY,
    )

    with pytest.raises(BudgetExceeded, match="inference stopped at its budget: 2 s"):
        build(load_settings(root))

    assert generations.current(root / ".kgprofiles" / "store") is None


def test_owlrl_counts_the_triples_it_adds_as_the_closure_grows() -> None:
    data = Graph().parse(data=cycle(300, "ex:linked"), format="turtle")
    ontology = Graph().parse(data=PREFIXES + SELF_CHAIN_ONTOLOGY, format="turtle")

    with pytest.raises(BudgetExceeded, match="more than 5,000 inferred triples"):
        closure_in_process(data, ontology, Budget("inference", 600, max_triples=5_000))


def test_a_same_as_cycle_stops_inference_at_ten_times_the_asserted_triples(tmp_path: Path) -> None:
    """1,000 people, each owl:sameAs the next: the closure would hold a million sameAs links and
    copies of every triple for every member (5 million triples, 2 GB); it stops at 10×."""
    root = make_project(tmp_path, data={"people.ttl": cycle(1000, "owl:sameAs", typed=True)})
    settings = load_settings(root)
    asserted = 4 * 1000 + 2 + len(load_ontology(settings.ontology_dir))
    peak_rss_reset()
    before = peak_rss_mb()

    with pytest.raises(BudgetExceeded) as stopped:
        build(settings)

    message = stopped.value.message
    assert message.startswith(f"inference stopped at its budget: more than {10 * asserted:,} inferred triples")
    assert f"(10 × {asserted:,} asserted triples)" in message
    produced = int(message.rsplit(", ", 1)[1].removesuffix(" so far").replace(",", ""))
    assert produced <= 10 * asserted + 5_000  # stopped as the closure grew, not after it
    assert peak_rss_mb() - before < 300
    assert generations.current(root / ".kgprofiles" / "store") is None


########################################################################### the limits


def test_limits_come_from_kgprofiles_toml(tmp_path: Path) -> None:
    root = make_project(tmp_path, limits="engine_timeout_s = 5\nmax_literal_bytes = 2_000\n")

    limits = load_settings(root).limits

    assert limits == Limits(engine_timeout_s=5.0, max_literal_bytes=2000)
    assert (Limits().engine_timeout_s, Limits().inferred_triples_factor, Limits().max_literal_bytes) == (
        600.0,
        10.0,
        1_000_000,
    )


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("engine_timout_s = 5", "unknown limit 'engine_timout_s'"),
        ("engine_timeout_s = -1", "limit engine_timeout_s must be a positive number, not -1"),
        ('engine_timeout_s = "ten"', "limit engine_timeout_s must be a positive number, not 'ten'"),
        ("max_literal_bytes = true", "limit max_literal_bytes must be a positive number, not True"),
        # (TOML has inf and nan: no budget, or one that is hit at once; both were internal errors or worse)
        ("engine_timeout_s = inf", "limit engine_timeout_s must be a positive number, not inf"),
        ("engine_timeout_s = nan", "limit engine_timeout_s must be a positive number, not nan"),
        ("engine_timeout_s = 1e10", "limit engine_timeout_s must be a number of seconds above 0 and at most 86,400"),
        ("inferred_triples_factor = nan", "limit inferred_triples_factor must be a positive number, not nan"),
        ("max_literal_bytes = 1e400", "limit max_literal_bytes must be a positive number, not inf"),
    ],
)
def test_a_wrong_limit_is_an_input_error(tmp_path: Path, line: str, says: str) -> None:
    root = make_project(tmp_path, limits=line)

    with pytest.raises(InputError, match=says):
        load_settings(root)


@pytest.mark.parametrize(
    ("value", "shown"), [('"abc"', "'abc'"), ("-3", "-3"), ("nan", "nan"), ("inf", "inf"), ("true", "True")]
)
def test_a_query_timeout_that_is_no_budget_is_an_input_error(tmp_path: Path, value: str, shown: str) -> None:
    """``query_timeout_s`` in kgprofiles.toml: "abc" was an internal error, -3 and nan a time limit
    hit before any query ran, inf an internal error after a worker had started."""
    (tmp_path / "kgprofiles.toml").write_text(f"[kgprofiles]\nquery_timeout_s = {value}\n", encoding="utf-8")

    with pytest.raises(InputError, match=f"query_timeout_s must be a number of seconds .*, not {shown}$"):
        load_settings(tmp_path)


########################################################################### the child process


def test_an_engine_child_answers_what_its_function_returns() -> None:
    from engine_jobs import double

    assert run_killable(double, (21,), Budget("validation", 30), "doubling") == 42


def test_an_engine_child_is_killed_at_the_deadline(no_process_left_behind: None) -> None:
    from engine_jobs import sleep

    with pytest.raises(BudgetExceeded, match="validation stopped at its budget: 1 s while sleeping"):
        run_killable(sleep, (60,), Budget("validation", 1), "sleeping")


def test_an_engine_child_over_its_memory_cap_is_stopped(no_process_left_behind: None) -> None:
    from engine_jobs import allocate

    with pytest.raises(BudgetExceeded, match="allocating ran out of its 256 MB of memory"):
        run_killable(allocate, (1024,), Budget("inference", 30, memory_mb=256), "allocating")


def test_a_memory_cap_too_small_to_load_a_library_is_the_budget_not_a_bug(no_process_left_behind: None) -> None:
    """Under a small ``engine_memory_mb`` (up to about 35 at the seed's build) the child could not
    map Oxigraph's library: the ImportError ("failed to map segment from shared object") was
    reported as "internal error … a bug in kgprofiles" (exit 70)."""
    from engine_jobs import import_oxigraph

    with pytest.raises(BudgetExceeded, match="importing ran out of its 8 MB of memory"):
        run_killable(import_oxigraph, (), Budget("validation", 30, memory_mb=8), "importing")


def test_a_kgerror_in_the_child_is_raised_as_it_was() -> None:
    from engine_jobs import refuse

    with pytest.raises(InputError) as raised:
        run_killable(refuse, ("no such thing", "do this instead"), Budget("validation", 30), "refusing")

    assert (raised.value.message, raised.value.hint) == ("no such thing", "do this instead")


def test_a_bug_in_the_child_is_reported_as_one() -> None:
    from engine_jobs import divide_by_zero

    with pytest.raises(EngineCrashed, match="dividing failed: ZeroDivisionError: division by zero") as raised:
        run_killable(divide_by_zero, (), Budget("validation", 30), "dividing")

    assert raised.value.exit_code == 70


def test_a_paced_loop_stops_at_the_deadline() -> None:
    budget = Budget("inference", 0.0)

    with pytest.raises(BudgetExceeded, match="inference stopped at its budget: 0 s"):
        for _ in budget.paced(range(10**9)):
            pass


def test_a_paced_loop_counts_what_it_produced() -> None:
    budget = Budget("inference", 600, max_triples=10_000)
    produced: list[int] = []

    with pytest.raises(BudgetExceeded, match="more than 10,000 inferred triples, 12,288 so far"):
        for i in budget.paced(range(10**9), lambda: len(produced)):
            produced.extend((i, i, i))

    assert len(produced) == 12_288  # checked every 4,096 items


def test_the_default_budget_leaves_the_seed_build_alone(tmp_path: Path) -> None:
    """The defaults (600 s, 10×) are far from what the seed data needs: it builds as before."""
    root = make_project(tmp_path)

    report = build(load_settings(root))

    assert report.inferred > 0
    assert generations.current(root / ".kgprofiles" / "store") is not None


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The projects here say where everything is: nothing from the environment."""
    for name in ("KGPROFILES_STORE", "KGPROFILES_DATA", "KGPROFILES_ENDPOINT", "KGPROFILES_DEBUG"):
        monkeypatch.delenv(name, raising=False)
