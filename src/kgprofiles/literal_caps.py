"""The cap on the size of a literal in a data file (``max_literal_bytes``, default 1 MB).

A literal is measured in UTF-8 bytes once the file is parsed, and only in a file longer than the
cap (no shorter file can hold one that long). Oxigraph itself refuses any term longer than its
16 MB buffer with a MemoryError; the file's text is then scanned for the long string so that the
error still says where it is and how long it is.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable

import pyoxigraph as ox

from kgprofiles.errors import InputError

_HINT = (
    "keep long texts outside the graph (link to them with kgp:url), or raise max_literal_bytes in "
    "[kgprofiles.limits] of kgprofiles.toml"
)
#: What can hold a quote that does not start a string: comments and IRIs; then the string openers.
_TOKENS = re.compile(rb"#[^\n\r]*|<[^<>\"{}|^`\\\s]*>|\"\"\"|'''|\"|'")


def check_literals(triples: Iterable[ox.Triple], data: bytes, display: str, limit: int) -> None:
    """An InputError at the first literal of ``triples`` (parsed from ``data``) that is longer
    than ``limit`` bytes in UTF-8."""
    for t in triples:
        o = t.object
        if type(o) is ox.Literal:
            value = o.value
            if len(value) * 4 > limit:  # else it cannot be over the limit, whatever its characters
                size = len(value.encode("utf-8"))
                if size > limit:
                    raise too_long(display, _line_of_long_string(data, limit), size, limit)


def oversized_term(data: bytes, display: str, limit: int) -> InputError:
    """The error for a file Oxigraph could not parse because a term is longer than its buffer:
    at the first string longer than ``limit`` bytes, else about the term."""
    for line, size in _strings(data):
        if size > limit:
            return too_long(display, line, size, limit)
    return InputError(
        f"{display}: a term longer than the parser's 16 MB buffer",
        "an IRI or literal that long is not data a profile holds: split the file or remove it",
    )


def too_long(display: str, line: int | str, size: int, limit: int) -> InputError:
    return InputError(f"{display}:{line}: literal of {size:,} bytes is over the {limit:,}-byte limit", _HINT)


def _line_of_long_string(data: bytes, limit: int) -> int | str:
    """The line where the first string longer than ``limit`` bytes starts ("?": none found)."""
    return next((line for line, size in _strings(data) if size > limit), "?")


def _strings(data: bytes) -> Iterable[tuple[int, int]]:
    """(line, UTF-8 size of the value) of each string of a Turtle or N-Triples text."""
    position = 0
    while match := _TOKENS.search(data, position):
        quote = match.group()
        if quote[:1] in (b"#", b"<"):
            position = match.end()
            continue
        start = match.end()
        end = string_end(data, start, quote)
        raw = data[start:end]
        size = len(_unescaped(raw)) if b"\\" in raw else len(raw)
        yield data.count(b"\n", 0, match.start()) + 1, size
        position = end + len(quote)


def string_end(data: bytes, start: int, quote: bytes) -> int:
    """Where the string opened by ``quote`` just before ``start`` ends: at its first closing
    quote that no backslash escapes (the end of the data if none)."""
    position = start
    while (found := data.find(quote, position)) >= 0:
        before = found
        while before > start and data[before - 1] == 0x5C:  # backslashes just before the quote
            before -= 1
        if (found - before) % 2 == 0:
            return found
        position = found + 1
    return len(data)


def _unescaped(raw: bytes) -> bytes:
    """A string's value from its text: Turtle's escapes (``\\t``, ``\\"``, ``\\u00e9``,
    ``\\U0001F600``…) are Python's, so its C decoder applies them (other characters first
    escaped to ASCII, so that they come through whole)."""
    text = raw.decode("utf-8", errors="replace").encode("ascii", errors="backslashreplace")
    try:
        return codecs.decode(text, "unicode_escape").encode("utf-8", errors="replace")
    except UnicodeDecodeError:
        return raw
