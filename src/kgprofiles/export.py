"""Serialisations of the store or of one person's profile, deterministic byte for byte.

Blank nodes carry stable labels from ingest, so the same data always gives the same labels. A
profile is sorted triple by triple; the whole graph keeps the store's own order, which depends only
on the data (Oxigraph orders by encoded term), so it is as fast as Oxigraph's own dump and still
byte-identical for the same store.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from importlib import resources
from itertools import islice
from pathlib import Path
from typing import Any, BinaryIO

import pyoxigraph as ox

from kgprofiles.config import Limits
from kgprofiles.errors import InputError
from kgprofiles.queries import NamedQuery
from kgprofiles.store import rdf_syntax
from kgprofiles.store.base import Store
from kgprofiles.store.oxigraph import as_bytes
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
def _rdflib_context(base: str) -> Any:
    """rdflib's processed form of the @context (reading it costs more than a small resource's
    JSON-LD); rdflib only reads it while writing."""
    from rdflib.plugins.shared.jsonld.context import Context

    return Context(_context_for(base))


@lru_cache(maxsize=4)
def _context_for(base: str) -> dict[str, Any]:
    text = resources.files("kgprofiles").joinpath("context.jsonld").read_text(encoding="utf-8")
    context: dict[str, Any] = json.loads(text)["@context"]
    return {**context, **IdSpace(base).namespaces()}


def to_jsonld(triples: list[ox.Triple]) -> bytes:
    """Compacted JSON-LD with the project's @context; nodes sorted by @id, keys sorted: what
    rdflib writes (``jsonld_nodes`` makes the same nodes without rdflib's graph where it can)."""
    from kgprofiles.jsonld_nodes import compact_nodes  # (rdflib's terms: imported for this format only)

    context = _rdflib_context(ids().base)
    nodes = compact_nodes(triples, context)
    return jsonld_document(rdflib_nodes(triples, context) if nodes is None else nodes)


def jsonld_document(nodes: list[dict[str, Any]]) -> bytes:
    """The JSON-LD document of ``nodes``: ``{"@context": <the project's>, "@graph": nodes}``
    indented, keys sorted, the nodes sorted by @id (the context's text is written once)."""
    nodes.sort(key=lambda n: str(n.get("@id", "")))
    graph = json.dumps({"@graph": nodes}, indent=2, sort_keys=True, ensure_ascii=False)
    return (_context_text(ids().base) + ",\n" + graph[2:] + "\n").encode("utf-8")


@lru_cache(maxsize=4)
def _context_text(base: str) -> str:
    """``{"@context": ...}`` as ``jsonld_document`` writes it, without its closing brace."""
    return json.dumps({"@context": _context_for(base)}, indent=2, sort_keys=True, ensure_ascii=False)[:-2]


def rdflib_nodes(triples: list[ox.Triple], context: Any) -> list[dict[str, Any]]:
    """The node objects of ``graph.serialize(format="json-ld", context=..., auto_compact=True)``."""
    from rdflib import Graph
    from rdflib.plugins.serializers.jsonld import from_rdf

    from kgprofiles.terms import graph_from_triples

    doc = from_rdf(graph_from_triples(triples, Graph()), context_data=context, auto_compact=True)
    nodes = doc.get("@graph", [doc] if "@id" in doc else [])
    return [{k: v for k, v in n.items() if k != "@context"} for n in nodes]


class InOrder(list[ox.Triple]):
    """Triples in the order every serialisation here writes them (``in_order``)."""


def in_order(triples: Iterable[ox.Triple]) -> InOrder:
    """``triples`` sorted by subject, predicate and object as N-Triples writes them, so the output
    is the same every time; triples already put in order are not sorted again (a resource's data
    forms are written from one sorting)."""
    if isinstance(triples, InOrder):
        return triples
    return InOrder(sorted(triples, key=lambda t: (str(t.subject), str(t.predicate), str(t.object))))


def serialize_triples(triples: Sequence[ox.Triple], fmt: str) -> bytes:
    """Triples in ``fmt`` (ttl, nt, jsonld), sorted (``in_order``) so the output is the same every time."""
    check_format(fmt)
    ordered = in_order(triples)
    if fmt == "jsonld":
        return to_jsonld(ordered)
    if fmt == "nq":
        fmt = "nt"
    rdf_format = FORMATS[fmt]
    assert rdf_format is not None
    prefixes = PREFIXES if rdf_format == rdf_syntax.RdfFormat.TURTLE else None
    return as_bytes(rdf_syntax.serialize(ordered, format=rdf_format, prefixes=prefixes))


class NotRepresentable(InputError):
    """The triples cannot be written in the format asked for (RDF/XML: see ``to_rdfxml``)."""


#: What XML 1.0 allows in a document (RDF/XML cannot carry other characters in any form).
_XML_CHARS = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
#: The namespace/local split RDF/XML needs: the local part an XML name (NCName) at the IRI's end.
_NCNAME_END = re.compile(r"[A-Za-z_\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff][\w.\-\u00b7]*$")


def rdfxml_problem(triples: Sequence[ox.Triple]) -> str | None:
    """Why ``triples`` cannot be written as RDF/XML, or None when they can: every predicate must
    end in an XML name (``…/p/`` or ``…#1`` cannot be split into a namespace and a local name),
    no value may hold a character XML forbids (most C0 controls), and no triple may be quoted."""
    for triple in triples:
        if not _ends_in_xml_name(triple.predicate.value):
            return f"the property <{triple.predicate.value}> does not end in an XML name"
        for term in (triple.subject, triple.object):
            if isinstance(term, ox.Triple):
                return "RDF/XML has no quoted triples"
            if _XML_CHARS.search(term.value):
                return f"{term} holds a character XML 1.0 does not allow"
    return None


@lru_cache(maxsize=4096)
def _ends_in_xml_name(predicate: str) -> bool:
    """(Remembered: a graph has few properties, and the end-anchored search is slow on long IRIs.)"""
    return _NCNAME_END.search(predicate) is not None


def to_rdfxml(triples: Sequence[ox.Triple]) -> bytes:
    """``triples`` as RDF/XML, sorted, with the project's prefixes; NotRepresentable when the
    data does not allow it (``rdfxml_problem``), checked again by reading the output back."""
    problem = rdfxml_problem(triples)
    if problem is not None:
        raise NotRepresentable(f"this resource cannot be written as RDF/XML: {problem}")
    ordered = in_order(triples)
    body = as_bytes(rdf_syntax.serialize(ordered, format=rdf_syntax.RdfFormat.RDF_XML, prefixes=PREFIXES))
    try:
        count = sum(1 for _ in rdf_syntax.parse(body, format=rdf_syntax.RdfFormat.RDF_XML))
    except SyntaxError as exc:
        raise NotRepresentable(f"this resource cannot be written as RDF/XML: {exc}") from exc
    if count != len(set(ordered)):
        raise NotRepresentable("this resource cannot be written as RDF/XML: the output does not read back")
    return body


def jsonld_fits(store: Store, max_quads: int) -> bool:
    """Whether the whole store may be exported as JSON-LD: it is compacted in memory (rdflib,
    some kilobytes a triple), so only a store of at most ``max_quads`` quads is."""
    return sum(1 for _ in islice(store.quads(), max_quads + 1)) <= max_quads


class TooLargeForJsonld(InputError):
    """The store has more quads than a JSON-LD export is made for (``jsonld_max_quads``)."""


def export_store(store: Store, fmt: str, *, jsonld_max_quads: int = Limits.jsonld_max_quads) -> bytes:
    """The whole store: N-Quads keep every named graph (data files, ontology, inferred); the other
    formats give the union of the graphs as triples. JSON-LD only up to ``jsonld_max_quads``
    quads (TooLargeForJsonld past that)."""
    check_format(fmt)
    if fmt == "jsonld":
        if not jsonld_fits(store, jsonld_max_quads):
            raise TooLargeForJsonld(
                f"the graph has more than {jsonld_max_quads:,} quads, too many to compact as JSON-LD in memory",
                "export --format nq (every named graph) or nt instead, or raise jsonld_max_quads in "
                "[kgprofiles.limits] of kgprofiles.toml if this machine has the memory (some kilobytes a quad)",
            )
        union = {ox.Triple(q.subject, q.predicate, q.object) for q in store.quads()}
        return to_jsonld(in_order(union))
    rdf_format = FORMATS[fmt]
    assert rdf_format is not None
    return store.dump(rdf_format)


def export_store_to(
    store: Store, fmt: str, output: Path | BinaryIO, *, jsonld_max_quads: int = Limits.jsonld_max_quads
) -> None:
    """``export_store`` into the file at ``output`` (a path, or a binary file such as standard
    output): streamed by an embedded store, sorted on disk from a server for N-Quads and
    N-Triples (the whole graph never in memory), the same bytes either way."""
    check_format(fmt)
    rdf_format = FORMATS[fmt]
    if rdf_format is not None:
        store.dump_to(output, rdf_format)
        return
    body = export_store(store, fmt, jsonld_max_quads=jsonld_max_quads)
    if isinstance(output, Path):
        output.write_bytes(body)
    else:
        output.write(body)


def export_profile(store: Store, query: NamedQuery, person: ox.NamedNode, fmt: str) -> bytes:
    """One person's profile graph (``queries/person-export.rq``) in ``fmt``."""
    result = query.run(store, {"person": person})
    assert isinstance(result, list)
    return serialize_triples(result, fmt)
