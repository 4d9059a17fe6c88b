"""rdflib's RDF, RDFS, OWL and XSD terms as plain class attributes, so that reading one (``OWL.sameAs``)
is a dictionary lookup, not a call.

rdflib's ``DefinedNamespace`` classes make each term on demand: ``OWL.sameAs`` misses the class,
falls to the metaclass's ``__getattr__``, checks the name against the vocabulary and builds the
``URIRef`` (rdflib caches that last step since RDFLib/rdflib#1717, not the rest). owlrl reads these
terms hundreds of thousands of times a closure, in every rule for every triple: with the terms
settled here, owlrl's closure of the seed data takes ~40% less CPU (``bench/RESULTS.md``,
2026-12-06 06:58). The value read is the same ``URIRef`` rdflib would make; names a vocabulary does
not define still go to rdflib (and warn or fail as it says); nothing else of the class changes.

>>> from rdflib.namespace import OWL
>>> settle_terms()
>>> "sameAs" in vars(OWL), OWL.sameAs == OWL._NS["sameAs"], type(OWL.sameAs).__name__
(True, True, 'URIRef')
"""

from __future__ import annotations

from rdflib.namespace import OWL, RDF, RDFS, XSD, DefinedNamespace

_SETTLED: tuple[type[DefinedNamespace], ...] = (RDF, RDFS, OWL, XSD)


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
