"""TripleSpill: a build keeps the parsed triples on disk, and reads back exactly what was parsed."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox

from kgprofiles.ingest import TripleSpill, parse_file

PROFILE = """\
@prefix kgp: <https://kgprofiles.org/ontology#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
<http://example.org/p1> kgp:name "Ada"@en ;
    kgp:rank "01"^^xsd:integer ;
    kgp:start "2020-05"^^xsd:gYearMonth ;
    kgp:flag "1"^^xsd:boolean ;
    kgp:role [ kgp:title "Engineer \\"senior\\"\\n" ] .
"""


def test_the_spill_gives_back_the_parsed_triples_labels_and_lexical_forms_included(tmp_path: Path) -> None:
    (tmp_path / "p1.ttl").write_text(PROFILE)
    parsed = parse_file(tmp_path / "p1.ttl", tmp_path)
    spill = TripleSpill(tmp_path / "spill.nt")
    spill.add(parsed.triples)
    spill.add(parsed.triples[:2])
    spill.close()

    expected = list(parsed.triples) + list(parsed.triples[:2])
    for _ in range(2):  # every call is a fresh pass over the file
        back = [ox.Triple(q.subject, q.predicate, q.object) for q in spill()]
        assert back == expected
    objects = {str(t.object) for t in back}
    assert '"01"^^<http://www.w3.org/2001/XMLSchema#integer>' in objects  # not normalised to "1"
    assert '"1"^^<http://www.w3.org/2001/XMLSchema#boolean>' in objects
    assert '"Ada"@en' in objects
    (blank,) = {t.subject for t in back if isinstance(t.subject, ox.BlankNode)}
    assert blank in {t.subject for t in parsed.triples}  # the label ingest gave, not a fresh one


def test_a_file_without_its_triples_keeps_its_count_and_lines(tmp_path: Path) -> None:
    (tmp_path / "p1.ttl").write_text(PROFILE)
    parsed = parse_file(tmp_path / "p1.ttl", tmp_path)
    light = parsed.without_triples()
    assert light.triples == ()
    assert light.count == len(parsed.triples) == 6
    assert light.line_of("http://example.org/p1") == parsed.line_of("http://example.org/p1") == 3


#: Literals a line-by-line reading could break on: escaped and raw line breaks of every kind,
#: a literal ending like a line (" ."), spaces, a language tag, a datatype, a blank node subject.
AWKWARD = [
    ox.Literal(text)
    for text in ("a\rb", "a\nb", "a\r\nb", "x\u2028y", "x\u0085y", "x\u2029y", "tab\there", 'q"uote', "end .", " .\n")
] + [
    ox.Literal("sp ace", language="en"),
    ox.Literal("01", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")),
    ox.NamedNode("http://example.org/o"),
]


def test_the_spill_read_as_text_gives_each_term_as_oxigraph_writes_it(tmp_path: Path) -> None:
    from kgprofiles.fast.linear import text_triples

    subjects = [ox.NamedNode("http://example.org/s"), ox.BlankNode("b1")]
    triples = [ox.Triple(s, ox.NamedNode("http://example.org/p"), o) for s in subjects for o in AWKWARD]
    spill = TripleSpill(tmp_path / "spill.nt")
    spill.add(triples)
    spill.close()

    assert list(spill.text()) == list(text_triples(triples)) == list(text_triples(spill()))
    assert len(list(spill.text())) == 2 * len(AWKWARD)
