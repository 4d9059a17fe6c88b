"""``kgprofiles load`` of a few changed files, validated and inferred from what they touch only.

The reference ``load`` validates the changed files' focus nodes against all the data (the store's
other file graphs plus the new files) and recomputes the whole inferred graph. Here:

- **Validation**: the focus nodes are the subjects of the new files (as ``validate_files`` locates
  them). ``reach`` collects every triple their validation can read, from the store's other file
  graphs and from the new files; the compiled shapes run on that small neighbourhood (with the
  ontology) in memory, and only results located in the new files are kept, as the reference does.
- **Inference**: an inferred triple can only change if one of its derivations uses a triple the
  load adds or removes (or if it is one of them). Those triples have both ends among the nodes of
  the changed triples, their owl:sameAs classes and the ends of property-chain paths through any
  of them, with those ends' classes in turn (``touched``: a chain may run through another name of
  a class). The closure is computed on the data around those nodes (their out-edges, one in-edge
  per predicate for the types it implies, chain paths, sameAs classes) and compared, on the
  touched triples only, with the stored inferred graph: the difference is the patch.

The data after the load is read through ``load_view.DataView``, whose look-ups cost what their
answers cost, so a load of N files takes time in N, not N squared.

Anything the patch cannot decide alone (a datatype coming into or going out of use, which changes
owlrl's datatype disjointness axioms for the whole graph; the rules falling back to owlrl) makes
``LoadPlan.full_inference`` true, with the reason in ``notes``.
"""

from __future__ import annotations

import io
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import pyoxigraph as ox
from owlrl.XsdDatatypes import OWL_Datatype_Subsumptions
from rdflib import Graph, URIRef

from kgprofiles.budget import Budget, BudgetExceeded
from kgprofiles.fast.linear import Closure, text_triples
from kgprofiles.fast.literals import XSD_STRING, rdflib_form
from kgprofiles.fast.load_view import DataView, stored_forms
from kgprofiles.fast.reach import neighbourhood, plan_edges
from kgprofiles.fast.rules import RulesPlan, compile_rules, nt
from kgprofiles.fast.validation import compile_shapes, validate_triples
from kgprofiles.ingest import SourceFile
from kgprofiles.store import engine, rdf_syntax
from kgprofiles.validate import ValidationReport, locate_subjects
from kgprofiles.vocab import FILE_GRAPH_PREFIX, INFERRED_GRAPH, OWL_NS, RDF_NS

Term = ox.NamedNode | ox.BlankNode | ox.Literal
DISJOINT = ox.NamedNode(OWL_NS + "disjointWith")
SAME_AS = ox.NamedNode(OWL_NS + "sameAs")
RDF_TYPE = ox.NamedNode(RDF_NS + "type")


@dataclass
class LoadPlan:
    """What loading the files means: the validation report, and the patch of the inferred graph
    (unless ``full_inference``: then the inferred graph must be recomputed, notes say why)."""

    report: ValidationReport
    inferred_remove: list[ox.Triple] = field(default_factory=list)
    inferred_add: list[ox.Triple] = field(default_factory=list)
    inconsistencies: tuple[str, ...] = ()
    full_inference: bool = False
    notes: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)


def plan_load(
    store: object,
    files: Sequence[SourceFile],
    shapes: Graph,
    ontology: Graph,
    *,
    inferred_graph: str = INFERRED_GRAPH,
    prefix: str = FILE_GRAPH_PREFIX,
    validation_budget: Budget | None = None,
    inference_budget: Budget | None = None,
) -> LoadPlan:
    """What loading ``files`` (parsed, each replacing its graph) into the built ``store`` means.
    The store is only read. Apply the plan in one transaction: replace the files' graphs, delete
    ``inferred_remove`` from and insert ``inferred_add`` into the inferred graph. The budgets:
    see ``validate_store`` and ``Closure``."""
    started = time.perf_counter()
    view = DataView(engine.patterns_of(store), files, prefix)
    plan = LoadPlan(ValidationReport((), tuple(f.display for f in files)))
    plan.report = _validate(view, files, shapes, ontology, plan.notes, validation_budget)
    plan.seconds["validate"] = time.perf_counter() - started
    middle = time.perf_counter()
    _infer(view, ontology, ox.NamedNode(inferred_graph), plan, inference_budget)
    plan.seconds["infer"] = time.perf_counter() - middle
    plan.seconds["total"] = time.perf_counter() - started
    return plan


def _validate(
    view: DataView,
    files: Sequence[SourceFile],
    shapes: Graph,
    ontology: Graph,
    notes: list[str],
    budget: Budget | None,
) -> ValidationReport:
    locate = locate_subjects(files)
    focus: list[Term] = [ox.BlankNode(k[2:]) if k.startswith("_:") else ox.NamedNode(k) for k in locate]
    reach = plan_edges(compile_shapes(shapes))
    triples = neighbourhood(reach.edges, focus, view.fetch_raw)
    triples.update(view.raw.triples)
    if reach.unscoped:
        notes.extend(f"validated on all the data: {name}: {why}" for name, why in reach.unscoped.items())
        triples.update(view.fetch_raw(None, None, None))
    result = validate_triples(
        sorted(triples, key=str), shapes, ontology, locate=locate, files=[f.display for f in files], budget=budget
    )
    notes.extend(result.notes)
    kept = tuple(r for r in result.report.results if r.file)
    return ValidationReport(kept, result.report.files)


# -- inference ----------------------------------------------------------------------------------


def _infer(view: DataView, ontology: Graph, inferred: ox.NamedNode, plan: LoadPlan, budget: Budget | None) -> None:
    rules = compile_rules(ontology, budget)
    if rules.unsupported:
        plan.full_inference = True
        plan.notes.extend(f"owlrl: {r}" for r in rules.unsupported)
        return
    old = set(view.old.triples)
    new = set(view.new_triples)
    removed = {t for t in old - new if not view.elsewhere(t)}
    added = {t for t in new - old if not view.elsewhere(t)}
    changed = removed | added
    if not changed:
        return
    used = _datatypes_in_use(view, rules, removed, added, inferred, plan)
    if used is None:
        plan.full_inference = True
        return
    touched, linked = _touched(view, rules, changed)
    local = _local_data(view, rules, touched, linked)
    sink = io.StringIO()
    # The local closure may produce what build allows a closure, counted on its own data and the
    # ontology (the store's size is not known without reading all of it). More (owl:sameAs classes
    # of thousands of nodes: n² triples, minutes and gigabytes of a one-file load, where build
    # stops at once): the load infers in full, under build's own budget.
    counted = budget.counting(len(local) + len(ontology)) if budget is not None else None
    try:
        result = Closure(rules, lambda: text_triples(local), sink, used_datatypes=used, budget=counted).run()
    except BudgetExceeded:
        if counted is None or counted.remaining() == 0:
            raise  # (out of time)
        plan.full_inference = True
        plan.notes.append(f"the local closure produced more than {counted.max_triples:,} triples: inferred in full")
        return
    if result.unsupported:
        plan.full_inference = True
        plan.notes.extend(f"owlrl: {r}" for r in result.unsupported)
        return
    parsed = rdf_syntax.parse(sink.getvalue(), format=rdf_syntax.RdfFormat.N_TRIPLES)
    derived = stored_forms(_may_touch(parsed, touched, linked))
    after = {t for t in derived if _touches(t, touched, linked)}
    before = {
        q.triple
        for node in touched
        if not isinstance(node, ox.Literal)
        for q in view.store.quads_for_pattern(node, None, None, inferred)
        if _touches(q.triple, touched, linked)
    }
    for node in linked:
        before |= {q.triple for q in view.store.quads_for_pattern(None, None, node, inferred)}
    plan.inferred_remove = sorted(before - after, key=str)
    plan.inferred_add = sorted(after - before, key=str)
    plan.inconsistencies = result.inconsistencies


def _touches(t: ox.Triple, touched: set[Term], linked: set[Term]) -> bool:
    """Whether an inferred triple may change: both ends touched (or a type of a touched node), or
    either end in an owl:sameAs class around the change (every triple of those is copied)."""
    if t.subject in linked or t.object in linked:
        return True
    if t.subject not in touched:
        return False
    return t.predicate == RDF_TYPE or t.object in touched


def _may_touch(quads: Iterable[ox.Quad], touched: set[Term], linked: set[Term]) -> Iterator[ox.Quad]:
    """The quads ``_touches`` may keep once their literals are in stored form (only a literal's
    form changes: a node is the same in either)."""
    for q in quads:
        if q.subject in touched or q.object in linked or (linked and isinstance(q.object, ox.Literal)):
            yield q


def _touched(view: DataView, rules: RulesPlan, changed: set[ox.Triple]) -> tuple[set[Term], set[Term]]:
    """The nodes of the changed triples (objects of rdf:type excepted), their owl:sameAs classes,
    and the ends of the property-chain paths through any of them, with those ends' classes in
    turn, before and after the load; and, apart, the nodes of those classes.

    A chain's links may be copies owl:sameAs makes: with ``p0 sameAs Q42`` loaded beside
    ``p1 sameAs Q42``, ``p0 contributor p2`` and ``p1 work w0`` derive ``p2 authorOf w0``. So
    each step of the chain walk starts from the classes of the nodes it reached, not only from
    the nodes themselves (walking first and adding classes at the end missed ``w0``)."""
    nodes: set[Term] = set()
    for t in changed:
        nodes.add(t.subject)  # type: ignore[arg-type]
        if t.predicate != RDF_TYPE:
            nodes.add(t.object)  # type: ignore[arg-type]
    linked = _same_as_classes(view, nodes)
    nodes |= linked
    elements = _chain_predicates(rules)
    depth = max((len(es) for _, es in rules.chains), default=0) if elements else 0
    frontier = set(nodes)
    for _ in range(depth):
        step: set[Term] = set()
        for n in frontier:
            if isinstance(n, ox.Literal):
                continue
            for p in elements:
                for t in view.fetch(n, p, None) + view.fetch_old(n, p, None):
                    step.add(t.object)  # type: ignore[arg-type]
                for t in view.fetch(None, p, n) + view.fetch_old(None, p, n):
                    step.add(t.subject)  # type: ignore[arg-type]
        step -= nodes
        classes = _same_as_classes(view, step)
        linked |= classes
        frontier = (step | classes) - nodes
        nodes |= frontier
    return nodes, linked


def _same_as_classes(view: DataView, seeds: Iterable[Term]) -> set[Term]:
    """Every node of the owl:sameAs classes of ``seeds``, before and after the load (a seed with
    no link before or after is in none). A literal is followed too, as an object (``x owl:sameAs
    "v"``): removing ``y p "v"`` takes away what owlrl derived through x (found by Hypothesis:
    ``test_fast_load``); such a link is not compiled, so the load then recomputes in full."""
    linked: set[Term] = set()
    todo = list(seeds)
    seen = set(todo)
    while todo:
        n = todo.pop()
        links = view.fetch(None, SAME_AS, n) + view.fetch_old(None, SAME_AS, n)
        if not isinstance(n, ox.Literal):
            links += view.fetch(n, SAME_AS, None) + view.fetch_old(n, SAME_AS, None)
        for t in links:
            for m in (t.subject, t.object):
                linked.add(m)  # type: ignore[arg-type]
                if m not in seen:
                    seen.add(m)  # type: ignore[arg-type]
                    todo.append(m)  # type: ignore[arg-type]
    return linked


def _same_as_links(view: DataView, nodes: set[Term]) -> list[ox.Triple]:
    """The owl:sameAs triples of the classes of ``nodes`` after the load."""
    found: dict[ox.Triple, None] = {}
    seen = set(nodes)
    todo = [n for n in nodes if not isinstance(n, ox.Literal)]
    while todo:
        n = todo.pop()
        for t in view.fetch(n, SAME_AS, None) + view.fetch(None, SAME_AS, n):
            found[t] = None
            for m in (t.subject, t.object):
                if m not in seen:
                    seen.add(m)  # type: ignore[arg-type]
                    if not isinstance(m, ox.Literal):
                        todo.append(m)  # type: ignore[arg-type]
    return list(found)


def _chain_predicates(rules: RulesPlan) -> list[ox.NamedNode]:
    """The data predicates whose triples are (or imply) links of a property chain."""
    elements = {e for _, es in rules.chains for e in es}
    found = set()
    for p in {*rules.subproperties, *rules.inverses, *rules.domains, *rules.ranges}:
        if p.startswith("<") and {q for q, _ in rules.closure_of(p)} & elements:
            found.add(ox.NamedNode(p[1:-1]))
    return sorted(found, key=str)


def _local_data(view: DataView, rules: RulesPlan, touched: set[Term], linked: set[Term]) -> list[ox.Triple]:
    """Enough of the data after the load to derive every inferred triple about ``touched``: their
    out-edges, what types them, their chain links, and the out-edges of a link's other end where
    a chain may pass through it from one touched node to another.

    With chains of two links and no owl:sameAs in the data, a chain between touched nodes passes
    through a middle node by two links each of which has a touched node at its other end (the
    compiled rules derive links only from links: sub- and inverse properties, chains; a type
    makes none); so only the ends of two or more such links are read. At 100,000 people a
    person's file reached an award's 833 receipts this way, each read for nothing (0.3 s of a
    1.1 s load). Else (longer chains, sameAs) every end is read, as the walk of ``_touched``
    assumes."""
    triples: dict[ox.Triple, None] = {}
    for node in linked:
        triples.update(dict.fromkeys(view.fetch(None, None, node)))
    if linked:
        # Every triple at a sameAs-linked node is copied to the other names of its other end too.
        around = {t.subject for t in triples} | {
            t.object for n in linked if not isinstance(n, ox.Literal) for t in view.fetch(n, None, None)
        }
        for link in _same_as_links(view, around):  # type: ignore[arg-type]
            triples[link] = None
    typing = {p for p in _typing_predicates(rules) if view.may_use(p)}
    elements = set(_chain_predicates(rules))
    out_edges: dict[Term, list[ox.Triple]] = {}

    def out(node: Term) -> list[ox.Triple]:  # a node's out-edges, read once
        found = out_edges.get(node)
        if found is None:
            found = out_edges[node] = [] if isinstance(node, ox.Literal) else view.fetch(node, None, None)
        return found

    links: dict[ox.Triple, Term] = {}  # each chain link of a touched node: the node at its other end
    for node in touched:
        mine = out(node)
        triples.update(dict.fromkeys(mine))
        triples.update(dict.fromkeys(view.first_into(node, typing)))
        if isinstance(node, ox.Literal) or not elements:
            continue
        for p in elements:  # chain links into the node
            for t in view.fetch(None, p, node):
                triples[t] = None
                links[t] = t.subject  # type: ignore[assignment]
        for t in mine:  # chain links out of the node
            if t.predicate in elements:
                links[t] = t.object  # type: ignore[assignment]
    longest = max((len(es) for _, es in rules.chains), default=0)
    every_end = bool(linked) or longest > 2 or view.may_use(SAME_AS)
    for end, count in Counter(links.values()).items():  # the out-edges of the links' other ends
        if every_end or count > 1:
            triples.update(dict.fromkeys(out(end)))
    return list(triples)


def _typing_predicates(rules: RulesPlan) -> list[ox.NamedNode]:
    """The predicates whose triples type their object (a range, or one implied)."""
    return sorted(
        (
            ox.NamedNode(p[1:-1])
            for p in {*rules.subproperties, *rules.inverses, *rules.domains, *rules.ranges}
            if p.startswith("<") and rules.rules_for(p).object_types
        ),
        key=str,
    )


def _datatypes_in_use(
    view: DataView,
    rules: RulesPlan,
    removed: set[ox.Triple],
    added: set[ox.Triple],
    inferred: ox.NamedNode,
    plan: LoadPlan,
) -> set[str] | None:
    """The datatypes owlrl's disjointness axioms are about that the data uses, if the load does
    not change them (read from the stored axioms); None, with a note, if it might."""
    table = {x for pair in rules.datatype_disjointness for x in pair}
    in_use = set()
    for q in view.store.quads_for_pattern(None, DISJOINT, None, inferred):
        in_use |= {str(q.subject), str(q.object)}
    in_use &= table

    def datatypes(t: ox.Triple) -> set[str]:
        return _datatype_keys(t.object) & table if isinstance(t.object, ox.Literal) else set()

    for t in added:
        for d in datatypes(t):
            if d not in in_use:
                plan.notes.append(f"inferred graph recomputed in full: {d} may come into use")
                return None
    going = {(t.predicate, d) for t in removed for d in datatypes(t)}  # each asked once
    new_keys = {d for t in view.new_triples if isinstance(t.object, ox.Literal) for d in _datatype_keys(t.object)}
    for predicate, d in sorted(going, key=str):
        if d not in new_keys and not _still_used(view, predicate, d):
            plan.notes.append(f"inferred graph recomputed in full: {d} may go out of use")
            return None
    return in_use


def _still_used(view: DataView, predicate: ox.NamedNode, datatype: str) -> bool:
    """Whether some literal of ``datatype`` (or a subtype rdflib keeps as it) remains in the kept
    file graphs, looking among the objects of the same predicate (found at once in practice)."""
    return any(
        isinstance(t.object, ox.Literal) and datatype in _datatype_keys(t.object)
        for t in view.kept_triples(None, predicate, None)
    )


def _datatype_keys(literal: ox.Literal) -> set[str]:
    """The datatype rdflib gives the literal, and the ones owlrl's subsumptions add."""
    view_form = rdflib_form(literal)
    if view_form.language or view_form.datatype.value == XSD_STRING:
        return set()
    keys = {str(view_form.datatype)}
    keys |= {nt(d) for d in OWL_Datatype_Subsumptions.get(URIRef(view_form.datatype.value), ())}
    return keys
