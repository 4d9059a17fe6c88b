"""The data as ``load`` will leave it, for ``fast.incremental.plan_load`` to look at: the built
store's file graphs less the ones the load replaces, plus the new files' triples.

A load asks the same few patterns once for every node it reaches, so every look-up must cost what
its answer costs, whatever the size of the load (a scan of the new triples for each look-up made a
load of N files take time in N squared): the new and the replaced triples are indexed in memory
(``TripleIndex``), and the store is not asked at all about a node no kept file graph holds (most
of a load's nodes are new), which is remembered for each node.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence

import pyoxigraph as ox

from kgprofiles.fast.triple_index import TripleIndex
from kgprofiles.ingest import SourceFile
from kgprofiles.store import engine
from kgprofiles.vocab import FILE_GRAPH_PREFIX

Term = ox.NamedNode | ox.BlankNode | ox.Literal


class DataView:
    """The data as it will be after the load: the store's file graphs, less the replaced ones,
    plus the new files' triples. The new triples are held twice, as stored (``new``: literals in
    the store's canonical form) and as parsed (``raw``); the replaced graphs' triples once
    (``old``). Every lookup is indexed: its cost grows with its answer, not with the load."""

    def __init__(self, store: engine.Patterns, files: Sequence[SourceFile], prefix: str = FILE_GRAPH_PREFIX) -> None:
        self.store = store
        self.prefix = prefix
        self.replaced = {ox.NamedNode(f.graph) for f in files}
        self.raw = TripleIndex(t for f in files for t in f.triples)
        self.new = self.raw if _kept_as_parsed(self.raw.triples) else TripleIndex(stored_forms(self.raw.triples))
        self.new_triples = self.new.triples
        self.old = TripleIndex(q.triple for g in self.replaced for q in store.quads_for_pattern(None, None, None, g))
        self._graphs: dict[object, bool] = {}
        self._mentioned: tuple[dict[Term, bool], dict[Term, bool]] = ({}, {})

    def _keep(self, graph: object) -> bool:
        """Whether ``graph`` is a file graph the load keeps (remembered for each graph)."""
        known = self._graphs.get(graph)
        if known is None:
            known = self._graphs[graph] = (
                isinstance(graph, ox.NamedNode) and graph.value.startswith(self.prefix) and graph not in self.replaced
            )
        return known

    def _kept(self, s: Term | None, p: ox.NamedNode | None, o: Term | None) -> dict[ox.Triple, None]:
        """The store's triples in the kept file graphs matching the pattern. Not asked at all
        for a subject or object no kept graph holds in that place (every node only the new
        files name, the most of a load's look-ups)."""
        if (s is not None and not self._in_kept(s, 0)) or (o is not None and not self._in_kept(o, 1)):
            return {}
        keep = self._keep
        return {q.triple: None for q in self.store.quads_for_pattern(s, p, o, None) if keep(q.graph_name)}  # type: ignore[arg-type]

    def kept_triples(self, s: Term | None, p: ox.NamedNode | None, o: Term | None) -> Iterator[ox.Triple]:
        """The store's triples in the kept file graphs matching the pattern, one at a time."""
        return (q.triple for q in self.store.quads_for_pattern(s, p, o, None) if self._keep(q.graph_name))  # type: ignore[arg-type]

    def _in_kept(self, node: Term, place: int, scan: int = 64) -> bool:
        """Whether a kept file graph has ``node`` as a subject (``place`` 0) or as an object (1),
        remembered for each node. True, too, when the first ``scan`` triples are all elsewhere
        (then it may: the look-up stays short for a node in many triples)."""
        known = self._mentioned[place].get(node)
        if known is None:
            known = False
            if place == 1 or not isinstance(node, ox.Literal):
                pattern = (node, None, None, None) if place == 0 else (None, None, node, None)
                for i, q in enumerate(self.store.quads_for_pattern(*pattern)):
                    if i == scan or self._keep(q.graph_name):
                        known = True
                        break
            self._mentioned[place][node] = known
        return known

    def fetch(self, s: Term | None, p: ox.NamedNode | None, o: Term | None) -> list[ox.Triple]:
        """Triples of the data after the load matching the pattern (None: any), all as stored."""
        found = self._kept(s, p, o)
        found.update(dict.fromkeys(self.new.match(s, p, o)))
        return list(found)

    def fetch_raw(self, s: Term | None, p: ox.NamedNode | None, o: Term | None) -> list[ox.Triple]:
        """The same, with the new files' triples as parsed (as the reference validates them)."""
        found = self._kept(s, p, o)
        found.update(dict.fromkeys(self.raw.match(s, p, o)))
        return list(found)

    def fetch_old(self, s: Term | None, p: ox.NamedNode | None, o: Term | None) -> list[ox.Triple]:
        """Triples of the replaced graphs (the data before the load) matching the pattern, as stored."""
        return self.old.match(s, p, o)

    def may_use(self, predicate: ox.NamedNode, scan: int = 64) -> bool:
        """Whether the data after the load may have triples with ``predicate``: False only if
        neither the new files nor the kept file graphs have one (a predicate found only outside
        them, in the first ``scan`` triples, counts as possibly used: the look-up stays short)."""
        if self.new.match(None, predicate, None):
            return True
        for i, q in enumerate(self.store.quads_for_pattern(None, predicate, None, None)):
            if i == scan or self._keep(q.graph_name):
                return True
        return False

    def first_into(self, node: Term, predicates: Collection[ox.NamedNode]) -> list[ox.Triple]:
        """For each of ``predicates`` that has one, a triple of the data after the load with that
        predicate into ``node`` (the new files' first). The store is asked predicate by
        predicate only if some file graph the load keeps points at ``node`` (not for the nodes
        only the new files name, most of a load's)."""
        found: dict[ox.NamedNode, ox.Triple] = {}
        for t in self.new.match(None, None, node):
            if t.predicate in predicates:
                found.setdefault(t.predicate, t)
        if len(found) == len(predicates) or not self._in_kept(node, 1):
            return list(found.values())
        for p in predicates:
            if p not in found:
                for q in self.store.quads_for_pattern(None, p, node, None):
                    if self._keep(q.graph_name):
                        found[p] = q.triple
                        break
        return list(found.values())

    def elsewhere(self, t: ox.Triple) -> bool:
        """Whether ``t`` is in a file graph that the load keeps."""
        return self._in_kept(t.subject, 0) and any(  # type: ignore[arg-type]
            self._keep(q.graph_name) for q in self.store.quads_for_pattern(t.subject, t.predicate, t.object, None)
        )


def _kept_as_parsed(triples: Sequence[ox.Triple]) -> bool:
    """Whether a store keeps every literal object of ``triples`` as parsed (the usual case)."""
    literals = [t for t in triples if isinstance(t.object, ox.Literal)]
    return set(stored_forms(literals)) == set(literals)


def stored_forms(quads: Iterable[ox.Triple | ox.Quad]) -> list[ox.Triple]:
    """The triples as a store keeps them (literals in its canonical form), like the inferred
    graph; each once, in the store's order."""
    scratch = engine.scratch()
    scratch.extend(ox.Quad(q.subject, q.predicate, q.object, ox.DefaultGraph()) for q in quads)
    return [q.triple for q in scratch]
