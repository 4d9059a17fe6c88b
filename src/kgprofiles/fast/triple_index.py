"""Triples held in memory and looked up by pattern in time proportional to the answer.

``load`` asks the new files' triples (and the replaced graphs' triples) the same patterns it asks
the store, once for every node it reaches: a scan of the list each time made a load of N files
grow with N squared. Here each pattern with a subject, a predicate or an object given is one dict
lookup (by subject and predicate, by predicate and object, by subject, by object, by predicate).
"""

from __future__ import annotations

from collections.abc import Iterable

import pyoxigraph as ox

Term = ox.NamedNode | ox.BlankNode | ox.Literal


class TripleIndex:
    """``triples`` (each once, in first-seen order) with ``match`` by any pattern."""

    def __init__(self, triples: Iterable[ox.Triple]) -> None:
        self.triples: list[ox.Triple] = list(dict.fromkeys(triples))
        self._s: dict[Term, list[ox.Triple]] = {}
        self._p: dict[ox.NamedNode, list[ox.Triple]] = {}
        self._o: dict[Term, list[ox.Triple]] = {}
        self._sp: dict[tuple[Term, ox.NamedNode], list[ox.Triple]] = {}
        self._po: dict[tuple[ox.NamedNode, Term], list[ox.Triple]] = {}
        for t in self.triples:
            s, p, o = t.subject, t.predicate, t.object
            self._s.setdefault(s, []).append(t)  # type: ignore[arg-type]
            self._p.setdefault(p, []).append(t)
            self._o.setdefault(o, []).append(t)  # type: ignore[arg-type]
            self._sp.setdefault((s, p), []).append(t)  # type: ignore[arg-type]
            self._po.setdefault((p, o), []).append(t)  # type: ignore[arg-type]

    def __len__(self) -> int:
        return len(self.triples)

    def match(self, s: Term | None, p: ox.NamedNode | None, o: Term | None) -> list[ox.Triple]:
        """The triples matching the pattern (None: any), in first-seen order (a list the index
        keeps: do not modify it)."""
        if s is not None and p is not None:
            if o is not None:
                return [t for t in self._sp.get((s, p), ()) if t.object == o]
            return self._sp.get((s, p), [])
        if p is not None and o is not None:
            return self._po.get((p, o), [])
        if s is not None and o is not None:  # rare: scan the subject's triples
            return [t for t in self._s.get(s, ()) if t.object == o]
        if s is not None:
            return self._s.get(s, [])
        if o is not None:
            return self._o.get(o, [])
        if p is not None:
            return self._p.get(p, [])
        return self.triples
