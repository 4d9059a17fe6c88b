"""The one Store contract both backends implement, and the result types they return."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import BinaryIO, Protocol, Union, runtime_checkable

import pyoxigraph as ox

from kgprofiles.vocab import XSD_NS

Term = Union[ox.NamedNode, ox.BlankNode, ox.Literal]  # noqa: UP007
_XSD_STRING = XSD_NS + "string"


@dataclass(frozen=True)
class SelectResult:
    """Rows of a SELECT query: variable names in projection order, and one dict per row
    (unbound variables are absent from the row). ``capped_at``: the server cut the answer at
    this many rows (only ever set on a user's query passed on as the server answered it;
    every other read is complete)."""

    variables: tuple[str, ...]
    rows: tuple[dict[str, Term], ...]
    capped_at: int | None = None

    def __iter__(self) -> Iterator[dict[str, Term]]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def to_json(self) -> bytes:
        """SPARQL 1.1 Query Results JSON."""
        bindings = [{name: _json_term(value) for name, value in row.items()} for row in self.rows]
        doc = {"head": {"vars": list(self.variables)}, "results": {"bindings": bindings}}
        return json.dumps(doc, ensure_ascii=False).encode("utf-8")

    def serialize(self, fmt: ox.QueryResultsFormat) -> bytes:
        """The rows in a SPARQL 1.1 results format (JSON, XML, CSV or TSV)."""
        if fmt == ox.QueryResultsFormat.JSON:
            return self.to_json()
        parsed = ox.parse_query_results(self.to_json(), format=ox.QueryResultsFormat.JSON)
        return parsed.serialize(format=fmt)  # type: ignore[union-attr, return-value]

    @classmethod
    def from_solutions(cls, solutions: ox.QuerySolutions) -> SelectResult:
        names = tuple(v.value for v in solutions.variables)
        return cls(names, tuple(solution_rows(solutions, names)))


def solution_rows(solutions: ox.QuerySolutions, names: tuple[str, ...]) -> Iterator[dict[str, Term]]:
    """Each solution as a dict of its bound variables, lazily (callers may stop early)."""
    # a solution iterates its values in the order of ``solutions.variables`` (None where unbound):
    # zipping them is twice as fast as looking each name up
    for solution in solutions:
        yield {name: value for name, value in zip(names, solution, strict=True) if value is not None}


def _json_term(term: Term) -> dict[str, str]:
    if isinstance(term, ox.NamedNode):
        return {"type": "uri", "value": term.value}
    if isinstance(term, ox.BlankNode):
        return {"type": "bnode", "value": term.value}
    out = {"type": "literal", "value": term.value}
    if term.language:
        out["xml:lang"] = term.language
    elif term.datatype.value != _XSD_STRING:
        out["datatype"] = term.datatype.value
    return out


class GraphResult(list[ox.Triple]):
    """The triples of a CONSTRUCT or DESCRIBE read from a server that may cut answers;
    ``capped_at`` as for SelectResult (a list: every caller reads it as the triples it is)."""

    def __init__(self, triples: Iterable[ox.Triple] = (), *, capped_at: int | None = None) -> None:
        super().__init__(triples)
        self.capped_at = capped_at


QueryResult = Union[SelectResult, bool, list[ox.Triple]]  # noqa: UP007
#: A change of one graph by difference, for ``Store.replace_graphs``: (graph, remove, add).
Patch = tuple[str, Sequence[ox.Triple], Sequence[ox.Triple]]


@runtime_checkable
class Store(Protocol):
    """What kgprofiles needs from a quad store. Queries see the union of all named graphs as
    their default graph. Every write is atomic: it happens whole or not at all."""

    #: Whether queries may use ``LATERAL`` (SEP-0006, not SPARQL 1.1): ``binding.bind_each``.
    lateral: bool

    def query(self, sparql: str, bindings: Mapping[str, Term] | None = None) -> QueryResult:
        """Run SELECT, ASK, CONSTRUCT or DESCRIBE. ``bindings`` binds variables (without ``?``)
        to RDF terms before evaluation; they are never pasted into the text. The project's
        prefixes are predeclared. A malformed query raises QueryError with line and column."""
        ...

    def select_rows(
        self, sparql: str, bindings: Mapping[str, Term] | None = None, *, ahead: bool = False
    ) -> Iterator[dict[str, Term]]:
        """The rows of a SELECT (as ``query`` gives them), read as they come where the backend
        can: for reading a whole-graph answer without holding all of it at once. ``ahead``: start
        evaluating now, beside the caller's other work, where the backend can (the embedded
        store: ``rows_ahead.py``); the same rows either way."""
        ...

    def update(self, sparql: str, base_iri: str | None = None) -> None:
        """Run a SPARQL 1.1 Update, as one transaction; relative IRIs resolve against ``base_iri``."""
        ...

    def replace_graphs(
        self,
        graphs: Mapping[str, Iterable[ox.Triple]],
        drop: Iterable[str] = (),
        *,
        patch: Patch | None = None,
    ) -> None:
        """Replace each named graph with the given triples and drop the ``drop`` graphs, all in
        one transaction (remote: staged, then moved by one update); ``patch`` (graph, remove,
        add; no blank nodes) changes one more graph by difference in the same write."""
        ...

    def replace_graph(self, graph: str, triples: Iterable[ox.Triple]) -> None:
        """Load or replace one named graph."""
        ...

    def drop_graph(self, graph: str) -> None:
        """Remove one named graph (no error if absent)."""
        ...

    def graphs(self) -> list[str]:
        """The named graphs, sorted."""
        ...

    def quads(self, graph: str | None = None) -> Iterator[ox.Quad]:
        """Every quad, or those of one named graph."""
        ...

    def quads_for_pattern(
        self,
        subject: ox.NamedNode | ox.BlankNode | ox.Triple | None,
        predicate: ox.NamedNode | None,
        object: Term | ox.Triple | None,
        graph_name: ox.NamedNode | None = None,
    ) -> Iterator[ox.Quad]:
        """The quads matching a pattern (None: any; any graph but a write's own staging graphs),
        as pyoxigraph's ``Store.quads_for_pattern``; read lazily where the backend can."""
        ...

    def dump(self, fmt: ox.RdfFormat) -> bytes:
        """The whole dataset (N-Quads, TriG) or the union of graphs (Turtle, N-Triples), as the
        backend serialises it."""
        ...

    def dump_to(self, output: str | os.PathLike[str] | BinaryIO, fmt: ox.RdfFormat) -> None:
        """``dump`` into the file at ``output`` (a path, or a binary file such as standard
        output): the same bytes, without holding them all in memory where the backend can."""
        ...

    def close(self) -> None:
        """Release files and connections."""
        ...
