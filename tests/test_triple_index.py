"""``fast.triple_index.TripleIndex``: every pattern answers what a scan of the triples answers, in
the triples' order (``load`` looks up the new files' triples through it instead of scanning them)."""

from __future__ import annotations

import pyoxigraph as ox
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from kgprofiles.fast.triple_index import TripleIndex
from test_fast_graphs import graphs


def scan(triples: list[ox.Triple], s: object, p: object, o: object) -> list[ox.Triple]:
    once = list(dict.fromkeys(triples))
    return [t for t in once if s in (None, t.subject) and p in (None, t.predicate) and o in (None, t.object)]


@settings(max_examples=examples(60))
@given(triples=graphs(max_statements=30), data=st.data())
def test_every_pattern_answers_as_a_scan(triples: list[ox.Triple], data: st.DataObject) -> None:
    """Patterns drawn from the triples themselves, each place kept or left open (None)."""
    index = TripleIndex(triples + triples[:3])  # repeated triples are kept once
    for _ in range(8):
        t = (
            data.draw(st.sampled_from(triples))
            if triples
            else ox.Triple(ox.BlankNode(), ox.NamedNode("http://example.org/p"), ox.BlankNode())
        )
        keep = data.draw(st.tuples(st.booleans(), st.booleans(), st.booleans()))
        s, p, o = (term if kept else None for term, kept in zip((t.subject, t.predicate, t.object), keep, strict=True))
        assert index.match(s, p, o) == scan(triples, s, p, o)  # type: ignore[arg-type]


def test_a_pattern_nothing_matches() -> None:
    a, b = ox.NamedNode("http://example.org/a"), ox.NamedNode("http://example.org/b")
    index = TripleIndex([ox.Triple(a, b, a)])

    assert index.match(b, None, None) == []
    assert index.match(None, a, None) == []
    assert index.match(a, b, b) == []
    assert index.match(ox.Literal("a"), None, None) == []
    assert index.match(None, None, None) == [ox.Triple(a, b, a)]
