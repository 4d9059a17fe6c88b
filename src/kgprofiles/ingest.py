"""Files → one named graph per file. Parse errors carry file:line:col; every subject keeps the line
where its statements start, so validation results can point at it.

Input is checked as it is parsed: a relative IRI is an error (there is no base IRI but the file's
own ``@base``: a data file's location is no part of what it says), and so is a literal longer
than ``max_literal_bytes`` (UTF-8; ``[kgprofiles.limits]``, default 1 MB; see ``literal_caps``)."""

from __future__ import annotations

import codecs
import errno
import hashlib
import re
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO
from urllib.parse import urljoin

import pyoxigraph as ox
from rdflib import Graph

from kgprofiles.config import Limits
from kgprofiles.errors import InputError
from kgprofiles.literal_caps import check_literals, oversized_term, string_end
from kgprofiles.store import rdf_syntax
from kgprofiles.terms import graph_from_triples
from kgprofiles.vocab import file_graph_iri

RDF_SUFFIXES = {".ttl": rdf_syntax.RdfFormat.TURTLE, ".nt": rdf_syntax.RdfFormat.N_TRIPLES}
_TOKEN = re.compile(r"\s*(<[^>\s]*>|[A-Za-z][\w.-]*:[^\s;,()\[\]]*|:[^\s;,()\[\]]*|_:[\w.-]+)")


@dataclass(frozen=True)
class SourceFile:
    """One parsed data file: its triples, its named graph and where each subject starts."""

    path: Path
    display: str  # the path as shown to users (relative to the project root where possible)
    graph: str  # the named graph IRI
    triples: tuple[ox.Triple, ...]
    subject_lines: dict[str, int] = field(repr=False)  # subject IRI or "_:label" → 1-based line
    count: int = -1  # how many triples the file holds; kept when ``without_triples`` drops them

    def __post_init__(self) -> None:
        if self.count < 0:
            object.__setattr__(self, "count", len(self.triples))

    def without_triples(self) -> SourceFile:
        """This file's name, graph, lines and count, without its triples (a build at scale keeps
        those on disk: see ``TripleSpill``)."""
        return replace(self, triples=())

    def line_of(self, node: str) -> int | None:
        """The line where ``node``'s statements start in this file, if it is a subject here."""
        return self.subject_lines.get(node)


def display_path(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(_resolved(root)).as_posix()
    except ValueError:
        return str(path)


@lru_cache(maxsize=64)
def _resolved(directory: Path) -> Path:
    """A project directory, resolved once (not once for each of 100,000 files)."""
    return directory.resolve()


def collect_files(paths: Iterable[Path], *, empty_dirs: bool = False) -> list[Path]:
    """The RDF files named, and those under the directories named, sorted, each once. A directory
    without any is an InputError (a build of it would publish an empty graph in place of the
    store's), unless ``empty_dirs``."""
    found: set[Path] = set()
    for path in paths:
        if path.is_dir():
            under = {p for p in path.rglob("*") if p.suffix in RDF_SUFFIXES and p.is_file()}
            if not under and not empty_dirs:
                raise InputError(
                    f"{path}: no RDF files in this directory; nothing was read",
                    f"name a directory with {' or '.join(RDF_SUFFIXES)} files, or the files themselves",
                )
            found.update(under)
        elif path.is_file():
            if path.suffix not in RDF_SUFFIXES:
                raise InputError(f"{path}: not an RDF file", "name .ttl or .nt files, or a directory")
            found.add(path)
        else:
            raise InputError(f"{path}: {_why_missing(path)}")
    return sorted(found)


def _why_missing(path: Path) -> str:
    """Why ``path`` is neither a file nor a directory, in words."""
    try:
        path.stat()
    except OSError as exc:
        return "a loop of symbolic links" if exc.errno == errno.ELOOP else (exc.strerror or "cannot be read").lower()
    return "neither a file nor a directory"


def graph_name(path: Path, data_dir: Path | None) -> str:
    """The named graph of a file: its path under the data directory (``people/horace-he.ttl``),
    so a file keeps its graph wherever the project is checked out; the absolute path otherwise."""
    if data_dir is not None:
        try:
            return file_graph_iri(path.resolve().relative_to(_resolved(data_dir)).as_posix())
        except ValueError:
            pass
    return file_graph_iri(path.resolve().as_posix().lstrip("/"))


#: The default cap on a literal's length, in UTF-8 bytes.
MAX_LITERAL_BYTES = Limits.max_literal_bytes


def parse_file(
    path: Path, root: Path, data_dir: Path | None = None, max_literal_bytes: int = MAX_LITERAL_BYTES
) -> SourceFile:
    """Parse one file; a syntax error, a relative IRI (without ``@base`` in the file) and a
    literal of more than ``max_literal_bytes`` become an InputError with ``file:line``. A UTF-8
    byte-order mark at the start is passed over."""
    display = display_path(path, root)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{display}: cannot read: {exc.strerror}") from exc
    data = data.removeprefix(codecs.BOM_UTF8)  # (some editors begin UTF-8 with one; the parser refused it)
    graph = graph_name(path, data_dir)
    _check_graph_iri(graph, display)
    try:
        parser = rdf_syntax.parse(data, format=RDF_SUFFIXES[path.suffix])
        triples = _stable_blank_nodes(graph, parser)
    except SyntaxError as exc:
        raise _syntax_error(display, exc) from exc
    except MemoryError as exc:  # Oxigraph: a term longer than its buffer
        raise oversized_term(data, display, max_literal_bytes) from exc
    if len(data) > max_literal_bytes:  # only a file that long can hold a literal that long
        check_literals(triples, data, display, max_literal_bytes)
    if b"<<" in data or b"{|" in data or b"~" in data:  # (only these can write a triple term)
        _refuse_triple_terms(triples, data, display)
    text = data.decode("utf-8", errors="replace")
    lines = _subject_lines(text, dict(parser.prefixes), parser.base_iri or "", triples)
    _refuse_list_cycles(triples, display, lines)
    return SourceFile(path, display, graph, triples, lines)


def _check_graph_iri(graph: str, display: str) -> None:
    """An InputError when the file's path makes no IRI for its graph: a space, ``<``, ``|``,
    ``%zz``, a control character, a name that is not UTF-8… (the store refused it as a store error,
    and validate, build and load --check ended with "internal error … a bug in kgprofiles")."""
    try:
        ox.NamedNode(graph)
    except UnicodeEncodeError:
        why = "the path is not UTF-8"
    except ValueError as exc:
        why = str(exc)
    else:
        return
    shown = display.encode("utf-8", "backslashreplace").decode("utf-8")
    raise InputError(
        f"{shown}: the file's path cannot be part of the IRI of its graph: {why}",
        "rename the file or its directories (letters, digits, '-', '_' and '.' are always fine): a graph is "
        "named by the file's path under the data directory, or by its whole path outside it",
    )


def parse_files(
    paths: Sequence[Path], root: Path, data_dir: Path | None = None, max_literal_bytes: int = MAX_LITERAL_BYTES
) -> list[SourceFile]:
    return [parse_file(p, root, data_dir, max_literal_bytes) for p in collect_files(paths, empty_dirs=True)]


#: What can hold ``<<``, ``{|`` or ``~`` that writes no triple term: comments, IRIs and strings.
_RDF_1_2 = re.compile(rb"#[^\n\r]*|<[^<>\"{}|^`\\\s]*>|\"\"\"|'''|\"|'|<<|\{\||~")


def _refuse_triple_terms(triples: Iterable[ox.Triple], data: bytes, display: str) -> None:
    """An InputError at the first RDF 1.2 triple term (``<< s p o >>``, ``<<( s p o )>>``, an
    annotation ``{| |}`` or a reifier ``~``): the store's parser reads them, but rdflib, and with it
    pyshacl, owlrl and the validation report, cannot hold one (``load`` and ``--reference``
    ended with "internal error … a bug in kgprofiles", and ``build`` too when a shape reported one)."""
    if not any(type(t.object) is ox.Triple or type(t.subject) is ox.Triple for t in triples):
        return
    line: int | str = "?"
    position = 0
    while match := _RDF_1_2.search(data, position):
        token = match.group()
        if token in (b"<<", b"{|", b"~"):
            line = data.count(b"\n", 0, match.start()) + 1
            break
        position = match.end()
        if token[:1] in (b'"', b"'"):
            position = string_end(data, position, token) + len(token)
    raise InputError(
        f"{display}:{line}: an RDF 1.2 triple term (<< >>, {{| |}} or ~): kgprofiles cannot validate or infer over one",
        "state the triple itself, with its source as kgp:source on its subject",
    )


_RDF_REST = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#rest")


def _refuse_list_cycles(triples: Sequence[ox.Triple], display: str, lines: dict[str, int]) -> None:
    """An InputError at an RDF list whose ``rdf:rest`` leads back into itself: owlrl reads the
    lists of OWL axioms (owl:propertyChainAxiom, owl:unionOf, owl:members…) and stopped on one
    with "ValueError: List contains a recursive rdf:rest reference", which validate, load and
    build reported as "internal error … a bug in kgprofiles" (exit 70)."""
    rest = {t.subject: t.object for t in triples if t.predicate == _RDF_REST}
    done: set[object] = set()
    for start in rest:
        walked: list[object] = []
        node: object = start
        while node in rest and node not in done:
            if node in walked:
                line = lines.get(subject_key(node) or "", "?")
                named = f" (<{node.value}>)" if isinstance(node, ox.NamedNode) else ""
                raise InputError(
                    f"{display}:{line}: an RDF list whose rdf:rest leads back into itself{named}",
                    "end every list with rdf:nil (write it as ( … ) in Turtle)",
                )
            walked.append(node)
            node = rest[node]  # type: ignore[index]
        done.update(walked)


def _syntax_error(display: str, exc: SyntaxError) -> InputError:
    line = exc.lineno or 0
    col = exc.offset or 0
    msg = re.sub(r"^Parser error at line \d+ (between columns \d+ and \d+|column \d+): ", "", str(exc.msg))
    if "No scheme found" in msg:
        return InputError(
            f"{display}:{line}:{col}: relative IRI: {msg}",
            "write the whole IRI (https://…) or a prefixed name; data files have no base IRI unless they "
            "declare one with @base",
        )
    return InputError(f"{display}:{line}:{col}: syntax error: {msg}")


class TripleSpill:
    """The parsed triples of many files, kept as N-Triples in a file instead of in memory.

    A build at 100,000 people parses 9.5 million triples; held as Python objects they take about
    4 GiB for the whole build, because validation and inference read them again and again. Spilled,
    each reading is one parse of the file (Oxigraph keeps the blank-node labels ingest gave, and
    every literal's lexical form). Call the spill for a fresh iterator, in the order of ``add``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: BinaryIO | None = open(path, "wb", buffering=1 << 20)  # noqa: SIM115 (closed by close)

    def add(self, triples: Sequence[ox.Triple]) -> None:
        assert self._handle is not None, "the spill is closed for writing"
        rdf_syntax.serialize(triples, self._handle, format=rdf_syntax.RdfFormat.N_TRIPLES)

    def close(self) -> None:
        """Finish writing (reading works only after this)."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def text(self) -> Iterator[tuple[str, str, str]]:
        """The triples as the inference passes read them (``fast.linear.TextTriple``): subject and
        object as Oxigraph wrote them, the predicate's IRI. Split from the file's lines (one
        triple a line, terms separated by one space, none in an IRI or a blank node label): a
        third of the time of parsing them into terms and writing those back as text."""
        assert self._handle is None, "close the spill before reading it"
        with open(self.path, encoding="utf-8", newline="\n") as lines:  # a raw \r is never written
            for line in lines:
                subject, predicate, rest = line.split(" ", 2)
                yield subject, predicate[1:-1], rest[:-3]

    def __call__(self) -> Iterator[ox.Quad]:
        assert self._handle is None, "close the spill before reading it"
        # Lenient: the file holds terms Oxigraph itself wrote, so re-checking every IRI is wasted
        # (it halves the time of a pass: 0.74 s against 1.36 s for 948,352 triples).
        return rdf_syntax.parse(path=self.path, format=rdf_syntax.RdfFormat.N_TRIPLES, lenient=True)


def union_graph(files: Iterable[SourceFile]) -> Graph:
    """One rdflib graph holding every file's triples (for pyshacl and owlrl)."""
    graph = Graph()
    for f in files:
        graph_from_triples(f.triples, graph)
    return graph


def _stable_blank_nodes(graph: str, quads: Iterable[ox.Quad]) -> tuple[ox.Triple, ...]:
    """The file's triples with blank nodes relabelled by graph and order of first appearance, so the
    same file always gives the same labels (parsers make random ones) and exports stay byte-identical."""
    stem = hashlib.sha1(graph.encode("utf-8")).hexdigest()[:10]
    labels: dict[str, ox.BlankNode] = {}

    def relabel(term: ox.BlankNode) -> ox.BlankNode:
        found = labels.get(term.value)
        if found is None:
            found = labels[term.value] = ox.BlankNode(f"f{stem}b{len(labels)}")
        return found

    out = []
    blank = ox.BlankNode
    for q in quads:
        s, o = q.subject, q.object
        if type(s) is blank or type(o) is blank:  # most triples have none: keep Oxigraph's own
            out.append(
                ox.Triple(relabel(s) if type(s) is blank else s, q.predicate, relabel(o) if type(o) is blank else o)
            )
        else:
            out.append(q.triple)
    return tuple(out)


def _expand(token: str, prefixes: dict[str, str], base: str) -> str | None:
    if token.startswith("<") and token.endswith(">"):
        iri = token[1:-1]
        return iri if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", iri) else urljoin(base, iri)
    if token.startswith("_:"):
        return None
    prefix, _, local = token.partition(":")
    namespace = prefixes.get(prefix)
    if namespace is None:
        return None
    return namespace + (re.sub(r"\\(.)", r"\1", local) if "\\" in local else local)


def _subject_lines(text: str, prefixes: dict[str, str], base: str, triples: Sequence[ox.Triple]) -> dict[str, int]:
    """Map each subject to the first line that starts with it (a statement start); a subject only
    found elsewhere on a line takes that line; a blank node takes the line of the subject that holds it."""
    subjects = {t.subject.value for t in triples if isinstance(t.subject, ox.NamedNode)}
    every = text.splitlines()
    # Statement starts first: the lines at column 1 (most of a file's lines are indented
    # predicate-object lines, read only for a subject that never starts a line).
    starts = [(n, line) for n, line in enumerate(every, start=1) if line[:1].strip()]
    lines = _first_lines(starts, subjects, prefixes, base)
    unplaced = subjects.difference(lines)
    if unplaced:
        for iri, number in _first_lines(enumerate(every, start=1), unplaced, prefixes, base).items():
            lines.setdefault(iri, number)
    _locate_blank_nodes(triples, lines)
    return lines


def _first_lines(
    numbered: Iterable[tuple[int, str]], subjects: Collection[str], prefixes: dict[str, str], base: str
) -> dict[str, int]:
    """Each of ``subjects`` that is the first term of one of the numbered lines → the first such
    line (comments and directives skipped)."""
    found: dict[str, int] = {}
    for number, line in numbered:
        stripped = line.lstrip()
        if not stripped or stripped.startswith(("#", "@", "PREFIX", "prefix", "BASE", "base")):
            continue
        match = _TOKEN.match(line)
        if not match:
            continue
        iri = _expand(match.group(1).rstrip(".,;"), prefixes, base)
        if iri is not None and iri in subjects and iri not in found:
            found[iri] = number
    return found


def _locate_blank_nodes(triples: Sequence[ox.Triple], lines: dict[str, int]) -> None:
    """Give each blank node the line of the located subject that holds it, nearest first (fewest
    steps through other blank nodes; ties: the holder's first triple in the file). One pass over
    the triples and one over the blank nodes, however deep ``[ ]`` nest or long lists run."""
    held: dict[str, list[str]] = {}
    for t in triples:
        if isinstance(t.object, ox.BlankNode):
            held.setdefault(subject_key(t.subject), []).append("_:" + t.object.value)  # type: ignore[arg-type]
    frontier = [holder for holder in held if holder in lines]
    while frontier:
        reached = []
        for holder in frontier:
            for blank in held.get(holder, ()):
                if blank not in lines:
                    lines[blank] = lines[holder]
                    reached.append(blank)
        frontier = reached


def subject_key(term: object) -> str | None:
    """A subject as ``SourceFile.subject_lines`` names it: an IRI, or ``_:label`` (None for
    anything else)."""
    if isinstance(term, ox.NamedNode):
        return term.value
    if isinstance(term, ox.BlankNode):
        return "_:" + term.value
    return None
