"""Writing Turtle the way curators write it: terms for drafts (always through Oxigraph's
serializer), and the one clean edit
`link suggest --apply` makes — an ``owl:sameAs`` line added to a subject's statement, and the
prefixes it needs, with every other byte of the file kept.

Every edit is checked before it is written: the edited file must parse, and its triples must be
exactly the old ones plus the new link. Otherwise nothing is written.
"""

from __future__ import annotations

import difflib
import fcntl
import os
import re
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

from kgprofiles.link.local import is_qid
from kgprofiles.link.wikidata_errors import NotApplied
from kgprofiles.store import rdf_syntax
from kgprofiles.vocab import OWL_NS as OWL
from kgprofiles.vocab import WD_NS as WD
from kgprofiles.vocab import XSD_NS as XSD

SAME_AS = OWL + "sameAs"

_SKIP = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*"""'
    r"|'''(?:[^'\\]|\\.|'(?!''))*'''"
    r'|"(?:[^"\\\n]|\\.)*"'
    r"|'(?:[^'\\\n]|\\.)*'"
    r"|<[^<>\"{}|^`\\\s]*>"
    r"|#[^\n]*"
)
_PREFIX_LINE = re.compile(r"^\s*(@prefix|PREFIX)\s+([A-Za-z][\w.-]*)?:\s*<([^>]*)>", re.IGNORECASE)
_LOCAL = re.compile(r"[A-Za-z0-9_][\w-]*")


# --------------------------------------------------------------------------------------- terms

_CURIE_LOCAL = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?")
_XSD_BARE = {XSD + "boolean": re.compile(r"true|false"), XSD + "integer": re.compile(r"-?[0-9]+")}
_NOT_IN_A_COMMENT = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


def turtle_term(term: ox.NamedNode | ox.Literal, prefixes: Mapping[str, str]) -> str:
    """``term`` as Turtle, written by Oxigraph's serializer (so every character is escaped as
    the syntax needs): an IRI as ``prefix:local`` where a namespace of ``prefixes`` covers it with a
    plain local name, else ``<…>``; ``true`` and integers bare; other typed literals with a CURIE
    for their datatype. Never text pasted between quotes."""
    if isinstance(term, ox.NamedNode):
        for name, namespace in prefixes.items():
            local = term.value[len(namespace) :]
            if term.value.startswith(namespace) and _CURIE_LOCAL.fullmatch(local):
                return f"{name}:{local}"
        return str(term)
    datatype = term.datatype.value
    if term.language or datatype == XSD + "string":
        return str(term)
    bare = _XSD_BARE.get(datatype)
    if bare is not None and bare.fullmatch(term.value):
        return term.value
    return f"{ox.Literal(term.value)}^^{turtle_term(term.datatype, prefixes)}"


def comment(text: str, limit: int = 200) -> str:
    """``text`` made safe for a ``#`` comment: one line (line breaks and other control characters
    become a space), at most ``limit`` characters."""
    flat = _NOT_IN_A_COMMENT.sub(" ", text)
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def is_iri(value: str) -> bool:
    """An absolute IRI Oxigraph accepts."""
    try:
        ox.NamedNode(value)
    except ValueError:
        return False
    return bool(re.match(r"^[a-z][a-z0-9+.-]*:", value, re.IGNORECASE))


# --------------------------------------------------------------------------------------- reading


def triples_of(text: str, base: str) -> set[str]:
    """The triples of Turtle ``text`` as N-Triples lines, blank nodes numbered by first appearance."""
    labels: dict[str, str] = {}

    def term(t: object) -> str:
        if isinstance(t, ox.BlankNode):
            return labels.setdefault(t.value, f"_:b{len(labels)}")
        return str(t)

    try:
        quads = list(rdf_syntax.parse(text.encode("utf-8"), format=rdf_syntax.RdfFormat.TURTLE, base_iri=base))
    except SyntaxError as exc:
        raise NotApplied(f"the edited file would not parse: {exc}") from exc
    return {f"{term(q.subject)} {term(q.predicate)} {term(q.object)}" for q in quads}


def declared_prefixes(text: str, base: str) -> dict[str, str]:
    parser = rdf_syntax.parse(text.encode("utf-8"), format=rdf_syntax.RdfFormat.TURTLE, base_iri=base)
    for _ in parser:
        pass
    return dict(parser.prefixes)


# --------------------------------------------------------------------------------------- the edit


@contextmanager
def editing(path: Path) -> Iterator[None]:
    """Hold ``path`` for one read-modify-replace (read it, make the ``Edit``, ``write`` it, inside
    the block): an exclusive lock on the file that is at ``path`` when the lock is granted (taken
    again if the file was replaced while this waited), so that two edits of one file at once
    (two `link suggest --apply` of organizations.ttl) are made one after the other, the second
    from the first's result; without it, the second replaced the file with its own edit alone."""
    while True:
        fd = os.open(path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            if os.fstat(fd).st_ino == os.stat(path).st_ino:
                yield
                return
        finally:
            os.close(fd)  # (the lock goes with it)


@dataclass(frozen=True)
class Edit:
    """A file's text before and after; nothing is written until ``write``."""

    path: Path
    before: str
    after: str

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self, label: str | None = None) -> str:
        name = label or str(self.path)
        lines = difflib.unified_diff(
            self.before.splitlines(keepends=True), self.after.splitlines(keepends=True), name, name, n=1
        )
        return "".join(lines)

    def write(self) -> None:
        """Replace the file in one rename, keeping its permissions."""
        handle, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
                out.write(self.after)
                out.flush()
                os.fsync(out.fileno())  # (on disk before it replaces the user's file: a power cut leaves one)
            shutil.copymode(self.path, tmp)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def add_same_as(path: Path, subject: str, target: str) -> Edit:
    """The edit that adds ``subject owl:sameAs target`` to ``path``: one line in the subject's
    statement (after its first line that ends a predicate with ``;``), plus ``@prefix`` lines for
    owl: and wd: where the file lacks them, aligned like its other prefixes."""
    if not (target.startswith(WD) and is_qid(target[len(WD) :])):
        raise NotApplied(f"{target[:200]!r} is not a Wikidata item IRI; nothing was written")
    before = path.read_bytes().decode("utf-8")
    base = path.resolve().as_uri()
    old = triples_of(before, base)
    new_triple = f"{ox.NamedNode(subject)} {ox.NamedNode(SAME_AS)} {ox.NamedNode(target)}"
    if new_triple in old:
        return Edit(path, before, before)
    newline = "\r\n" if "\r\n" in before else "\n"
    prefixes = declared_prefixes(before, base)
    extra_prefixes: list[tuple[str, str]] = []
    predicate = _term(SAME_AS, "owl", OWL, prefixes, extra_prefixes)
    obj = _term(target, "wd", WD, prefixes, extra_prefixes)
    after = _insert_statement_line(before, subject, prefixes, f"{predicate} {obj}", newline)
    after = _insert_prefixes(after, extra_prefixes, newline)
    if triples_of(after, base) != old | {new_triple}:
        raise NotApplied(
            f"{path}: adding the link would change more than the one triple; nothing was written",
            f"add `{predicate} {obj} ;` to {_subject_text(subject, prefixes)} by hand",
        )
    return Edit(path, before, after)


def _term(value: str, preferred: str, namespace: str, prefixes: dict[str, str], extra: list[tuple[str, str]]) -> str:
    local = value[len(namespace) :] if value.startswith(namespace) else None
    if local is None or not _LOCAL.fullmatch(local):
        return str(ox.NamedNode(value))
    for name, declared in sorted(prefixes.items()):
        if declared == namespace:
            return f"{name}:{local}"
    if preferred not in prefixes:
        extra.append((preferred, namespace))
        prefixes[preferred] = namespace
        return f"{preferred}:{local}"
    return str(ox.NamedNode(value))


def _subject_text(subject: str, prefixes: dict[str, str]) -> str:
    for name, namespace in sorted(prefixes.items()):
        if subject.startswith(namespace) and _LOCAL.fullmatch(subject[len(namespace) :]):
            return f"{name}:{subject[len(namespace) :]}"
    return str(ox.NamedNode(subject))


def _subject_start(text: str, subject: str, prefixes: dict[str, str]) -> int:
    """The offset of the first statement whose subject is ``subject`` (a token at a line start,
    or after a statement's final dot)."""
    spellings = [f"<{subject}>"] + [
        f"{name}:{subject[len(ns) :]}" for name, ns in prefixes.items() if subject.startswith(ns)
    ]
    position = 0
    expect_subject = True
    depth = 0
    while position < len(text):
        skip = _SKIP.match(text, position)
        if skip:
            if expect_subject and depth == 0 and skip.group(0) in spellings:
                return position
            if not skip.group(0).startswith("#"):
                expect_subject = False
            position = skip.end()
            continue
        char = text[position]
        if char.isspace():
            position += 1
            continue
        if expect_subject and depth == 0:
            for spelling in spellings:
                end = position + len(spelling)
                if text.startswith(spelling, position) and (end == len(text) or not _continues_name(text[end])):
                    return position
            if text.startswith(("@prefix", "@base"), position) or re.match(r"(?i)(PREFIX|BASE)\b", text[position:]):
                position = text.find("\n", position) if "\n" in text[position:] else len(text)
                continue
        expect_subject = False
        if char in "[(":
            depth += 1
        elif char in "])":
            depth -= 1
        elif char == "." and depth == 0 and _ends_statement(text, position):
            expect_subject = True
        position += 1
    raise NotApplied(f"cannot find the statements of {subject} in the file")


def _continues_name(char: str) -> bool:
    return char.isalnum() or char in "_-:%"


def _ends_statement(text: str, position: int) -> bool:
    return position + 1 == len(text) or text[position + 1] in " \t\r\n#"


def _scan_statement(text: str, start: int) -> tuple[int | None, int]:
    """From a statement's start: the offset of its first top-level ``;`` that ends a line (or None),
    and the offset of its final ``.``."""
    depth = 0
    first_semicolon = None
    position = start
    while position < len(text):
        skip = _SKIP.match(text, position)
        if skip:
            position = skip.end()
            continue
        char = text[position]
        if char in "[(":
            depth += 1
        elif char in "])":
            depth -= 1
        elif depth == 0 and char == ";" and first_semicolon is None and _rest_is_blank(text, position + 1):
            first_semicolon = position
        elif depth == 0 and char == "." and _ends_statement(text, position):
            return first_semicolon, position
        position += 1
    raise NotApplied("the subject's statement has no final '.'")


def _rest_is_blank(text: str, position: int) -> bool:
    end = text.find("\n", position)
    rest = text[position : end if end >= 0 else len(text)]
    return not rest.strip() or rest.strip().startswith("#")


def _insert_statement_line(text: str, subject: str, prefixes: dict[str, str], pair: str, newline: str) -> str:
    start = _subject_start(text, subject, prefixes)
    semicolon, final = _scan_statement(text, start)
    if semicolon is not None:
        line_end = text.find("\n", semicolon)
        line_end = len(text) if line_end < 0 else line_end + 1
        following = text[line_end : text.find("\n", line_end) if "\n" in text[line_end:] else len(text)]
        indent = re.match(r"[ \t]*", following).group(0) if line_end < final else "    "  # type: ignore[union-attr]
        if not indent:
            indent = "    "
        prefix_newline = "" if text[:line_end].endswith("\n") else newline
        return f"{text[:line_end]}{prefix_newline}{indent}{pair} ;{newline}{text[line_end:]}"
    head = text[:final].rstrip(" \t")
    line_start = text.rfind("\n", 0, start) + 1
    indent = " " * 4 if head[line_start:].strip() else ""
    return f"{head} ;{newline}{indent}{pair} .{text[final + 1 :]}"


def _insert_prefixes(text: str, extra: list[tuple[str, str]], newline: str) -> str:
    if not extra:
        return text
    lines = text.splitlines(keepends=True)
    declared = [(i, _PREFIX_LINE.match(line)) for i, line in enumerate(lines)]
    found = [(i, m) for i, m in declared if m]
    if found:
        last, match = found[-1]
        keyword = match.group(1)
        declared_lines = [lines[i] for i, _ in found]
        columns = {line.index("<") for line in declared_lines}
        aligned = len(columns) == 1 and any(re.search(r":\s\s+<", line) for line in declared_lines)
        column = columns.pop() if aligned else 0
        at = last + 1
    else:
        keyword, column = "@prefix", 0
        at = next((i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")), len(lines))
    new_lines = []
    for name, namespace in extra:
        head = f"{keyword} {name}:"
        head = head.ljust(column) if column > len(head) else head + " "
        tail = " ." if keyword.startswith("@") else ""
        new_lines.append(f"{head}<{namespace}>{tail}{newline}")
    if at > 0 and not lines[at - 1].endswith("\n"):
        lines[at - 1] += newline
    return "".join(lines[:at] + new_lines + lines[at:])
