"""The SHACL shapes graph read into a small model the SPARQL compiler understands.

Only what the compiler can evaluate exactly as pyshacl does is modelled; anything else raises
``Unsupported`` with the reason, and the top-level shape it belongs to is then validated by pyshacl
(``ShapesPlan.fallback``). Supported, on node and property shapes with a predicate or inverse path:
targets (class, node, subjects-of, objects-of), severity, messages, deactivation, and the
constraints minCount, maxCount, class, datatype, nodeKind, in, hasValue, pattern (+flags),
min/max Inclusive/Exclusive, min/maxLength, or/and/xone/not and qualifiedValueShape with
qualifiedMin/MaxCount (over "member" shapes, see ``Shape.is_member``), and sh:sparql SELECT
constraints on node shapes that use ``$this`` only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDF, RDFS, SH
from rdflib.term import Node

from kgprofiles.validate import _shape_name

TARGET_PREDICATES = (SH.targetClass, SH.targetNode, SH.targetSubjectsOf, SH.targetObjectsOf)
_SUPPORTED_PARAMETERS = {
    SH.minCount, SH.maxCount, SH["class"], SH.datatype, SH.nodeKind, SH["in"], SH.hasValue, SH.pattern,
    SH.minInclusive, SH.maxInclusive, SH.minExclusive, SH.maxExclusive, SH.minLength, SH.maxLength,
    SH["or"], SH["and"], SH.xone, SH["not"], SH.qualifiedValueShape, SH.qualifiedMinCount,
    SH.qualifiedMaxCount, SH.qualifiedValueShapesDisjoint, SH.sparql, SH.property,
}  # fmt: skip
#: pyshacl's constraint parameters (its ``ALL_CONSTRAINT_PARAMETERS``, 0.40.1) that the compiler
#: does not model: a shape with one is validated by pyshacl. Written out rather than imported
#: (pyshacl takes ~60 ms to import); tests/test_fast_values.py holds the two sets to pyshacl's.
_UNSUPPORTED_PARAMETERS = {
    SH.closed, SH.disjoint, SH.equals, SH.ignoredProperties, SH.languageIn, SH.lessThan,
    SH.lessThanOrEquals, SH.node, SH.uniqueLang,
}  # fmt: skip
#: Shapes-graph features that change what pyshacl does globally; any of them: everything falls back.
_GLOBAL_FEATURES = (SH.rule, SH.target, SH.expression, SH.js, SH.shapesGraph, SH.entailment)
_GLOBAL_TYPES = (SH.ConstraintComponent, SH.SPARQLTarget, SH.SPARQLTargetType, SH.SPARQLFunction, SH.JSFunction)


_NOT_ALONG_PATHS = {"Class", "Or", "And", "Xone", "Not", "Qualified", "Sparql"}


class Unsupported(Exception):
    """Something the compiler does not evaluate; the message says what."""


@dataclass(frozen=True)
class Path:
    """A predicate path, or the inverse of one."""

    predicate: URIRef
    inverse: bool = False

    def pattern(self, subject: str, value: str) -> str:
        """A SPARQL triple pattern linking ``subject`` to its values along the path."""
        if self.inverse:
            return f"{value} <{self.predicate}> {subject}"
        return f"{subject} <{self.predicate}> {value}"


@dataclass(frozen=True)
class Constraint:
    """One constraint of a shape: its component name (``MinCount``…) and parameters."""

    kind: str
    params: tuple[object, ...] = ()

    @property
    def component(self) -> str:
        return self.kind


@dataclass
class Targets:
    classes: list[Node] = field(default_factory=list)
    nodes: list[Node] = field(default_factory=list)
    subjects_of: list[Node] = field(default_factory=list)
    objects_of: list[Node] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.classes or self.nodes or self.subjects_of or self.objects_of)


@dataclass
class Shape:
    """A node or property shape."""

    node: Node
    name: str
    path: Path | None
    severity: URIRef
    messages: tuple[Literal, ...]
    deactivated: bool
    targets: Targets
    constraints: list[Constraint] = field(default_factory=list)
    properties: list[Shape] = field(default_factory=list)

    @property
    def is_member(self) -> bool:
        """Whether the shape only tests a node (and the values along property members' paths)
        with constraints the compiler can decide for any candidate set of nodes."""
        return not any(c.kind in ("Sparql",) for c in self.constraints) and all(
            p.path is not None and not p.properties for p in self.properties
        )


@dataclass
class ShapesPlan:
    """The compiled view of a shapes graph: supported top-level shapes, and those that fall back
    to pyshacl with the reason."""

    shapes: list[Shape]
    fallback: dict[Node, str]
    graph: Graph
    global_reason: str | None = None

    def explain(self) -> list[str]:
        lines = [f"fast: {s.name} ({len(s.constraints) + len(s.properties)} constraint(s))" for s in self.shapes]
        if self.global_reason:
            lines.append(f"pyshacl for every shape: {self.global_reason}")
        for node, reason in self.fallback.items():
            lines.append(f"pyshacl: {_shape_name(self.graph, node)}: {reason}")
        return lines


def read_shapes(graph: Graph) -> ShapesPlan:
    """Read every shape with targets; unsupported ones go to ``fallback`` with the reason."""
    top = _top_level_shapes(graph)
    for predicate in _GLOBAL_FEATURES:
        if (None, predicate, None) in graph:
            return ShapesPlan([], dict.fromkeys(top, f"the shapes use {predicate.n3()}"), graph, str(predicate))
    for kind in _GLOBAL_TYPES:
        if (None, RDF.type, kind) in graph:
            return ShapesPlan([], dict.fromkeys(top, f"the shapes define a {kind.n3()}"), graph, str(kind))
    shapes, fallback = [], {}
    for node in top:
        try:
            shapes.append(_Reader(graph).shape(node, top_level=True))
        except Unsupported as exc:
            fallback[node] = str(exc)
    return ShapesPlan(shapes, fallback, graph)


def _top_level_shapes(graph: Graph) -> list[Node]:
    nodes: set[Node] = set()
    for predicate in TARGET_PREDICATES:
        nodes.update(graph.subjects(predicate, None))
    for kind in (RDFS.Class, OWL.Class):
        for s in graph.subjects(RDF.type, kind):
            if (s, RDF.type, SH.NodeShape) in graph or (s, RDF.type, SH.PropertyShape) in graph:
                nodes.add(s)
    return sorted(nodes, key=lambda n: (isinstance(n, BNode), str(n)))


class _Reader:
    def __init__(self, graph: Graph) -> None:
        self.g = graph

    def one(self, node: Node, predicate: URIRef) -> Node | None:
        values = list(self.g.objects(node, predicate))
        if len(values) > 1:
            raise Unsupported(f"several values of {predicate.n3()}")
        return values[0] if values else None

    def items(self, head: Node) -> list[Node]:
        return list(Collection(self.g, head))

    def shape(self, node: Node, top_level: bool = False, depth: int = 0) -> Shape:
        if depth > 8:
            raise Unsupported("shapes nested too deep (or recursive)")
        g = self.g
        if any(g.objects(node, RDF.type)) and (node, RDF.type, RDFS.Class) in g:
            raise Unsupported("implicit class targets")
        unknown = [p for p, _ in g.predicate_objects(node) if p in _UNSUPPORTED_PARAMETERS]
        if unknown:
            raise Unsupported("constraint " + ", ".join(sorted(p.n3(g.namespace_manager) for p in unknown)))
        if (node, SH.node, None) in g or (node, SH.closed, None) in g:
            raise Unsupported("sh:node or sh:closed")
        path = self.path(node)
        deactivated_value = self.one(node, SH.deactivated)
        deactivated = False
        if deactivated_value is not None:
            if not (isinstance(deactivated_value, Literal) and isinstance(deactivated_value.value, bool)):
                raise Unsupported("sh:deactivated that is not a boolean")
            deactivated = bool(deactivated_value.value)
        severity = self.one(node, SH.severity) or SH.Violation
        if not isinstance(severity, URIRef):
            raise Unsupported("a severity that is not an IRI")
        targets = Targets(
            list(g.objects(node, SH.targetClass)),
            list(g.objects(node, SH.targetNode)),
            list(g.objects(node, SH.targetSubjectsOf)),
            list(g.objects(node, SH.targetObjectsOf)),
        )
        if any(isinstance(n, BNode) for n in targets.nodes):
            raise Unsupported("a blank node as sh:targetNode")
        shape = Shape(
            node=node,
            name=_shape_name(g, node),
            path=path,
            severity=severity,
            messages=tuple(m for m in g.objects(node, SH.message) if isinstance(m, Literal)),
            deactivated=deactivated,
            targets=targets if top_level else Targets(),
        )
        if any(not isinstance(m, Literal) for m in g.objects(node, SH.message)):
            raise Unsupported("an sh:message that is not a literal")
        shape.constraints = self.constraints(node, path, depth)
        if top_level:
            self.require_messages(shape)
        for prop in g.objects(node, SH.property):
            child = self.shape(prop, depth=depth + 1)
            if child.path is None:
                raise Unsupported("an sh:property without a path")
            if child.properties:
                raise Unsupported("property shapes nested in property shapes")
            if top_level:
                self.require_messages(child)
            shape.properties.append(child)
        return shape

    def require_messages(self, shape: Shape) -> None:
        """pyshacl writes a generic message where a shape has none; that text is not reproduced."""
        for c in shape.constraints:
            has = bool(shape.messages) or (c.kind == "Sparql" and bool(c.params[3]))
            if not has:
                raise Unsupported(f"{shape.name}: a constraint without sh:message (pyshacl's generic text)")

    def path(self, node: Node) -> Path | None:
        value = self.one(node, SH.path)
        if value is None:
            return None
        if isinstance(value, URIRef):
            return Path(value)
        inverse = self.one(value, SH.inversePath)
        if isinstance(inverse, URIRef) and len(list(self.g.predicate_objects(value))) == 1:
            return Path(inverse, inverse=True)
        raise Unsupported("a complex sh:path")

    def constraints(self, node: Node, path: Path | None, depth: int) -> list[Constraint]:
        g = self.g
        out: list[Constraint] = []
        for name, predicate in (("MinCount", SH.minCount), ("MaxCount", SH.maxCount)):
            value = self.one(node, predicate)
            if value is not None:
                if path is None:
                    raise Unsupported(f"{predicate.n3()} on a node shape")
                if not (isinstance(value, Literal) and isinstance(value.value, int)):
                    raise Unsupported(f"{predicate.n3()} that is not an integer")
                out.append(Constraint(name, (int(value.value),)))
        out.extend(Constraint("Class", (c,)) for c in g.objects(node, SH["class"]))
        value = self.one(node, SH.datatype)
        if value is not None:
            out.append(Constraint("Datatype", (value,)))
        value = self.one(node, SH.nodeKind)
        if value is not None:
            out.append(Constraint("NodeKind", (value,)))
        value = self.one(node, SH["in"])
        if value is not None:
            out.append(Constraint("In", tuple(self.items(value))))
        has_values = list(g.objects(node, SH.hasValue))
        out.extend(Constraint("HasValue", (v,)) for v in has_values)
        regexes = list(g.objects(node, SH.pattern))
        if regexes:
            if any(not isinstance(r, Literal) for r in regexes):
                raise Unsupported("an sh:pattern that is not a literal")
            flags = list(g.objects(node, SH.flags))
            out.append(Constraint("Pattern", (tuple(regexes), flags[0] if flags else None)))
        for name in ("MinExclusive", "MinInclusive", "MaxExclusive", "MaxInclusive"):
            for bound in g.objects(node, SH[name[0].lower() + name[1:]]):
                if not isinstance(bound, Literal):
                    raise Unsupported(f"sh:{name[0].lower() + name[1:]} that is not a literal")
                out.append(Constraint(name, (bound,)))
        for name in ("MinLength", "MaxLength"):
            value = self.one(node, SH[name[0].lower() + name[1:]])
            if value is not None:
                if not (isinstance(value, Literal) and isinstance(value.value, int) and value.value >= 0):
                    raise Unsupported(f"sh:{name} that is not a natural number")
                out.append(Constraint(name, (int(value.value),)))
        for name, predicate in (("Or", SH["or"]), ("And", SH["and"]), ("Xone", SH.xone)):
            for head in g.objects(node, predicate):
                members = tuple(self.member(m, depth) for m in self.items(head))
                out.append(Constraint(name, members))
        for member in g.objects(node, SH["not"]):
            out.append(Constraint("Not", (self.member(member, depth),)))
        qualified = list(g.objects(node, SH.qualifiedValueShape))
        if qualified:
            disjoint = self.one(node, SH.qualifiedValueShapesDisjoint)
            if disjoint is not None and not (isinstance(disjoint, Literal) and disjoint.value is False):
                raise Unsupported("sh:qualifiedValueShapesDisjoint")
            low = self.one(node, SH.qualifiedMinCount)
            high = self.one(node, SH.qualifiedMaxCount)
            for q in qualified:
                bounds = tuple(int(b.value) if isinstance(b, Literal) else None for b in (low, high))
                out.append(Constraint("Qualified", (self.member(q, depth), *bounds)))
        for sparql in g.objects(node, SH.sparql):
            if path is not None:
                raise Unsupported("sh:sparql on a property shape")
            out.append(self.sparql(sparql))
        return out

    def member(self, node: Node, depth: int) -> Shape:
        """A shape used inside a logical or qualified constraint: judged for conformance only.
        It may test the node itself (value-level constraints, sh:class, nested logical ones), and
        the values along predicate paths (its own path, or its sh:property shapes) with counts,
        sh:hasValue and value-level constraints."""
        shape = self.shape(node, depth=depth + 1)
        if (node, SH.severity, None) in self.g or any((p, SH.severity, None) in self.g for p in self._props(node)):
            raise Unsupported("a severity inside an sh:or/sh:and/sh:xone/sh:not/qualified shape")
        if not shape.is_member:
            raise Unsupported("an sh:sparql or nested property inside a logical constraint")
        along_paths = [*shape.properties, *([shape] if shape.path is not None else [])]
        for prop in along_paths:
            if any(c.kind in _NOT_ALONG_PATHS for c in prop.constraints):
                raise Unsupported(
                    "a property inside a logical constraint with sh:class, logical or qualified constraints"
                )
        return shape

    def _props(self, node: Node) -> list[Node]:
        return list(self.g.objects(node, SH.property))

    def sparql(self, node: Node) -> Constraint:
        g = self.g
        select = self.one(node, SH.select)
        if not isinstance(select, Literal):
            raise Unsupported("an sh:sparql constraint without an sh:select")
        deactivated = self.one(node, SH.deactivated)
        if deactivated is not None and not (isinstance(deactivated, Literal) and deactivated.value is False):
            raise Unsupported("a deactivated sh:sparql constraint")
        prefixes: dict[str, str] = {}
        for source in g.objects(node, SH.prefixes):
            for declaration in g.objects(source, SH.declare):
                prefix = self.one(declaration, SH.prefix)
                namespace = self.one(declaration, SH.namespace)
                if prefix is None or namespace is None:
                    raise Unsupported("an incomplete sh:declare")
                prefixes[str(prefix)] = str(namespace)
        messages = tuple(m for m in g.objects(node, SH.message) if isinstance(m, Literal))
        return Constraint("Sparql", (node, str(select), tuple(prefixes.items()), messages))
