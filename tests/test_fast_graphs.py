"""Hypothesis strategies for the fast-path equivalence tests: small graphs in the project's
vocabulary, built to break every shape and to use every construct of the ontology.

Graphs are drawn from a fixed pool of nodes (a few people, organisations, roles, contributions,
works, events, statements, sources, profiles, citations, topics, a blank node and some Wikidata
IRIs), each typed or not, with random statements whose objects are sometimes right and often
wrong: missing, repeated, of the wrong class or kind, ill-typed or oddly written literals.
"""

from __future__ import annotations

import pyoxigraph as ox
from hypothesis import strategies as st

KGP = "https://w3id.org/kgprofiles/ontology#"
XSD = "http://www.w3.org/2001/XMLSchema#"
ID = "https://w3id.org/kgprofiles/id/"
RDF_TYPE = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
SAME_AS = ox.NamedNode("http://www.w3.org/2002/07/owl#sameAs")


def kgp(name: str) -> ox.NamedNode:
    return ox.NamedNode(KGP + name)


def node(kind: str, name: str) -> ox.NamedNode:
    return ox.NamedNode(f"{ID}{kind}/{name}")


def typed(value: str, datatype: str) -> ox.Literal:
    return ox.Literal(value, datatype=ox.NamedNode(XSD + datatype))


PEOPLE = [node("person", f"p{i}") for i in range(3)]
ORGS = [node("organization", f"o{i}") for i in range(2)]
ROLES = [node("claim", f"role{i}") for i in range(3)]
CONTRIBUTIONS = [node("claim", f"contrib{i}") for i in range(3)]
EVENTS = [node("claim", f"event{i}") for i in range(2)]
STATEMENTS = [node("claim", f"statement{i}") for i in range(2)]
WORKS = [node("work", f"w{i}") for i in range(3)]
SOURCES = [node("source", f"s{i}") for i in range(3)]
PROFILES = [node("profile", f"f{i}") for i in range(2)]
CITATIONS = [node("profile", f"f0-fn-{i}") for i in range(3)]
TOPICS = [node("topic", f"t{i}") for i in range(2)]
AWARDS = [node("award", f"a{i}") for i in range(2)]
RECEIPTS = [node("claim", f"receipt{i}") for i in range(2)]
LIFE_EVENTS = [node("claim", f"birth{i}") for i in range(2)]
PLACES = [node("place", f"pl{i}") for i in range(2)]
SUPERVISIONS = [node("claim", f"supervision{i}") for i in range(1)]
IDENTIFIERS = [node("claim", f"id{i}") for i in range(2)]
BLANK = ox.BlankNode("b0")
WIKIDATA = [
    ox.NamedNode("http://www.wikidata.org/entity/Q42"),
    ox.NamedNode("http://www.wikidata.org/entity/Q7"),
    ox.NamedNode("https://www.wikidata.org/wiki/Q42"),
    ox.NamedNode("http://www.wikidata.org/entity/P31"),
    ox.NamedNode("http://example.org/elsewhere"),
    ox.NamedNode("https://WWW.WIKIDATA.ORG/wiki/Q1"),
]
NODES = [
    *PEOPLE, *ORGS, *ROLES, *CONTRIBUTIONS, *EVENTS, *STATEMENTS, *WORKS, *SOURCES, *PROFILES, *CITATIONS,
    *TOPICS, *AWARDS, *RECEIPTS, *LIFE_EVENTS, *PLACES, *SUPERVISIONS, *IDENTIFIERS, BLANK,
]  # fmt: skip
CLASSES = [
    kgp(c)
    for c in (
        "Person", "Organization", "Topic", "Role", "Contribution", "Event", "Statement", "Work", "Paper", "Software",
        "Essay", "Post", "ResearchPost", "Source", "Profile", "Citation", "Claim", "RoleStatus", "ContributionKind",
        "Award", "AwardReceipt", "LifeEvent", "Birth", "Death", "Place", "Education", "Supervision", "Identifier",
        "IdentifierScheme",
    )
] + [ox.NamedNode("http://schema.org/Person"), ox.NamedNode("http://example.org/Unknown")]  # fmt: skip
KINDS = [kgp(k) for k in ("CoAuthor", "Maintainer", "Creator", "Current", "Former", "NotConfirmedCurrent")]
KINDS += [kgp(k) for k in ("ORCID", "GitHub", "WikipediaArticle")]

#: Literals that are right somewhere, wrong elsewhere, canonical or not, well- or ill-typed.
LITERALS = [
    ox.Literal("Example"),
    ox.Literal("Example", language="en"),
    ox.Literal(""),
    typed("2019", "gYear"),
    typed("20x9", "gYear"),
    typed("2019-06", "gYearMonth"),
    typed("2019-13", "gYearMonth"),
    typed("2019-06-01", "date"),
    typed("2018-12-31", "date"),
    typed("2019-02-30", "date"),
    typed("2020-10-27T09:00:00", "dateTime"),
    typed("2019", "integer"),
    typed("1", "integer"),
    typed("0", "integer"),
    typed("01", "integer"),
    typed("abc", "integer"),
    typed("true", "boolean"),
    typed("false", "boolean"),
    typed("1", "boolean"),
    typed("2.5", "decimal"),
    typed("0.25", "decimal"),
    typed("0", "decimal"),
    ox.Literal("0000-0002-1825-0097"),
    ox.Literal("0000-0002-1694-233X"),
    ox.Literal("0000-0002-1825-0098"),
    ox.Literal("0000-000A-1825-0097"),
    ox.Literal("0000000218250097"),
    ox.Literal("true"),
    ox.Literal("2019-06"),
]
#: Literals a store keeps in another form than rdflib reads them (the fast paths must notice).
UNFAITHFUL = [typed("1.50", "decimal"), typed("2019-06-01Z", "date"), typed("1e3", "double")]

PREDICATES = [
    kgp(p)
    for p in (
        "name", "altName", "headline", "topic", "firstTopic", "source", "rank", "text", "about", "subject", "holder",
        "holds", "organization", "title", "start", "startUnknown", "end", "status", "contributor", "work",
        "contributionKind", "description", "authorOf", "hasContributor", "date", "venue", "url", "license",
        "publisher", "site", "sourceKind", "retrieved", "profileOf", "summary", "writing", "featuredContribution",
        "citation", "number", "cites", "recipient", "award", "received", "conferredBy", "share", "motivation",
        "place", "location", "country", "degree", "advisor", "student", "asOf", "partOf", "scheme", "value",
        "participant",
    )
] + [SAME_AS, ox.NamedNode("http://example.org/other")]  # fmt: skip

objects = st.one_of(
    st.sampled_from(NODES),
    st.sampled_from(LITERALS),
    st.sampled_from(WIKIDATA),
    st.sampled_from(KINDS),
)
statements = st.tuples(st.sampled_from(NODES), st.sampled_from(PREDICATES), objects)
ORCIDS = [lit for lit in LITERALS if lit.value.startswith("0000")]
#: Statements of the version 2 vocabulary that random ones rarely make: identifiers with their scheme and
#: value, organisations part of each other (cycles included), shared award receipts, supervisions.
lives = st.one_of(
    st.tuples(st.sampled_from(IDENTIFIERS), st.just(kgp("scheme")), st.sampled_from(KINDS[-3:])),
    st.tuples(st.sampled_from(IDENTIFIERS), st.just(kgp("value")), st.sampled_from([*ORCIDS, ox.Literal("x")])),
    st.tuples(st.sampled_from([*ORGS, BLANK]), st.just(kgp("partOf")), st.sampled_from([*ORGS, PEOPLE[0]])),
    st.tuples(
        st.sampled_from(RECEIPTS),
        st.sampled_from([kgp("recipient"), kgp("award")]),
        st.sampled_from([*PEOPLE, *AWARDS]),
    ),
    st.tuples(
        st.sampled_from(SUPERVISIONS), st.sampled_from([kgp("advisor"), kgp("student")]), st.sampled_from(PEOPLE)
    ),
    st.tuples(
        st.sampled_from([*LIFE_EVENTS, *EVENTS]),
        st.sampled_from([kgp("place"), kgp("location"), kgp("participant")]),
        st.sampled_from([*PLACES, *PEOPLE]),
    ),
)
typings = st.tuples(st.sampled_from(NODES), st.sampled_from(CLASSES))


def _natural_types() -> list[ox.Triple]:
    pools = {
        "Person": PEOPLE, "Organization": ORGS, "Role": ROLES, "Contribution": CONTRIBUTIONS, "Event": EVENTS,
        "Statement": STATEMENTS, "Paper": WORKS, "Source": SOURCES, "Profile": PROFILES, "Citation": CITATIONS,
        "Topic": TOPICS, "Award": AWARDS, "AwardReceipt": RECEIPTS, "Birth": LIFE_EVENTS, "Place": PLACES,
        "Supervision": SUPERVISIONS, "Identifier": IDENTIFIERS,
    }  # fmt: skip
    return [ox.Triple(n, RDF_TYPE, kgp(c)) for c, nodes in pools.items() for n in nodes]


NATURAL_TYPES = _natural_types()


@st.composite
def graphs(draw: st.DrawFn, unfaithful: bool = False, max_statements: int = 40) -> list[ox.Triple]:
    """A small graph: most nodes typed as their names say, some typed otherwise, and random
    statements about them (with the occasional literal the store would rewrite, if asked)."""
    keep = draw(st.lists(st.booleans(), min_size=len(NATURAL_TYPES), max_size=len(NATURAL_TYPES)))
    triples = [t for t, k in zip(NATURAL_TYPES, keep, strict=True) if k]
    triples += [ox.Triple(s, RDF_TYPE, c) for s, c in draw(st.lists(typings, max_size=4))]
    for s, p, o in draw(st.lists(statements, max_size=max_statements)):
        triples.append(ox.Triple(s, p, o))
    for s, p, o in draw(st.lists(lives, max_size=max_statements // 4)):
        triples.append(ox.Triple(s, p, o))
    if unfaithful and draw(st.booleans()):
        s, p, _ = draw(statements)
        triples.append(ox.Triple(s, p, draw(st.sampled_from(UNFAITHFUL))))
    return list(dict.fromkeys(triples))


def test_the_pools_cover_the_vocabulary() -> None:
    """Every class and property the ontology declares appears in the generated graphs' pools."""
    from rdflib.namespace import OWL, RDF

    from kgprofiles.config import load_settings
    from kgprofiles.validate import load_ontology

    ontology = load_ontology(load_settings().ontology_dir)
    declared = {str(s) for s in ontology.subjects(RDF.type, OWL.ObjectProperty)}
    declared |= {str(s) for s in ontology.subjects(RDF.type, OWL.DatatypeProperty)}
    assert declared <= {p.value for p in PREDICATES}
    classes = {str(s) for s in ontology.subjects(RDF.type, OWL.Class)}
    assert classes <= {c.value for c in CLASSES}
