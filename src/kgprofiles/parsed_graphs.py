"""The ontology and shapes graphs as ``validate.load_ontology`` and ``load_shapes`` make them,
kept on disk between processes.

Making them parses every file with rdflib (the shapes' SPARQL checked, the ontology's blank nodes
labelled canonically so that the compiled rules cached by its content are found again in every
process): ~0.15 s of every ``build``, ``load`` and ``validate``. Each graph is written once to
``$KGPROFILES_CACHE_DIR/ontology/`` or ``shapes/`` (``fast/disk_cache.py``), under a name made of
the files' names and bytes, rdflib's version and the code that makes it, each term exactly as
rdflib holds it (a literal's datatype or its absence, its language), with the prefixes the files
bound. An edited file gives a new name (and is parsed and checked again); an entry that cannot be
read whole is ignored and written again.

>>> from rdflib import Literal
>>> graph = Graph()
>>> integer = URIRef("http://www.w3.org/2001/XMLSchema#integer")
>>> string = URIRef("http://www.w3.org/2001/XMLSchema#string")
>>> for triple in [
...     (URIRef("http://x/a"), URIRef("http://x/p"), BNode("cb0")),
...     (BNode("cb0"), URIRef("http://x/q"), Literal("1", datatype=integer)),
...     (BNode("cb0"), URIRef("http://x/r"), Literal("plain")),
...     (BNode("cb0"), URIRef("http://x/r"), Literal("plain", datatype=string)),  # (another term in rdflib)
...     (BNode("cb0"), URIRef("http://x/s"), Literal("chat", lang="fr")),
... ]:
...     _ = graph.add(triple)
>>> _ = graph.bind("x", "http://x/")
>>> again = _graph(_entry(graph))
>>> set(again) == set(graph), len(again), dict(again.namespaces())["x"] == URIRef("http://x/")
(True, 5, True)
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import rdflib
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.term import Node

from kgprofiles.fast.disk_cache import cache_dir, log, made_by, read_json, write_json

_FORMAT = 1
_WHAT = "parsed graphs cache"
_MADE_BY = ("../parsed_graphs.py", "../validate.py", "../shapes_check.py")  # (relative to fast/: what makes the graph)


def entry_path(kind: str, files: Sequence[Path]) -> Path:
    """The cache file of the ``kind`` of graph ("ontology", "shapes") made of ``files`` (their
    names and bytes, in this order)."""
    digest = hashlib.sha256(made_by(str(_FORMAT), rdflib.__version__, sources=_MADE_BY).encode())
    for path in files:
        digest.update(b"\0" + path.name.encode("utf-8") + b"\0" + path.read_bytes())
    return cache_dir() / kind / f"{digest.hexdigest()[:40]}.json"


def read_graph(path: Path) -> Graph | None:
    """The graph stored at ``path``, or None when there is none or it cannot be read whole."""
    raw = read_json(path, _WHAT)
    if not isinstance(raw, dict) or raw.get("format") != _FORMAT:
        return None
    try:
        return _graph(raw)
    except (TypeError, ValueError, KeyError, IndexError) as exc:
        log.warning("%s: ignoring %s (%s)", _WHAT, path, exc)
        return None


def write_graph(path: Path, graph: Graph) -> None:
    """Store ``graph`` at ``path`` whole, or not at all (a cache that cannot be written is only slower)."""
    write_json(path, _entry(graph), _WHAT)


def _entry(graph: Graph) -> dict[str, Any]:
    return {
        "format": _FORMAT,
        "prefixes": sorted([prefix, str(namespace)] for prefix, namespace in graph.namespaces()),
        "triples": sorted([_term(s), _term(p), _term(o)] for s, p, o in graph),
    }


def _graph(raw: dict[str, Any]) -> Graph:
    graph = Graph()
    for prefix, namespace in raw["prefixes"]:
        graph.bind(str(prefix), str(namespace), override=False)
    graph.addN((_node(s), _node(p), _node(o), graph) for s, p, o in raw["triples"])
    return graph


def _term(node: Node) -> list[str]:
    if isinstance(node, URIRef):
        return ["u", str(node)]
    if isinstance(node, BNode):
        return ["b", str(node)]
    assert isinstance(node, Literal), node
    return ["l", str(node), str(node.datatype) if node.datatype is not None else "", node.language or ""]


def _node(term: list[str]) -> Node:
    kind = term[0]
    if kind == "u":
        return URIRef(term[1])
    if kind == "b":
        return BNode(term[1])
    if kind != "l":
        raise ValueError(f"not a term: {term!r}")
    _, value, datatype, language = term
    return Literal(value, lang=language or None, datatype=URIRef(datatype) if datatype else None)
