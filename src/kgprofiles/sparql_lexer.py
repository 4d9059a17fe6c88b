"""SPARQL text as a parser reads it: the one lexer of the project.

``tokens(text)`` splits a query or update into the terminals of the SPARQL grammar (IRIs, prefixed
names, variables, strings, numbers, keywords, punctuation; comments kept as tokens, whitespace
dropped), each with its offsets in ``text`` and the ``{ }`` depth it sits at. Binding parameters
(``store/binding.py``), rewriting ``sh:sparql`` constraints (``fast/sparql_text.py``) and the query
editor read queries through it; ``reading(text)`` gives what the checks made before any engine sees
a query need (``store/guard.py``).

Reading it like the parser matters because the checks are only as good as the lexer: a ``#`` read as
a comment where the parser reads an IRI, or a keyword hidden in a longer word, lets a SERVICE
through. The terminals follow the SPARQL 1.1 grammar (§19.8), including the ones a simpler scanner
gets wrong: ``\\u`` escapes inside IRIs, ``\\#`` and ``\\'`` inside local names, ``?o.SERVICE``
(a variable, ``.``, a keyword), ``1SERVICE`` (a number, a keyword), and keywords glued to what
follows (oxigraph reads ``SERVICEex:x`` as ``SERVICE ex:x`` and ``trueSERVICE`` as ``true SERVICE``).

Two places are ambiguous without the parser's context, and ``reading`` is conservative at both:

* ``<`` starts an IRI, or is the less-than operator after an operand inside an expression (which is
  always inside ``( )``). Where both are possible, the would-be IRI is read as an IRI, its text is
  kept to be read again as code (``Reading.shadow``), and it must not hold any character that could
  open or close something (``# ' " ( ) [ ] \\``): ``Reading.problem`` says so when it does.
* ``\\u`` and ``\\U`` escapes: SPARQL 1.1 (§19.2) replaces them in the whole text before parsing,
  Java-based servers do the same except after an escaped backslash, and oxigraph replaces them only
  inside IRIs and strings. ``readings(text)`` gives the text read under each of the three rules
  (once when the text has no escape), and a check must hold for every one of them.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

# -- terminals (SPARQL 1.1 §19.8) ---------------------------------------------------------------

_PN_CHARS_BASE = (
    r"A-Za-z\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02FF\u0370-\u037D\u037F-\u1FFF\u200C-\u200D"
    r"\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD\U00010000-\U000EFFFF"
)
_PN_CHARS_U = _PN_CHARS_BASE + "_"
_PN_CHARS = _PN_CHARS_U + r"\-0-9\u00B7\u0300-\u036F\u203F-\u2040"
_VARNAME_CHARS = _PN_CHARS_U + r"0-9\u00B7\u0300-\u036F\u203F-\u2040"
_CLASS_MEMBER = re.compile(
    r"(\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8}|\\.|[^\\])(?:-(\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8}|\\.|[^\\]))?"
)


def _code_point(member: str) -> int:
    return int(member[2:], 16) if member[:2] in ("\\u", "\\U") else ord(member[-1])


def one_of(members: str) -> str:
    """The character class ``[members]`` (characters, ``a-z`` ranges, ``\\u`` escapes, ``\\-``)
    written as its complement ``[^…]``: the same characters, which ``re`` compiles several times
    faster (it visits every code point below U+10000 of a class's ranges, and the name classes
    of the grammar hold most of them: ~20 ms of every command that reads a query)."""
    found = list(_CLASS_MEMBER.finditer(members))
    assert "".join(m.group() for m in found) == members, members
    spans = sorted((_code_point(m[1]), _code_point(m[2] or m[1])) for m in found)
    gaps, start = [], 0
    for low, high in spans:
        if low > start:
            gaps.append((start, low - 1))
        start = max(start, high + 1)
    if start <= sys.maxunicode:
        gaps.append((start, sys.maxunicode))
    return "[^" + "".join(f"\\U{a:08X}" + (f"-\\U{b:08X}" if b > a else "") for a, b in gaps) + "]"


_PLX = r"%[0-9A-Fa-f]{2}|\\[_~.\-!$&'()*+,;=/?#@%]"
_PN_PREFIX = rf"{one_of(_PN_CHARS_BASE)}(?:{one_of(_PN_CHARS + '.')}*{one_of(_PN_CHARS)})?"
_PN_LOCAL = (
    rf"(?:{one_of(_PN_CHARS_U + ':0-9')}|{_PLX})"
    rf"(?:(?:{one_of(_PN_CHARS + '.:')}|{_PLX})*(?:{one_of(_PN_CHARS + ':')}|{_PLX}))?"
)
_UCHAR = r"\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8}"

_TERMINALS = [
    ("space", r"[ \t\r\n]+"),
    ("comment", r"\#[^\r\n]*"),
    (
        "string",
        r"'''(?:[^'\\]|\\.|'(?!''))*'''|\"\"\"(?:[^\"\\]|\\.|\"(?!\"\"))*\"\"\""
        r"|'(?:[^'\\\n\r]|\\.)*'|\"(?:[^\"\\\n\r]|\\.)*\"",
    ),
    ("var", rf"[?$]{one_of(_PN_CHARS_U + '0-9')}{one_of(_VARNAME_CHARS)}*"),
    ("bnode", rf"_:{one_of(_PN_CHARS_U + '0-9')}(?:{one_of(_PN_CHARS + '.')}*{one_of(_PN_CHARS)})?"),
    ("name", rf"(?:{_PN_PREFIX})?:(?:{_PN_LOCAL})?"),
    ("number", r"[0-9]+\.[0-9]*[eE][+-]?[0-9]+|\.?[0-9]+[eE][+-]?[0-9]+|[0-9]*\.[0-9]+|[0-9]+"),
    ("keyword", r"[A-Za-z_][A-Za-z0-9_]*"),
    ("langtag", r"@[a-zA-Z]+(?:-[a-zA-Z0-9]+)*"),
    ("punct", r"\^\^|&&|\|\||!=|<=|>=|>>|[{}()\[\],;.*/+\-=!<>|^?]"),
]
_TERMINAL = re.compile("|".join(f"(?P<{kind}>{pattern})" for kind, pattern in _TERMINALS), re.DOTALL)
_IRI = re.compile(rf"<(?:[^<>\"{{}}|^`\\\x00-\x20]|{_UCHAR})*>")

#: Characters that must not be inside a ``<…>`` that could also be read as ``<`` operator ``…``.
_UNSAFE_IN_AMBIGUOUS_IRI = frozenset("#'\"()[]\\")
#: Tokens after which ``<`` cannot be the less-than operator (the next token starts an operand).
_NOT_OPERANDS = frozenset(
    {"(", ",", "=", "!=", "<", ">", "<=", ">=", "&&", "||", "!", "+", "-", "*", "/", "^^", "^", "|", ";", ".", "{"}
    | {"[", "<<", "?"}
)
_OPENING = {"{": "}", "(": ")", "[": "]", "<<": ">>"}


class Token(NamedTuple):
    """One terminal: ``kind`` is iri, string, comment, var, bnode, name (a prefixed name), number,
    keyword (a bare word: SELECT, a, true, STR…), langtag, brace (``{`` or ``}``) or punct."""

    kind: str
    text: str
    start: int
    end: int
    depth: int  # how many ``{`` are open before this token

    @property
    def keyword(self) -> str | None:
        """The upper-cased keyword, for a bare word (not a variable or a prefixed name)."""
        return self.text.upper() if self.kind == "keyword" and self.text.isalpha() else None

    @property
    def is_word(self) -> bool:
        """A variable, prefixed name, blank node, number or bare word."""
        return self.kind in ("var", "name", "bnode", "number", "keyword")


@dataclass
class Reading:
    """One text, lexed: its tokens; the text of would-be IRIs that may also be code (``shadow``);
    the deepest nesting of ``{ }``, ``( )``, ``[ ]`` and ``<< >>``; and the first ambiguity that
    cannot be read safely, if any."""

    tokens: list[Token] = field(default_factory=list)
    shadow: list[str] = field(default_factory=list)
    max_nesting: int = 0
    problem: str | None = None


def tokens(text: str) -> list[Token]:
    """The tokens of ``text``, comments included (a would-be IRI is read as an IRI)."""
    return _lex(text).tokens


def scan(text: str) -> Iterator[Token]:
    """The tokens of ``text`` without its comments."""
    return (t for t in tokens(text) if t.kind != "comment")


def reading(text: str) -> Reading:
    """``text`` lexed, with what the checks need (module docstring)."""
    return _lex(text)


def _is_operand_end(token: Token | None) -> bool:
    """Whether ``<`` right after ``token`` could be the less-than operator."""
    if token is None:
        return False
    if token.kind in ("punct", "brace"):
        return token.text not in _NOT_OPERANDS
    if token.kind == "keyword":
        return token.text.upper().startswith(("TRUE", "FALSE"))
    return True


def _lex(text: str) -> Reading:
    out = Reading()
    stack: list[str] = []  # open brackets: "{", "[", "(", "<<", "term" (after <<), "data" (VALUES)
    braces = 0
    previous: Token | None = None
    values_pending = False  # after VALUES, until its data block opens
    pos = 0
    while pos < len(text):
        char = text[pos]
        if char == "<":
            token = _angle(text, pos, braces, stack, previous, out)
            out.tokens.append(token)
            previous = token
            pos = token.end
            out.max_nesting = max(out.max_nesting, len(stack))
            continue
        match = _TERMINAL.match(text, pos)
        if match is None:  # a character no terminal starts with: the parser stops here
            token = Token("punct", char, pos, pos + 1, braces)
        else:
            kind = match.lastgroup or "punct"
            if kind == "space":
                pos = match.end()
                continue
            token = Token(kind, match.group(), pos, match.end(), braces)
        if token.kind == "keyword" and token.text.upper() == "VALUES":
            values_pending = True
        elif token.text in ("{", "(", "["):
            if token.text == "{":
                token = Token("brace", "{", token.start, token.end, braces)
                braces += 1
            kind = token.text
            if values_pending or (stack and stack[-1] == "data"):
                kind = "data"
                values_pending = values_pending and token.text != "{"
            elif token.text == "(" and previous is not None and previous.text == "<<":
                kind = "term"
            stack.append(kind)
        elif token.text in ("}", ")", "]") or (token.text == ">>" and stack and stack[-1] == "<<"):
            if token.text == "}":
                token = Token("brace", "}", token.start, token.end, braces)
                braces = max(0, braces - 1)
            if stack and _closes(stack[-1], token.text):
                stack.pop()
        elif token.text == ">>":  # not closing a << : two > operators
            token = Token("punct", ">", token.start, token.start + 1, braces)
        out.tokens.append(token)
        if token.kind != "comment":
            previous = token
        pos = token.end
        out.max_nesting = max(out.max_nesting, len(stack))
    return out


def _angle(text: str, pos: int, braces: int, stack: list[str], previous: Token | None, out: Reading) -> Token:
    """The token at a ``<``: an IRI, ``<<``, or the operator ``<`` / ``<=`` (module docstring)."""
    ambiguous = bool(stack) and stack[-1] == "(" and _is_operand_end(previous)
    if text.startswith("<<", pos):
        if ambiguous:
            out.problem = out.problem or f"'<<' at offset {pos} could also be '<' followed by an IRI"
            return Token("punct", "<", pos, pos + 1, braces)
        stack.append("<<")
        return Token("punct", "<<", pos, pos + 2, braces)
    iri = _IRI.match(text, pos)
    if iri is None:
        operator = "<=" if text.startswith("<=", pos) else "<"
        return Token("punct", operator, pos, pos + len(operator), braces)
    if ambiguous:
        inside = iri.group()[1:-1]
        if _UNSAFE_IN_AMBIGUOUS_IRI.intersection(inside):
            out.problem = out.problem or f"{iri.group()} at offset {pos} could also be '<' followed by code"
        out.shadow.append(inside)
    return Token("iri", iri.group(), pos, iri.end(), braces)


def _closes(opened: str, closing: str) -> bool:
    if opened == "data":
        return closing in ("}", ")")
    if opened == "term":
        return closing == ")"
    return _OPENING.get(opened) == closing


# -- \u escapes ---------------------------------------------------------------------------------

_SPEC_ESCAPE = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")
_JAVA_ESCAPE = re.compile(r"(\\+)u+([0-9A-Fa-f]{4})")


def _codepoint(hex_digits: str) -> str | None:
    value = int(hex_digits, 16)
    if value > 0x10FFFF or 0xD800 <= value <= 0xDFFF:
        return None
    return chr(value)


def unescape_spec(text: str) -> str:
    """``text`` with every ``\\uXXXX`` and ``\\UXXXXXXXX`` replaced, as SPARQL 1.1 §19.2 says to do
    before parsing (an escape that names no character is left as written)."""

    def replace(match: re.Match[str]) -> str:
        return _codepoint(match[1] or match[2]) or match.group()

    return _SPEC_ESCAPE.sub(replace, text)


def unescape_java(text: str) -> str:
    """``text`` with ``\\u`` escapes replaced the way Java-based servers do: only where the
    backslash is not itself escaped (an odd run of backslashes), ``u`` possibly repeated."""

    def replace(match: re.Match[str]) -> str:
        slashes = match[1]
        if len(slashes) % 2 == 0:
            return match.group()
        char = _codepoint(match[2])
        return match.group() if char is None else slashes[:-1] + char

    return _JAVA_ESCAPE.sub(replace, text)


def readings(text: str) -> list[str]:
    """``text`` as each kind of parser reads it before lexing: as written (oxigraph), with SPARQL's
    escapes replaced, with Java's; the same text once when it has no escape."""
    if "\\" not in text:
        return [text]
    return list(dict.fromkeys([text, unescape_spec(text), unescape_java(text)]))
