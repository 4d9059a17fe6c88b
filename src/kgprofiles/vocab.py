"""The one place namespaces and the project's fixed IRIs are declared."""

from __future__ import annotations

import re

from rdflib import Namespace
from rdflib.namespace import OWL, RDF, RDFS, SH, SKOS, XSD

KGP = Namespace("https://w3id.org/kgprofiles/ontology#")
KGS = Namespace("https://w3id.org/kgprofiles/shapes#")
ID = "https://w3id.org/kgprofiles/id/"
PERSON = Namespace(ID + "person/")
ORGANIZATION = Namespace(ID + "organization/")
TOPIC = Namespace(ID + "topic/")
WORK = Namespace(ID + "work/")
SOURCE = Namespace(ID + "source/")
CLAIM = Namespace(ID + "claim/")
PROFILE = Namespace(ID + "profile/")
AWARD = Namespace(ID + "award/")
PLACE = Namespace(ID + "place/")
SCHEMA = Namespace("http://schema.org/")
FOAF = Namespace("http://xmlns.com/foaf/0.1/")
ORG = Namespace("http://www.w3.org/ns/org#")
PROV = Namespace("http://www.w3.org/ns/prov#")
WD = Namespace("http://www.wikidata.org/entity/")

#: The same namespaces as plain strings, for code that builds pyoxigraph terms.
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

#: Prefixes predeclared for every query and used by every serialisation, in this order.
PREFIXES: dict[str, str] = {
    "kgp": str(KGP),
    "person": str(PERSON),
    "organization": str(ORGANIZATION),
    "topic": str(TOPIC),
    "work": str(WORK),
    "source": str(SOURCE),
    "claim": str(CLAIM),
    "profile": str(PROFILE),
    "award": str(AWARD),
    "place": str(PLACE),
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
SLUG_NAMESPACES = {"person": PERSON, "organization": ORGANIZATION, "topic": TOPIC}


def file_graph_iri(relative_path: str) -> str:
    """The named graph a source file is loaded into, from its path under the data directory."""
    return FILE_GRAPH_PREFIX + relative_path.replace("\\", "/")
