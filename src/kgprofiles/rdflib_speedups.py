"""Two things rdflib does again each time owlrl and pyshacl (the reference engines) ask, done once.

**Vocabulary terms** (``settle_terms``): rdflib's ``DefinedNamespace`` classes make each term on
demand: ``OWL.sameAs`` misses the class, falls to the metaclass's ``__getattr__``, checks the name
against the vocabulary and builds the ``URIRef`` (rdflib caches that last step since
RDFLib/rdflib#1717, not the rest). owlrl reads these terms in every rule for every triple; with
RDF's, RDFS's, OWL's and XSD's terms settled as plain class attributes, owlrl's closure of the seed
data takes ~40% less CPU. The value read is the ``URIRef`` rdflib would make; names a vocabulary
does not define still go to rdflib (and warn or fail as it says).

**SPARQL text** (``prepare_queries_once``): pyshacl hands rdflib the text of a SHACL-SPARQL
constraint (and of its own lookups) for every focus node, and rdflib parses and translates it
every time (pyparsing: ~60% of a validation of the seed data). rdflib's own prepared queries
(``prepareQuery``: the parsed, translated query, evaluated again with other ``initBindings``) are
made for this; its SPARQL processor now keeps the last ``PREPARED_KEPT`` it made, by text, base
and namespaces. pyshacl's report on the seed data: 0.37–0.71 → 0.09 s CPU, the same results.

Both are process-wide, idempotent, and change no answer (``bench/RESULTS.md``, 2026-12-06 06:58–09:35).

>>> from rdflib.namespace import OWL
>>> settle_terms()
>>> "sameAs" in vars(OWL), OWL.sameAs == OWL._NS["sameAs"], type(OWL.sameAs).__name__
(True, True, 'URIRef')
>>> from rdflib import Graph
>>> prepare_queries_once()
>>> g = Graph().parse(data="<urn:a> <urn:p> 1 .", format="turtle")
>>> [row.o.toPython() for row in g.query("SELECT ?o WHERE { ?s <urn:p> ?o }")] * 2 == [
...     row.o.toPython() for q in range(2) for row in g.query("SELECT ?o WHERE { ?s <urn:p> ?o }")]
True
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from rdflib.namespace import OWL, RDF, RDFS, XSD, DefinedNamespace

if TYPE_CHECKING:
    from rdflib.plugins.sparql.sparql import Query

_SETTLED: tuple[type[DefinedNamespace], ...] = (RDF, RDFS, OWL, XSD)

#: Prepared queries kept (a SHACL shapes graph has tens of SPARQL texts; a user's own rdflib
#: queries in the same process take their turn).
PREPARED_KEPT = 256


def settle_terms() -> None:
    """Set each term of ``_SETTLED`` as a class attribute (once; again is harmless). A name the class
    already answers without rdflib's lookup (an attribute of its own) is left to it."""
    for namespace in _SETTLED:
        for name in getattr(namespace, "__annotations__", {}):
            if name.startswith("_"):
                continue
            try:
                type.__getattribute__(namespace, name)
                continue  # already a plain attribute (settled, or the class's own)
            except AttributeError:
                pass
            type.__setattr__(namespace, name, namespace._NS[name])


@lru_cache(maxsize=PREPARED_KEPT)
def _prepared(text: str, base: str | None, namespaces: tuple[tuple[str, Any], ...]) -> Query:
    """What ``rdflib.plugins.sparql.prepareQuery`` makes of ``text`` (errors are not kept)."""
    from rdflib.plugins.sparql.algebra import translateQuery
    from rdflib.plugins.sparql.parser import parseQuery

    return translateQuery(parseQuery(text), base, dict(namespaces))


def prepare_queries_once() -> None:
    """Make rdflib's SPARQL processor take each query text it is given to ``_prepared`` (once).
    Imports rdflib's SPARQL parser (~0.1 s): called where pyshacl runs, not at import."""
    from rdflib.plugins.sparql.processor import SPARQLProcessor

    if getattr(SPARQLProcessor.query, "_prepares_once", False):
        return
    evaluate = SPARQLProcessor.query

    def query(
        self: Any,
        strOrQuery: str | Query,
        initBindings: Mapping[str, Any] | None = None,
        initNs: Mapping[str, Any] | None = None,
        base: str | None = None,
        DEBUG: bool = False,
    ) -> Mapping[str, Any]:
        if isinstance(strOrQuery, str):
            # (a namespace mapping that cannot be a key: parsed as rdflib does, each time)
            with contextlib.suppress(TypeError):
                strOrQuery = _prepared(strOrQuery, base, tuple(sorted((initNs or {}).items())))
        return evaluate(self, strOrQuery, initBindings, initNs, base, DEBUG)

    query._prepares_once = True  # type: ignore[attr-defined]
    SPARQLProcessor.query = query  # type: ignore[method-assign]
