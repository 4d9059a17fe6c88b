"""SPARQL text, read just enough to bind parameters safely (through the project's lexer,
``kgprofiles.sparql_lexer``, so keywords and braces are really keywords and braces), and the one way
parameters are bound as RDF terms: a ``VALUES`` clause at the start of the query's outermost WHERE
group, its terms written by pyoxigraph in N-Triples syntax, which escapes them, so a value can never
change the query's structure (no SPARQL injection).

Both store backends use it (pyoxigraph's own ``substitutions`` only accept projected variables,
which aggregating queries cannot offer), so a query means the same on the embedded store and on a
remote server. Queries use a parameter only where the outermost group, or a triple pattern of the
same group, binds it. ``SparqlText`` keeps track of what was inserted so that a parser's
"line L, column C" can be mapped back to the user's own text.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

import pyoxigraph as ox

from kgprofiles.errors import QueryError
from kgprofiles.sparql_lexer import scan
from kgprofiles.vocab import PREFIXES

Term = ox.NamedNode | ox.BlankNode | ox.Literal

QUERY_FORMS = frozenset({"SELECT", "CONSTRUCT", "DESCRIBE", "ASK"})
UPDATE_FORMS = frozenset({"INSERT", "DELETE", "LOAD", "CLEAR", "CREATE", "DROP", "COPY", "MOVE", "ADD", "WITH"})
_VARNAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def sparql_form(text: str) -> str | None:
    """SELECT, CONSTRUCT, DESCRIBE, ASK, or the first keyword of an update (INSERT, DROP…)."""
    for token in scan(text):
        if token.keyword in QUERY_FORMS or token.keyword in UPDATE_FORMS:
            return token.keyword
    return None


def declared_prefixes(text: str) -> set[str]:
    """The prefix names a SPARQL text declares itself."""
    names: set[str] = set()
    tokens = list(scan(text))
    for token, following in itertools.pairwise(tokens):
        if token.keyword == "PREFIX" and following.text.endswith(":"):
            names.add(following.text[:-1])
    return names


@lru_cache(maxsize=512)  # the named queries come back again and again
def where_group_start(text: str) -> int | None:
    """The offset just after the ``{`` that opens the outermost WHERE group, or None."""
    tokens = [t for t in scan(text) if t.depth == 0]
    form = next((t.keyword for t in tokens if t.keyword in QUERY_FORMS), None)
    braces = [t for t in tokens if t.text == "{"]
    where = next((t for t in tokens if t.keyword == "WHERE"), None)
    if where is not None:
        group = next((b for b in braces if b.start > where.start), None)
    elif form == "CONSTRUCT":  # CONSTRUCT { template } { pattern }
        group = braces[1] if len(braces) > 1 else None
    else:
        group = braces[0] if braces else None
    return None if group is None else group.start + 1


@lru_cache(maxsize=512)  # (as where_group_start: the named queries come back again and again)
def query_variables(text: str) -> frozenset[str]:
    """The names of the variables a SPARQL text writes (``?x`` and ``$x`` alike)."""
    return frozenset(t.text[1:] for t in scan(text) if t.kind == "var")


def check_bindings(bindings: Mapping[str, Term] | None) -> dict[str, Term]:
    """The bindings, checked: names are SPARQL variable names (no ``?``), values RDF terms."""
    if bindings is not None and not isinstance(bindings, Mapping):
        raise QueryError(
            f"bindings must map variable names to RDF terms, not be a {type(bindings).__name__}",
            'e.g. {"person": pyoxigraph.NamedNode("https://…")}',
        )
    checked: dict[str, Term] = {}
    for name, term in (bindings or {}).items():
        if not _VARNAME.fullmatch(name):
            raise QueryError(f"not a variable name: {name!r}", "give the name without '?' or '$'")
        if not isinstance(term, ox.NamedNode | ox.BlankNode | ox.Literal):
            raise QueryError(
                f"?{name} must be bound to an RDF term, not {type(term).__name__}",
                'e.g. pyoxigraph.NamedNode("https://…") or pyoxigraph.Literal("…")',
            )
        checked[name] = term
    return checked


def values_clause(bindings: Mapping[str, Term]) -> str:
    """``VALUES (?a ?b) { (<iri> "literal"@en) }``. Terms are written in N-Triples syntax by
    pyoxigraph (quotes, backslashes and line breaks escaped), so a value cannot end the literal
    it is written in. Blank nodes cannot be written in VALUES and are refused."""
    for name, term in bindings.items():
        if isinstance(term, ox.BlankNode):
            raise QueryError(f"?{name}: a blank node cannot be bound here", "bind an IRI or a literal")
    names = " ".join(f"?{name}" for name in bindings)
    terms = " ".join(str(term) for term in bindings.values())
    return f"VALUES ({names}) {{ ({terms}) }}"


@dataclass(frozen=True)
class SparqlText:
    """A SPARQL text as sent, made of pieces of the caller's text and inserted pieces, so that a
    position the engine reports in the sent text can be mapped back to the caller's text."""

    original: str
    pieces: tuple[tuple[str, bool], ...]  # (text, taken from the original?)

    @classmethod
    def of(cls, text: str) -> SparqlText:
        return cls(text, ((text, True),))

    @property
    def sent(self) -> str:
        return "".join(piece for piece, _ in self.pieces)

    def prepend(self, text: str) -> SparqlText:
        return self if not text else SparqlText(self.original, ((text, False), *self.pieces))

    def insert(self, offset: int, text: str) -> SparqlText:
        """Insert ``text`` at ``offset`` of the original (only into a text with one original piece)."""
        before = [p for p in self.pieces if not p[1]]
        return SparqlText(
            self.original,
            (*before, (self.original[:offset], True), (text, False), (self.original[offset:], True)),
        )

    def original_position(self, line: int, column: int) -> tuple[int, int]:
        """The (line, column) in the caller's text for a 1-based (line, column) in the sent text."""
        offset = _offset(self.sent, line, column)
        consumed = 0
        for piece, original in self.pieces:
            if offset < len(piece):
                return _line_column(self.original, consumed + (offset if original else 0))
            offset -= len(piece)
            consumed += len(piece) if original else 0
        return _line_column(self.original, len(self.original))

    def locate(self, message: str) -> str:
        """The engine's error message with its position given as "line L, column C" of the
        caller's text (oxigraph's "error at L:C: …", Jena's "line L, column C" and Virtuoso's
        "SPARQL compiler, line L: …", which has no column, are understood),
        said so a person can read it: what was expected in words, the line, a caret under the
        place; an unknown prefix named, with the prefixes that are declared."""
        match = re.search(r"error at (\d+):(\d+):?\s*", message)
        if match:
            line, column = self.original_position(int(match[1]), int(match[2]))
            rest = (message[: match.start()] + message[match.end() :]).strip()
            return f"line {line}, column {column}: {self._explain(rest, line, column)}{self._show(line, column)}"

        match = re.search(r"SPARQL compiler, line (\d+): (.*?)(?:\n\s*\nSPARQL query:.*)?$", message, re.DOTALL)
        if match:  # Virtuoso: a line without a column, then the whole query sent (not repeated)
            line, _ = self.original_position(int(match[1]), 1)
            shown = self.original.split("\n")[line - 1] if 1 <= line <= self.original.count("\n") + 1 else ""
            return f"line {line}: {match[2].strip()}" + (f"\n  {shown}" if shown else "")

        def relocate(found: re.Match[str]) -> str:
            line, column = self.original_position(int(found[1]), int(found[2]))
            return f"line {line}, column {column}"

        return re.sub(r"line (\d+), column (\d+)", relocate, message)

    def _explain(self, message: str, line: int, column: int) -> str:
        if "Prefix not found" in message or "prefix not found" in message.lower():
            prefix = _prefix_at(self.original.split("\n")[line - 1], column)
            declared = sorted(set(PREFIXES) | declared_prefixes(self.original))
            named = f"the prefix {prefix}: is not declared" if prefix is not None else "a prefix is not declared"
            return f"{named} (declared: {', '.join(p + ':' for p in declared)}); add PREFIX {prefix or 'name'}: <…>"
        return _expected_in_words(message)

    def _show(self, line: int, column: int) -> str:
        """The offending line, and a caret under the column."""
        lines = self.original.split("\n")
        if not 1 <= line <= len(lines):
            return ""
        text = lines[line - 1].expandtabs(1)
        if len(text) > 160:  # a very long line: the part around the column
            start = max(0, column - 80)
            text, column = text[start : start + 160], column - start
        return f"\n  {text}\n  {' ' * (column - 1)}^"


#: A token in an engine's "expected one of" list that a person can read: a quoted token or a word.
_READABLE = re.compile(r'^(?:"[^"]{1,20}"|[A-Za-z][A-Za-z_]{0,30})$')


def _expected_in_words(message: str) -> str:
    """oxigraph's "expected one of <tokens and character ranges>" as words: the quoted tokens
    and keywords it lists (character ranges are left out); other messages as they are."""
    head, found, listed = message.partition("expected one of ")
    if not found:
        return message
    items = [item.strip() for item in re.split(r",\s*(?![^\[]*\])", listed) if item.strip()]
    readable = [item for item in items if _READABLE.match(item)]
    if not readable:
        return head + "unexpected text here"
    shown = ", ".join(readable[:12]) + (", …" if len(readable) > 12 else "")
    return f"{head}expected {shown}"


def _prefix_at(line: str, column: int) -> str | None:
    """The prefix of the prefixed name at or just before ``column`` (1-based) of ``line``."""
    best = None
    for match in re.finditer(r"([A-Za-z][\w.-]*)?:", line):
        if match.start() < column:
            best = match[1] or ""
    return best


def _offset(text: str, line: int, column: int) -> int:
    lines = text.split("\n")
    line = min(max(line, 1), len(lines))
    return min(sum(len(x) + 1 for x in lines[: line - 1]) + max(column, 1) - 1, len(text))


def _line_column(text: str, offset: int) -> tuple[int, int]:
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


def inline_values(text: SparqlText, bindings: Mapping[str, Term]) -> SparqlText:
    """The query with ``VALUES`` for the bindings right after the opening brace of its outermost
    WHERE group (a DESCRIBE without one gets ``WHERE { VALUES … }``)."""
    if not bindings:
        return text
    unused = [name for name in bindings if name not in query_variables(text.original)]
    if unused:  # (a typo: bound to nothing, the query would answer for every value)
        raise QueryError(
            f"?{unused[0]} is not a variable of the query", "bind only variables the query uses, by their names"
        )
    clause = values_clause(bindings)
    start = where_group_start(text.original)
    if start is not None:
        return text.insert(start, f" {clause} ")
    if sparql_form(text.original) == "DESCRIBE":
        return text.insert(len(text.original), f"\nWHERE {{ {clause} }}")
    raise QueryError("bindings need a query with a WHERE clause", "bind only variables of the WHERE clause")


def query_prologue(text: str) -> str:
    """PREFIX lines for the project prefixes the text does not declare itself."""
    declared = declared_prefixes(text)
    return "".join(f"PREFIX {name}: <{iri}>\n" for name, iri in PREFIXES.items() if name not in declared)


def bind_values(sparql: str, bindings: Mapping[str, Term] | None) -> str:
    """``sparql`` with its bindings as a ``VALUES`` clause at the start of its WHERE group."""
    return inline_values(SparqlText.of(sparql), check_bindings(bindings)).sent


T = TypeVar("T")


def chunks(values: Sequence[T], size: int = 500) -> Iterator[list[T]]:
    """``values`` in order, in pieces of at most ``size`` (e.g. one ``bind_rows`` VALUES clause each)."""
    for at in range(0, len(values), size):
        yield list(values[at : at + size])


def bind_rows(sparql: str, name: str, terms: Sequence[Term]) -> str:
    """``sparql`` with ``VALUES ?name { t1 t2 … }`` (one row per term, for batched look-ups) at
    the start of its WHERE group; the same escaping as ``bind_values``."""
    text = SparqlText.of(sparql)
    start = where_group_start(text.original)
    if start is None:
        raise QueryError("bindings need a query with a WHERE clause", "bind only variables of the WHERE clause")
    return text.insert(start, f" VALUES ?{name} {{ {_row_terms(name, terms)} }} ").sent


#: Aggregates: a SELECT with one and no GROUP BY answers several values with one row.
_AGGREGATES = frozenset({"COUNT", "SUM", "MIN", "MAX", "AVG", "SAMPLE", "GROUP_CONCAT"})


def bind_each(sparql: str, name: str, terms: Sequence[Term]) -> str:
    """The SELECT ``sparql`` answered for each of ``terms`` bound to ``?name``, in one query:
    ``SELECT * WHERE { VALUES ?name { t1 t2 … } LATERAL { SELECT ?name … } }``. Its own ORDER BY,
    DISTINCT, GROUP BY (``?name`` added to it) and LIMIT then hold for each term apart, as if it
    had been sent once per term, and ``?name`` is projected beside its own variables so the rows
    say whose they are. One query instead of one a term: it is planned once (half of a small
    query's cost) and its look-ups run together. ``LATERAL`` is an extension of SPARQL 1.1
    (SEP-0006) that the embedded store reads (``Store.lateral``); remote servers may not.

    Refused: a query whose answer is not the union of each term's (one that aggregates without
    GROUP BY: it answers the lot with one row), one that projects ``*`` or ``?name`` itself, one
    that names its dataset (a subquery cannot).

    >>> print(bind_each("SELECT DISTINCT ?n WHERE { ?p :name ?n } LIMIT 1", "p", [ox.NamedNode("http://x/a")]))
    SELECT * WHERE { VALUES ?p { <http://x/a> } LATERAL { SELECT DISTINCT ?p ?n WHERE { ?p :name ?n } LIMIT 1
    } }
    >>> print(bind_each("SELECT ?o (COUNT(*) AS ?n) WHERE { ?p ?q ?o } GROUP BY ?o", "p", [ox.Literal("x")]))
    SELECT * WHERE { VALUES ?p { "x" } LATERAL { SELECT ?p ?o (COUNT(*) AS ?n) WHERE { ?p ?q ?o } GROUP BY ?p ?o
    } }
    >>> bind_each("SELECT (COUNT(*) AS ?n) WHERE { ?p ?q ?o }", "p", [])
    Traceback (most recent call last):
    kgprofiles.errors.QueryError: a query that aggregates without GROUP BY cannot be answered for each of several values
    """
    if not _VARNAME.fullmatch(name):
        raise QueryError(f"not a variable name: {name!r}", "give the name without '?' or '$'")
    tokens = [t for t in scan(sparql) if t.kind != "comment"]
    select = next((i for i, t in enumerate(tokens) if t.keyword in QUERY_FORMS), None)
    if select is None or tokens[select].keyword != "SELECT":
        raise QueryError("only a SELECT query can be answered for each of several values at once")
    outer = [(i, t) for i, t in enumerate(tokens) if t.depth == 0]
    if any(t.keyword == "FROM" for _, t in outer):
        raise QueryError("a query that names its dataset (FROM) cannot be answered for each of several values")
    group = next((i for i, t in outer if t.keyword == "BY" and tokens[i - 1].keyword == "GROUP"), None)
    if group is None and any(t.text.upper() in _AGGREGATES for _, t in outer):
        raise QueryError("a query that aggregates without GROUP BY cannot be answered for each of several values")
    at = select + 1 if select + 1 < len(tokens) and tokens[select + 1].keyword in ("DISTINCT", "REDUCED") else select
    if (at + 1 < len(tokens) and tokens[at + 1].text == "*") or name in projection(sparql):
        raise QueryError(f"a query that projects * or ?{name} cannot be answered for each ?{name} at once")
    start, cuts = tokens[select].start, [tokens[at].end] + ([tokens[group].end] if group is not None else [])
    inner, done = "", start
    for cut in cuts:
        inner += f"{sparql[done:cut]} ?{name}"
        done = cut
    inner += sparql[done:]
    values = f"VALUES ?{name} {{ {_row_terms(name, terms)} }}"
    return f"{sparql[:start]}SELECT * WHERE {{ {values} LATERAL {{ {inner}\n}} }}"


@lru_cache(maxsize=512)  # (the named queries again, for every batch ``bind_each`` writes)
def projection(sparql: str) -> tuple[str, ...]:
    """The variables a SELECT projects, in its order (``*``: none named).

    >>> projection("SELECT DISTINCT ?a (STR(?b) AS ?c) ?d WHERE { ?a ?b ?d }")
    ('a', 'c', 'd')
    """
    tokens = [t for t in scan(sparql) if t.kind != "comment"]
    select = next((i for i, t in enumerate(tokens) if t.keyword == "SELECT"), len(tokens))
    names, parens, after_as = list[str](), 0, False
    for token in tokens[select + 1 :]:
        if token.text == "{" or token.keyword in ("WHERE", "FROM"):
            break
        parens += {"(": 1, ")": -1}.get(token.text, 0)
        if token.kind == "var" and (parens == 0 or after_as):
            names.append(token.text[1:])
        after_as = token.keyword == "AS"
    return tuple(names)


def _row_terms(name: str, terms: Sequence[Term]) -> str:
    """The terms of a one-variable ``VALUES`` block, escaped as by ``values_clause``."""
    for term in terms:
        check_bindings({name: term})
        if isinstance(term, ox.BlankNode):
            raise QueryError(f"?{name}: a blank node cannot be bound here", "bind an IRI or a literal")
    return " ".join(str(t) for t in terms)
