"""The user-written SPARQL of the shapes (``sh:sparql`` constraints, already rewritten to run over
all focus nodes at once by ``fast.shapes_sparql``) evaluated on an in-memory copy of the triples
they can read.

Such a query is the one part of validation whose cost the shapes' author decides: a cartesian
product runs for hours, and Oxigraph cannot cancel a query. So the build runs them here, in a
child process (``kgprofiles.killable``) killed at the validation budget's deadline, while the
compiled core constraints run in the parent. The child reads the parsed data from the build's
spill file (N-Triples) instead of the store the parent is writing, keeps the triples the queries
can match (their predicates, and the types of their targets: ``Reach``), and answers the rows.

This module imports Oxigraph and nothing heavier, so the child starts in a few tens of
milliseconds.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import pyoxigraph as ox

from kgprofiles.budget import Budget, paced
from kgprofiles.store import engine, rdf_syntax
from kgprofiles.vocab import RDF_NS

Term = ox.NamedNode | ox.BlankNode | ox.Literal
Row = tuple[Term | None, ...]
RDF_TYPE = ox.NamedNode(RDF_NS + "type")
_COPY = ox.NamedNode("urn:kgprofiles:fast:footprint")


@dataclass(frozen=True)
class Reach:
    """What a query can match: triples with one of ``predicates`` (IRIs), and ``rdf:type``
    triples whose class is one of ``classes``."""

    predicates: frozenset[str]
    classes: frozenset[ox.NamedNode | ox.BlankNode]

    def keeps(self, triple: ox.Triple | ox.Quad) -> bool:
        return triple.predicate.value in self.predicates or (
            triple.predicate == RDF_TYPE and triple.object in self.classes
        )


@dataclass(frozen=True)
class SparqlRun:
    """One query to run: its text, the variables of a row, and what it can match (None: any triple)."""

    text: str
    names: tuple[str, ...]
    reach: Reach | None


@dataclass(frozen=True)
class TriplesSource:
    """The parsed data: an N-Triples (or N-Quads) file, or the triples themselves."""

    path: str | None = None
    triples: tuple[ox.Triple | ox.Quad, ...] = ()

    def estimated_triples(self) -> int:
        """How many triples the source holds (a file: about 150 bytes a triple)."""
        return os.path.getsize(self.path) // 150 if self.path is not None else len(self.triples)

    def __call__(self) -> Iterable[ox.Triple | ox.Quad]:
        if self.path is None:
            return self.triples
        fmt = rdf_syntax.RdfFormat.N_QUADS if self.path.endswith(".nq") else rdf_syntax.RdfFormat.N_TRIPLES
        return rdf_syntax.parse(path=self.path, format=fmt, lenient=True)


def run_queries(
    runs: Sequence[SparqlRun],
    data: TriplesSource,
    ontology: Sequence[ox.Triple],
    budget: Budget | None = None,
) -> list[list[Row]]:
    """The rows of each run, in order, over one in-memory store holding what any of them can
    match of ``data`` and ``ontology`` (more triples of the same data never change an answer).
    ``budget``: checked while copying and between queries and rows."""
    if not runs:
        return []
    store = engine.scratch()
    reaches = [run.reach for run in runs]
    everything = itertools.chain(data(), ontology)
    if any(reach is None for reach in reaches):
        kept: Iterable[ox.Triple | ox.Quad] = everything
    else:
        union = Reach(
            frozenset().union(*(r.predicates for r in reaches)),  # type: ignore[union-attr]
            frozenset().union(*(r.classes for r in reaches)),  # type: ignore[union-attr]
        )
        kept = (t for t in everything if union.keeps(t))
    store.bulk_extend(_quads(paced(budget, kept)))
    answers = []
    for run in runs:
        if budget is not None:
            budget.check_time("running the sh:sparql constraints")
        solutions = store.query(run.text, use_default_graph_as_union=True)
        rows = (tuple(solution[name] for name in run.names) for solution in solutions)  # type: ignore[union-attr]
        answers.append(list(paced(budget, rows)))
    return answers


def _quads(triples: Iterable[ox.Triple | ox.Quad]) -> Iterator[ox.Quad]:
    for t in triples:
        yield ox.Quad(t.subject, t.predicate, t.object, _COPY)
