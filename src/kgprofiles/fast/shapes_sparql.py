"""SHACL validation compiled to SPARQL and run on an Oxigraph store over all focus nodes at once.

Each constraint of each shape becomes one or two SELECT queries that return only the violating
(focus node, value) pairs; a few are finished in Python over distinct values (``values.py``) or
over sets of nodes (logical and qualified constraints). The queries are generated from the shapes
graph, so their text lives here and not in ``queries/``.

The queries are written "scan first": the candidate violations are found by scanning the path's
predicate (with MINUS as a hash anti-join) and only then joined with the shape's targets, because
on an on-disk store an index lookup per focus node costs tens of microseconds while a scan costs
about one per triple. Each of these queries is linear in the data, so they run in this process,
looking at the validation budget's clock before each one and every few thousand rows.

The sh:sparql constraints are the exception: their text is the shapes' author's (a cartesian
product runs for hours), so ``sparql_run`` only rewrites each into one query over all focus nodes,
and ``validation.py`` runs them apart (``kgprofiles.sparql_runs``: in a child process killed at
the budget's deadline), then turns their rows into findings (``sparql_findings``).

The result is ``kgprofiles.validate.ValidationReport`` with the very ``ValidationResult`` tuples
``validate_graph`` (pyshacl) gives, for the supported shapes; the others are validated by pyshacl
(``fallback.py``), and the report says so through ``FastReport.notes``.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache

import pyoxigraph as ox
from rdflib import BNode, Literal, URIRef
from rdflib.namespace import RDF, RDFS, SH, XSD
from rdflib.term import Node

from kgprofiles.budget import Budget, paced
from kgprofiles.fast import values
from kgprofiles.fast.literals import faithful
from kgprofiles.fast.reach import sparql_edges
from kgprofiles.fast.results import Finding, Term
from kgprofiles.fast.shapes_model import Constraint, Path, Shape, ShapesPlan, Unsupported
from kgprofiles.fast.sparql_text import RewrittenSelect, rewrite_select
from kgprofiles.sparql_runs import Reach, Row, SparqlRun
from kgprofiles.store import engine
from kgprofiles.terms import to_oxigraph, to_rdflib

log = logging.getLogger("kgprofiles.fast")

_NODE_KIND_SPARQL = {
    SH.BlankNode: "isBlank(?v)",
    SH.IRI: "isIRI(?v)",
    SH.Literal: "isLiteral(?v)",
    SH.BlankNodeOrIRI: "(isBlank(?v) || isIRI(?v))",
    SH.BlankNodeOrLiteral: "(isBlank(?v) || isLiteral(?v))",
    SH.IRIOrLiteral: "(isIRI(?v) || isLiteral(?v))",
}
_VALUE_TESTS = {"Datatype", "NodeKind", "In", "HasValue", "Pattern", "MinExclusive", "MinInclusive", "MaxExclusive"}
_VALUE_TESTS |= {"MaxInclusive", "MinLength", "MaxLength", "Or", "And", "Xone", "Not", "Class"}


@dataclass
class RunStats:
    seconds: dict[str, float] = field(default_factory=dict)


def sparql_term(term: Node | Term) -> str:
    """A term in SPARQL syntax (Oxigraph writes N-Triples, escaped)."""
    if isinstance(term, Node):
        term = to_oxigraph(term)
    return str(term)


class Evaluator:
    """Runs the compiled shapes on one store. The store's default graph for queries is the union
    of its named graphs, which must hold the data and the ontology (as pyshacl's data graph does
    with ``ont_graph`` mixed in) and nothing else."""

    def __init__(
        self,
        store: engine.Engine,
        plan: ShapesPlan,
        ontology: list[ox.Triple] | None = None,
        kinds: dict[str, set[str]] | None = None,
        budget: Budget | None = None,
    ) -> None:
        """``kinds``: the kinds of objects of each predicate in the raw data (``LiteralScan``),
        with those of the ``ontology``'s triples. ``budget``: its clock is read before every
        query and every few thousand rows (each query the compiler writes is linear in the data;
        the sh:sparql ones are run apart, see ``sparql_run``)."""
        self.store = store
        self.plan = plan
        self.ontology = ontology
        self.budget = budget
        self.kinds = self._with_ontology_kinds(kinds) if kinds is not None else None
        self.stats = RunStats()
        self._subclasses: dict[Node, list[ox.NamedNode | ox.BlankNode]] = {}
        self._instances: dict[Node, set[Term]] = {}
        self._view: dict[Term, Node] = {}
        self._cache: dict[tuple[str, tuple[str, ...]], list[tuple[Term | None, ...]]] = {}

    # -- plumbing ------------------------------------------------------------------------------

    def select(self, sparql: str) -> engine.QuerySolutions:
        return self.store.query(sparql, use_default_graph_as_union=True)  # type: ignore[return-value]

    def rows(self, sparql: str, *names: str) -> Iterator[tuple[Term | None, ...]]:
        started = time.perf_counter()
        count = 0
        if self.budget is not None:
            self.budget.check_time("checking the SHACL shapes")
        for solution in paced(self.budget, self.select(sparql)):
            count += 1
            yield tuple(solution[n] for n in names)
        if log.isEnabledFor(logging.DEBUG):
            log.debug("%.3fs %d rows: %s", time.perf_counter() - started, count, " ".join(sparql.split())[:400])

    def view(self, term: Term) -> Node:
        """The rdflib term pyshacl sees for a stored term."""
        found = self._view.get(term)
        if found is None:
            found = self._view[term] = to_rdflib(term)
        return found

    def subclasses(self, cls: Node) -> list[ox.NamedNode | ox.BlankNode]:
        """``cls`` and everything ``rdfs:subClassOf*`` it in the data and ontology."""
        if cls not in self._subclasses:
            found = [
                row[0]
                for row in self.rows(f"SELECT DISTINCT ?c WHERE {{ ?c <{RDFS.subClassOf}>* {sparql_term(cls)} }}", "c")
            ]
            start = to_oxigraph(cls)
            if start not in found:
                found.append(start)  # type: ignore[arg-type]
            self._subclasses[cls] = [c for c in found if not isinstance(c, ox.Literal)]  # type: ignore[misc]
        return self._subclasses[cls]

    def instances(self, cls: Node) -> set[Term]:
        if cls not in self._instances:
            self._instances[cls] = {
                row[0]  # type: ignore[misc]
                for row in self.rows(
                    f"SELECT DISTINCT ?x WHERE {{ ?x <{RDF.type}> ?t . {self.class_values('?t', cls)} }}", "x"
                )
            }
        return self._instances[cls]

    def class_values(self, var: str, cls: Node) -> str:
        """``VALUES ?t { … }`` over the subclasses (blank-node classes cannot be written: a filter)."""
        named = [c for c in self.subclasses(cls) if isinstance(c, ox.NamedNode)]
        blank = [c for c in self.subclasses(cls) if isinstance(c, ox.BlankNode)]
        if blank:
            raise Unsupported("a class with blank-node subclasses")
        return f"VALUES {var} {{ {' '.join(str(c) for c in named)} }}"

    def _with_ontology_kinds(self, kinds: dict[str, set[str]]) -> dict[str, set[str]]:
        merged = {p: set(k) for p, k in kinds.items()}
        for t in self.ontology or ():
            o = t.object
            kind = "iri" if isinstance(o, ox.NamedNode) else "bnode" if isinstance(o, ox.BlankNode) else None
            if isinstance(o, ox.Literal):
                kind = "@" if o.language else o.datatype.value
            merged.setdefault(t.predicate.value, set()).add(kind)  # type: ignore[arg-type]
        return merged

    def cannot_fail(self, shape: Shape, constraints: list[Constraint]) -> bool:
        """Whether the kinds of objects the data has for the path make every constraint pass
        (known from the raw scan; then there is nothing to query)."""
        if self.kinds is None or shape.path is None or shape.path.inverse:
            return False
        kinds = self.kinds.get(str(shape.path.predicate), set())
        categories = {{"iri": URIRef, "bnode": BNode}.get(k, Literal) for k in kinds}
        for c in constraints:
            if c.kind == "NodeKind":
                allowed = values.NODE_KINDS.get(c.params[0], ())  # type: ignore[call-overload]
                if not categories <= set(allowed):
                    return False
            elif c.kind == "Datatype" and c.params[0] == XSD.string:
                if kinds - {str(XSD.string)}:
                    return False
            else:
                return False
        return True

    def cached(self, sparql: str, *names: str) -> list[tuple[Term | None, ...]]:
        """Rows of a query that does not depend on a shape's targets, run once per validation."""
        key = (sparql, names)
        if key not in self._cache:
            self._cache[key] = list(self.rows(sparql, *names))
        return self._cache[key]

    def in_target(self, rows: list[tuple[Term | None, ...]], target: str) -> list[tuple[Term | None, ...]]:
        """The rows (focus node first) whose focus node is a focus node of the target."""
        if not rows:
            return []
        focus = {r[0] for r in rows}
        named = [f for f in focus if not isinstance(f, ox.BlankNode)]
        keep: set[Term | None] = set()
        for start in range(0, len(named), 500):
            chunk = " ".join(str(f) for f in named[start : start + 500])
            keep.update(
                f
                for (f,) in self.rows(f"SELECT DISTINCT ?this WHERE {{ VALUES ?this {{ {chunk} }} {target} }}", "this")
            )
        if len(named) < len(focus):
            keep.update(
                f for (f,) in self.rows(f"SELECT DISTINCT ?this WHERE {{ {target} FILTER (isBlank(?this)) }}", "this")
            )
        return [r for r in rows if r[0] in keep]

    def target(self, shape: Shape) -> str:
        """A group graph pattern binding ``?this`` to each focus node of ``shape`` once."""
        parts = []
        for cls in shape.targets.classes:
            parts.append(f"{{ ?this <{RDF.type}> ?_tc . {self.class_values('?_tc', cls)} }}")
        for node in shape.targets.nodes:
            parts.append(f"{{ VALUES ?this {{ {sparql_term(node)} }} }}")
        for p in shape.targets.subjects_of:
            parts.append(f"{{ ?this {sparql_term(p)} ?_to }}")
        for p in shape.targets.objects_of:
            parts.append(f"{{ ?_ts {sparql_term(p)} ?this }}")
        return f"{{ SELECT DISTINCT ?this WHERE {{ {' UNION '.join(parts)} }} }}"

    # -- the run -------------------------------------------------------------------------------

    def run(self, shapes: Iterable[Shape]) -> list[Finding]:
        findings: list[Finding] = []
        for shape in shapes:
            if shape.deactivated:
                continue
            started = time.perf_counter()
            findings.extend(self.shape(shape))
            self.stats.seconds[shape.name] = self.stats.seconds.get(shape.name, 0.0) + time.perf_counter() - started
        return findings

    def shape(self, shape: Shape) -> Iterator[Finding]:
        target = self.target(shape)
        yield from self.constraints(shape, target)
        for prop in shape.properties:
            if not prop.deactivated:
                yield from self.constraints(prop, target)

    def constraints(self, shape: Shape, target: str) -> Iterator[Finding]:
        done_value_tests = False
        for c in shape.constraints:
            if c.kind in ("MinCount", "MaxCount"):
                yield from self.count(shape, c, target)
            elif c.kind == "Class" and shape.path is not None:
                yield from self.class_on_path(shape, c, target)
            elif c.kind == "Class":
                yield from self.class_on_focus(shape, c, target)
            elif c.kind == "HasValue" and shape.path is not None:
                yield from self.has_value_on_path(shape, c, target)
            elif c.kind == "Qualified":
                yield from self.qualified(shape, c, target)
            elif c.kind == "Sparql":
                continue  # run apart, see sparql_run
            elif self.logical_in_sparql(shape, c) is not None:
                yield from self.logical_sparql(shape, c, target)
            elif c.kind in _VALUE_TESTS and not done_value_tests:
                done_value_tests = True
                yield from self.value_tests(
                    shape, [x for x in shape.constraints if self.is_value_test(shape, x)], target
                )

    def is_value_test(self, shape: Shape, c: Constraint) -> bool:
        if c.kind == "Class" or (c.kind == "HasValue" and shape.path is not None):
            return False
        if self.logical_in_sparql(shape, c) is not None:
            return False
        if c.kind in ("Or", "And", "Xone", "Not"):
            return True
        return c.kind in _VALUE_TESTS

    # -- cardinality ---------------------------------------------------------------------------

    def count(self, shape: Shape, c: Constraint, target: str) -> Iterator[Finding]:
        assert shape.path is not None
        (limit,) = c.params
        assert isinstance(limit, int)
        path = shape.path.pattern("?this", "?v")
        if c.kind == "MinCount":
            if limit <= 0:
                return
            if limit == 1:
                query = f"SELECT DISTINCT ?this WHERE {{ {target} MINUS {{ {path} }} }}"
            else:
                query = (
                    f"SELECT ?this WHERE {{ {target} OPTIONAL {{ {path} }} }} "
                    f"GROUP BY ?this HAVING (COUNT(DISTINCT ?v) < {limit})"
                )
        else:
            groups = self.cached(
                f"SELECT ?this WHERE {{ {path} }} GROUP BY ?this HAVING (COUNT(DISTINCT ?v) > {limit})", "this"
            )
            for (focus,) in self.in_target(groups, target):
                yield Finding(shape, c.kind, focus, None, shape.path)  # type: ignore[arg-type]
            return
        for (focus,) in self.rows(query, "this"):
            yield Finding(shape, c.kind, focus, None, shape.path)  # type: ignore[arg-type]

    # -- class and hasValue on a path ------------------------------------------------------------

    def class_on_path(self, shape: Shape, c: Constraint, target: str) -> Iterator[Finding]:
        assert shape.path is not None
        (cls,) = c.params
        path = shape.path.pattern("?this", "?v")
        query = (
            f"SELECT DISTINCT ?this ?v WHERE {{ {path} "
            f"MINUS {{ ?v <{RDF.type}> ?_t . {self.class_values('?_t', cls)} }} }}"  # type: ignore[arg-type]
        )
        for focus, value in self.in_target(self.cached(query, "this", "v"), target):
            yield Finding(shape, "Class", focus, value, shape.path)  # type: ignore[arg-type]

    def class_on_focus(self, shape: Shape, c: Constraint, target: str) -> Iterator[Finding]:
        (cls,) = c.params
        query = (
            f"SELECT DISTINCT ?this WHERE {{ {target} "
            f"MINUS {{ ?this <{RDF.type}> ?_t . {self.class_values('?_t', cls)} }} }}"  # type: ignore[arg-type]
        )
        for (focus,) in self.rows(query, "this"):
            yield Finding(shape, "Class", focus, focus, None)  # type: ignore[arg-type]

    def has_value_on_path(self, shape: Shape, c: Constraint, target: str) -> Iterator[Finding]:
        assert shape.path is not None
        (value,) = c.params
        if isinstance(value, BNode):
            raise Unsupported("sh:hasValue with a blank node")
        if isinstance(value, Literal) and not faithful([to_oxigraph(value)])[to_oxigraph(value)]:  # type: ignore[index, list-item]
            yield from self.has_value_in_python(shape, value, target)
            return
        path = shape.path.pattern("?this", sparql_term(value))  # type: ignore[arg-type]
        for (focus,) in self.rows(f"SELECT DISTINCT ?this WHERE {{ {target} MINUS {{ {path} }} }}", "this"):
            yield Finding(shape, "HasValue", focus, None, shape.path)  # type: ignore[arg-type]

    def has_value_in_python(self, shape: Shape, value: Node, target: str) -> Iterator[Finding]:
        """sh:hasValue with a literal the store would write differently: compare rdflib views."""
        assert shape.path is not None
        good = set()
        for focus, v in self.rows(
            f"SELECT DISTINCT ?this ?v WHERE {{ {shape.path.pattern('?this', '?v')} }}", "this", "v"
        ):
            if self.view(v) == value:  # type: ignore[arg-type]
                good.add(focus)
        for (focus,) in self.rows(f"SELECT ?this WHERE {{ {target} }}", "this"):
            if focus not in good:
                yield Finding(shape, "HasValue", focus, None, shape.path)  # type: ignore[arg-type]

    # -- value tests (decided per distinct value in Python) -----------------------------------------

    def value_tests(self, shape: Shape, constraints: list[Constraint], target: str) -> Iterator[Finding]:
        """Constraints decided by the value alone: find the distinct values (of the path, or the
        focus nodes themselves), test each once, then fetch the focus nodes of the bad ones."""
        tests = [(c, t) for c in constraints for t in self.value_testers(c)]
        if not tests:
            return
        on_path = shape.path is not None
        prefilter = self.sparql_prefilter(constraints)
        if on_path:
            assert shape.path is not None
            path = shape.path.pattern("?this", "?v")
            if prefilter is not None and self.cannot_fail(shape, constraints):
                return
            if prefilter is not None:
                # Everything the filter lets through fails; the rest pass (the tests are exact).
                query = f"SELECT DISTINCT ?this ?v WHERE {{ {path} FILTER (!({prefilter})) }}"
                for focus, value in self.in_target(self.cached(query, "this", "v"), target):
                    for c, test in tests:
                        if not test(self.view(value)):  # type: ignore[arg-type]
                            yield Finding(shape, c.kind, focus, value, shape.path)  # type: ignore[arg-type]
                return
            distinct = [v for (v,) in self.cached(f"SELECT DISTINCT ?v WHERE {{ {path} }}", "v")]
            bad: dict[Term, list[Constraint]] = {}
            for value in distinct:
                failed = [c for c, test in tests if not test(self.view(value))]  # type: ignore[arg-type]
                if failed:
                    bad[value] = failed  # type: ignore[index]
            yield from self.pairs_for_values(shape, bad, target)
        else:
            for (focus,) in self.rows(f"SELECT ?this WHERE {{ {target} }}", "this"):
                for c, test in tests:
                    if not test(self.view(focus)):  # type: ignore[arg-type]
                        value = None if c.kind == "HasValue" else focus
                        yield Finding(shape, c.kind, focus, value, None)  # type: ignore[arg-type]

    def pairs_for_values(self, shape: Shape, bad: dict[Term, list[Constraint]], target: str) -> Iterator[Finding]:
        if not bad:
            return
        assert shape.path is not None
        path = shape.path.pattern("?this", "?v")
        named = [v for v in bad if not isinstance(v, ox.BlankNode)]
        queries = []
        for start in range(0, len(named), 500):
            chunk = " ".join(str(v) for v in named[start : start + 500])
            queries.append(f"SELECT DISTINCT ?this ?v WHERE {{ VALUES ?v {{ {chunk} }} {path} {target} }}")
        if len(named) < len(bad):
            queries.append(f"SELECT DISTINCT ?this ?v WHERE {{ {path} FILTER (isBlank(?v)) {target} }}")
        for query in queries:
            for focus, value in self.rows(query, "this", "v"):
                for c in bad.get(value, ()):  # type: ignore[arg-type]
                    yield Finding(shape, c.kind, focus, value, shape.path)  # type: ignore[arg-type]

    def sparql_prefilter(self, constraints: list[Constraint]) -> str | None:
        """A SPARQL condition true exactly of the values every constraint accepts, when one exists
        (so only failing values leave the store); None when some test needs Python."""
        parts = []
        for c in constraints:
            if c.kind == "NodeKind" and c.params[0] in _NODE_KIND_SPARQL:
                parts.append(_NODE_KIND_SPARQL[c.params[0]])  # type: ignore[index]
            elif c.kind == "Datatype" and c.params[0] == XSD.string:
                parts.append(f"(isLiteral(?v) && datatype(?v) = <{XSD.string}>)")
            elif c.kind == "In" and all(isinstance(v, URIRef) for v in c.params):
                members = " || ".join(f"sameTerm(?v, <{v}>)" for v in c.params) or "false"
                parts.append(f"({members})")
            else:
                return None
        return " && ".join(parts) if parts else None

    def value_testers(self, c: Constraint) -> list[values.ValueTest]:
        if c.kind == "Datatype":
            return [values.datatype(c.params[0])]  # type: ignore[arg-type]
        if c.kind == "NodeKind":
            return [values.node_kind(c.params[0])]  # type: ignore[arg-type]
        if c.kind == "In":
            return [values.one_of(c.params)]  # type: ignore[arg-type]
        if c.kind == "HasValue":
            return [values.equals(c.params[0])]  # type: ignore[arg-type]
        if c.kind == "Pattern":
            regexes, flags = c.params
            return values.patterns(regexes, flags)  # type: ignore[arg-type]
        if c.kind in ("MinExclusive", "MinInclusive", "MaxExclusive", "MaxInclusive"):
            return [values.value_range(c.kind, c.params[0])]  # type: ignore[arg-type]
        if c.kind in ("MinLength", "MaxLength"):
            return [values.length(c.kind, c.params[0])]  # type: ignore[arg-type]
        if c.kind in ("Or", "And", "Xone", "Not"):
            return [self.logical_test(c)]
        raise Unsupported(f"no value test for {c.kind}")

    # -- logical constraints ---------------------------------------------------------------------

    def logical_in_sparql(self, shape: Shape, c: Constraint) -> list[str | None] | None:
        """For sh:or, sh:and and sh:not on a node shape whose members only ask for values along
        predicate paths (sh:minCount, sh:hasValue): each member's conforming focus nodes as a
        SPARQL group (None: conforms always); None when the constraint needs Python."""
        if shape.path is not None or c.kind not in ("Or", "And", "Not"):
            return None
        groups: list[str | None] = []
        for member in c.params:
            assert isinstance(member, Shape)
            if member.deactivated:
                groups.append(None)
                continue
            if member.constraints and member.path is None:
                return None
            parts = []
            for prop in [*member.properties, *([member] if member.path is not None else [])]:
                if prop.deactivated:
                    continue
                assert prop.path is not None
                for pc in prop.constraints:
                    if pc.kind == "MinCount" and pc.params[0] == 1:  # type: ignore[comparison-overlap]
                        parts.append(f"{{ SELECT DISTINCT ?this WHERE {{ {prop.path.pattern('?this', '?_x')} }} }}")
                    elif pc.kind == "MinCount" and isinstance(pc.params[0], int) and pc.params[0] > 1:
                        parts.append(
                            f"{{ SELECT ?this WHERE {{ {prop.path.pattern('?this', '?_x')} }} GROUP BY ?this "
                            f"HAVING (COUNT(DISTINCT ?_x) >= {pc.params[0]}) }}"
                        )
                    elif pc.kind == "MinCount":
                        continue
                    elif pc.kind == "HasValue" and self._matchable(pc.params[0]):  # type: ignore[arg-type]
                        value = sparql_term(pc.params[0])  # type: ignore[arg-type]
                        parts.append(f"{{ SELECT DISTINCT ?this WHERE {{ {prop.path.pattern('?this', value)} }} }}")
                    else:
                        return None
            groups.append(f"{{ SELECT DISTINCT ?this WHERE {{ {' '.join(parts)} }} }}" if parts else None)
        return groups

    @staticmethod
    def _matchable(value: Node) -> bool:
        """A constant a SPARQL pattern matches exactly as rdflib compares it."""
        if isinstance(value, BNode):
            return False
        if isinstance(value, Literal):
            term = to_oxigraph(value)
            return faithful([term])[term]  # type: ignore[index, list-item]
        return True

    def logical_sparql(self, shape: Shape, c: Constraint, target: str) -> Iterator[Finding]:
        groups = self.logical_in_sparql(shape, c)
        assert groups is not None
        if c.kind == "Or":
            if any(g is None for g in groups):
                return
            query = f"SELECT DISTINCT ?this WHERE {{ {target} {' '.join(f'MINUS {g}' for g in groups)} }}"
        elif c.kind == "Not":
            (group,) = groups
            query = f"SELECT DISTINCT ?this WHERE {{ {target} {group or ''} }}"
        else:
            branches = [f"{{ {target} MINUS {g} }}" for g in groups if g is not None]
            if not branches:
                return
            query = f"SELECT DISTINCT ?this WHERE {{ {' UNION '.join(branches)} }}"
        for (focus,) in self.rows(query, "this"):
            yield Finding(shape, c.kind, focus, focus, None)  # type: ignore[arg-type]

    def logical_test(self, c: Constraint) -> values.ValueTest:
        """A test of one node against sh:or/and/xone/not of member shapes. Members that look along
        paths (counts, hasValue) or test classes are judged from node sets fetched once."""
        members: list[Shape] = list(c.params)  # type: ignore[arg-type]
        judges = [self.member_judge(m) for m in members]

        def test(v: Node) -> bool:
            term = to_oxigraph(v)
            conforming = [judge(v, term) for judge in judges]
            if c.kind == "Or":
                return any(conforming)
            if c.kind == "And":
                return all(conforming)
            if c.kind == "Xone":
                return conforming.count(True) == 1
            return not conforming[0]

        return test

    def member_judge(self, member: Shape):
        """``judge(rdflib_term, stored_term) -> bool``: does the node conform to ``member``?"""
        if member.deactivated:
            return lambda v, term: True
        if member.path is not None:
            along = self.along_path(member)
            return lambda v, term: along(term)
        local = [t for c in member.constraints if c.kind != "Class" for t in self.value_testers(c)]
        classes = [c.params[0] for c in member.constraints if c.kind == "Class"]
        prop_tests = [self.along_path(p) for p in member.properties if not p.deactivated]

        def judge(v: Node, term: Term) -> bool:
            if not all(t(v) for t in local):
                return False
            if any(term not in self.instances(cls) for cls in classes):  # type: ignore[arg-type]
                return False
            return all(t(term) for t in prop_tests)

        return judge

    def along_path(self, prop: Shape):
        """A test of a node against a property shape inside a logical constraint (counts,
        sh:hasValue and value-level constraints along a predicate path), from sets fetched once."""
        assert prop.path is not None
        path = prop.path.pattern("?s", "?x")
        counts: dict[Term, int] = defaultdict(int)
        needs_counts = any(c.kind in ("MinCount", "MaxCount") for c in prop.constraints)
        if needs_counts:
            query = f"SELECT ?s (COUNT(DISTINCT ?x) AS ?n) WHERE {{ {path} }} GROUP BY ?s"
            for s, n in self.rows(query, "s", "n"):
                counts[s] = int(n.value)  # type: ignore[index, union-attr]
        has = [c.params[0] for c in prop.constraints if c.kind == "HasValue"]
        tests = [
            t
            for c in prop.constraints
            if c.kind not in ("MinCount", "MaxCount", "HasValue")
            for t in self.value_testers(c)
        ]
        holders: list[set[Term]] = [set() for _ in has]
        failing: set[Term] = set()
        if has or tests:
            verdict: dict[Term, bool] = {}
            for s, x in self.rows(f"SELECT DISTINCT ?s ?x WHERE {{ {path} }}", "s", "x"):
                view = self.view(x)  # type: ignore[arg-type]
                for i, value in enumerate(has):
                    if view == value:
                        holders[i].add(s)  # type: ignore[arg-type]
                if tests:
                    ok = verdict.get(x)  # type: ignore[arg-type]
                    if ok is None:
                        ok = verdict[x] = all(t(view) for t in tests)  # type: ignore[index]
                    if not ok:
                        failing.add(s)  # type: ignore[arg-type]
        mins = [int(c.params[0]) for c in prop.constraints if c.kind == "MinCount"]  # type: ignore[call-overload]
        maxs = [int(c.params[0]) for c in prop.constraints if c.kind == "MaxCount"]  # type: ignore[call-overload]

        def test(term: Term) -> bool:
            n = counts.get(term, 0)
            if any(n < m for m in mins) or any(n > m for m in maxs):
                return False
            if term in failing:
                return False
            return all(term in h for h in holders)

        return test

    # -- qualified value shapes -----------------------------------------------------------------

    def qualified(self, shape: Shape, c: Constraint, target: str) -> Iterator[Finding]:
        member, low, high = c.params
        judge = self.member_judge(member)  # type: ignore[arg-type]
        focus_nodes = [f for (f,) in self.rows(f"SELECT ?this WHERE {{ {target} }}", "this")]
        counts: dict[Term, int] = defaultdict(int)
        if shape.path is not None:
            path = shape.path.pattern("?this", "?v")
            verdict: dict[Term, bool] = {}
            query = f"SELECT DISTINCT ?this ?v WHERE {{ {{ SELECT DISTINCT ?this ?v WHERE {{ {path} }} }} {target} }}"
            seen_values = False
            for focus, value in self.rows(query, "this", "v"):
                seen_values = True
                ok = verdict.get(value)  # type: ignore[arg-type]
                if ok is None:
                    ok = verdict[value] = judge(self.view(value), value)  # type: ignore[arg-type, index]
                counts[focus] += int(ok)  # type: ignore[index]
            if not seen_values and (low is None or low < 1):  # type: ignore[operator]
                return
        else:
            for focus in focus_nodes:
                counts[focus] = int(judge(self.view(focus), focus))  # type: ignore[arg-type, index]
        for focus in focus_nodes:
            n = counts.get(focus, 0)  # type: ignore[arg-type]
            if high is not None and n > high:  # type: ignore[operator]
                yield Finding(shape, "QualifiedMaxCount", focus, None, shape.path)  # type: ignore[arg-type]
            if low is not None and n < low:  # type: ignore[operator]
                yield Finding(shape, "QualifiedMinCount", focus, None, shape.path)  # type: ignore[arg-type]

    # -- SPARQL-based constraints ---------------------------------------------------------------

    def sparql_run(self, shape: Shape, c: Constraint, narrow: bool) -> tuple[RewrittenSelect, SparqlRun]:
        """An sh:sparql constraint of ``shape`` as one query over all its focus nodes
        (``sparql_runs`` evaluates it, in a child process under a budget); ``narrow``: with what
        it can match, so that only that is copied for it (worth its cost, a parse of the query
        with rdflib, on large data only)."""
        _node, select, prefixes, _messages = c.params
        rewritten = compile_select(select, dict(prefixes), self.target(shape))  # type: ignore[arg-type, call-overload]
        names = ("this", *(n for n in rewritten.variables if n != "this"))
        reach = self._reach(shape, select, dict(prefixes)) if narrow else None  # type: ignore[arg-type, call-overload]
        return rewritten, SparqlRun(rewritten.text, names, reach)

    def sparql_findings(
        self, shape: Shape, c: Constraint, rewritten: RewrittenSelect, names: tuple[str, ...], rows: list[Row]
    ) -> Iterator[Finding]:
        """The findings of an sh:sparql constraint from the rows of its ``sparql_run``."""
        messages = c.params[3]
        for row in rows:
            bound = {n: t for n, t in zip(names, row, strict=True) if t is not None}
            focus = bound.pop("this")
            path = bound.pop("path", None)
            value = bound.pop("value", None)
            if not (rewritten.projects_this or path is not None or value is not None):
                continue
            yield Finding(
                shape,
                "SPARQL",
                focus,
                value if value is not None else focus,
                Path(URIRef(path.value)) if isinstance(path, ox.NamedNode) else None,
                bound,
                messages,  # type: ignore[arg-type]
                rewritten.projects_this,
            )

    def _reach(self, shape: Shape, select: str, prefixes: dict[str, str]) -> Reach | None:
        """What an sh:sparql query of ``shape`` can match: the IRIs of its predicates and its
        targets', and the target classes (with their subclasses) whose ``rdf:type`` triples it
        needs; ``None`` when a predicate is a variable or a path it cannot follow (then any
        triple can match)."""
        predicates = query_predicates(select, tuple(sorted(prefixes.items())))
        if predicates is None:
            return None
        targets = {str(p) for p in (*shape.targets.subjects_of, *shape.targets.objects_of)}
        classes = {c for cls in shape.targets.classes for c in self.subclasses(cls)}
        return Reach(predicates | targets, frozenset(classes))


@lru_cache(maxsize=256)
def query_predicates(select: str, prefixes: tuple[tuple[str, str], ...]) -> frozenset[str] | None:
    """The IRIs of the predicates an sh:sparql query can match; None when one is a variable or
    a path that is not followed (then any triple can match). Parsing costs ~0.1 s: cached."""
    try:
        predicates = {e.predicate for e in sparql_edges(select, dict(prefixes), itertools.count())}
    except ValueError:  # not SPARQL rdflib can parse, or a form the edges cannot follow
        return None
    if None in predicates:
        return None
    return frozenset(p.value for p in predicates)  # type: ignore[union-attr]


def compile_select(select: str, prefixes: dict[str, str], target: str) -> RewrittenSelect:
    rewritten = rewrite_select(select, prefixes, target)
    try:
        engine.scratch().query(rewritten.text)
    except SyntaxError as exc:
        raise Unsupported(f"an sh:sparql query Oxigraph cannot parse: {exc}") from exc
    return rewritten
