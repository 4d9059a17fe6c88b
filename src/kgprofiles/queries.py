"""Named queries loaded from ``queries/*.rq``; parameters bound as RDF terms, never pasted.

Each file starts with a comment header::

    # summary: What the query answers, in one line.
    # param: person person — the person (slug, CURIE or IRI)

A param line gives the variable name (without ``?``), its type and a description. Types: ``person``,
``organization``, ``topic`` (a slug in that namespace, a CURIE or an IRI), ``iri``, ``string``,
``integer``, ``decimal``. A type ending in ``?`` marks an optional parameter: left out, its variable stays unbound
(queries test it with ``BOUND``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pyoxigraph as ox

from kgprofiles.config import SearchPath, bundled, read_text, search_path
from kgprofiles.errors import QueryError
from kgprofiles.store.base import QueryResult, SelectResult, Store, Term
from kgprofiles.store.order_in_python import sorted_rows, split_order_by, without
from kgprofiles.vocab import PREFIXES, SLUG_NAMESPACES, XSD_NS

PARAM_TYPES = ("person", "organization", "topic", "iri", "string", "integer", "decimal")
_XSD_INTEGER = ox.NamedNode(XSD_NS + "integer")
_XSD_DECIMAL = ox.NamedNode(XSD_NS + "decimal")


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    description: str
    optional: bool = False


@dataclass(frozen=True)
class NamedQuery:
    """One query file: its name (the file stem), header and text."""

    name: str
    summary: str
    params: tuple[Param, ...]
    text: str
    path: Path

    def bind(self, values: Mapping[str, str | Term]) -> dict[str, Term]:
        """RDF terms for the given parameter values; every declared parameter is required."""
        declared = {p.name: p for p in self.params}
        unknown = sorted(set(values) - set(declared))
        if unknown:
            raise QueryError(
                f"query {self.name!r} has no parameter {', '.join(unknown)}",
                f"its parameters: {', '.join(declared) or 'none'}",
            )
        missing = [p.name for p in self.params if p.name not in values and not p.optional]
        if missing:
            raise QueryError(
                f"query {self.name!r} needs --param {missing[0]}=…",
                "; ".join(f"{p.name} ({p.type}): {p.description}" for p in self.params),
            )
        return {name: to_term(declared[name].type, value) for name, value in values.items()}

    def run(self, store: Store, values: Mapping[str, str | Term] | None = None) -> QueryResult:
        return store.query(self.text, self.bind(values or {}))

    def rows(
        self, store: Store, values: Mapping[str, str | Term] | None = None, *, ahead: bool = False
    ) -> Iterator[dict[str, Term]]:
        """The rows of this SELECT, read as they come (``Store.select_rows``; ``ahead``: evaluated
        from now on, beside the caller's other work)."""
        return store.select_rows(self.text, self.bind(values or {}), ahead=ahead)


def to_term(kind: str, value: str | Term) -> Term:
    """The RDF term for a parameter value of the given type."""
    if not isinstance(value, str):
        return value
    if kind in SLUG_NAMESPACES or kind == "iri":
        return ox.NamedNode(resolve_iri(value, SLUG_NAMESPACES.get(kind)))
    if kind == "integer":
        if not re.fullmatch(r"[+-]?\d+", value):
            raise QueryError(f"not a whole number: {value!r}")
        return ox.Literal(value, datatype=_XSD_INTEGER)
    if kind == "decimal":
        if not re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)", value):
            raise QueryError(f"not a decimal number: {value!r}")
        return ox.Literal(value, datatype=_XSD_DECIMAL)
    return ox.Literal(value)


def resolve_iri(value: str, namespace: str | None = None) -> str:
    """A full IRI from an IRI, ``<IRI>``, a CURIE with a project prefix, or a slug in ``namespace``."""
    value = value.strip()
    if value.startswith("<") and value.endswith(">"):
        value = value[1:-1]
    if re.match(r"^[a-z][a-z0-9+.-]*://", value, re.IGNORECASE) or value.startswith("urn:"):
        if any(c in value for c in ' <>"{}|^`\\'):
            raise QueryError(
                f"not a valid IRI: {value!r}", "give a slug, a CURIE (person:horace-he) or a whole IRI (https://…)"
            )
        return value
    prefix, colon, local = value.partition(":")
    if colon and prefix in PREFIXES:
        return PREFIXES[prefix] + local
    if namespace and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", value):
        return str(namespace) + value
    raise QueryError(f"cannot read {value!r} as an IRI", "give a slug, a CURIE such as person:horace-he, or an IRI")


_HEADER = re.compile(r"^#\s*(summary|param):\s*(.*)$")


def parse_query_file(path: Path) -> NamedQuery:
    text = read_text(path)
    summary = ""
    params = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        match = _HEADER.match(line)
        if not match:
            continue
        key, rest = match.groups()
        if key == "summary":
            summary = rest.strip()
        else:
            parts = re.match(r"(\w+)\s+(\w+)(\??)\s*(?:[—-]+\s*)?(.*)", rest)
            if not parts or parts.group(2) not in PARAM_TYPES:
                raise QueryError(
                    f"{path}: bad param line {line!r}",
                    f"write: # param: NAME TYPE — description; TYPE is one of {', '.join(PARAM_TYPES)}",
                )
            name, kind, optional, description = parts.groups()
            params.append(Param(name, kind, description.strip(), optional == "?"))
    if not summary:
        raise QueryError(f"{path}: no '# summary:' line in the header")
    return NamedQuery(path.stem, summary, tuple(params), text, path)


@lru_cache(maxsize=8)
def load_queries(queries_dir: Path | SearchPath) -> dict[str, NamedQuery]:
    """Every named query on ``queries_dir`` (a directory, or kgprofiles' own and a project's), by
    name, a project's file overriding kgprofiles' of the same name (read once a process)."""
    paths = search_path(queries_dir).files("*.rq")
    stamp = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in paths)
    return _parsed(stamp)


@lru_cache(maxsize=16)
def _parsed(stamp: tuple[tuple[str, int, int], ...]) -> dict[str, NamedQuery]:
    return {q.name: q for q in (parse_query_file(Path(name)) for name, _, _ in stamp)}


def get_query(queries_dir: Path | SearchPath, name: str) -> NamedQuery:
    return named(load_queries(queries_dir), name)


def named(queries: Mapping[str, NamedQuery], name: str) -> NamedQuery:
    """The query ``name`` of ``queries`` (a QueryError naming the known ones if there is none)."""
    if name not in queries:
        raise QueryError(f"no named query {name!r}", f"known queries: {', '.join(sorted(queries))}")
    return queries[name]


def whole_graph_form(queries: Mapping[str, NamedQuery], name: str) -> NamedQuery:
    """The query to ask for ``name``'s rows over the whole graph (none of its parameters bound):
    its whole-graph form ``<name>-whole.rq`` where there is one and ``name`` is kgprofiles' own
    query, else ``name`` itself. A whole-graph form gives the same rows with its joins written as
    subqueries, which the embedded engine joins by hash instead of looking each row's partner up
    (half the time or less over a big graph); it cannot be asked for a few bound items (a subquery
    does not see a binding made outside it), and a project's own ``<name>.rq`` is asked as it is."""
    query = named(queries, name)
    twin = queries.get(f"{name}-whole")
    if twin is None or not _is_bundled(query.path):
        return query
    return twin


@lru_cache(maxsize=256)
def _is_bundled(path: Path) -> bool:
    """Whether the query file at ``path`` is kgprofiles' own (once a file: resolving both paths
    took ~0.1 ms, on every whole-graph ``Views.select``)."""
    return path.resolve().parent == bundled("queries").resolve()


def select(store: Store, queries_dir: Path | SearchPath, name: str, **values: str | Term) -> SelectResult:
    """The rows of the named SELECT query ``name`` over ``store``: the one way views run queries."""
    return select_rows(store, get_query(queries_dir, name), values)


def select_rows(store: Store, query: NamedQuery, values: Mapping[str, str | Term]) -> SelectResult:
    """The rows of the SELECT query ``query`` over ``store``, its parameters bound to ``values``."""
    result = query.run(store, values)
    if not isinstance(result, SelectResult):
        raise QueryError(f"the named query {query.name!r} is not a SELECT query")
    return result


def select_sorted_here(store: Store, query: NamedQuery, values: Mapping[str, str | Term]) -> SelectResult:
    """``select_rows``, the query's final ORDER BY evaluated in Python where it can be
    (``store.order_in_python``: for whole-graph listings, whose sort the embedded engine makes
    slow); the same rows in the same order."""
    split = _split_order_by(query.text)
    if split is not None:
        text, keys, added = split
        result = store.query(text, query.bind(values))
        if isinstance(result, SelectResult):
            ordered = sorted_rows(result.rows, keys)
            if ordered is not None:
                return SelectResult(tuple(v for v in result.variables if v not in added), without(ordered, added))
    return select_rows(store, query, values)


_split_order_by = lru_cache(maxsize=64)(split_order_by)


def ask(store: Store, queries_dir: Path | SearchPath, name: str, **values: str | Term) -> bool:
    """The answer of the named ASK query ``name`` over ``store``."""
    result = get_query(queries_dir, name).run(store, values)
    if not isinstance(result, bool):
        raise QueryError(f"the named query {name!r} is not an ASK query")
    return result
