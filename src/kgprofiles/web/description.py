"""The SPARQL 1.1 Service Description of the endpoint (``sd:`` vocabulary), for GET /sparql
without a query when the client asks for RDF."""

from __future__ import annotations

import pyoxigraph as ox

from kgprofiles.export import serialize_triples
from kgprofiles.store import rdf_syntax
from kgprofiles.store.oxigraph import as_bytes
from kgprofiles.vocab import FORMATS_NS as FORMATS
from kgprofiles.vocab import RDF_NS, RDFS_NS
from kgprofiles.vocab import SD_NS as SD
from kgprofiles.web.negotiation import RDF_FORMATS
from kgprofiles.web.site import Site

RDF_TYPE = ox.NamedNode(RDF_NS + "type")
RDFS_COMMENT = ox.NamedNode(RDFS_NS + "comment")
MEDIA_TYPES = (*RDF_FORMATS, "application/rdf+xml")
RESULT_FORMATS = (
    "SPARQL_Results_JSON",
    "SPARQL_Results_XML",
    "SPARQL_Results_CSV",
    "SPARQL_Results_TSV",
    "Turtle",
    "N-Triples",
    "JSON-LD",
    "RDF_XML",
)


def _sd(name: str) -> ox.NamedNode:
    return ox.NamedNode(SD + name)


def service_description(site: Site, endpoint: str, media_type: str) -> bytes:
    """The description as ``media_type`` (Turtle, JSON-LD, N-Triples or RDF/XML)."""
    service = ox.NamedNode(endpoint)
    triples = [
        ox.Triple(service, RDF_TYPE, _sd("Service")),
        ox.Triple(service, _sd("endpoint"), service),
        ox.Triple(service, _sd("supportedLanguage"), _sd("SPARQL11Query")),
        ox.Triple(service, _sd("feature"), _sd("UnionDefaultGraph")),
    ]
    if site.write_token is not None:
        triples.append(ox.Triple(service, _sd("supportedLanguage"), _sd("SPARQL11Update")))
    if site.allow_fetch:
        triples.append(ox.Triple(service, _sd("feature"), _sd("BasicFederatedQuery")))
    triples += [ox.Triple(service, _sd("resultFormat"), ox.NamedNode(FORMATS + f)) for f in RESULT_FORMATS]
    mode = "read-write (with the write token)" if site.write_token is not None else "read-only"
    note = (
        f"kgprofiles SPARQL endpoint, {mode}. The default graph is the union of the named graphs; "
        f"the project's prefixes (kgp:, person:, schema:, …) are predeclared. "
        f"Limits: {site.limits.timeout_s:g} s per query, {site.limits.max_rows} rows per result. "
        f"SERVICE and LOAD are {'allowed' if site.allow_fetch else 'refused'}."
    )
    triples.append(ox.Triple(service, RDFS_COMMENT, ox.Literal(note, language="en")))
    dataset = ox.BlankNode("dataset")
    default_graph = ox.BlankNode("defaultGraph")
    triples += [
        ox.Triple(service, _sd("defaultDataset"), dataset),
        ox.Triple(dataset, RDF_TYPE, _sd("Dataset")),
        ox.Triple(dataset, _sd("defaultGraph"), default_graph),
        ox.Triple(default_graph, RDF_TYPE, _sd("Graph")),
    ]
    for index, graph in enumerate(site.store.graphs()):
        named = ox.BlankNode(f"graph{index:05d}")
        triples += [
            ox.Triple(dataset, _sd("namedGraph"), named),
            ox.Triple(named, RDF_TYPE, _sd("NamedGraph")),
            ox.Triple(named, _sd("name"), ox.NamedNode(graph)),
        ]
    if media_type == "application/rdf+xml":
        return as_bytes(rdf_syntax.serialize(sorted(triples, key=str), format=rdf_syntax.RdfFormat.RDF_XML))
    fmt = RDF_FORMATS[media_type]
    if fmt == "ttl":
        prefixes = {"sd": SD, "formats": FORMATS, "rdfs": RDFS_NS}
        turtle = rdf_syntax.RdfFormat.TURTLE
        return as_bytes(rdf_syntax.serialize(sorted(triples, key=str), format=turtle, prefixes=prefixes))
    return serialize_triples(triples, fmt)
