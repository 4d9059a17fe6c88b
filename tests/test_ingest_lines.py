"""Where each subject of a parsed file starts (``SourceFile.subject_lines``), for the shapes of
Turtle that used to take time with the square of their size: deeply nested ``[ ]`` (the parser
gives the innermost triple first) and long RDF lists. Every blank node points at the line of the
subject that holds it, however deep."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from kgprofiles.errors import InputError
from kgprofiles.ingest import parse_file

HEAD = "@prefix kgp: <https://w3id.org/kgprofiles/ontology#> .\n@prefix ex: <http://example.org/> .\n"
PERSON = "http://example.org/person/nested"


def nested_brackets(depth: int, innermost: str = '"x"') -> str:
    """A person on line 3 holding ``depth`` nested blank nodes, all written on line 4."""
    return (
        HEAD
        + f'<{PERSON}> a kgp:Person ; kgp:name "Nested Example" ;\n'
        + "  ex:p "
        + "[ ex:p " * depth
        + innermost
        + " ]" * depth
        + " .\n"
    )


def long_list(items: int) -> str:
    """A person on line 3 with an RDF list of ``items`` literals, written on lines 4 on."""
    body = "\n    ".join(f'"item {i}"' for i in range(items))
    return HEAD + f"<{PERSON}> a kgp:Person ;\n  ex:items (\n    {body}\n  ) .\n"


def blank_lines(path: Path) -> dict[str, int]:
    parsed = parse_file(path, path.parent)
    blanks = {"_:" + t.object.value for t in parsed.triples if isinstance(t.object, ox.BlankNode)}
    assert blanks, "the file has blank nodes"
    return {b: parsed.subject_lines.get(b, 0) for b in blanks} | {PERSON: parsed.subject_lines[PERSON]}


def test_5000_nested_brackets_all_point_at_the_subject_line(tmp_path: Path) -> None:
    (tmp_path / "nested.ttl").write_text(nested_brackets(5000))

    lines = blank_lines(tmp_path / "nested.ttl")

    assert len(lines) == 5001
    assert set(lines.values()) == {3}


def test_a_10000_item_list_points_at_the_subject_line(tmp_path: Path) -> None:
    (tmp_path / "list.ttl").write_text(long_list(10_000))

    lines = blank_lines(tmp_path / "list.ttl")

    assert len(lines) == 10_001
    assert set(lines.values()) == {3}


def test_a_blank_node_held_twice_takes_the_nearer_holder(tmp_path: Path) -> None:
    """``_:shared`` is held by the subject on line 3 directly, and by the one on line 4 through
    another blank node: the direct holder's line wins, whatever order the parser gives."""
    (tmp_path / "shared.ttl").write_text(
        HEAD + "<http://example.org/a> ex:p _:shared .\n<http://example.org/b> ex:p [ ex:p _:shared ] .\n"
    )

    parsed = parse_file(tmp_path / "shared.ttl", tmp_path)

    labels = {t.subject.value: t.object.value for t in parsed.triples if isinstance(t.subject, ox.NamedNode)}
    assert parsed.subject_lines["_:" + labels["http://example.org/a"]] == 3
    assert parsed.subject_lines["_:" + labels["http://example.org/b"]] == 4


def test_a_statement_start_wins_and_an_indented_subject_takes_its_first_mention(tmp_path: Path) -> None:
    """A subject's line is the first line it starts at column 1, even after an indented line that
    starts with it; a subject that only ever starts indented lines takes the first of those; the
    object of someone else's triple never places a subject."""
    (tmp_path / "places.ttl").write_text(
        HEAD
        + "ex:a ex:knows ex:c .\n"  # 3: ex:c only as an object here
        + "  ex:b ex:p 1 .\n"  # 4: ex:b indented
        + "ex:b ex:p 2 .\n"  # 5: ex:b at column 1: wins
        + "    ex:c ex:p 3 .\n"  # 6: ex:c indented, its first (and only) start
        + "    ex:c ex:p 4 .\n"  # 7
        + "# ex:a ex:p 5 .\n"  # 8: a comment
    )

    parsed = parse_file(tmp_path / "places.ttl", tmp_path)

    assert {k: v for k, v in parsed.subject_lines.items() if not k.startswith("_:")} == {
        "http://example.org/a": 3,
        "http://example.org/b": 5,
        "http://example.org/c": 6,
    }


def test_a_byte_order_mark_is_passed_over_and_lines_are_the_files(tmp_path: Path) -> None:
    """Some editors begin a UTF-8 file with a byte-order mark: the same triples and lines as
    without it, and an error further down still at its own line."""
    text = HEAD + f'<{PERSON}> a kgp:Person ;\n  kgp:name "Marked Example" .\n'
    (tmp_path / "plain.ttl").write_text(text, encoding="utf-8")
    (tmp_path / "marked.ttl").write_text(text, encoding="utf-8-sig")
    assert (tmp_path / "marked.ttl").read_bytes().startswith(b"\xef\xbb\xbf")

    plain, marked = parse_file(tmp_path / "plain.ttl", tmp_path), parse_file(tmp_path / "marked.ttl", tmp_path)

    assert set(marked.triples) == set(plain.triples) and len(marked.triples) == 2
    assert marked.subject_lines == plain.subject_lines == {PERSON: 3}
    (tmp_path / "broken.ttl").write_text(text + "<oops\n", encoding="utf-8-sig")
    with pytest.raises(InputError, match=r"broken\.ttl:5"):
        parse_file(tmp_path / "broken.ttl", tmp_path)
