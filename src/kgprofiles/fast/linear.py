"""The OWL RL closure of instance data as two linear passes over the triples (see ``rules.py``).

Pass 1 collects what needs the whole data before anything is written: the types of every node (as
class bitmasks, asserted and derived), the asserted triples of the properties rules can derive,
the edges of property-chain elements, owl:sameAs links and the predicates and classes in use.
Between the passes, chains are joined, sameAs classes merged, datatype rules and disjointness
checked. Pass 2 writes each triple's derived triples. Everything is written as N-Triples lines
(terms as rdflib sees them, see ``literals.py``) to a sink, so millions of triples never become
Python objects; a store deduplicates them on load.

Why not SPARQL updates on the store: on an on-disk store each "is this triple already asserted"
check is an index lookup costing tens of microseconds on this machine, and inserting through an
update is slower than bulk-loading N-Triples; a pass in Python costs about a microsecond a triple.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

import pyoxigraph as ox
from owlrl.DatatypeHandling import AltXSDToPYTHON
from owlrl.XsdDatatypes import OWL_Datatype_Subsumptions, OWL_RL_Datatypes
from rdflib import Literal

from kgprofiles.budget import Budget, paced
from kgprofiles.fast.literals import LiteralScan, rdflib_form, rdflib_literal
from kgprofiles.fast.rules import RDF_TYPE, SAME_AS, PredicateRules, RulesPlan, nt
from kgprofiles.store import rdf_syntax
from kgprofiles.vocab import OWL_NS, RDFS_NS

TYPE_KEY = f"<{RDF_TYPE}>"
SAME_AS_KEY = f"<{SAME_AS}>"
DISJOINT_KEY = f"<{OWL_NS}disjointWith>"
#: A triple as the passes read it: the subject and object in N-Triples, the predicate's IRI.
TextTriple = tuple[str, str, str]
TextTriples = Callable[[], Iterable[TextTriple]]
_REFLEXIVE = {
    f"<{iri}>"
    for iri in (
        OWL_NS + "sameAs",
        RDFS_NS + "subClassOf",
        RDFS_NS + "subPropertyOf",
        OWL_NS + "equivalentClass",
        OWL_NS + "equivalentProperty",
    )
}
_OWL_RL_DATATYPES = frozenset(OWL_RL_Datatypes)


class Sink(Protocol):
    def write(self, text: str, /) -> object: ...


@dataclass
class LinearResult:
    """What the passes wrote (lines, possibly with duplicates), the inconsistencies found, and
    the reasons owlrl must be used instead (when non-empty, nothing was written)."""

    lines: int = 0
    inconsistencies: tuple[str, ...] = ()
    unsupported: list[str] = field(default_factory=list)


@dataclass
class _Predicate:
    key: str
    rules: PredicateRules
    derived: tuple[tuple[str, bool], ...]
    asserted: set[tuple[str, str]] | None  # its asserted (s, o), when rules can derive it
    is_type: bool
    is_same_as: bool
    subject_types: int
    object_types: int
    chain_roles: tuple[tuple[int, int, bool], ...]


class _Classes:
    """owl:sameAs classes (union-find over node keys)."""

    def __init__(self, links: list[tuple[str, str]]) -> None:
        self.parent: dict[str, str] = {}
        for a, b in links:
            self.union(a, b)
        self.members: dict[str, list[str]] = {}
        for node in list(self.parent):
            self.members.setdefault(self.find(node), []).append(node)

    def find(self, x: str) -> str:
        root = x
        while self.parent.get(root, root) != root:
            root = self.parent[root]
        while self.parent.get(x, x) != root:
            self.parent[x], x = root, self.parent[x]
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        self.parent.setdefault(ra, ra)
        self.parent.setdefault(rb, rb)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)

    def of(self, x: str) -> list[str]:
        if x not in self.parent:
            return [x]
        return self.members[self.find(x)]


class Closure:
    """One run of the passes over ``data`` (raw data triples) with the compiled ``plan``."""

    def __init__(
        self,
        plan: RulesPlan,
        data: TextTriples,
        sink: Sink,
        scan: LiteralScan | None = None,
        used_datatypes: set[str] | None = None,
        budget: Budget | None = None,
    ) -> None:
        """``used_datatypes`` forces the datatypes in use (for a part of the data whose whole is
        known to use those; see ``incremental``). ``budget``: the passes look at its clock every
        few thousand triples, and count the triples they produce (written, and copies waiting
        for owl:sameAs classes) against its allowance, as they go."""
        self.plan = plan
        self.budget = budget
        self.allowance = budget.max_triples if budget is not None and budget.max_triples is not None else None
        self.replicas: set[tuple[str, str, str]] = set()
        self.forced_used = used_datatypes
        self.data = data
        self.sink = sink
        self.scan = scan
        self.lines = 0
        self.predicates: dict[str, _Predicate] = {}
        self.views: dict[str, str] = {}
        self.derivable = self._derivable()
        self.types: dict[str, int] = {}
        self.asserted_types: dict[str, int] = {}
        self.asserted: dict[str, set[tuple[str, str]]] = {}
        self.used_predicates: set[str] = set()
        self.type_objects: set[str] = set()
        self.same_as: list[tuple[str, str]] = []
        self.chain_edges: list[list[dict[str, list[str]]]] = [[{} for _ in es] for _, es in plan.chains]
        self.typed_literals: dict[str, set[str]] = {}  # view key → predicates (for the datatype rules)
        self.literal_types: dict[str, int] = {}
        self.relevant = self._disjoint_classes_mask()
        self.cached = {f"{t.subject} {t.predicate} {t.object} .\n" for t in plan.ontology_new}
        self.cached_subjects = {str(t.subject) for t in plan.ontology_new}
        self.cached_asserted: set[str] = set()
        self.classes: _Classes | None = None

    # -- terms ------------------------------------------------------------------------------

    def _derivable(self) -> set[str]:
        out = set()
        for p in {*self.plan.subproperties, *self.plan.inverses, *(c for c, _ in self.plan.chains)}:
            out |= {q for q, _ in self.plan.closure_of(p)}
        return {q for q in out if not q.startswith("_:")}

    def predicate(self, value: str) -> _Predicate:
        key = f"<{value}>"
        rules = self.plan.rules_for(key)
        asserted = self.asserted.setdefault(key, set()) if key in self.derivable else None
        found = _Predicate(
            key,
            rules,
            rules.derived,
            asserted,
            value == RDF_TYPE,
            value == SAME_AS,
            rules.subject_types,
            rules.object_types,
            rules.chain_roles,
        )
        self.predicates[value] = found
        return found

    def object_key(self, o: str) -> str:
        """The object (N-Triples) as rdflib sees it (typed literals in rdflib's form)."""
        if o[-1] == ">" and o[0] == '"':
            view = self.views.get(o)
            if view is None:
                view = self.views[o] = str(rdflib_form(_parse_literal(o)))
            return view
        return o

    def _disjoint_classes_mask(self) -> int:
        mask = 0
        for c1, c2 in self.plan.disjoint | self.plan.datatype_disjointness:
            mask |= self.plan.bit.get(c1, 0) | self.plan.bit.get(c2, 0)
        return mask

    # -- pass 1 -----------------------------------------------------------------------------

    def collect(self, triples: Iterable[TextTriple], is_data: bool) -> None:
        """Pass 1 (see the module docstring). The loop is written for speed: locals, no calls."""
        predicates = self.predicates
        types, asserted_types = self.types, self.asserted_types
        views = self.views
        typed_literals, literal_types = self.typed_literals, self.literal_types
        cached_subjects, cached_asserted = self.cached_subjects, self.cached_asserted
        used, same_as = self.used_predicates, self.same_as
        relevant = self.relevant
        types_mask, bit = self.plan.types_mask, self.plan.bit
        chain_edges = self.chain_edges
        for s, pv, o in triples:
            entry = predicates.get(pv)
            if entry is None:
                entry = self.predicate(pv)
            literal = o[0] == '"'
            if literal and o[-1] == ">":
                view = views.get(o)
                if view is None:
                    view = views[o] = str(rdflib_form(_parse_literal(o)))
                o = view
                preds = typed_literals.get(o)
                if preds is None:
                    preds = typed_literals[o] = set()
                preds.add(pv)
            if is_data:
                used.add(pv)
                if s in cached_subjects:
                    cached_asserted.add(f"{s} {entry.key} {o} .\n")
            if entry.is_type:
                types[s] = types.get(s, 0) | types_mask(o)
                b = bit.get(o)
                if b:
                    asserted_types[s] = asserted_types.get(s, 0) | b
                if is_data:
                    self.type_objects.add(o[1:-1] if o[0] == "<" else o)
                continue
            if entry.subject_types:
                types[s] = types.get(s, 0) | entry.subject_types
            if literal:
                if entry.object_types & relevant:
                    literal_types[o] = literal_types.get(o, 0) | entry.object_types
            elif entry.object_types:
                types[o] = types.get(o, 0) | entry.object_types
            if entry.asserted is not None:
                entry.asserted.add((s, o))
            if entry.chain_roles:
                for k, i, inverse in entry.chain_roles:
                    a, b2 = (o, s) if inverse else (s, o)
                    chain_edges[k][i].setdefault(a, []).append(b2)
            if entry.is_same_as and is_data:
                same_as.append((s, o))

    # -- between the passes ----------------------------------------------------------------

    def problems(self) -> list[str]:
        problems = list(self.plan.unsupported)
        problems += self.plan.data_problems(self.used_predicates, self.type_objects)
        if self.same_as:
            ontology_nodes = {str(x) for t in self.plan.ontology_triples for x in (t.subject, t.object)}
            members = {x for pair in self.same_as for x in pair}
            if any(m[0] == '"' for m in members):
                problems.append("owl:sameAs with a literal")
            if {m[1:-1] for m in members if m[0] == "<"} & self.used_predicates:
                problems.append("owl:sameAs on a node used as a predicate")
            if members & ontology_nodes:
                problems.append("owl:sameAs on a node the ontology mentions")
        return problems

    def join_chains(self) -> list[tuple[int, str, str]]:
        """(chain, first, last) for every path along a chain's elements."""
        find = self.classes.find if self.classes else (lambda x: x)
        results: list[tuple[int, str, str]] = []
        for k, (_, elements) in enumerate(self.plan.chains):
            edges = self.chain_edges[k]
            frontier = [(a, b) for a, bs in edges[0].items() for b in bs]
            for i in range(1, len(elements)):
                step: dict[str, list[str]] = {}
                for a, bs in edges[i].items():
                    step.setdefault(find(a), []).extend(bs)
                frontier = [(a, c) for a, b in frontier for c in step.get(find(b), ())]
                if self.budget is not None:
                    self.budget.check(len(results) + len(frontier), "joining property chains")
            results.extend((k, a, c) for a, c in dict.fromkeys(frontier))
        return results

    def merge_classes(self) -> None:
        assert self.classes is not None
        for members in self.classes.members.values():
            mask = 0
            for m in members:
                mask |= self.types.get(m, 0) | self.asserted_types.get(m, 0)
            for m in members:
                self.types[m] = mask

    # -- writing ----------------------------------------------------------------------------

    def emit(self, s: str, p: str, o: str) -> None:
        if s[0] == '"' or (s == o and p in _REFLEXIVE):
            return
        asserted = self.asserted.get(p)
        if asserted is not None and (s, o) in asserted:
            return
        self.sink.write(f"{s} {p} {o} .\n")
        self.lines += 1
        if self.budget is not None and not self.lines % 4096:
            self.check_budget()

    def produced(self) -> int:
        """The triples produced so far: written, and copies waiting to be written."""
        return self.lines + len(self.replicas)

    def check_budget(self) -> None:
        if self.budget is not None:
            self.budget.check(self.produced(), "computing the OWL RL closure")

    def resolved(self, derived: tuple[tuple[str, bool], ...]) -> list[tuple[str, bool, set[tuple[str, str]]]]:
        """``derived`` with each property's asserted pairs (empty when none can be asserted)."""
        empty: set[tuple[str, str]] = set()
        return [(q, inverse, self.asserted.get(q) or empty) for q, inverse in derived]

    def emit_replicated(self, s: str, p: str, o: str, replicas: set[tuple[str, str, str]]) -> None:
        """Emit ``s p o``; with sameAs classes, remember its copies for every member."""
        self.emit(s, p, o)
        if self.classes is not None:
            self.replicate(s, p, o, replicas)

    def replicate(self, s: str, p: str, o: str, replicas: set[tuple[str, str, str]]) -> None:
        """Remember the copies of ``s p o`` for every member of their owl:sameAs classes."""
        assert self.classes is not None
        objects = self.classes.of(o) if o[0] != '"' else (o,)
        for s2 in self.classes.of(s):
            for o2 in objects:
                if (s2, o2) != (s, o):
                    replicas.add((s2, p, o2))
            if self.allowance is not None and self.produced() > self.allowance:
                self.check_budget()

    def derive(self, s: str, rules: _Predicate | PredicateRules, o: str, replicas: set[tuple[str, str, str]]) -> None:
        derived = rules.derived
        for q, inverse in derived:
            if inverse:
                if o[0] != '"':
                    self.emit_replicated(o, q, s, replicas)
            else:
                self.emit_replicated(s, q, o, replicas)

    def write_pass(self, replicas: set[tuple[str, str, str]], incident: set[tuple[str, str, str]]) -> None:
        """Pass 2: each data triple's derived triples (and, with sameAs classes, its copies)."""
        if self.classes is not None:
            self._write_pass_with_classes(replicas, incident)
            return
        plans = {pv: self.resolved(entry.derived) for pv, entry in self.predicates.items()}
        views = self.views
        write = self.sink.write
        for s, pv, o in paced(self.budget, self.data(), self.produced):
            derived = plans[pv]
            if not derived:
                continue
            literal = o[0] == '"'
            if literal and o[-1] == ">":
                o = views[o]
            out = []
            for q, inverse, asserted in derived:
                if inverse:
                    if not literal and (o, s) not in asserted and not (o == s and q in _REFLEXIVE):
                        out.append(f"{o} {q} {s} .\n")
                elif (s, o) not in asserted and not (o == s and q in _REFLEXIVE):
                    out.append(f"{s} {q} {o} .\n")
            if out:
                write("".join(out))
                self.lines += len(out)

    def _write_pass_with_classes(
        self, replicas: set[tuple[str, str, str]], incident: set[tuple[str, str, str]]
    ) -> None:
        assert self.classes is not None
        predicates = self.predicates
        members = set(self.classes.parent)
        for s, pv, o in paced(self.budget, self.data(), self.produced):
            entry = predicates[pv]
            o = self.object_key(o)
            self.derive(s, entry, o, replicas)
            if s in members or o in members:
                incident.add((s, entry.key, o))
                # Types of classes the ontology knows travel with the class bitmasks; others are copied here.
                if entry.key != SAME_AS_KEY and (entry.key != TYPE_KEY or o not in self.plan.bit):
                    self.replicate(s, entry.key, o, replicas)

    def write_types(self) -> None:
        asserted_types = self.asserted_types
        names: dict[int, list[str]] = {}
        write = self.sink.write
        for node, mask in paced(self.budget, self.types.items(), self.produced):
            if node[0] == '"':
                continue
            new = mask & ~asserted_types.get(node, 0)
            if new:
                classes = names.get(new)
                if classes is None:
                    classes = names[new] = self.plan.classes_of(new)
                write("".join(f"{node} {TYPE_KEY} {c} .\n" for c in classes))
                self.lines += len(classes)

    def write_same_as(self) -> None:
        assert self.classes is not None
        asserted = set(self.same_as)
        for members in self.classes.members.values():
            for a in members:
                for b in members:
                    if a != b and (a, b) not in asserted:
                        self.emit(a, SAME_AS_KEY, b)

    # -- datatypes and disjointness -----------------------------------------------------------

    def datatype_rules(self) -> tuple[list[str], set[str]]:
        """dt-not-type errors, and the datatypes in use (owlrl's one-time datatype rules)."""
        errors = []
        used: set[str] = set()
        for key in self.typed_literals:
            literal = rdflib_literal(_parse_literal(key))
            if literal.datatype is None or literal.datatype not in _OWL_RL_DATATYPES:
                continue
            used.add(nt(literal.datatype))
            used.update(nt(d) for d in OWL_Datatype_Subsumptions.get(literal.datatype, ()))
            error = ill_typed(literal)
            if error is not None:
                errors.append(error)
        return errors, used

    def disjointness(self, used: set[str]) -> list[str]:
        """cax-dw over nodes and literals; also writes the datatype disjointness axioms in use."""
        pairs = set(self.plan.disjoint)
        ontology_lines = {f"{t.subject} {t.predicate} {t.object} .\n" for t in self.plan.ontology_triples}
        for c1, c2 in sorted(self.plan.datatype_disjointness):
            if c1 in used and c2 in used:
                pairs.add((c1, c2))
                if f"{c1} {DISJOINT_KEY} {c2} .\n" not in ontology_lines:
                    self.emit(c1, DISJOINT_KEY, c2)
        errors: list[str] = []
        bit = self.plan.bit
        checks = [(c1, c2, bit[c1] | bit[c2]) for c1, c2 in pairs if c1 in bit and c2 in bit]
        if not checks:
            return errors
        for node, mask in self.types.items():
            mask |= self.asserted_types.get(node, 0)
            for c1, c2, both in checks:
                if mask & both == both:
                    errors.append(_disjoint_message(c1, c2, node))
        for key in self.typed_literals:
            self.literal_types[key] = self.literal_types.get(key, 0) | self._own_types(key)
        for key, mask in self.literal_types.items():
            for c1, c2, both in checks:
                if mask & both == both:
                    errors.append(_disjoint_message(c1, c2, key))
        return errors

    def _own_types(self, key: str) -> int:
        literal = rdflib_literal(_parse_literal(key))
        if literal.datatype is None or literal.datatype not in _OWL_RL_DATATYPES:
            return 0
        mask = self.plan.bit.get(nt(literal.datatype), 0)
        for d in OWL_Datatype_Subsumptions.get(literal.datatype, ()):
            mask |= self.plan.bit.get(nt(d), 0)
        return mask

    # -- the run ------------------------------------------------------------------------------

    def run(self) -> LinearResult:
        self.collect(text_triples(self.plan.ontology_triples), is_data=False)
        self.collect(paced(self.budget, self.data()), is_data=True)
        problems = self.problems()
        if problems:
            return LinearResult(unsupported=problems)
        if self.same_as:
            self.classes = _Classes(self.same_as)
        replicas = self.replicas
        chain_results = self.join_chains()
        for k, a, c in chain_results:
            chain = self.plan.chains[k][0]
            rules = self.plan.rules_for(chain)
            self.types[a] = self.types.get(a, 0) | rules.subject_types
            if c[0] != '"':
                self.types[c] = self.types.get(c, 0) | rules.object_types
            elif rules.object_types & self.relevant:
                self.literal_types[c] = self.literal_types.get(c, 0) | rules.object_types
        if self.classes is not None:
            self.merge_classes()
        errors, used = self.datatype_rules()
        if self.forced_used is not None:
            used = set(self.forced_used)
        errors += self.disjointness(used)
        errors += list(self.plan.ontology_errors)
        for k, a, c in chain_results:
            chain = self.plan.chains[k][0]
            self.emit_replicated(a, chain, c, replicas)
            self.derive(a, self.plan.rules_for(chain), c, replicas)
        self.write_types()
        if self.classes is not None:
            self.write_same_as()
        incident: set[tuple[str, str, str]] = set()
        self.write_pass(replicas, incident)
        pending = replicas - incident
        replicas.clear()  # from here on, written copies count as lines
        for s, p, o in paced(self.budget, pending, self.produced):
            self.emit(s, p, o)
        for line in self.cached - self.cached_asserted:
            self.sink.write(line)
            self.lines += 1
        return LinearResult(self.lines, tuple(sorted(set(errors))))


def ill_typed(literal: Literal) -> str | None:
    """owlrl's message (word for word: it formats with %s, str() of the rdflib terms) for a literal
    of one of OWL RL's datatypes that the datatype does not allow (its dt-not-type rule); None
    for any other literal."""
    if literal.datatype is None or literal.datatype not in _OWL_RL_DATATYPES:
        return None
    try:
        AltXSDToPYTHON.get(literal.datatype, lambda v: v)(str(literal))
    except ValueError:
        return f"Lexical value of the literal '{literal!s}' does not match its datatype ({literal.datatype!s})"
    return None


def text_triples(triples: Iterable[ox.Triple | ox.Quad]) -> Iterator[TextTriple]:
    """Triples as the passes read them (``TextTriple``)."""
    for t in triples:
        yield str(t.subject), t.predicate.value, str(t.object)


def _parse_literal(key: str) -> ox.Literal:
    (triple,) = rdf_syntax.parse(f"<urn:s> <urn:p> {key} .", format=rdf_syntax.RdfFormat.N_TRIPLES)
    return triple.object  # type: ignore[return-value]


def _disjoint_message(c1: str, c2: str, node: str) -> str:
    return f"Disjoint classes {_plain(c1)} and {_plain(c2)} have a common individual {_plain(node)}"


def _plain(key: str) -> str:
    """``str()`` of the rdflib term for a node key (IRI text, blank node label, literal lexical form)."""
    if key[0] == "<":
        return key[1:-1]
    if key.startswith("_:"):
        return key[2:]
    return str(rdflib_literal(_parse_literal(key)))
