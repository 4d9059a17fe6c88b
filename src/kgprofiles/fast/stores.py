"""Scratch engines in memory for the fast paths, filled with triples and the ontology."""

from __future__ import annotations

from collections.abc import Iterable

import pyoxigraph as ox
from rdflib import Graph

from kgprofiles.store import engine
from kgprofiles.terms import triples_from_graph
from kgprofiles.vocab import ONTOLOGY_GRAPH

DATA_GRAPH = ox.NamedNode("urn:kgprofiles:fast:data")


def ontology_quads(ontology: Graph) -> list[ox.Quad]:
    """The ontology's triples in its named graph."""
    graph = ox.NamedNode(ONTOLOGY_GRAPH)
    return [ox.Quad(t.subject, t.predicate, t.object, graph) for t in triples_from_graph(ontology)]


def as_quads(triples: Iterable[ox.Triple | ox.Quad], graph: ox.NamedNode = DATA_GRAPH) -> Iterable[ox.Quad]:
    for t in triples:
        if isinstance(t, ox.Quad) and isinstance(t.graph_name, ox.NamedNode):
            yield t
        else:
            yield ox.Quad(t.subject, t.predicate, t.object, graph)


def memory_store(triples: Iterable[ox.Triple | ox.Quad], ontology: Graph | None = None) -> engine.Engine:
    """A fresh in-memory store: ``triples`` in named graphs (quads keep theirs) and the ontology."""
    store = engine.scratch()
    store.extend(as_quads(triples))
    if ontology is not None:
        store.extend(ontology_quads(ontology))
    return store
