"""The one place RDF terms cross between rdflib (for pyshacl and owlrl) and Oxigraph (the store)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import pyoxigraph as ox
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.term import Node

from kgprofiles.vocab import XSD_NS

_XSD_STRING = XSD_NS + "string"


def to_rdflib(term: ox.NamedNode | ox.BlankNode | ox.Literal) -> Node:
    """An rdflib term for an Oxigraph term."""
    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    if isinstance(term, ox.Literal):
        if term.language:
            return Literal(term.value, lang=term.language)
        datatype = term.datatype.value
        return Literal(term.value, datatype=None if datatype == _XSD_STRING else datatype)
    raise TypeError(f"not an RDF term: {term!r}")


def to_oxigraph(term: Node) -> ox.NamedNode | ox.BlankNode | ox.Literal:
    """An Oxigraph term for an rdflib term."""
    if isinstance(term, URIRef):
        return ox.NamedNode(str(term))
    if isinstance(term, BNode):
        return ox.BlankNode(str(term))
    if isinstance(term, Literal):
        if term.language:
            return ox.Literal(str(term), language=term.language)
        if term.datatype is not None:
            return ox.Literal(str(term), datatype=ox.NamedNode(str(term.datatype)))
        return ox.Literal(str(term))
    raise TypeError(f"not an RDF term: {term!r}")


def graph_from_triples(triples: Iterable[ox.Triple | ox.Quad], graph: Graph | None = None) -> Graph:
    """Add Oxigraph triples (or quads, graph ignored) to an rdflib graph."""
    graph = Graph() if graph is None else graph
    add = graph.add
    for t in triples:
        subject, obj = t.subject, t.object
        if isinstance(subject, ox.Triple) or isinstance(obj, ox.Triple):
            raise TypeError(f"rdflib cannot hold a triple term: {t}")
        add((to_rdflib(subject), to_rdflib(t.predicate), to_rdflib(obj)))
    return graph


def triples_from_graph(graph: Graph) -> Iterator[ox.Triple]:
    """Oxigraph triples for an rdflib graph."""
    for s, p, o in graph:
        subject, predicate = to_oxigraph(s), to_oxigraph(p)
        if isinstance(subject, ox.Literal) or not isinstance(predicate, ox.NamedNode):
            raise TypeError(f"not an RDF triple: {s} {p} {o}")
        yield ox.Triple(subject, predicate, to_oxigraph(o))
