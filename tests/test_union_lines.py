"""The union's N-Triples made from the N-Quads dump's lines (``store/union_lines.py``) are the
bytes the store's own N-Triples export writes: for any quads, in memory and on disk, and across
the engine's window of remembered triples."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import examples
from kgprofiles.config import MEMORY
from kgprofiles.store.oxigraph import OxigraphStore
from kgprofiles.store.union_lines import WINDOW, union_ntriples

EX = "http://example.org/"
IRIS = [ox.NamedNode(EX + name) for name in ("a", "b", "Zoë/ü", "a_:b", "p")]
BLANKS = [ox.BlankNode(label) for label in ("b0", "b1")]
LITERALS = [
    ox.Literal("a b"),
    ox.Literal('x <http://example.org/a> . "y" _:b0 <<( '),
    ox.Literal('tab\tquote"backslash\\ line\nend .\r'),
    ox.Literal("chat", language="fr"),
    ox.Literal("left", language="en", direction=ox.BaseDirection.LTR),
    ox.Literal("7", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")),
    ox.Literal(""),
]
GRAPHS = [ox.NamedNode(EX + "g/1"), ox.NamedNode(EX + "g/two%20words"), ox.BlankNode("g3")]

subjects = st.sampled_from(IRIS + BLANKS)
triple_terms = st.builds(ox.Triple, subjects, st.sampled_from(IRIS), st.sampled_from(IRIS + BLANKS + LITERALS))
objects = st.one_of(st.sampled_from(IRIS + BLANKS + LITERALS), triple_terms)
quads = st.lists(st.builds(ox.Quad, subjects, st.sampled_from(IRIS), objects, st.sampled_from(GRAPHS)), max_size=40)


def from_lines(store: OxigraphStore) -> bytes:
    out = io.BytesIO()
    union_ntriples(io.BytesIO(store.dump(ox.RdfFormat.N_QUADS)), out)
    return out.getvalue()


@settings(max_examples=examples(60))
@given(quads=quads, on_disk=st.booleans())
@example(  # a triple in two graphs: written once; with a blank node, twice (as the engine does)
    quads=[
        ox.Quad(IRIS[0], IRIS[4], LITERALS[0], GRAPHS[0]),
        ox.Quad(IRIS[0], IRIS[4], LITERALS[0], GRAPHS[1]),
        ox.Quad(BLANKS[0], IRIS[4], IRIS[1], GRAPHS[0]),
        ox.Quad(BLANKS[0], IRIS[4], IRIS[1], GRAPHS[2]),
    ],
    on_disk=False,
)
@example(  # a triple term as object in two graphs: written twice too (found by the property)
    quads=[
        ox.Quad(IRIS[0], IRIS[4], ox.Triple(IRIS[0], IRIS[4], IRIS[1]), GRAPHS[0]),
        ox.Quad(IRIS[0], IRIS[4], ox.Triple(IRIS[0], IRIS[4], IRIS[1]), GRAPHS[1]),
    ],
    on_disk=True,
)
def test_the_lines_give_the_stores_own_n_triples(
    quads: list[ox.Quad], on_disk: bool, stores: dict[bool, OxigraphStore]
) -> None:
    store = stores[on_disk]
    store.store.clear()
    store.store.extend(quads)
    assert from_lines(store) == store.dump(ox.RdfFormat.N_TRIPLES)


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[bool, OxigraphStore]]:
    """A store in memory and one on disk (the engine orders each its own way), emptied by each
    example: opening a store on disk for each cost 0.15 s."""
    both = {False: OxigraphStore(MEMORY), True: OxigraphStore(str(tmp_path_factory.mktemp("store")))}
    yield both
    for store in both.values():
        store.close()


def test_a_repeat_beyond_the_engines_window_is_written_again() -> None:
    """More distinct triples than the engine remembers, each hundred-thousandth in a second graph:
    where the repeat comes after the window was emptied, both write it twice (~5 s)."""
    p, o = ox.NamedNode(EX + "p"), ox.NamedNode(EX + "o")
    lines = [f"<{EX}s{n}> <{p.value}> <{o.value}> <{EX}g/a> .\n" for n in range(WINDOW + 2)]
    lines += [f"<{EX}s{n}> <{p.value}> <{o.value}> <{EX}g/b> .\n" for n in range(0, WINDOW + 2, 100_000)]
    store = OxigraphStore(MEMORY)
    store.store.bulk_load("".join(lines).encode(), format=ox.RdfFormat.N_QUADS)
    mine, theirs = from_lines(store), store.dump(ox.RdfFormat.N_TRIPLES)
    assert mine.count(b"\n") > WINDOW + 2  # (some repeat was written again)
    assert mine == theirs


def test_the_site_download_path_reads_the_store_when_the_default_graph_has_triples(tmp_path: Path) -> None:
    """``dump_union_from``: from the N-Quads file, or, with triples in the default graph (their
    lines name no graph), from the store: the same bytes as ``dump_to`` either way."""
    store = OxigraphStore(str(tmp_path / "store"))
    store.store.add(ox.Quad(IRIS[0], IRIS[4], IRIS[1], GRAPHS[0]))
    store.store.add(ox.Quad(IRIS[0], IRIS[4], LITERALS[1], GRAPHS[1]))
    for default in (False, True):
        if default:
            store.store.add(ox.Quad(IRIS[1], IRIS[4], IRIS[2], ox.DefaultGraph()))
        nq, nt, expected = tmp_path / "all.nq", tmp_path / "all.nt", tmp_path / "expected.nt"
        store.dump_to(nq, ox.RdfFormat.N_QUADS)
        store.dump_to(expected, ox.RdfFormat.N_TRIPLES)
        store.dump_union_from(nq, nt)
        assert nt.read_bytes() == expected.read_bytes()
        assert (f"<{IRIS[1].value}> <{IRIS[4].value}> <{IRIS[2].value}> .".encode() in nt.read_bytes()) == default
    store.close()


def test_a_line_too_short_to_name_a_graph_is_an_error() -> None:
    with pytest.raises(ValueError):
        union_ntriples(io.BytesIO(b"<http://example.org/s>\n"), io.BytesIO())
