"""What a shape can read (``fast/reach.py``): the neighbourhood a load validates its focus nodes
on must hold every triple an evaluation for them can match.

The case here is a ``*`` path to a variable: taken zero times, it binds its two ends to one node,
so what is read from the far end must also be read from the near one."""

from __future__ import annotations

import json
from itertools import count

import pyoxigraph as ox
import pytest

from kgprofiles.fast import reach
from kgprofiles.fast.reach import neighbourhood, sparql_edges

EX = "http://example.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"


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


# -- the disk cache: a query's edges are parsed once, not in every process --------------------

#: every kind of slot the cache writes: variables, a blank node, IRIs, literals with a language
#: and with a datatype, a path (its middle variables), and a UNION.
CACHED = (
    'SELECT $this WHERE { $this ex:p "a"@en ; ex:q 1 ; ex:r [ ex:s ?y ] . { ?y ex:t+ ex:c } UNION { ?y ^ex:u ?z } }'
)
#: a UNION branch whose variables are not reached from $this: refused (ValueError).
REFUSED = "SELECT $this WHERE { { $this ex:p ?x } UNION { ?y ex:q ?z } }"


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """An empty cache directory, and no edges remembered in this process."""
    monkeypatch.setenv("KGPROFILES_CACHE_DIR", str(tmp_path))
    reach._cached_edges.cache_clear()
    yield tmp_path / "reach"
    reach._cached_edges.cache_clear()


def unparsable(*args: object, **kwargs: object) -> None:
    raise AssertionError("the query was parsed again")


def test_edges_are_read_back_from_the_disk_cache_without_parsing(fresh_cache, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    parsed = sparql_edges(CACHED, {"ex": EX}, count())
    assert len(list(fresh_cache.glob("*.json"))) == 1
    reach._cached_edges.cache_clear()  # as in the next process
    monkeypatch.setattr(reach, "_parsed_edges", unparsable)
    assert sparql_edges(CACHED, {"ex": EX}, count()) == parsed
    literals = {slot for edge in parsed for slot in (edge.subject, edge.object) if isinstance(slot, ox.Literal)}
    assert literals == {ox.Literal("a", language="en"), ox.Literal("1", datatype=ox.NamedNode(XSD + "integer"))}
    # two queries in one plan never share a variable (but ?this)
    first, second = sparql_edges(CACHED, {"ex": EX}, count(0)), sparql_edges(CACHED, {"ex": EX}, count(1))
    names = [{s for e in edges for s in (e.subject, e.object) if isinstance(s, str)} for edges in (first, second)]
    assert names[0] & names[1] == {"?this"}


@pytest.mark.parametrize(
    "damage",
    ['{"format": 1, "edges": [[', '{"format": 1, "edges": [[1, 2, 3]]}', '{"format": 1}', "[]", "\x00"],
    ids=["truncated", "wrong-shape", "no-edges", "a-list", "binary"],
)
def test_a_damaged_cache_entry_is_parsed_again_and_written_whole(fresh_cache, damage: str) -> None:  # type: ignore[no-untyped-def]
    parsed = sparql_edges(CACHED, {"ex": EX}, count())
    (entry,) = fresh_cache.glob("*.json")
    entry.write_text(damage)
    reach._cached_edges.cache_clear()
    assert sparql_edges(CACHED, {"ex": EX}, count()) == parsed
    assert json.loads(entry.read_text())["format"] == 1


def test_a_refused_query_is_refused_again_from_the_cache(fresh_cache, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="UNION branch") as first:
        sparql_edges(REFUSED, {"ex": EX}, count())
    reach._cached_edges.cache_clear()
    monkeypatch.setattr(reach, "_parsed_edges", unparsable)
    with pytest.raises(ValueError) as again:
        sparql_edges(REFUSED, {"ex": EX}, count())
    assert str(again.value) == str(first.value)
