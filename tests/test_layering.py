"""The engine stays behind store/: outside it, the package takes only RDF term types from pyoxigraph.

Parsers, serialisers and result formats come through ``store.rdf_syntax``, the engine itself through
``store.engine``; so a second backend or an engine upgrade changes ``store/`` alone."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "kgprofiles"
TERM_TYPES = {"NamedNode", "Literal", "BlankNode", "Quad", "Triple", "DefaultGraph", "Variable"}


def outside_store() -> list[Path]:
    return [p for p in sorted(SRC.rglob("*.py")) if "store" not in p.relative_to(SRC).parts[:1]]


def engine_names(path: Path) -> set[str]:
    """What ``path`` takes from pyoxigraph: the attributes of its alias, and names imported from it."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    aliases = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.Import)
               for a in n.names if a.name == "pyoxigraph"}
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == "pyoxigraph"
             for a in n.names}
    names |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
              and isinstance(n.value, ast.Name) and n.value.id in aliases}
    return names


def test_outside_store_only_term_types_come_from_pyoxigraph() -> None:
    found = {str(p.relative_to(SRC)): sorted(engine_names(p) - TERM_TYPES) for p in outside_store()}
    assert {path: names for path, names in found.items() if names} == {}


def test_outside_store_pyoxigraph_is_named_only_where_it_is_imported() -> None:
    lines = [f"{p.relative_to(SRC)}:{i}: {line.strip()}" for p in outside_store()
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if "pyoxigraph" in line and line.strip() != "import pyoxigraph as ox"]
    assert lines == []


def test_the_rule_sees_a_borrowed_engine(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "import pyoxigraph as ox\nfrom pyoxigraph import Store\nox.parse(b'', format=ox.RdfFormat.TURTLE)\n"
    )
    assert engine_names(module) - TERM_TYPES == {"Store", "parse", "RdfFormat"}
