"""The node objects of compacted JSON-LD, as rdflib writes them, without building an rdflib graph.

Every resource's data form and every page of a static site write a small graph as JSON-LD.
rdflib's serializer (``from_rdf(graph, context, auto_compact=True)``) first puts the triples in a
graph (a store with its indexes and contexts), then asks that graph, for every value, whether it
starts an RDF list: 2.8 ms for a person's hundred triples, a quarter of the cost of a person's
page. :func:`compact_nodes` runs the same conversion (rdflib's ``Converter.add_to_node`` and
``to_raw_value``, step for step) over plain dictionaries: the same rdflib terms
(``terms.to_rdflib``), met in the same order (rdflib's in-memory store gives a subject's values in
the order they were added), and rdflib's own processed ``@context`` choosing the keys and
shrinking IRIs, so each value comes out as rdflib writes it, quirks included (a first value that
is false, 0 or empty is replaced by the next rather than joined with it).

What it does not model, it leaves to rdflib (it returns None): blank nodes, RDF lists (``rdf:first``,
``rdf:rest``, ``rdf:nil``), quoted triples, two subjects shrunk to one ``@id``, and contexts whose
terms have containers or languages or that set a default language. ``tests/test_jsonld_nodes.py``
holds the two paths equal, byte for byte, on the seed graph and on generated graphs.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import pyoxigraph as ox
from rdflib import Literal, URIRef
from rdflib.namespace import RDF, XSD
from rdflib.plugins.shared.jsonld.context import UNDEF, Context
from rdflib.plugins.shared.jsonld.keys import ID, VOCAB
from rdflib.term import Node

from kgprofiles.terms import to_rdflib

#: The datatypes rdflib writes as JSON's own values (``from_rdf``'s PLAIN_LITERAL_TYPES).
_NATIVE = frozenset({XSD.boolean, XSD.integer, XSD.double, XSD.string})
_LISTS = frozenset({str(RDF.first), str(RDF.rest)})
_NIL = str(RDF.nil)
_RDF_TYPE = RDF.type  # (rdflib's namespace attributes are slow to look up: once here)
#: Distinct terms kept converted per process (a site's names, types and predicates recur).
_TERMS_KEPT = 50_000


def compact_nodes(triples: Iterable[ox.Triple], context: Context) -> list[dict[str, Any]] | None:
    """The node objects rdflib's ``from_rdf`` writes for ``triples`` with ``context`` (one per
    subject, in no particular order), or None when rdflib has to write them itself."""
    return _compactor(context).nodes(triples)


@lru_cache(maxsize=4)
def _compactor(context: Context) -> _Compactor:
    return _Compactor(context)


@lru_cache(maxsize=_TERMS_KEPT)
def _rdflib_term(term: ox.NamedNode | ox.Literal) -> Node:
    return to_rdflib(term)


class _Compactor:
    """``Converter`` of rdflib's JSON-LD serializer for one processed @context, with what it
    looks up in the context remembered (the context never changes)."""

    def __init__(self, context: Context) -> None:
        self.context = context
        self.usable = not context.language and all(not t.container and not t.language for t in context.terms.values())
        self.id_key, self.type_key = context.id_key, context.type_key
        self.value_key, self.lang_key = context.value_key, context.lang_key
        self._terms: dict[tuple[str, Any, Any, Any], Any] = {}  # (predicates × datatypes: few)
        self._symbols: dict[str, str | None] = {}  # (predicates, classes and datatypes: few)
        # every resource's IRI passes here: the recent ones kept (a site build meets millions)
        self._shrink = lru_cache(maxsize=_TERMS_KEPT)(context.shrink_iri)

    # -- what the context says, remembered

    def _find_term(self, idref: str, coercion: Any, container: Any, language: Any) -> Any:
        key = (idref, coercion, container, language)
        try:
            return self._terms[key]
        except KeyError:
            found = self._terms[key] = self.context.find_term(idref, coercion, container, language)
            return found

    def _symbol(self, iri: str) -> str | None:
        try:
            return self._symbols[iri]
        except KeyError:
            symbol = self._symbols[iri] = self.context.to_symbol(iri)
            return symbol

    # -- the conversion

    def nodes(self, triples: Iterable[ox.Triple]) -> list[dict[str, Any]] | None:
        if not self.usable:
            return None
        # subject → predicate → objects, as rdflib's memory store keeps them: in the order
        # added, a triple met twice (or two that rdflib's terms make equal) kept once
        graph: dict[Any, dict[Any, dict[Any, None]]] = {}
        for triple in triples:
            s, p, o = triple.subject, triple.predicate, triple.object
            if not isinstance(s, ox.NamedNode) or isinstance(o, ox.BlankNode | ox.Triple):
                return None
            if p.value in _LISTS or (isinstance(o, ox.NamedNode) and o.value == _NIL):
                return None
            graph.setdefault(_rdflib_term(s), {}).setdefault(_rdflib_term(p), {})[_rdflib_term(o)] = None
        nodes: dict[str, dict[str, Any]] = {}
        for subject, predicates in graph.items():
            node_id = self._shrink(subject)
            if node_id in nodes:
                return None  # rdflib keeps whichever subject its set gives first
            node: dict[str, Any] = {self.id_key: node_id}
            nodes[node_id] = node
            for predicate, objects in predicates.items():
                for obj in objects:
                    self._add(predicate, obj, node)
        return list(nodes.values())

    def _add(self, p: Any, o: Any, s_node: dict[Any, Any]) -> None:
        """``Converter.add_to_node`` for an IRI subject, without lists or containers."""
        if isinstance(o, Literal):
            datatype = str(o.datatype) if o.datatype else None
            term = self._find_term(str(p), datatype, UNDEF, o.language)
        else:
            term = None
            for coercion in (ID, VOCAB, UNDEF):
                term = self._find_term(str(p), coercion, None, None)
                if term:
                    break
        node = None
        p_key: Any
        use_set = not self.context.active
        if term:
            p_key = term.name
            if term.type:
                node = self._type_coerce(o, term.type)
        else:
            p_key = self._symbol(p)
            key_term = self.context.terms.get(p_key)
            if key_term and (key_term.type or key_term.container):
                p_key = p
            if p == _RDF_TYPE:
                if isinstance(o, URIRef):
                    node = self._symbol(o)
                p_key = self.type_key
        if node is None:
            node = self._raw(o)
        value = s_node.get(p_key)
        if value:
            if not isinstance(value, list):
                value = [value]
            value.append(node)
        elif use_set:
            value = [node]
        else:
            value = node
        s_node[p_key] = value

    def _type_coerce(self, o: Any, coerce_type: str) -> Any:
        if coerce_type == ID:
            return self._shrink(o) if isinstance(o, URIRef) else o
        if coerce_type == VOCAB and isinstance(o, URIRef):
            return self._symbol(o)
        if isinstance(o, Literal) and str(o.datatype) == coerce_type:
            return o
        return None

    def _raw(self, o: Any) -> Any:
        """``Converter.to_raw_value`` for an IRI or a literal."""
        if isinstance(o, URIRef):
            return {self.id_key: self._shrink(o)}
        native = self.context.active and o.datatype in _NATIVE
        v = o.toPython() if native else str(o)
        if o.datatype:
            if native and self.context.active:
                return v
            return {self.type_key: self._symbol(o.datatype), self.value_key: v}
        if o.language and o.language != self.context.language:
            return {self.lang_key: o.language, self.value_key: v}
        if not self.context.active or (self.context.language and not o.language):
            return {self.value_key: v}
        return v
