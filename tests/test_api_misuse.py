"""The public API (``kgprofiles.Project``, ``Graph``) used wrongly or carelessly: every mistake a
caller can make is a KgError with a message and a hint, and every query runs under a budget."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import kgprofiles
from kgprofiles.errors import InputError, LimitHit, QueryError

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


@pytest.mark.parametrize("person", [None, 42, b"horace-he", ["horace-he"]])
def test_a_person_that_is_not_a_string_is_refused_by_name(graph: kgprofiles.Graph, person: object) -> None:
    for read in (graph.profile, graph.related):
        with pytest.raises(InputError, match=f"person must be a string .*not {type(person).__name__}") as refused:
            read(person)  # type: ignore[arg-type]
        assert refused.value.hint


@pytest.mark.parametrize("count", [-1, -100, 1.5, float("nan"), "3", True])
def test_a_count_of_people_that_is_not_a_whole_number_of_at_least_0_is_refused(
    graph: kgprofiles.Graph, count: object
) -> None:
    """``related(limit=-1)`` gave every related person but the last (a slice), ``limit=True`` one,
    a float or a string a TypeError from deep inside."""
    with pytest.raises(InputError, match=r"limit must be a whole number of at least 0") as refused:
        graph.related("horace-he", limit=count)  # type: ignore[arg-type]
    assert refused.value.hint
    with pytest.raises(InputError, match=r"related must be a whole number of at least 0"):
        graph.profile("horace-he", related=count)  # type: ignore[arg-type]


def test_counts_of_people_that_are_whole_numbers_are_taken(graph: kgprofiles.Graph) -> None:
    every = graph.related("horace-he")
    assert graph.related("horace-he", limit=0) == [] and graph.related("horace-he", limit=10**9) == every
    assert graph.related("horace-he", limit=None) == every and len(graph.related("horace-he", limit=2)) == 2
    assert len(graph.profile("horace-he", related=2)["related"]) == 2


@pytest.mark.parametrize("text", [None, 42, b"ASK {}"])
def test_sparql_text_that_is_not_a_string_is_refused(graph: kgprofiles.Graph, text: object) -> None:
    with pytest.raises(InputError, match=f"the SPARQL text must be a string, not {type(text).__name__}") as refused:
        graph.sparql(text)  # type: ignore[arg-type]
    assert refused.value.hint


@pytest.mark.parametrize("bindings", [[("p", "x")], "p", 42])
def test_bindings_that_are_not_a_mapping_are_refused(graph: kgprofiles.Graph, bindings: object) -> None:
    with pytest.raises(QueryError, match="bindings must map variable names to RDF terms") as refused:
        graph.sparql("ASK { ?p ?q ?r }", bindings=bindings)  # type: ignore[arg-type]
    assert refused.value.hint


def test_paths_given_as_one_string_are_refused_not_read_letter_by_letter(project: kgprofiles.Project) -> None:
    """A str is an iterable of str: ``validate(paths="data/people/x.ttl")`` said "d: no such file
    or directory" (its first letter), and ``load(None)`` raised a TypeError."""
    one = str(ROOT / "data" / "people" / "horace-he.ttl")
    for call in (
        lambda: project.validate(paths=one),
        lambda: project.build(paths=one),
        lambda: project.load(one),
        lambda: project.load(Path(one)),  # type: ignore[arg-type]
    ):
        with pytest.raises(InputError, match="paths must be a list of files or directories, not") as refused:
            call()
        assert refused.value.hint is not None and "[" in refused.value.hint
    with pytest.raises(InputError, match="paths must be a list of files or directories, not None"):
        project.load(None)  # type: ignore[arg-type]
    assert project.validate(paths=[one]).conforms


@pytest.mark.parametrize(
    ("arguments", "refused"),
    [
        ({"root": 1}, "root must be a path"),
        ({"store": 1}, "store must be a path"),
        ({"store": b"/tmp/store"}, "store must be a path"),
        ({"store": "/tmp/a\x00b"}, "store must be a path"),
        ({"endpoint": 1}, "endpoint must be"),
    ],
)
def test_a_project_named_by_arguments_of_the_wrong_kind_is_refused(arguments: dict[str, object], refused: str) -> None:
    """``Project(root=1)`` raised a TypeError from pathlib, ``Project(endpoint=1)`` was taken and
    failed at the first query with an AttributeError, a NUL in ``store`` became "no store at /tmp/a b"."""
    with pytest.raises(InputError, match=refused) as error:
        kgprofiles.Project(**({"root": ROOT} | arguments))  # type: ignore[arg-type]
    assert error.value.hint


def test_a_build_into_memory_is_an_input_error_that_says_why() -> None:
    """It was a validation failure (exit 1) whose text spoke of the command line only."""
    with pytest.raises(InputError, match="keeps nothing") as raised:
        kgprofiles.Project(store="memory:").build()
    assert "Project(store=PATH)" in (raised.value.hint or "")


def test_a_binding_for_a_variable_the_query_does_not_use_is_refused(graph: kgprofiles.Graph) -> None:
    """A typo in a binding's name bound nothing: the query answered for every person, not one."""
    import pyoxigraph as ox

    horace = ox.NamedNode("https://w3id.org/kgprofiles/id/person/horace-he")
    text = "SELECT ?name WHERE { ?person kgp:name ?name }"
    assert [r["name"].value for r in graph.sparql(text, bindings={"person": horace}).rows] == ["Horace He"]
    with pytest.raises(QueryError, match=r"\?persn is not a variable of the query") as refused:
        graph.sparql(text, bindings={"persn": horace})
    assert refused.value.hint


def test_a_plain_script_runs_once_though_its_queries_run_in_a_worker(
    project: kgprofiles.Project, tmp_path: Path
) -> None:
    """A script without an ``if __name__ == "__main__":`` guard, with a thread running when it
    opens the graph (as after a build: the store's threads), so its query worker comes from the
    forkserver: the worker imported the script again and ran it, top to bottom (a build in it
    built a second time), and the query failed. The script now runs once."""
    import subprocess
    import sys

    runs = tmp_path / "runs.txt"
    script = tmp_path / "plain.py"
    script.write_text(
        "import threading, time, kgprofiles\n"
        f"with open({str(runs)!r}, 'a') as out:\n"
        "    out.write('ran\\n')\n"
        "threading.Thread(target=time.sleep, args=(3,), daemon=True).start()\n"
        f"with kgprofiles.Project({str(project.settings.root)!r}).open() as graph:\n"
        "    print(graph.sparql('ASK { ?s ?p ?o }'), len(graph.query('org-members', org='pytorch').rows) > 0)\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, "True True\n", "")
    assert runs.read_text() == "ran\n"


def test_the_api_s_own_mistakes_come_with_a_hint(project: kgprofiles.Project) -> None:
    """Every KgError says what to do: these said only what was wrong."""
    from kgprofiles.errors import KgError

    graph = project.open()
    mistakes = [
        lambda: graph.profile("https://example.org/a b"),  # an IRI with a space
        lambda: graph.sparql("SELECT ?n WHERE { ?p kgp:name ?n }", bindings={"p": 1}),  # type: ignore[dict-item]
    ]
    for mistake in mistakes:
        with pytest.raises(KgError) as raised:
            mistake()
        assert raised.value.hint, raised.value.message
    graph.close()
    with pytest.raises(KgError, match="is closed") as closed:
        graph.profile("horace-he")
    assert closed.value.hint and "Project.open()" in closed.value.hint


def test_a_load_of_no_paths_is_refused(project: kgprofiles.Project) -> None:
    """``load([])`` (a list a caller filtered down to nothing) published a new, unchanged store."""
    from kgprofiles.store import generations

    before = generations.current(Path(project.settings.store))
    with pytest.raises(InputError, match="no paths to load"):
        project.load([])
    assert generations.current(Path(project.settings.store)) == before


@pytest.mark.parametrize("flags", [{"wait": None}, {"wait": "no"}, {"reference": 1}, {"discard_updates": "yes"}])
def test_a_flag_that_is_not_true_or_false_is_refused(project: kgprofiles.Project, flags: dict[str, object]) -> None:
    """``build(wait=None)`` was read as "do not wait" (falsy), ``wait="no"`` as "wait" (truthy)."""
    with pytest.raises(InputError, match=f"{next(iter(flags))} must be True or False"):
        project.build(**flags)  # type: ignore[arg-type]
