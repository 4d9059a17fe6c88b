"""The seed data, the ontology and what OWL RL infers from them.

data/ is the graph as curators keep it; the ontology is what it is written in. Both must load, the
data must validate, and the closure must add the standard terms (schema.org, FOAF, ORG, PROV-O)
without finding anything inconsistent.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pyoxigraph as ox
import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import DCTERMS, OWL, RDF, RDFS

from conftest import ROOT
from kgprofiles.config import Settings
from kgprofiles.infer import Inference, closure
from kgprofiles.ingest import parse_file, parse_files
from kgprofiles.terms import graph_from_triples
from kgprofiles.validate import load_ontology, validate_files
from kgprofiles.vocab import FOAF, KGP, ORG, PROV, SCHEMA
from seed_ids import CLAIM, ORGANIZATION, PERSON, PROFILE, SOURCE

DATA = ROOT / "data"
ONTOLOGY_FILE = ROOT / "ontology" / "kgprofiles.ttl"
ONTOLOGY_IRI = URIRef("https://w3id.org/kgprofiles/ontology")
XSD = "http://www.w3.org/2001/XMLSchema#"  # a plain string: rdflib's XSD namespace object warns under pytest
HORACE = PERSON["horace-he"]
SEED_PAGE = SOURCE["seed-page-horace-he"]


def data_files() -> list[Path]:
    return sorted(p for p in DATA.rglob("*") if p.suffix in (".ttl", ".nt"))


@cache
def data_graph() -> Graph:
    graph = Graph()
    for f in parse_files([DATA], ROOT):
        graph_from_triples(f.triples, graph)
    return graph


@cache
def ontology_graph() -> Graph:
    graph = Graph()
    graph.parse(ONTOLOGY_FILE)
    return graph


@cache
def inference() -> Inference:
    return closure(data_graph(), ontology_graph())


def select(query: str, **bindings: object) -> list[tuple[object, ...]]:
    rows = data_graph().query(query, initNs={"kgp": KGP, "xsd": XSD}, initBindings=bindings)
    return [tuple(row) for row in rows]


########################################################################### data/ loads and validates


def test_there_is_seed_data() -> None:
    assert len(data_files()) >= 2
    assert (DATA / "people" / "horace-he.ttl") in data_files()


@pytest.mark.parametrize("path", data_files(), ids=lambda p: p.relative_to(DATA).as_posix())
def test_every_data_file_parses(path: Path) -> None:
    parsed = parse_file(path, ROOT)

    assert parsed.display == path.relative_to(ROOT).as_posix()
    assert len(parsed.triples) > 0
    # every subject of the file can be pointed at by line
    subjects = {t.subject.value for t in parsed.triples if isinstance(t.subject, ox.NamedNode)}
    assert {s for s in subjects if parsed.line_of(s) is None} == set()


def test_seed_data_has_no_violation(settings: Settings) -> None:
    report = validate_files(parse_files([settings.data_dir], settings.root), settings)

    assert [r.format() for r in report.violations] == []
    assert report.conforms
    assert len(report.files) == len(data_files())


def test_seed_warnings_are_only_the_known_gaps(settings: Settings) -> None:
    """The seed page gives no Wikidata items, few URLs and not every date: those are the only warnings."""
    report = validate_files(parse_files([settings.data_dir], settings.root), settings)

    assert {r.shape for r in report.warnings} <= {
        "kgs:WikidataLinkWarningShape",
        "kgs:SourceUrlWarningShape",
        "kgs:WorkDateWarningShape",
    }
    assert all(r.file and r.line for r in report.results)


########################################################################### the ontology


def test_ontology_parses_and_describes_itself() -> None:
    g = ontology_graph()

    assert (ONTOLOGY_IRI, RDF.type, OWL.Ontology) in g
    assert g.value(ONTOLOGY_IRI, DCTERMS.title) == Literal("kgprofiles ontology", lang="en")
    assert isinstance(g.value(ONTOLOGY_IRI, OWL.versionInfo), Literal)
    assert str(g.value(ONTOLOGY_IRI, OWL.versionIRI)).endswith("/" + str(g.value(ONTOLOGY_IRI, OWL.versionInfo)))
    assert isinstance(g.value(ONTOLOGY_IRI, DCTERMS.license), URIRef)


def test_load_ontology_reads_the_same_ontology(settings: Settings) -> None:
    assert len(load_ontology(settings.ontology_dir)) == len(ontology_graph())


TERM_TYPES = (OWL.Class, OWL.ObjectProperty, OWL.DatatypeProperty, OWL.AnnotationProperty)


def kgp_terms() -> list[URIRef]:
    g = ontology_graph()
    return sorted({s for t in TERM_TYPES for s in g.subjects(RDF.type, t) if str(s).startswith(str(KGP))})


@pytest.mark.parametrize("term", kgp_terms(), ids=lambda t: "kgp:" + str(t).removeprefix(str(KGP)))
def test_every_class_and_property_has_an_english_label_and_comment(term: URIRef) -> None:
    g = ontology_graph()

    for annotation in (RDFS.label, RDFS.comment):
        values = list(g.objects(term, annotation))
        assert len(values) == 1, f"{term} needs one {annotation}"
        assert isinstance(values[0], Literal) and values[0].language == "en" and str(values[0]).strip()


def test_the_ontology_declares_the_terms_it_is_known_for() -> None:
    terms = set(kgp_terms())
    for local in ("Person", "Role", "Source", "Profile", "Citation", "source", "holder", "start", "end", "status"):
        assert KGP[local] in terms


def test_every_kgp_term_used_in_data_and_shapes_is_declared(settings: Settings) -> None:
    """A typo such as kgp:souce would otherwise pass silently: SHACL only checks what it targets."""
    declared = {s for s in ontology_graph().subjects() if str(s).startswith(str(KGP))}
    shapes = Graph()
    for path in sorted(settings.shapes_dir.rglob("*.ttl")):
        shapes.parse(path)
    used = {
        term
        for graph in (data_graph(), shapes)
        for triple in graph
        for term in triple
        if isinstance(term, URIRef) and str(term).startswith(str(KGP))
    }
    assert sorted(used - declared) == []


########################################################################### OWL RL closure


def test_closure_finds_no_inconsistency() -> None:
    assert inference().inconsistencies == ()


def test_closure_holds_only_new_triples() -> None:
    inferred = inference().triples
    assert len(inferred) > 0
    assert [t for t in inferred if t in data_graph() or t in ontology_graph()] == []


def test_people_are_schema_and_foaf_people() -> None:
    inferred = inference().triples
    people = set(data_graph().subjects(RDF.type, KGP.Person))

    assert HORACE in people
    for person in people:
        assert (person, RDF.type, SCHEMA.Person) in inferred
        assert (person, RDF.type, FOAF.Person) in inferred
        assert (person, RDF.type, PROV.Agent) in inferred
    assert (HORACE, SCHEMA.name, Literal("Horace He")) in inferred
    assert (HORACE, FOAF.name, Literal("Horace He")) in inferred


def test_roles_are_org_memberships_both_ways() -> None:
    inferred = inference().triples
    roles = [r for (r,) in select("SELECT ?r WHERE { ?r a kgp:Role ; kgp:holder ?p }", p=HORACE)]

    assert len(roles) == 3
    for role in roles:
        assert (role, RDF.type, ORG.Membership) in inferred
        assert (role, RDF.type, SCHEMA.Role) in inferred
        assert (role, ORG.member, HORACE) in inferred
        assert (HORACE, KGP.holds, role) in inferred  # owl:inverseOf kgp:holder
        assert (HORACE, ORG.hasMembership, role) in inferred
        organization = data_graph().value(role, KGP.organization)
        assert (role, ORG.organization, organization) in inferred


def test_every_claim_is_derived_from_its_sources() -> None:
    """kgp:source is a sub-property of prov:wasDerivedFrom: every claim carries PROV provenance."""
    inferred = inference().triples
    sourced = select(
        "SELECT ?claim ?source WHERE { ?claim a ?kind ; kgp:source ?source . "
        "VALUES ?kind { kgp:Role kgp:Contribution kgp:Event kgp:Statement } }"
    )

    claims = select(
        "SELECT DISTINCT ?claim WHERE { ?claim a ?kind . "
        "VALUES ?kind { kgp:Role kgp:Contribution kgp:Event kgp:Statement } }"
    )
    assert len(claims) > 0
    assert {claim for claim, _ in sourced} == {claim for (claim,) in claims}
    for claim, source in sourced:
        assert (claim, PROV.wasDerivedFrom, source) in inferred
        assert (claim, RDF.type, PROV.Entity) in inferred
    assert (HORACE, PROV.wasDerivedFrom, SEED_PAGE) in inferred


def test_contributions_make_people_authors_of_works() -> None:
    """kgp:authorOf is the property chain ( [ owl:inverseOf kgp:contributor ] kgp:work )."""
    inferred = inference().triples
    works = {w for (w,) in select("SELECT ?w WHERE { ?c kgp:contributor ?p ; kgp:work ?w }", p=HORACE)}

    # PyTorch, GPT-Fast, VSCodeVim, the PyTorch 2, FlexAttention, label propagation, set representations and
    # RL kernel papers, the two essays and the Thinking Machines post
    assert len(works) == 11
    assert {w for w in inferred.objects(HORACE, KGP.authorOf)} == works


########################################################################### seed facts


def test_horace_he_has_eleven_numbered_citations_of_distinct_sources() -> None:
    rows = select(
        "SELECT ?n ?source WHERE { ?profile kgp:profileOf ?p ; kgp:citation ?c . "
        "?c kgp:number ?n ; kgp:cites ?source . ?source a kgp:Source }",
        p=HORACE,
    )

    assert sorted(int(n) for n, _ in rows) == list(range(1, 12))
    assert len({source for _, source in rows}) == 11
    assert (PROFILE["horace-he"], KGP.profileOf, HORACE) in data_graph()


def test_horace_he_has_seven_events() -> None:
    rows = select("SELECT ?e ?date WHERE { ?e a kgp:Event ; kgp:subject ?p ; kgp:date ?date }", p=HORACE)

    assert len(rows) == 7
    assert (CLAIM["horace-he-event-vscodevim"], Literal("2017-03", datatype=XSD + "gYearMonth")) in rows


def test_horace_he_has_three_roles_one_current_at_pytorch() -> None:
    rows = select(
        "SELECT ?r ?status ?org WHERE { ?r kgp:holder ?p ; kgp:status ?status ; kgp:organization ?org }", p=HORACE
    )

    assert len(rows) == 3
    assert [(status, org) for _, status, org in rows if status == KGP.Current] == [(KGP.Current, ORGANIZATION.pytorch)]


def test_ten_other_people_known_only_through_the_seed_page() -> None:
    """The related people of the seed page: recorded by name (and organisation or topics), sourced to the page."""
    others = set(data_graph().subjects(RDF.type, KGP.Person)) - {HORACE}

    assert len(others) == 10
    for person in others:
        assert set(data_graph().objects(person, KGP.source)) == {SEED_PAGE}
        claims = [
            c for (c,) in select("SELECT ?c WHERE { { ?c kgp:holder ?p } UNION { ?c kgp:subject ?p } }", p=person)
        ]
        for claim in claims:
            assert set(data_graph().objects(claim, KGP.source)) == {SEED_PAGE}
