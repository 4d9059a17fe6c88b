"""OWL RL closure with owlrl → only the triples the ontology implies that were not asserted.

With a budget, owlrl runs in a child process killed at the budget's deadline, and counts the
triples it adds against the budget's allowance as the closure grows (``BudgetExceeded``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import owlrl
from owlrl.DatatypeHandling import AltXSDToPYTHON
from owlrl.Namespaces import ERRNS
from rdflib import Graph, Literal
from rdflib.namespace import OWL, RDF, RDFS

from kgprofiles.budget import Budget
from kgprofiles.rdflib_speedups import settle_terms

settle_terms()  # owlrl reads rdflib's terms in every rule: ~40% of its CPU went to making them


def _lexical_failures_as_value_errors() -> None:
    """owlrl's dt-not-type rule (and ``fast.linear.ill_typed``, which gives its message) takes a
    literal as ill-typed when its datatype's converter raises a ValueError; a few converters fail
    otherwise on a bad lexical form (``"abc"^^xsd:decimal``: decimal.InvalidOperation, an
    ArithmeticError; ``""^^xsd:date`` or ``""^^xsd:dateTime``: IndexError), and that ended
    validate, build and load as an internal error. Every failure of a converter is now a ValueError
    (owlrl's table, changed in place once for the process)."""
    for datatype, convert in list(AltXSDToPYTHON.items()):
        if not getattr(convert, "_any_failure_a_value_error", False):
            AltXSDToPYTHON[datatype] = _value_errors_only(convert)


def _value_errors_only(convert: Callable[[str], Any]) -> Callable[[str], Any]:
    def checked(lexical: str) -> Any:
        try:
            return convert(lexical)
        except ValueError:
            raise
        except Exception as exc:
            raise ValueError(f"not a valid lexical form: {lexical!r}") from exc

    checked._any_failure_a_value_error = True  # type: ignore[attr-defined]
    return checked


_lexical_failures_as_value_errors()

#: Triples ``x P x`` for these predicates are true of everything and tell a reader nothing.
_REFLEXIVE_NOISE = {OWL.sameAs, RDFS.subClassOf, RDFS.subPropertyOf, OWL.equivalentClass, OWL.equivalentProperty}


@dataclass(frozen=True)
class Inference:
    """The new triples, and any inconsistency owlrl reported."""

    triples: Graph
    inconsistencies: tuple[str, ...]


def closure(data: Graph, ontology: Graph, budget: Budget | None = None) -> Inference:
    """The OWL RL closure of ``data`` with ``ontology``, less what either asserts and less
    reflexive noise. Inconsistencies (e.g. a member of two disjoint classes) are returned, not raised.
    With a ``budget``, in a child process killed at its deadline (see ``closure_in_process``)."""
    if budget is None:
        return closure_in_process(data, ontology)
    from kgprofiles.killable import run_killable

    return run_killable(closure_in_process, (data, ontology, budget), budget, "owlrl")


def closure_in_process(data: Graph, ontology: Graph, budget: Budget | None = None) -> Inference:
    """``closure`` in this process; with a ``budget``, owlrl looks at the clock every few
    thousand rule applications and counts the triples it adds against the allowance."""
    full = Graph(store="SimpleMemory")  # no contexts to keep: ~30% less CPU than rdflib's default store
    full += ontology
    full += data
    # improved_datatypes=False: owlrl would otherwise register literal parsers in rdflib for the rest of
    # the process, and later validations would judge dates differently.
    semantics = owlrl.OWLRL_Semantics if budget is None else _budgeted(budget)
    owlrl.DeductiveClosure(semantics, improved_datatypes=False, axiomatic_triples=False, datatype_axioms=False).expand(
        full
    )
    errors: list[str] = []
    for node in full.subjects(RDF.type, ERRNS.ErrorMessage):
        errors.extend(str(m) for m in full.objects(node, ERRNS.error))
    new = Graph()
    for s, p, o in full:
        if isinstance(s, Literal) or p == ERRNS.error or (p == RDF.type and o == ERRNS.ErrorMessage):
            continue
        if s == o and p in _REFLEXIVE_NOISE:
            continue
        if (s, p, o) in data or (s, p, o) in ontology:
            continue
        new.add((s, p, o))
    return Inference(new, tuple(sorted(errors)))


def _budgeted(budget: Budget) -> type[owlrl.OWLRL_Semantics]:
    """owlrl's OWL RL rules, checking ``budget`` as the closure grows."""

    class Budgeted(owlrl.OWLRL_Semantics):  # type: ignore[misc]
        _earlier = 0  # triples added in the cycles before this one
        _applied = 0

        def empty_stored_triples(self) -> None:
            self._earlier += len(getattr(self, "added_triples", ()))
            super().empty_stored_triples()

        def store_triple(self, t: tuple[object, object, object]) -> None:
            before = len(self.added_triples)
            super().store_triple(t)
            if len(self.added_triples) != before:
                budget.check_triples(self._earlier + len(self.added_triples))

        def rules(self, t: tuple[object, object, object], cycle_num: int) -> None:
            self._applied += 1
            if not self._applied % 1024:
                budget.check_time("computing the OWL RL closure with owlrl")
            super().rules(t, cycle_num)

    return Budgeted
