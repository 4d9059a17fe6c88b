"""What imports what.

The engine stays behind store/: outside it, the package takes only RDF term types from pyoxigraph.
Parsers, serialisers and result formats come through ``store.rdf_syntax``, the engine itself through
``store.engine``; so a second backend or an engine upgrade changes ``store/`` alone.

Commands import only what they use, so that they start quickly (the figures are in
``bench/startup.py``; here, what each command must not import, which holds them)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main

from kgprofiles.cli import _VALUED_OPTIONS, app

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "kgprofiles"
TERM_TYPES = {"NamedNode", "Literal", "BlankNode", "Quad", "Triple", "DefaultGraph", "Variable"}


def outside_store() -> list[Path]:
    return [p for p in sorted(SRC.rglob("*.py")) if "store" not in p.relative_to(SRC).parts[:1]]


def engine_names(path: Path) -> set[str]:
    """What ``path`` takes from pyoxigraph: the attributes of its alias, and names imported from it."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    aliases = {
        a.asname or a.name
        for n in ast.walk(tree)
        if isinstance(n, ast.Import)
        for a in n.names
        if a.name == "pyoxigraph"
    }
    names = {
        a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == "pyoxigraph" for a in n.names
    }
    names |= {
        n.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in aliases
    }
    return names


def test_outside_store_only_term_types_come_from_pyoxigraph() -> None:
    found = {str(p.relative_to(SRC)): sorted(engine_names(p) - TERM_TYPES) for p in outside_store()}
    assert {path: names for path, names in found.items() if names} == {}


def test_outside_store_pyoxigraph_is_named_only_where_it_is_imported() -> None:
    lines = [
        f"{p.relative_to(SRC)}:{i}: {line.strip()}"
        for p in outside_store()
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if "pyoxigraph" in line and line.strip() != "import pyoxigraph as ox"
    ]
    assert lines == []


def test_the_rule_sees_a_borrowed_engine(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "import pyoxigraph as ox\nfrom pyoxigraph import Store\nox.parse(b'', format=ox.RdfFormat.TURTLE)\n"
    )
    assert engine_names(module) - TERM_TYPES == {"Store", "parse", "RdfFormat"}


# -- start-up ------------------------------------------------------------------------------------

#: What no command that only reads needs: the rdflib stack (SHACL, OWL RL, SPARQL parsing), the web
#: stack, numpy, the remote store's client, the search index and the build pipeline.
HEAVY = (
    "rdflib",
    "pyshacl",
    "owlrl",
    "pyparsing",
    "numpy",
    "starlette",
    "uvicorn",
    "jinja2",
    "markdown",
    "SPARQLWrapper",
    "importlib.metadata",
    "kgprofiles.web",
    "kgprofiles.store.remote",
    "kgprofiles.search",
    "kgprofiles.pipeline",
    "kgprofiles.validate",
    "kgprofiles.infer",
)
#: What ``--version`` does not need either: any store, or the SPARQL lexer's big patterns.
STORE = ("pyoxigraph", "kgprofiles.store", "kgprofiles.sparql_lexer", "kgprofiles.profiles")


def run_imports(*args: str, env: dict[str, str] | None = None) -> tuple[str, set[str]]:
    """Run ``kgprofiles ARGS`` as its console script does, in the seed project; its output and
    every module it imported (``-X importtime``). ``env``: variables added to this process's."""
    entry = "import sys; from kgprofiles.cli import app; sys.argv[0] = 'kgprofiles'; sys.exit(app())"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), **(env or {})}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", entry, *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line.split("|") for line in done.stderr.splitlines() if line.startswith("import time:")]
    return done.stdout, {parts[-1].strip() for parts in lines[1:]}  # (the first line is the header)


def loaded(modules: set[str], packages: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if m.startswith(tuple(f"{p}." for p in packages)) or m in packages)


def test_version_imports_no_store_and_nothing_heavy() -> None:
    out, modules = run_imports("--version")
    assert out == "kgprofiles 0.1.0\n"
    assert "kgprofiles.cli" in modules  # (the module list is real)
    assert loaded(modules, HEAVY + STORE) == []


@pytest.mark.parametrize(
    ("command", "shows"),
    [
        (["profile", "horace-he"], "Horace He\n"),
        (["people"], "Horace He"),
        (["related", "horace-he"], "Greg Chanan"),
        (["export", "--format", "nt"], "<https://w3id.org/kgprofiles/"),
    ],
    ids=["profile", "people", "related", "export"],
)
def test_reading_commands_import_nothing_heavy(command: list[str], shows: str, seed_store_dir: Path) -> None:
    out, modules = run_imports(*command, "--store", str(seed_store_dir))
    assert shows in out
    assert "kgprofiles.store.oxigraph" in modules
    assert loaded(modules, HEAVY) == []


#: What a one-file ``load`` after a ``build`` does not need: pyshacl (its value helpers are copied
#: in ``fast/values.py``) and rdflib's SPARQL parser (the build leaves what the load needs of the
#: shapes' SPARQL in the disk cache). ~60 ms of a ~0.4 s load at 100,000 people (bench/RESULTS.md,
#: 2026-12-05 02:01).
LOAD_HEAVY = ("pyshacl", "pyparsing", "rdflib.plugins.sparql", "starlette", "uvicorn", "jinja2", "numpy")


def test_loading_one_file_imports_no_pyshacl_and_no_sparql_parser(tmp_path: Path) -> None:
    store = str(tmp_path / "store")
    cache = {"KGPROFILES_CACHE_DIR": str(tmp_path / "cache")}  # (cold: as after an upgrade)
    run_imports("build", "--store", store, "--quiet", env=cache)
    _, modules = run_imports("load", "data/people/horace-he.ttl", "--store", store, "--quiet", env=cache)
    assert "kgprofiles.pipeline" in modules and "kgprofiles.fast.values" in modules
    assert loaded(modules, LOAD_HEAVY) == []


def commands_built(argv: list[str]) -> list[str]:
    """The commands the app, run with ``argv``, turns into Click commands."""
    return sorted(typer.main.get_command(app._only(argv)).commands)


EVERY_COMMAND = sorted(typer.main.get_command(app).commands)


@pytest.mark.parametrize(
    ("argv", "built"),
    [
        (["profile", "horace-he"], ["profile"]),
        (["profile", "--help"], ["profile"]),
        (["--project", "profile", "people"], ["people"]),  # (a project directory called profile)
        (["--project=p", "store", "check"], ["store"]),
        (["--version"], []),
        (["--project", "p", "--version"], []),
        ([], EVERY_COMMAND),  # the help, listing them
        (["--help"], EVERY_COMMAND),
        (["--version", "--help"], EVERY_COMMAND),
        (["bogus"], EVERY_COMMAND),  # the error comes from the whole app
        (["--", "profile"], EVERY_COMMAND),
    ],
)
def test_a_run_builds_only_the_command_it_names(argv: list[str], built: list[str]) -> None:
    assert commands_built(argv) == built


def test_the_help_of_the_program_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        app(["--help"], prog_name="kgprofiles")
    assert exited.value.code == 0
    shown = capsys.readouterr().out
    assert len(EVERY_COMMAND) >= 18 and [c for c in EVERY_COMMAND if f" {c} " not in shown] == []


def test_every_main_option_that_takes_a_value_is_known_to_the_selection() -> None:
    """The command's name is the first word after the main options: one that takes a value must be
    skipped with its value, or the value would be taken for the command."""
    main = typer.main.get_command(app)
    valued = {o for p in main.params if not getattr(p, "is_flag", True) for o in p.opts}
    assert valued == set(_VALUED_OPTIONS)


@pytest.mark.parametrize(
    ("command", "says"),
    [(["profile"], "A slug (horace-he), CURIE, IRI, name"), (["validate"], "Files or directories (default: data/)")],
)
def test_a_commands_help_says_what_its_arguments_are(
    command: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """click 8.5 reset the help typer (before 0.20) gives an argument: every argument's text was
    dropped from --help (pyproject.toml keeps click below 8.5)."""
    with pytest.raises(SystemExit) as exited:
        app([*command, "--help"], prog_name="kgprofiles")
    assert exited.value.code == 0
    assert says in " ".join(capsys.readouterr().out.split())
