"""The ontology's OWL RL consequences for instance data, compiled into lookup tables.

owlrl computes the closure of the ontology alone once (cached by the ontology's content): that
gives both the ontology-only part of the answer (the triples ``kgprofiles.infer.closure`` returns
for an empty data graph) and the closed schema (subclass, subproperty, domain and range relations
already closed by owlrl's scm-* rules). With the schema fixed, every instance-level rule owlrl
applies to this ontology is local to one triple (cax-sco, prp-dom, prp-rng, prp-spo1, prp-eqp,
prp-inv), except property chains (prp-spo2, a join), equality (eq-*, over owl:sameAs classes) and
the datatype rules (dt-type2, dt-not-type, datatype disjointness and cax-dw). ``linear.py`` runs
those in passes over the triples.

Anything else in the closed ontology (functional, inverse-functional, transitive, symmetric,
asymmetric, irreflexive properties, keys, restrictions, class expressions, disjoint properties,
negative assertions, AllDifferent...) makes ``RulesPlan.unsupported`` non-empty: the caller must
fall back to owlrl, and says so.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cached_property

import pyoxigraph as ox
from owlrl.AxiomaticTriples import OWLRL_Datatypes_Disjointness
from owlrl.XsdDatatypes import OWL_Datatype_Subsumptions, OWL_RL_Datatypes
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDF, RDFS
from rdflib.term import Node

from kgprofiles.budget import Budget
from kgprofiles.fast import rules_cache
from kgprofiles.infer import closure_in_process
from kgprofiles.terms import triples_from_graph

RDF_TYPE = str(RDF.type)
SAME_AS = str(OWL.sameAs)

#: Predicates whose triples trigger OWL RL rules this compiler does not run (in the ontology) or
#: that change the schema (in the data): either way, owlrl must do the work. Not rdf:first and
#: rdf:rest: OWL RL reads a list only through one of these (owl:intersectionOf, owl:members…),
#: so a list alone in the data derives what any other triples do (tests/test_fast_rules.py).
SCHEMA_PREDICATES = frozenset(
    str(p)
    for p in (
        RDFS.subClassOf, RDFS.subPropertyOf, RDFS.domain, RDFS.range, OWL.equivalentClass, OWL.equivalentProperty,
        OWL.inverseOf, OWL.propertyChainAxiom, OWL.oneOf, OWL.disjointWith, OWL.propertyDisjointWith, OWL.hasKey,
        OWL.intersectionOf, OWL.unionOf, OWL.complementOf, OWL.someValuesFrom, OWL.allValuesFrom, OWL.hasValue,
        OWL.onProperty, OWL.onClass, OWL.maxCardinality, OWL.maxQualifiedCardinality, OWL.members,
        OWL.distinctMembers, OWL.differentFrom, OWL.sourceIndividual, OWL.assertionProperty,
        OWL.targetIndividual, OWL.targetValue,
    )
)  # fmt: skip
#: rdf:type objects that trigger rules this compiler does not run, or change the schema.
SCHEMA_TYPES = frozenset(
    str(c)
    for c in (
        OWL.FunctionalProperty, OWL.InverseFunctionalProperty, OWL.IrreflexiveProperty, OWL.SymmetricProperty,
        OWL.AsymmetricProperty, OWL.TransitiveProperty, OWL.AllDisjointProperties, OWL.AllDisjointClasses,
        OWL.AllDifferent, OWL.Nothing, OWL.Class, OWL.ObjectProperty, OWL.DatatypeProperty, RDF.Property,
        OWL.Restriction, OWL.NegativePropertyAssertion, RDFS.Datatype, *OWL_RL_Datatypes,
    )
)  # fmt: skip
#: In the ontology, these are compiled (or harmless: the ontology-only closure has their effect).
_COMPILED_PREDICATES = frozenset(
    str(p)
    for p in (
        RDFS.subClassOf,
        RDFS.subPropertyOf,
        RDFS.domain,
        RDFS.range,
        OWL.equivalentClass,
        OWL.equivalentProperty,
        OWL.inverseOf,
        OWL.propertyChainAxiom,
        OWL.oneOf,
        OWL.disjointWith,
        RDF.first,
        RDF.rest,
    )
)
_HARMLESS_TYPES = frozenset(
    str(c) for c in (OWL.Class, OWL.ObjectProperty, OWL.DatatypeProperty, RDF.Property, RDFS.Datatype, OWL.Thing)
)


def nt(term: Node) -> str:
    """A term in N-Triples syntax, as ``str()`` of the Oxigraph term writes it."""
    if isinstance(term, URIRef):
        return f"<{term}>"
    if isinstance(term, BNode):
        return f"_:{term}"
    if isinstance(term, Literal):
        return str(_ox_literal(term))
    raise TypeError(term)


def _ox_literal(term: Literal) -> ox.Literal:
    if term.language:
        return ox.Literal(str(term), language=term.language)
    if term.datatype is not None:
        return ox.Literal(str(term), datatype=ox.NamedNode(str(term.datatype)))
    return ox.Literal(str(term))


@dataclass
class PredicateRules:
    """What one data triple ``s p o`` yields, given the closed schema."""

    derived: tuple[tuple[str, bool], ...]  # (q, inverse): s q o, or o q s; q an IRI, never p itself forward
    subject_types: int  # class bitmask for s
    object_types: int  # class bitmask for o (when o is not a literal; else types of the literal)
    chain_roles: tuple[tuple[int, int, bool], ...]  # (chain, element, inverse)


@dataclass
class RulesPlan:
    """The compiled ontology."""

    ontology_new: list[ox.Triple]  # the closure of the ontology alone (infer.closure's answer)
    ontology_errors: tuple[str, ...]
    ontology_triples: list[ox.Triple]
    subproperties: dict[str, set[str]]  # p → its strict superproperties
    inverses: dict[str, set[str]]
    domains: dict[str, set[str]]
    ranges: dict[str, set[str]]
    superclasses: dict[str, set[str]]  # c → its strict superclasses
    chains: list[tuple[str, tuple[str, ...]]]  # (p, elements)
    disjoint: set[tuple[str, str]]  # (c1, c2) from owl:disjointWith in the closed ontology
    unsupported: list[str] = field(default_factory=list)
    _rules: dict[str, PredicateRules] = field(default_factory=dict)

    # -- classes as bits --------------------------------------------------------------------------

    @cached_property
    def classes(self) -> list[str]:
        found: set[str] = set(self.superclasses)
        for supers in self.superclasses.values():
            found |= supers
        for values in (*self.domains.values(), *self.ranges.values()):
            found |= values
        for c1, c2 in self.disjoint | self.datatype_disjointness:
            found |= {c1, c2}
        for dt, supers in OWL_Datatype_Subsumptions.items():
            found |= {nt(dt), *(nt(s) for s in supers)}
        return sorted(found)

    @cached_property
    def bit(self) -> dict[str, int]:
        return {c: 1 << i for i, c in enumerate(self.classes)}

    def types_mask(self, cls: str) -> int:
        """The bits of ``cls`` and its superclasses (0 for a class the ontology says nothing of)."""
        if cls not in self.bit:
            return 0
        mask = self.bit[cls]
        for sup in self.superclasses.get(cls, ()):
            mask |= self.bit[sup]
        return mask

    def classes_of(self, mask: int) -> list[str]:
        return [c for c in self.classes if mask & self.bit[c]]

    @cached_property
    def datatype_disjointness(self) -> set[tuple[str, str]]:
        return {(nt(left), nt(right)) for left, _, right in OWLRL_Datatypes_Disjointness}

    # -- per predicate ----------------------------------------------------------------------------

    def closure_of(self, predicate: str) -> set[tuple[str, bool]]:
        """All (q, inverse) such that ``s predicate o`` entails ``s q o`` (or ``o q s``)."""
        seen = {(predicate, False)}
        todo = [(predicate, False)]
        while todo:
            q, inverse = todo.pop()
            nxt = [(sup, inverse) for sup in self.subproperties.get(q, ())]
            nxt += [(other, not inverse) for other in self.inverses.get(q, ())]
            for item in nxt:
                if item not in seen:
                    seen.add(item)
                    todo.append(item)
        return seen

    def rules_for(self, predicate: str) -> PredicateRules:
        found = self._rules.get(predicate)
        if found is not None:
            return found
        reachable = self.closure_of(predicate)
        subject_types = object_types = 0
        for q, inverse in reachable:
            s_classes, o_classes = self.domains.get(q, ()), self.ranges.get(q, ())
            if inverse:
                s_classes, o_classes = o_classes, s_classes
            for c in s_classes:
                subject_types |= self.types_mask(c)
            for c in o_classes:
                object_types |= self.types_mask(c)
        roles = []
        for k, (_, elements) in enumerate(self.chains):
            for i, e in enumerate(elements):
                for q, inverse in reachable:
                    if q == e:
                        roles.append((k, i, inverse))
        derived = tuple(
            sorted((q, inv) for q, inv in reachable if not q.startswith("_:") and (q, inv) != (predicate, False))
        )
        found = self._rules[predicate] = PredicateRules(derived, subject_types, object_types, tuple(roles))
        return found

    def data_problems(self, predicates: set[str], types: set[str]) -> list[str]:
        """Why data using these predicates and rdf:type objects needs owlrl (empty if it does not)."""
        problems = [f"the data uses {p}" for p in sorted(predicates & SCHEMA_PREDICATES)]
        problems += [f"the data types nodes as {c}" for c in sorted(types & SCHEMA_TYPES)]
        for p in sorted(predicates - SCHEMA_PREDICATES):
            derived = {q for q, _ in self.rules_for(p).derived}
            bad = derived & (SCHEMA_PREDICATES | {RDF_TYPE, SAME_AS})
            if bad:
                problems.append(f"{p} implies {', '.join(sorted(bad))}")
        return problems


_PLANS: dict[str, RulesPlan] = {}


def ontology_key(ontology: Graph) -> str:
    """A digest of the ontology's triples: the same for the same content, in any process
    (``validate.load_ontology`` labels blank nodes canonically)."""
    return hashlib.sha256("\n".join(sorted(f"{s.n3()} {p.n3()} {o.n3()}" for s, p, o in ontology)).encode()).hexdigest()


def compile_rules(ontology: Graph, budget: Budget | None = None) -> RulesPlan:
    """The compiled ontology, cached by its content in this process and on disk
    (``rules_cache.py``). The closure of the ontology alone (owlrl, in this process) checks
    ``budget`` as it grows."""
    key = ontology_key(ontology)
    if key not in _PLANS:
        path = rules_cache.plan_path(key)
        plan = rules_cache.read_plan(path)
        if plan is None:
            plan = _compile(ontology, budget)
            rules_cache.write_plan(path, plan)
        _PLANS[key] = plan
    return _PLANS[key]


def _compile(ontology: Graph, budget: Budget | None) -> RulesPlan:
    alone = closure_in_process(Graph(), ontology, budget)
    closed = Graph()
    closed += ontology
    closed += alone.triples
    subproperties: dict[str, set[str]] = {}
    inverses: dict[str, set[str]] = {}
    domains: dict[str, set[str]] = {}
    ranges: dict[str, set[str]] = {}
    superclasses: dict[str, set[str]] = {}
    disjoint: set[tuple[str, str]] = set()
    for s, p, o in closed:
        if isinstance(s, Literal) or (isinstance(o, Literal) and p != OWL.propertyChainAxiom):
            continue
        if p == RDFS.subPropertyOf and s != o:
            subproperties.setdefault(nt(s), set()).add(nt(o))
        elif p == OWL.equivalentProperty and s != o:
            subproperties.setdefault(nt(s), set()).add(nt(o))
            subproperties.setdefault(nt(o), set()).add(nt(s))
        elif p == OWL.inverseOf:
            inverses.setdefault(nt(s), set()).add(nt(o))
            inverses.setdefault(nt(o), set()).add(nt(s))
        elif p == RDFS.domain:
            domains.setdefault(nt(s), set()).add(nt(o))
        elif p == RDFS.range:
            ranges.setdefault(nt(s), set()).add(nt(o))
        elif p == RDFS.subClassOf and s != o:
            superclasses.setdefault(nt(s), set()).add(nt(o))
        elif p == OWL.equivalentClass and s != o:
            superclasses.setdefault(nt(s), set()).add(nt(o))
            superclasses.setdefault(nt(o), set()).add(nt(s))
        elif p == OWL.disjointWith:
            disjoint.add((nt(s), nt(o)))
    chains = []
    for s, o in closed.subject_objects(OWL.propertyChainAxiom):
        chains.append((nt(s), tuple(nt(e) for e in Collection(closed, o))))
    plan = RulesPlan(
        ontology_new=list(triples_from_graph(alone.triples)),
        ontology_errors=alone.inconsistencies,
        ontology_triples=list(triples_from_graph(ontology)),
        subproperties=subproperties,
        inverses=inverses,
        domains=domains,
        ranges=ranges,
        superclasses=_transitive(superclasses),
        chains=chains,
        disjoint=disjoint,
    )
    plan.unsupported = _unsupported(closed, plan)
    return plan


def _transitive(relation: dict[str, set[str]]) -> dict[str, set[str]]:
    out = {}
    for start in relation:
        seen: set[str] = set()
        todo = list(relation[start])
        while todo:
            x = todo.pop()
            if x not in seen:
                seen.add(x)
                todo.extend(relation.get(x, ()))
        seen.discard(start)
        out[start] = seen
    return out


def _unsupported(closed: Graph, plan: RulesPlan) -> list[str]:
    reasons = []
    for p in sorted({str(p) for p in closed.predicates()} & SCHEMA_PREDICATES - _COMPILED_PREDICATES):
        reasons.append(f"the ontology uses {p}")
    for c in sorted({str(c) for c in closed.objects(None, RDF.type)} & SCHEMA_TYPES - _HARMLESS_TYPES):
        if c in {str(d) for d in OWL_RL_Datatypes} and c != str(OWL.Nothing):
            continue  # owlrl types literals as datatypes itself; harmless in the ontology-only part
        reasons.append(f"the ontology types something as {c}")
    if (None, OWL.sameAs, None) in closed and any(s != o for s, o in closed.subject_objects(OWL.sameAs)):
        reasons.append("the ontology uses owl:sameAs")
    for s, p, o in closed:  # type: ignore[assignment]
        if p in (RDFS.subPropertyOf, OWL.equivalentProperty) and s != o and nt(o) in (RDF_TYPE, SAME_AS):
            reasons.append(f"{nt(s)} is a subproperty of {nt(o)}")
    chain_props = {p for p, _ in plan.chains}
    elements = {e for _, elements in plan.chains for e in elements}
    for p in chain_props:
        if {q for q, _ in plan.closure_of(p)} & elements:
            reasons.append(f"the property chain of {p} feeds a property chain")
    for _, es in plan.chains:
        for e in es:
            if e.startswith("_:") and e not in plan.inverses:
                reasons.append(f"a property chain element {e} that is neither a property nor an inverse")
    return reasons
