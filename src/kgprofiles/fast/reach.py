"""What a shape can read: the triples validating some focus nodes may look at.

Every supported shape is turned into edges between pattern variables (``?this``, value nodes,
their types, the variables of its sh:sparql queries). Starting from a set of focus nodes, a search
along these edges over the data collects every triple any evaluation for those focus nodes could
match (a superset: more triples of the same data never change a result). ``load`` validates the
changed file's focus nodes on that neighbourhood instead of on the whole store.

Edges are followed forwards from a reached subject, and backwards from a reached object; never
backwards from a constant (that would fetch every instance of a class). A shape whose patterns are
not all connected to ``?this`` through variables cannot be scoped (``Reach.unscoped``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import count

import pyoxigraph as ox
import rdflib
from rdflib import BNode, Literal, URIRef, Variable
from rdflib.namespace import RDF, RDFS
from rdflib.paths import AlternativePath, InvPath, MulPath, NegatedPath, Path, SequencePath
from rdflib.term import Node

from kgprofiles.fast.disk_cache import cache_dir, log, made_by, read_json, write_json
from kgprofiles.fast.shapes_model import Shape, ShapesPlan
from kgprofiles.fast.sparql_text import default_prefixes
from kgprofiles.terms import to_oxigraph

Term = ox.NamedNode | ox.BlankNode | ox.Literal
Slot = str | Term  # a variable name ("?x") or a constant term
Fetch = Callable[[Term | None, ox.NamedNode | None, Term | None], Iterable[ox.Triple]]
TYPE = ox.NamedNode(str(RDF.type))
SUBCLASS = ox.NamedNode(str(RDFS.subClassOf))
#: The "predicate" of an edge whose two ends are the same node (a ``*`` or ``?`` path taken zero
#: times): whatever one end reaches, the other reaches, and no triple is read for it.
SAME_NODE = ox.NamedNode("urn:x-kgprofiles:reach:same-node")
XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_CACHE_FORMAT = 1
_CACHE_WHAT = "shape reach cache"
_MADE_BY = ("reach.py", "sparql_text.py")  # the edges, and the default prefixes


@dataclass(frozen=True)
class Edge:
    """``subject predicate object`` between two slots; ``predicate`` None means any."""

    subject: Slot
    predicate: ox.NamedNode | None
    object: Slot


@dataclass
class Reach:
    edges: list[Edge] = field(default_factory=list)
    unscoped: dict[str, str] = field(default_factory=dict)  # shape name → why


_REACHES: dict[int, tuple[ShapesPlan, Reach]] = {}


def plan_edges(plan: ShapesPlan) -> Reach:
    """The edges of every supported shape of ``plan`` (computed once per plan)."""
    found = _REACHES.get(id(plan))
    if found is not None and found[0] is plan:
        return found[1]
    reach = _plan_edges(plan)
    _REACHES[id(plan)] = (plan, reach)
    return reach


def _plan_edges(plan: ShapesPlan) -> Reach:
    reach = Reach()
    fresh = count()
    for shape in plan.shapes:
        edges = _shape_edges(shape, fresh, reach, shape.name)
        if not _connected(edges):
            reach.unscoped[shape.name] = "patterns not connected to $this"
        reach.edges.extend(edges)
    reach.edges = list(dict.fromkeys(reach.edges))
    return reach


def _shape_edges(shape: Shape, fresh: count, reach: Reach, name: str) -> list[Edge]:
    edges = [Edge("?this", None, f"?_any{next(fresh)}")]  # out-edges: types, subjects-of targets
    for cls in shape.targets.classes:
        edges += _typed("?this", fresh)
        del cls
    for p in shape.targets.objects_of:
        edges.append(Edge(f"?_s{next(fresh)}", to_oxigraph(p), "?this"))  # type: ignore[arg-type]
    edges += _constraint_edges(shape, "?this", fresh, reach, name)
    for prop in shape.properties:
        edges += _constraint_edges(prop, "?this", fresh, reach, name)
    return edges


def _typed(var: str, fresh: count) -> list[Edge]:
    cls = f"?_c{next(fresh)}"
    return [Edge(var, TYPE, cls), Edge(cls, SUBCLASS, cls)]


def _constraint_edges(shape: Shape, focus: str, fresh: count, reach: Reach, name: str) -> list[Edge]:
    edges: list[Edge] = []
    value = focus
    if shape.path is not None:
        value = f"?_v{next(fresh)}"
        p = to_oxigraph(shape.path.predicate)
        edges.append(Edge(value, p, focus) if shape.path.inverse else Edge(focus, p, value))  # type: ignore[arg-type]
    for c in shape.constraints:
        if c.kind == "Class":
            edges += _typed(value, fresh)
        elif c.kind in ("Or", "And", "Xone", "Not"):
            for member in c.params:
                edges += _member_edges(member, value, fresh)  # type: ignore[arg-type]
        elif c.kind == "Qualified":
            edges += _member_edges(c.params[0], value, fresh)  # type: ignore[arg-type]
        elif c.kind == "Sparql":
            try:
                edges += sparql_edges(c.params[1], dict(c.params[2]), fresh)  # type: ignore[arg-type, call-overload]
            except ValueError as exc:
                reach.unscoped[name] = str(exc)
    return edges


def _member_edges(member: Shape, node: str, fresh: count) -> list[Edge]:
    edges = [Edge(node, None, f"?_any{next(fresh)}")]
    edges += _constraint_edges(member, node, fresh, Reach(), member.name)
    for prop in member.properties:
        edges += _constraint_edges(prop, node, fresh, Reach(), member.name)
    if any(c.kind == "Class" for c in member.constraints):
        edges += _typed(node, fresh)
    return edges


def sparql_edges(select: str, prefixes: dict[str, str], fresh: count) -> list[Edge]:
    """The triple patterns (and property paths) of an sh:sparql SELECT, as edges; ``$this`` is
    ``?this``, other variables get a prefix of their own (``?q<n>_``). Raises ValueError for what
    it cannot follow, or when some UNION branch binds a variable only through edges the search
    would not follow from ``?this`` (see ``orient``).

    Parsing the SELECT with rdflib costs about 0.1 s a query, in every process that loads: the
    edges (or the ValueError) of each query text are kept on disk (``disk_cache``), named by the
    text, its prefixes, rdflib's version and this module's source."""
    prefix = f"?q{next(fresh)}_"
    return [
        Edge(_prefixed(e.subject, prefix), e.predicate, _prefixed(e.object, prefix))
        for e in _query_edges(select, prefixes)
    ]


def _prefixed(slot: Slot, prefix: str) -> Slot:
    return f"{prefix}{slot[1:]}" if isinstance(slot, str) and slot != "?this" else slot


def _query_edges(select: str, prefixes: dict[str, str]) -> tuple[Edge, ...]:
    """``sparql_edges`` before its variables are made unique: from the disk cache, else parsed."""
    key = tuple(sorted((str(k), str(v)) for k, v in prefixes.items()))
    return _cached_edges(select, key)


@lru_cache(maxsize=256)
def _cached_edges(select: str, prefixes: tuple[tuple[str, str], ...]) -> tuple[Edge, ...]:
    made = made_by(str(_CACHE_FORMAT), rdflib.__version__, select, json.dumps(prefixes), sources=_MADE_BY)
    path = cache_dir() / "reach" / f"{made[:40]}.json"
    raw = read_json(path, _CACHE_WHAT)
    if raw is not None:
        try:
            if raw["format"] == _CACHE_FORMAT and isinstance(raw.get("error"), str):
                raise ValueError(raw["error"])
            if raw["format"] == _CACHE_FORMAT:
                return tuple(_decoded(edge) for edge in raw["edges"])
        except (KeyError, TypeError, IndexError) as exc:
            log.warning("%s: ignoring %s (%s)", _CACHE_WHAT, path, exc)
    try:
        edges = _parsed_edges(select, dict(prefixes))
    except ValueError as exc:
        write_json(path, {"format": _CACHE_FORMAT, "error": str(exc)}, _CACHE_WHAT)
        raise
    write_json(path, {"format": _CACHE_FORMAT, "edges": [_encoded(e) for e in edges]}, _CACHE_WHAT)
    return edges


def _parsed_edges(select: str, prefixes: dict[str, str]) -> tuple[Edge, ...]:
    from pyparsing import ParseBaseException  # imported with rdflib's parser, only when not cached
    from rdflib.plugins.sparql import prepareQuery  # 0.2 s to import: only when not cached

    namespaces = default_prefixes()
    namespaces.update(prefixes)
    try:
        query = prepareQuery(select, initNs=namespaces)
    except ParseBaseException as exc:  # a ValueError like the rest, so it is cached like the rest
        raise ValueError(f"does not parse: {exc}") from exc
    fresh = count()
    blanks: dict[BNode, str] = {}
    tagged: list[tuple[Edge, frozenset[tuple[int, int]]]] = []
    for (s, p, o), tags in _triples(query.algebra, frozenset(), count()):
        for edge in _path_edges(_slot(s, blanks), p, _slot(o, blanks), fresh):
            tagged.append((edge, tags))
    _check_branches(tagged)
    return tuple(e for e, _ in tagged)


def _encoded(edge: Edge) -> list[object]:
    return [_encoded_slot(edge.subject), edge.predicate.value if edge.predicate else None, _encoded_slot(edge.object)]


def _encoded_slot(slot: Slot) -> list[str | None]:
    if isinstance(slot, str):
        return ["v", slot]
    if isinstance(slot, ox.NamedNode):
        return ["n", slot.value]
    if isinstance(slot, ox.BlankNode):
        return ["b", slot.value]
    return ["l", slot.value, slot.datatype.value, slot.language]


def _decoded(raw: list[object]) -> Edge:
    subject, predicate, object_ = raw
    if predicate is not None and not isinstance(predicate, str):
        raise TypeError(f"not a predicate: {predicate!r}")
    return Edge(_decoded_slot(subject), ox.NamedNode(predicate) if predicate else None, _decoded_slot(object_))


def _decoded_slot(raw: object) -> Slot:
    if not isinstance(raw, list) or not raw or not all(isinstance(x, str | None) for x in raw):
        raise TypeError(f"not a slot: {raw!r}")
    kind, value, *literal = raw
    if kind == "v" and isinstance(value, str) and value.startswith("?"):
        return value
    if kind == "n" and isinstance(value, str):
        return ox.NamedNode(value)
    if kind == "b" and isinstance(value, str):
        return ox.BlankNode(value)
    if kind == "l" and isinstance(value, str) and len(literal) == 2:
        datatype, language = literal
        if language:
            return ox.Literal(value, language=language)
        return ox.Literal(value, datatype=ox.NamedNode(datatype or XSD_STRING))
    raise TypeError(f"not a slot: {raw!r}")


def _triples(
    node: object, tags: frozenset[tuple[int, int]], unions: count
) -> Iterable[tuple[tuple[Node, object, Node], frozenset[tuple[int, int]]]]:
    """Triple patterns, each with the UNION branches (union id, side) it belongs to."""
    from rdflib.plugins.sparql.parserutils import CompValue  # imported with the parser, when not cached

    if isinstance(node, CompValue):
        if node.name == "BGP":
            for triple in node.get("triples", []):  # type: ignore[arg-type]
                yield triple, tags
        if node.name == "TriplesBlock":  # left untranslated inside FILTER (NOT) EXISTS
            for block in node.get("triples", []):  # type: ignore[arg-type]
                if len(block) % 3:
                    raise ValueError(f"cannot read the triples block {block!r}")
                for i in range(0, len(block), 3):
                    yield (block[i], block[i + 1], block[i + 2]), tags
        if node.name == "Union":
            u = next(unions)
            yield from _triples(node.get("p1"), tags | {(u, 1)}, unions)
            yield from _triples(node.get("p2"), tags | {(u, 2)}, unions)
            return
        for value in node.values():
            yield from _triples(value, tags, unions)
    elif isinstance(node, list | tuple):
        for item in node:
            yield from _triples(item, tags, unions)


def _check_branches(tagged: list[tuple[Edge, frozenset[tuple[int, int]]]]) -> None:
    """Within every choice of UNION branches, every variable must be reached along the edges
    ``orient`` makes propagating (else a solution could use a value the search never fetched)."""
    edges = [e for e, _ in tagged]
    order = orient(edges)
    unions = sorted({u for _, tags in tagged for u, _ in tags})
    choices: list[dict[int, int]] = [{}]
    for u in unions:
        choices = [{**c, u: side} for c in choices for side in (1, 2)]
    for choice in choices:
        active = [e for e, tags in tagged if all(choice.get(u) == side for u, side in tags)]
        reached, todo = {"?this"}, ["?this"]
        while todo:
            v = todo.pop()
            for e in active:
                src, dst = order[e]
                if src == v and dst is not None and dst not in reached:
                    reached.add(dst)
                    todo.append(dst)
        variables = {x for e in active for x in (e.subject, e.object) if isinstance(x, str)}
        if not variables <= reached:
            raise ValueError("a UNION branch binds variables the neighbourhood search would not reach")


def _slot(term: Node, blanks: dict[BNode, str]) -> Slot:
    if isinstance(term, Variable):
        return "?this" if str(term) == "this" else f"?v:{term}"  # apart from the paths' ?_p<n>, ?_m<n>
    if isinstance(term, BNode):  # a blank node in a query pattern is a variable (numbered in order)
        return blanks.setdefault(term, f"?b:{len(blanks)}")
    if isinstance(term, URIRef | Literal):
        return to_oxigraph(term)  # type: ignore[return-value]
    raise ValueError(f"cannot follow {term!r}")


def orient(edges: list[Edge]) -> dict[Edge, tuple[str | None, str | None]]:
    """For each edge, (from, to) variables along which the search propagates: from the variable
    nearer ?this (fewest edges, through variables only) to the farther one; (subject, None) for
    edges between variables at the same distance, or to a constant (fetched, not followed)."""
    distance = {"?this": 0}
    frontier = ["?this"]
    while frontier:
        nxt = []
        for v in frontier:
            for e in edges:
                for a, b in ((e.subject, e.object), (e.object, e.subject)):
                    if a == v and isinstance(b, str) and b not in distance:
                        distance[b] = distance[v] + 1
                        nxt.append(b)
        frontier = nxt
    order: dict[Edge, tuple[str | None, str | None]] = {}
    for e in edges:
        s, o = e.subject, e.object
        if isinstance(s, str) and isinstance(o, str):
            ds, do = distance.get(s, 1 << 30), distance.get(o, 1 << 30)
            if s == o or ds < do:
                order[e] = (s, o)
            elif do < ds:
                order[e] = (o, s)
            else:
                order[e] = (s, None)
        elif isinstance(s, str):
            order[e] = (s, None)
        elif isinstance(o, str):
            order[e] = (None, o)  # from a constant subject
        else:
            order[e] = (None, None)
    return order


def _path_edges(s: Slot, p: object, o: Slot, fresh: count) -> list[Edge]:
    if isinstance(p, URIRef):
        return [Edge(s, ox.NamedNode(str(p)), o)]
    if isinstance(p, Variable):
        return [Edge(s, None, o)]
    if isinstance(p, InvPath):
        return _path_edges(o, p.arg, s, fresh)
    if isinstance(p, SequencePath):
        edges, left = [], s
        for i, step in enumerate(p.args):
            right = o if i == len(p.args) - 1 else f"?_p{next(fresh)}"
            edges += _path_edges(left, step, right, fresh)
            left = right
        return edges
    if isinstance(p, AlternativePath):
        return [e for step in p.args for e in _path_edges(s, step, o, fresh)]
    if isinstance(p, MulPath):
        middle = f"?_m{next(fresh)}"
        loop = _path_edges(middle, p.path, middle, fresh)
        edges = [*_path_edges(s, p.path, middle, fresh), *loop, *_path_edges(middle, p.path, o, fresh)]
        if p.mod != "+" and isinstance(s, str) and isinstance(o, str):
            edges.append(Edge(s, SAME_NODE, o))  # zero steps: both ends are one node
        return edges
    if isinstance(p, NegatedPath | Path):
        return [Edge(s, None, o), Edge(o, None, s)]
    raise ValueError(f"cannot follow the path {p!r}")


def _connected(edges: list[Edge]) -> bool:
    """Every variable of ``edges`` linked to ?this through variables."""
    variables = {x for e in edges for x in (e.subject, e.object) if isinstance(x, str)}
    seen, todo = {"?this"}, ["?this"]
    while todo:
        v = todo.pop()
        for e in edges:
            for a, b in ((e.subject, e.object), (e.object, e.subject)):
                if a == v and isinstance(b, str) and b not in seen:
                    seen.add(b)
                    todo.append(b)
    return variables <= seen


def neighbourhood(edges: list[Edge], focus: Iterable[Term], fetch: Fetch) -> set[ox.Triple]:
    """Every triple ``fetch`` gives along ``edges`` from ``focus`` (see the module docstring).
    ``fetch(subject, predicate, object)`` returns the data's matching triples (None: any).
    Values are propagated along each edge in the direction ``orient`` gives it; every edge's
    triples are fetched from the side the search reaches first.

    A work list: each node reached at a variable is followed along that variable's edges once,
    so the search grows with what it finds (a chain of 10,000 blank nodes is 10,000 steps, not
    10,000 passes over all of them). Edges that fetch the same pattern from the same variable
    are followed together, and a variable no edge leaves only collects triples (every shape's
    ``?this ?p ?any`` edge is one look-up per node, not one per shape)."""
    order = orient(edges)
    sources = {src for src, _ in order.values() if src is not None}
    # (from variable or None for a constant subject, forward, predicate, constant end) → variables reached
    steps: dict[tuple[str | None, bool, ox.NamedNode | None, Term | None], set[str]] = {}
    for e in edges:
        src, dst = order[e]
        if src is None and dst is None:
            continue
        forward = src is None or src == e.subject
        end = None if isinstance(e.object, str) else e.object
        key = (src, forward, e.predicate, end if forward else None)
        if src is None:
            key = (None, True, e.predicate, e.subject)  # type: ignore[assignment]
        steps.setdefault(key, set()).update([dst] if dst in sources else [])
    leaving: dict[str | None, list[tuple[bool, ox.NamedNode | None, Term | None, set[str]]]] = {}
    for (src, forward, predicate, end), targets in steps.items():
        leaving.setdefault(src, []).append((forward, predicate, end, targets))

    memo: dict[tuple[Term | None, ox.NamedNode | None, Term | None], list[ox.Triple]] = {}
    found: set[ox.Triple] = set()
    reached: dict[str, set[Term]] = {}
    todo: list[tuple[str, Term]] = []

    def reach(variable: str, node: Term) -> None:
        bucket = reached.setdefault(variable, set())
        if node not in bucket:
            bucket.add(node)
            todo.append((variable, node))

    out_edges: dict[Term, dict[ox.NamedNode, list[ox.Triple]]] = {}

    def fetched(s: Term | None, p: ox.NamedNode | None, o: Term | None) -> list[ox.Triple]:
        if s is not None and p is not None:  # a node's out-edges: one look-up for all, by predicate
            by_predicate = out_edges.get(s)
            if by_predicate is None:
                by_predicate = out_edges[s] = {}
                for t in fetched(s, None, None):
                    by_predicate.setdefault(t.predicate, []).append(t)
            triples = by_predicate.get(p, [])
            return triples if o is None else [t for t in triples if t.object == o]
        key = (s, p, o)
        found = memo.get(key)
        if found is None:
            found = memo[key] = list(fetch(s, p, o))
        return found

    def follow(node: Term, forward: bool, predicate: ox.NamedNode | None, end: Term | None, targets: set[str]) -> None:
        if predicate == SAME_NODE:
            for target in targets:
                reach(target, node)
            return
        if forward and isinstance(node, ox.Literal):
            return
        triples = fetched(node, predicate, end) if forward else fetched(None, predicate, node)
        found.update(triples)
        for target in targets:
            for t in triples:
                reach(target, t.object if forward else t.subject)  # type: ignore[arg-type]

    for node in focus:
        reach("?this", node)
    for forward, predicate, subject, targets in leaving.get(None, ()):  # from a constant subject
        follow(subject, forward, predicate, None, targets)  # type: ignore[arg-type]
    while todo:
        variable, node = todo.pop()
        for step in leaving.get(variable, ()):
            follow(node, *step)
    return found
