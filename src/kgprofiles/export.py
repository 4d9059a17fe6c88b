"""Serialisations of the store or of one person's profile, deterministic byte for byte.

Blank nodes carry stable labels from ingest, so the same data always gives the same labels. A
profile is sorted triple by triple; the whole graph keeps the store's own order, which depends only
on the data (Oxigraph orders by encoded term), so it is as fast as Oxigraph's own dump and still
byte-identical for the same store.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

import pyoxigraph as ox
from rdflib import Graph

from kgprofiles.errors import InputError
from kgprofiles.queries import NamedQuery
from kgprofiles.store import rdf_syntax
from kgprofiles.store.base import Store
from kgprofiles.store.oxigraph import as_bytes
from kgprofiles.terms import graph_from_triples
from kgprofiles.vocab import PREFIXES, IdSpace, ids

FORMATS: dict[str, rdf_syntax.RdfFormat | None] = {
    "ttl": rdf_syntax.RdfFormat.TURTLE,
    "nt": rdf_syntax.RdfFormat.N_TRIPLES,
    "nq": rdf_syntax.RdfFormat.N_QUADS,
    "jsonld": None,  # compacted JSON-LD, see to_jsonld
}
MEDIA_TYPES = {
    "ttl": "text/turtle",
    "nt": "application/n-triples",
    "nq": "application/n-quads",
    "jsonld": "application/ld+json",
}


def check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise InputError(f"unknown export format {fmt!r}", f"choose one of {', '.join(FORMATS)}")
    return fmt


def jsonld_context() -> dict[str, Any]:
    """The @context kgprofiles ships (src/kgprofiles/context.jsonld), with the project's kinds
    (``person``, ``organization``, ...) under its own base IRI."""
    return _context_for(ids().base)


@lru_cache(maxsize=4)
def _context_for(base: str) -> dict[str, Any]:
    text = resources.files("kgprofiles").joinpath("context.jsonld").read_text(encoding="utf-8")
    context: dict[str, Any] = json.loads(text)["@context"]
    return {**context, **IdSpace(base).namespaces()}


def to_jsonld(triples: list[ox.Triple]) -> bytes:
    """Compacted JSON-LD with the project's @context; nodes sorted by @id, keys sorted."""
    graph = graph_from_triples(triples, Graph())
    text = graph.serialize(format="json-ld", context=jsonld_context(), auto_compact=True)
    doc = json.loads(text)
    nodes = doc.get("@graph", [doc] if "@id" in doc else [])
    nodes = [{k: v for k, v in n.items() if k != "@context"} for n in nodes]
    nodes.sort(key=lambda n: str(n.get("@id", "")))
    out = {"@context": jsonld_context(), "@graph": nodes}
    return (json.dumps(out, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def serialize_triples(triples: list[ox.Triple], fmt: str) -> bytes:
    """Triples in ``fmt`` (ttl, nt, jsonld), sorted so the output is the same every time."""
    check_format(fmt)
    ordered = sorted(triples, key=lambda t: (str(t.subject), str(t.predicate), str(t.object)))
    if fmt == "jsonld":
        return to_jsonld(ordered)
    if fmt == "nq":
        fmt = "nt"
    rdf_format = FORMATS[fmt]
    assert rdf_format is not None
    prefixes = PREFIXES if rdf_format == rdf_syntax.RdfFormat.TURTLE else None
    return as_bytes(rdf_syntax.serialize(ordered, format=rdf_format, prefixes=prefixes))


def export_store(store: Store, fmt: str) -> bytes:
    """The whole store: N-Quads keep every named graph (data files, ontology, inferred); the other
    formats give the union of the graphs as triples."""
    check_format(fmt)
    if fmt == "jsonld":
        union = {ox.Triple(q.subject, q.predicate, q.object) for q in store.quads()}
        return to_jsonld(sorted(union, key=lambda t: (str(t.subject), str(t.predicate), str(t.object))))
    rdf_format = FORMATS[fmt]
    assert rdf_format is not None
    return store.dump(rdf_format)


def export_profile(store: Store, query: NamedQuery, person: ox.NamedNode, fmt: str) -> bytes:
    """One person's profile graph (``queries/person-export.rq``) in ``fmt``."""
    result = query.run(store, {"person": person})
    assert isinstance(result, list)
    return serialize_triples(result, fmt)
