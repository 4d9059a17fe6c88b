"""A shape may only read the data it validates: SERVICE, FROM and LOAD in its SPARQL are refused
when the shapes are loaded, naming the shape and the file, before any engine could fetch; and
whatever else the SHACL engine fails on is a clear error, never a traceback (issue 14: SERVICE
inside an sh:sparql constraint gave `AttributeError: 'ValidationFailure'` at validate.py:151).
"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from rdflib import Graph
from rdflib.namespace import SH

from kgprofiles.config import Settings, load_settings
from kgprofiles.errors import ShapesError
from kgprofiles.pipeline import build
from kgprofiles.shapes_check import check_shape_queries, query_problem
from kgprofiles.validate import load_shapes, validate_graph
from test_budgets import PREFIXES, make_project


class Canary:
    """A TCP listener on 127.0.0.1 that counts the connections made to it."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(0.1)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.running = True
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while self.running:
            try:
                connection, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            connection.close()

    def close(self) -> None:
        self.running = False
        self.thread.join(timeout=5)
        self.sock.close()


@pytest.fixture
def canary() -> Iterator[Canary]:
    listener = Canary()
    yield listener
    listener.close()


def fetching_shape(select: str, target: str = "sh:targetClass kgp:Person") -> str:
    return f'''
ex:FetchingShape a sh:NodeShape ;
    {target} ;
    sh:sparql [
        a sh:SPARQLConstraint ;
        sh:message "fetched" ;
        sh:select """{select}""" ] .
'''


@pytest.mark.parametrize(
    ("select", "says"),
    [
        ("SELECT $this WHERE { SERVICE <http://127.0.0.1:PORT/sparql> { $this ?p ?o } }", "uses SERVICE"),
        (r"SELECT $this WHERE { \u0053ERVICE <http://127.0.0.1:PORT/sparql> { $this ?p ?o } }", "uses SERVICE"),
        ("SELECT $this FROM <http://127.0.0.1:PORT/data> WHERE { $this ?p ?o }", "uses FROM"),
        ("SELECT $this FROM NAMED <http://127.0.0.1:PORT/data> WHERE { GRAPH ?g { $this ?p ?o } }", "uses FROM"),
        ("LOAD <http://127.0.0.1:PORT/data>", "is an update (LOAD), not a query"),
        # SPARQL applies \\u escapes before parsing: here a '#' that rdflib then reads as a comment
        (r"PREFIX ex: <http://x\u0041#> SELECT $this WHERE { SERVICE <http://127.0.0.1:PORT/x> { $this ?p ?o } }",
         "does not parse"),
    ],
)  # fmt: skip
def test_a_shape_that_fetches_is_refused_when_the_shapes_are_loaded(
    tmp_path: Path, canary: Canary, select: str, says: str
) -> None:
    root = make_project(tmp_path, shapes=fetching_shape(select.replace("PORT", str(canary.port))))

    with pytest.raises(ShapesError) as refused:
        build(load_settings(root))

    shape = "shape <http://example.org/budget/FetchingShape>"
    assert refused.value.message.startswith(f"{root / 'shapes' / 'extra.ttl'}: {shape}: its sh:select query ")
    assert says in refused.value.message
    assert refused.value.exit_code == 2
    assert canary.connections == 0


@pytest.mark.parametrize("command", ["validate", "build"])
def test_service_in_a_shape_is_an_error_not_a_traceback(tmp_path: Path, canary: Canary, command: str) -> None:
    select = f"SELECT $this WHERE {{ SERVICE <http://127.0.0.1:{canary.port}/sparql> {{ $this ?p ?o }} }}"
    root = make_project(tmp_path, shapes=fetching_shape(select))

    result = subprocess.run(
        [sys.executable, "-m", "kgprofiles", command], cwd=root, capture_output=True, text=True, timeout=120
    )

    assert result.returncode == 2
    assert "kgprofiles: shapes error: " in result.stderr
    assert "uses SERVICE" in result.stderr
    assert "Traceback" not in result.stderr
    assert canary.connections == 0


def test_a_shape_pyshacl_fails_on_is_a_shapes_error(tmp_path: Path) -> None:
    """pyshacl answers a constraint with VALUES by returning its ValidationFailure instead of a
    report (what validate.py:151 then read as a graph); the fast path falls back to pyshacl for
    it, so the build meets it too."""
    select = "SELECT $this ?x WHERE { $this ?p ?o . VALUES ?x { 1 } }"
    root = make_project(tmp_path, shapes=fetching_shape(select))

    for command in ("validate", "build"):
        result = subprocess.run(
            [sys.executable, "-m", "kgprofiles", command], cwd=root, capture_output=True, text=True, timeout=120
        )
        assert result.returncode == 2, result.stderr
        failed = "kgprofiles: shapes error: SHACL validation failed: A SPARQL Constraint must not contain a VALUES"
        assert failed in result.stderr
        assert "Traceback" not in result.stderr


def test_an_engine_error_inside_pyshacl_is_a_shapes_error() -> None:
    """rdflib raises a bare Exception for GRAPH over a plain graph; pyshacl lets it through."""
    select = "SELECT $this WHERE { GRAPH ?g { $this ?p ?o } }"
    shapes = Graph().parse(data=PREFIXES + fetching_shape(select, "sh:targetNode ex:someone"), format="turtle")
    data = Graph().parse(data=PREFIXES + "ex:someone ex:knows ex:other .", format="turtle")

    with pytest.raises(ShapesError, match="SHACL validation failed: "):
        validate_graph(data, shapes)


def test_the_projects_own_shapes_fetch_nothing(settings: Settings) -> None:
    shapes = load_shapes(settings.shapes_dir)
    texts = [str(text) for text in shapes.objects(None, SH.select)]

    assert len(texts) == 6  # the kgp:partOf cycle and the ORCID checksum added two
    assert [query_problem(text) for text in texts] == [None] * 6
    check_shape_queries(shapes)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("SELECT $this WHERE { $this <http://example.org/fromage> ?o }", None),  # FROM in an IRI
        ('SELECT $this WHERE { $this ?p "SERVICE, LOAD and FROM" }', None),  # in a string
        ("SELECT $this WHERE { $this ?p ?o } # SERVICE <http://x/> {}", None),  # in a comment
        (r"SELECT $this WHERE { \U00000053ERVICE <http://x/> { $this ?p ?o } }", "uses SERVICE"),
        ("select $this where { service silent <http://x/> { $this ?p ?o } }", "uses SERVICE"),
        ("SELECT $this WHERE { " + "{" * 3000 + "}" * 3000 + " SERVICE <http://x/> {} }", "does not parse"),
    ],
)
def test_what_counts_as_fetching(text: str, problem: str | None) -> None:
    found = query_problem(text)

    assert (found if found is None else found[: len(problem or "")]) == problem
