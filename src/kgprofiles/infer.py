"""OWL RL closure with owlrl → only the triples the ontology implies that were not asserted."""

from __future__ import annotations

from dataclasses import dataclass

import owlrl
from owlrl.Namespaces import ERRNS
from rdflib import Graph, Literal
from rdflib.namespace import OWL, RDF, RDFS

from kgprofiles.errors import ValidationFailed

#: Triples ``x P x`` for these predicates are true of everything and tell a reader nothing.
_REFLEXIVE_NOISE = {OWL.sameAs, RDFS.subClassOf, RDFS.subPropertyOf, OWL.equivalentClass, OWL.equivalentProperty}


@dataclass(frozen=True)
class Inference:
    """The new triples, and any inconsistency owlrl reported."""

    triples: Graph
    inconsistencies: tuple[str, ...]


def closure(data: Graph, ontology: Graph) -> Inference:
    """The OWL RL closure of ``data`` with ``ontology``, less what either asserts and less
    reflexive noise. Inconsistencies (e.g. a member of two disjoint classes) are returned, not raised."""
    full = Graph()
    full += ontology
    full += data
    # improved_datatypes=False: owlrl would otherwise register literal parsers in rdflib for the rest of
    # the process, and later validations would judge dates differently.
    owlrl.DeductiveClosure(
        owlrl.OWLRL_Semantics, improved_datatypes=False, axiomatic_triples=False, datatype_axioms=False
    ).expand(full)
    errors = []
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


def infer(data: Graph, ontology: Graph) -> Graph:
    """The new triples; an inconsistency is a ValidationFailed error that names it."""
    result = closure(data, ontology)
    if result.inconsistencies:
        raise ValidationFailed(
            "OWL RL inference found the data inconsistent with the ontology: " + "; ".join(result.inconsistencies),
            "fix the data so no individual belongs to disjoint classes or breaks a property axiom",
        )
    return result.triples
