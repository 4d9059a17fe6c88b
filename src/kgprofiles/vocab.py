"""The one place namespaces and the project's fixed IRIs are declared."""

from __future__ import annotations

import re

from rdflib import Namespace
from rdflib.namespace import OWL, RDF, RDFS, SH, SKOS, XSD

KGP = Namespace("https://w3id.org/kgprofiles/ontology#")
KGS = Namespace("https://w3id.org/kgprofiles/shapes#")
#: Where the seed project (this repository) mints its IRIs; a project names its own base IRI.
DEFAULT_BASE_IRI = "https://w3id.org/kgprofiles/id/"
#: The kinds of thing a project mints IRIs for: ``<base><kind>/<slug>``.
ID_KINDS = ("person", "organization", "topic", "work", "source", "claim", "profile")
SCHEMA = Namespace("http://schema.org/")
FOAF = Namespace("http://xmlns.com/foaf/0.1/")
ORG = Namespace("http://www.w3.org/ns/org#")
PROV = Namespace("http://www.w3.org/ns/prov#")
WD = Namespace("http://www.wikidata.org/entity/")

#: The same namespaces as plain strings, for code that builds Oxigraph terms.
RDF_NS, RDFS_NS, OWL_NS, XSD_NS, WD_NS = str(RDF), str(RDFS), str(OWL), str(XSD), str(WD)
#: The SPARQL service description vocabulary and the W3C format IRIs (the endpoint describes itself).
SD_NS = "http://www.w3.org/ns/sparql-service-description#"
FORMATS_NS = "http://www.w3.org/ns/formats/"
#: Wikidata's reference properties and statement nodes (the answers of queries/wikidata-*.rq).
WD_REFERENCE_NS = "http://www.wikidata.org/prop/reference/"
WD_STATEMENT_NS = "http://www.wikidata.org/entity/statement/"
#: The project's home, and where blank nodes sent to a remote server are skolemized.
PROJECT_URL = "https://w3id.org/kgprofiles"
GENID = PROJECT_URL + "/.well-known/genid/"

GRAPH = "https://w3id.org/kgprofiles/graph/"
FILE_GRAPH_PREFIX = GRAPH + "file/"
ONTOLOGY_GRAPH = GRAPH + "ontology"
INFERRED_GRAPH = GRAPH + "inferred"
WIKIDATA_LINKS_GRAPH = GRAPH + "wikidata-links"



class IdSpace:
    """Where a project mints IRIs: ``<base><kind>/<slug>`` for each kind in ``ID_KINDS``.

    >>> ids = IdSpace("https://example.org/who/")
    >>> ids.person + "ada-lovelace"
    'https://example.org/who/person/ada-lovelace'
    >>> ids.slug_of("https://example.org/who/topic/compilers")
    'topic/compilers'
    """

    def __init__(self, base: str) -> None:
        self.base = base
        self.person = Namespace(base + "person/")
        self.organization = Namespace(base + "organization/")
        self.topic = Namespace(base + "topic/")
        self.work = Namespace(base + "work/")
        self.source = Namespace(base + "source/")
        self.claim = Namespace(base + "claim/")
        self.profile = Namespace(base + "profile/")

    def namespaces(self) -> dict[str, str]:
        """``{"person": "<base>person/", ...}`` in ``ID_KINDS`` order."""
        return {kind: str(getattr(self, kind)) for kind in ID_KINDS}

    def slug_of(self, iri: str) -> str | None:
        """``person/horace-he`` for an IRI under the base (the path of its page), else None."""
        return iri[len(self.base) :] if iri.startswith(self.base) else None


_ids = IdSpace(DEFAULT_BASE_IRI)


def ids() -> IdSpace:
    """The id space of the project this process works on (``use_base_iri`` sets it)."""
    return _ids


#: Prefixes predeclared for every query and used by every serialisation, in this order. The
#: project's kinds (``person:``, ...) follow its base IRI (updated in place by ``use_base_iri``).
PREFIXES: dict[str, str] = {
    "kgp": str(KGP),
    **_ids.namespaces(),
    "rdf": str(RDF),
    "rdfs": str(RDFS),
    "owl": str(OWL),
    "xsd": str(XSD),
    "skos": str(SKOS),
    "sh": str(SH),
    "schema": str(SCHEMA),
    "foaf": str(FOAF),
    "org": str(ORG),
    "prov": str(PROV),
    "wd": str(WD),
}

#: What may follow a prefix in a CURIE the project prints (a Turtle local name without escapes).
_LOCAL_NAME = re.compile(r"[A-Za-z0-9_][\w.-]*(?<!\.)")


def curie(iri: str, prefixes: dict[str, str] = PREFIXES) -> str | None:
    """``person:horace-he`` for an IRI in one of the namespaces, or None when it is in none of
    them or what follows is not a plain local name. The one way IRIs are shortened for people.

    >>> curie("https://w3id.org/kgprofiles/id/person/horace-he")
    'person:horace-he'
    >>> curie("https://example.org/x") is None
    True
    """
    for prefix, namespace in prefixes.items():
        if iri.startswith(namespace) and _LOCAL_NAME.fullmatch(iri[len(namespace) :]):
            return f"{prefix}:{iri[len(namespace) :]}"
    return None


#: Slug prefixes: a bare slug such as ``horace-he`` resolves to ``person:horace-he``.
SLUG_NAMESPACES = {kind: PREFIXES[kind] for kind in ("person", "organization", "topic")}

#: Namespaces a project's base IRI may not fall in: ours (the ontology, shapes, graphs).
_RESERVED = (str(KGP), str(KGS), GRAPH, GENID)


def check_base_iri(base: str) -> str:
    """``base`` if it can be a project's base IRI: absolute, http(s) or urn, ending in ``/``, ``#``
    or ``:``, with no characters an IRI may not hold, and outside kgprofiles' own namespaces."""
    if not re.fullmatch(r"(https?://[^/\x00-\x20<>\"{}|\\^`]+/|urn:[a-z0-9][a-z0-9-]*:)[^\x00-\x20<>\"{}|\\^`]*", base):
        raise ValueError(f"{base!r} is not an absolute http(s) or urn IRI without spaces or <>\"{{}}|\\^`")
    if not base.endswith(("/", "#", ":")):
        raise ValueError(f"{base!r} must end with '/', '#' or ':' (IRIs are made by appending 'person/<slug>')")
    if any(base.startswith(ns) or ns.startswith(base) for ns in _RESERVED):
        raise ValueError(f"{base!r} overlaps kgprofiles' own namespaces (under {PROJECT_URL}/); choose your own")
    return base


def use_base_iri(base: str) -> None:
    """Mint and resolve the project's IRIs under ``base`` from now on, in this process: ``ids()``,
    the ``person:``... prefixes of ``PREFIXES`` and the slug namespaces all follow it."""
    global _ids
    if base == _ids.base:
        return
    _ids = IdSpace(check_base_iri(base))
    PREFIXES.update(_ids.namespaces())
    SLUG_NAMESPACES.update({kind: PREFIXES[kind] for kind in SLUG_NAMESPACES})


def file_graph_iri(relative_path: str) -> str:
    """The named graph a source file is loaded into, from its path under the data directory."""
    return FILE_GRAPH_PREFIX + relative_path.replace("\\", "/")
