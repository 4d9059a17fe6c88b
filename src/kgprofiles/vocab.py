"""The one place namespaces and the project's fixed IRIs are declared.

The namespaces are plain strings (``KGP_NS``, ``XSD_NS``…), for code that builds Oxigraph terms;
the same as rdflib ``Namespace`` objects (``KGP``, ``XSD``…), for code that builds rdflib graphs,
are made on first use, so that a command which never touches rdflib does not import it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, overload

if TYPE_CHECKING:
    from rdflib import Namespace
    from rdflib.namespace import OWL as OWL
    from rdflib.namespace import RDF as RDF
    from rdflib.namespace import RDFS as RDFS
    from rdflib.namespace import SH as SH
    from rdflib.namespace import SKOS as SKOS
    from rdflib.namespace import XSD as XSD

    KGP: Namespace
    KGS: Namespace
    SCHEMA: Namespace
    FOAF: Namespace
    ORG: Namespace
    PROV: Namespace
    WD: Namespace

KGP_NS = "https://w3id.org/kgprofiles/ontology#"
KGS_NS = "https://w3id.org/kgprofiles/shapes#"
#: Where the seed project (this repository) mints its IRIs; a project names its own base IRI.
DEFAULT_BASE_IRI = "https://w3id.org/kgprofiles/id/"
#: The kinds of thing a project mints IRIs for: ``<base><kind>/<slug>``.
ID_KINDS = ("person", "organization", "topic", "work", "source", "claim", "profile", "award", "place")
SCHEMA_NS = "http://schema.org/"
FOAF_NS = "http://xmlns.com/foaf/0.1/"
ORG_NS = "http://www.w3.org/ns/org#"
PROV_NS = "http://www.w3.org/ns/prov#"
WD_NS = "http://www.wikidata.org/entity/"
RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS_NS = "http://www.w3.org/2000/01/rdf-schema#"
OWL_NS = "http://www.w3.org/2002/07/owl#"
XSD_NS = "http://www.w3.org/2001/XMLSchema#"
SKOS_NS = "http://www.w3.org/2004/02/skos/core#"
SH_NS = "http://www.w3.org/ns/shacl#"
#: The SPARQL service description vocabulary and the W3C format IRIs (the endpoint describes itself).
SD_NS = "http://www.w3.org/ns/sparql-service-description#"
FORMATS_NS = "http://www.w3.org/ns/formats/"
#: Wikidata's reference properties and statement nodes (the answers of queries/wikidata-*.rq).
WD_REFERENCE_NS = "http://www.wikidata.org/prop/reference/"
WD_STATEMENT_NS = "http://www.wikidata.org/entity/statement/"
#: The project's home, and where blank nodes sent to a remote server are skolemized.
PROJECT_URL = "https://w3id.org/kgprofiles"
GENID = PROJECT_URL + "/.well-known/genid/"

#: The rdflib namespaces, by name: rdflib's own (``RDF``…) and the others' made from the strings.
_OWN = {"KGP": KGP_NS, "KGS": KGS_NS, "SCHEMA": SCHEMA_NS, "FOAF": FOAF_NS, "ORG": ORG_NS, "PROV": PROV_NS, "WD": WD_NS}
_RDFLIBS = ("OWL", "RDF", "RDFS", "SH", "SKOS", "XSD")


def __getattr__(name: str) -> Any:
    """``KGP``, ``XSD``… as rdflib namespaces, imported (and kept) on first use."""
    if name in _OWN:
        from rdflib import Namespace

        value: Any = Namespace(_OWN[name])
    elif name in _RDFLIBS:
        from rdflib import namespace

        value = getattr(namespace, name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_OWN, *_RDFLIBS})


GRAPH = "https://w3id.org/kgprofiles/graph/"
FILE_GRAPH_PREFIX = GRAPH + "file/"
ONTOLOGY_GRAPH = GRAPH + "ontology"
INFERRED_GRAPH = GRAPH + "inferred"
WIKIDATA_LINKS_GRAPH = GRAPH + "wikidata-links"


class _KindNamespace:
    """An ``IdSpace`` attribute: the rdflib namespace of one kind (``space.person``), made on use."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.kind = name

    @overload
    def __get__(self, space: None, owner: type) -> _KindNamespace: ...
    @overload
    def __get__(self, space: IdSpace, owner: type | None = None) -> Namespace: ...
    def __get__(self, space: IdSpace | None, owner: type | None = None) -> Namespace | _KindNamespace:
        if space is None:
            return self
        from rdflib import Namespace

        return Namespace(space.namespace(self.kind))


class IdSpace:
    """Where a project mints IRIs: ``<base><kind>/<slug>`` for each kind in ``ID_KINDS``.

    ``namespace(kind)`` is a kind's namespace as a string; ``space.person``, ``space.topic``… the
    same as rdflib namespaces.

    >>> ids = IdSpace("https://example.org/who/")
    >>> ids.namespace("person") + "ada-lovelace"
    'https://example.org/who/person/ada-lovelace'
    >>> ids.person["ada-lovelace"]
    rdflib.term.URIRef('https://example.org/who/person/ada-lovelace')
    >>> ids.slug_of("https://example.org/who/topic/compilers")
    'topic/compilers'
    """

    person = _KindNamespace()
    organization = _KindNamespace()
    topic = _KindNamespace()
    work = _KindNamespace()
    source = _KindNamespace()
    claim = _KindNamespace()
    profile = _KindNamespace()
    award = _KindNamespace()
    place = _KindNamespace()

    def __init__(self, base: str) -> None:
        self.base = base

    def namespace(self, kind: str) -> str:
        """``<base><kind>/``: where IRIs of ``kind`` (one of ``ID_KINDS``) are minted."""
        if kind not in ID_KINDS:
            raise ValueError(f"{kind!r} is not one of {', '.join(ID_KINDS)}")
        return f"{self.base}{kind}/"

    def namespaces(self) -> dict[str, str]:
        """``{"person": "<base>person/", ...}`` in ``ID_KINDS`` order."""
        return {kind: self.namespace(kind) for kind in ID_KINDS}

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
    "kgp": KGP_NS,
    **_ids.namespaces(),
    "rdf": RDF_NS,
    "rdfs": RDFS_NS,
    "owl": OWL_NS,
    "xsd": XSD_NS,
    "skos": SKOS_NS,
    "sh": SH_NS,
    "schema": SCHEMA_NS,
    "foaf": FOAF_NS,
    "org": ORG_NS,
    "prov": PROV_NS,
    "wd": WD_NS,
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
_RESERVED = (KGP_NS, KGS_NS, GRAPH, GENID)


def check_base_iri(base: str) -> str:
    """``base`` if it can be a project's base IRI: absolute, http(s) or urn, ending in ``/``, ``#``
    or ``:``, with no characters an IRI may not hold, and outside kgprofiles' own namespaces."""
    banned = r"\x00-\x20\x7f-\x9f<>\"{}|\\^`"  # spaces, control characters (C0, DEL, C1) and delimiters
    if not re.fullmatch(rf"(https?://[^/{banned}]+/|urn:[a-z0-9][a-z0-9-]*:)[^{banned}]*", base):
        raise ValueError(
            f'{base!r} is not an absolute http(s) or urn IRI without spaces, control characters or <>"{{}}|\\^`'
        )
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
