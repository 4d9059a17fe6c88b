"""What a shape can read (``fast/reach.py``): the neighbourhood a load validates its focus nodes
on must hold every triple an evaluation for them can match.

The case here is a ``*`` path to a variable: taken zero times, it binds its two ends to one node,
so what is read from the far end must also be read from the near one."""

from __future__ import annotations

from itertools import count

import pyoxigraph as ox
import pytest

from kgprofiles.fast.reach import neighbourhood, sparql_edges

EX = "http://example.org/"


def node(name: str) -> ox.NamedNode:
    return ox.NamedNode(EX + name)


def fetch_from(triples: list[ox.Triple]):
    def fetch(s, p, o):  # type: ignore[no-untyped-def]
        return [t for t in triples if s in (None, t.subject) and p in (None, t.predicate) and o in (None, t.object)]

    return fetch


#: a p b; b r c: ``?x ex:q* ?y`` taken zero times (b has no ex:q), then ``?y ex:r ?z`` reads b r c.
DATA = [
    ox.Triple(node("a"), node("p"), node("b")),
    ox.Triple(node("b"), node("r"), node("c")),
    ox.Triple(node("x"), node("r"), node("y")),  # not reachable from a
]


@pytest.mark.parametrize("path", ["ex:q*", "ex:q?", "(ex:q/ex:q)*", "^ex:q*"])
def test_a_path_taken_zero_times_reads_on_from_its_start(path: str) -> None:
    select = f"SELECT $this ?z WHERE {{ $this ex:p ?x . ?x {path} ?y . ?y ex:r ?z }}"
    edges = sparql_edges(select, {"ex": EX}, count())
    found = neighbourhood(edges, [node("a")], fetch_from(DATA))
    assert ox.Triple(node("b"), node("r"), node("c")) in found
    assert ox.Triple(node("x"), node("r"), node("y")) not in found
    evaluated = ox.Store()
    evaluated.extend(ox.Quad(t.subject, t.predicate, t.object) for t in DATA)
    bound = select.replace("$this", "?this").replace("WHERE {", f"WHERE {{ VALUES ?this {{ {node('a')} }}", 1)
    answer = evaluated.query(f"PREFIX ex: <{EX}> {bound}")
    assert [str(row["z"]) for row in answer] == [str(node("c"))]  # type: ignore[union-attr, index]
