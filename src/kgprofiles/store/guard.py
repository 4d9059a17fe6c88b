"""What a query or update may do, checked on its text before any engine sees it.

* **Nesting.** Parsers recurse once per ``{ }``, ``( )``, ``[ ]`` or ``<< >>`` level, and a few
  thousand levels overflow a thread's stack (oxigraph: SIGSEGV, the whole process gone), or take
  minutes (nested RDF collections parse in cubic time). More than ``max_depth`` levels (default
  128) is refused.
* **Fetching.** SERVICE and LOAD make the engine fetch a URL; a FROM graph that the store does not
  hold can make a remote server fetch one. Unless fetching is allowed, they are refused. (USING in
  an update is left alone: the protocol's using-graph-uri becomes USING.)

The text is read by the project's lexer (``kgprofiles.sparql_lexer``) the way parsers read it,
under each rule for ``\\u`` escapes (as written, SPARQL's, Java's), and every check must hold under
every reading. Where a ``<`` could be an IRI or an operator and the difference could hide code,
the query is refused as ambiguous rather than guessed at.

This is the first of two layers: the query workers (``store/sandbox.py``) also run without a
network where the kernel allows it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from functools import lru_cache

from kgprofiles.errors import Forbidden, QueryError
from kgprofiles.sparql_lexer import Reading, Token, reading, readings, tokens, unescape_spec
from kgprofiles.vocab import PREFIXES, ids

#: How deeply brackets may nest in a query or update.
MAX_DEPTH = 128
#: Keywords that make the engine fetch a URL.
FETCHING = ("SERVICE", "LOAD")
#: The keyword that names the graphs a query reads (a remote server may fetch one it lacks).
DATASET = "FROM"
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
FETCH_HINT = "this server does not fetch URLs for a query; allow_fetch (kgprofiles serve --allow-fetch) permits it"


@dataclass(frozen=True)
class Analysis:
    """What the checks need from a text, under every reading of it."""

    nesting: int  # the deepest bracket nesting
    fetching: str | None  # SERVICE or LOAD, if the text uses one
    graphs: tuple[str, ...]  # the graphs FROM names, as absolute IRIs
    unclear: str | None  # why the text cannot be checked safely, if it cannot


def check_query(
    text: str,
    *,
    allow_fetch: bool = False,
    local_graphs: Callable[[], Collection[str]] | None = None,
    max_depth: int = MAX_DEPTH,
) -> None:
    """Refuse ``text`` (a query or an update) if it nests brackets deeper than ``max_depth``
    (QueryError), or, unless ``allow_fetch``, if it cannot be read unambiguously (QueryError), uses
    SERVICE or LOAD, or reads FROM a graph not among ``local_graphs()`` (Forbidden)."""
    found = analyse(text)
    if found.nesting > max_depth:
        raise QueryError(
            f"the query nests brackets {found.nesting} levels deep; at most {max_depth} are allowed",
            "flatten the query: nested groups and expressions can usually be written side by side",
        )
    if allow_fetch:
        return
    if found.unclear is not None:
        raise QueryError(
            f"the query cannot be checked safely: {found.unclear}",
            "write a space after '<' when it compares, and give IRIs as <…> or prefixed names",
        )
    if found.fetching is not None:
        raise Forbidden(f"{found.fetching} is not allowed: it would fetch a URL", FETCH_HINT)
    if found.graphs:
        known = set(local_graphs()) if local_graphs is not None else set()
        outside = [g for g in found.graphs if g not in known]
        if outside:
            raise Forbidden(
                f"FROM <{outside[0]}> is not a graph of this store: reading it would fetch a URL",
                "name graphs the store holds (the service description lists them); " + FETCH_HINT,
            )


def names_dataset(text: str) -> bool:
    """Whether ``text`` names its own dataset (FROM or FROM NAMED): then its default graph is the
    one it names (or empty, with FROM NAMED alone), never the union of the store's graphs."""
    return bool(analyse(text).graphs)


def analyse(text: str) -> Analysis:
    """The nesting, fetching keywords and dataset graphs of ``text`` under every reading (kept for
    each text and base IRI: a FROM's ``person:`` graph is in the project's namespace)."""
    return _analyse(text, ids().base)


@lru_cache(maxsize=1024)  # the named queries come back again and again
def _analyse(text: str, base: str) -> Analysis:
    nesting, fetching, graphs, unclear = 0, None, [], None
    for version in readings(text):
        read = reading(version)
        nesting = max(nesting, read.max_nesting)
        fetching = fetching or _fetching(read)
        try:
            graphs += _dataset_graphs(read.tokens)
        except _Unclear as exc:
            unclear = unclear or str(exc)
        unclear = unclear or read.problem
    return Analysis(nesting, fetching, tuple(dict.fromkeys(graphs)), unclear)


_MAY_FETCH = re.compile("|".join(FETCHING), re.IGNORECASE)


def _fetching(read: Reading) -> str | None:
    """SERVICE or LOAD if a keyword (or a prefix, which a keyword can be glued to) holds one."""
    shadow = [t for text in read.shadow if _MAY_FETCH.search(text) for t in tokens(text)]
    for token in [*read.tokens, *shadow]:
        if token.kind in ("keyword", "langtag"):  # (a parser may end a language tag early)
            word = token.text.upper()
        elif token.kind == "name":
            word = token.text.split(":", 1)[0].upper()
        else:
            continue
        for keyword in FETCHING:
            if keyword in word:
                return keyword
    return None


class _Unclear(Exception):
    pass


def _dataset_graphs(found: list[Token]) -> list[str]:
    """The graphs named after FROM and FROM NAMED, resolved to absolute IRIs."""
    words = [t for t in found if t.kind != "comment"]
    prefixes = dict(PREFIXES)
    graphs: list[str] = []
    for at, token in enumerate(words):
        head = _head(token)
        if head == "PREFIX" and at + 2 < len(words) and words[at + 1].kind == "name":
            prefixes[words[at + 1].text.split(":", 1)[0]] = _iri_value(words[at + 2])
        if not head.startswith(DATASET):
            continue
        if token.kind != "keyword" or head != DATASET:
            raise _Unclear(f"{token.text!r} runs a keyword into what follows it")
        target = words[at + 1] if at + 1 < len(words) else None
        if target is not None and target.kind == "keyword" and target.text.upper() == "NAMED":
            target = words[at + 2] if at + 2 < len(words) else None
        if target is None or target.kind not in ("iri", "name") or _head(target).startswith("NAMED"):
            raise _Unclear(f"{token.text} is not followed by a graph IRI")
        graphs.append(_graph_iri(target, prefixes))
    return graphs


def _head(token: Token) -> str:
    """A keyword, or the prefix of a prefixed name, upper-cased ('' for anything else)."""
    if token.kind == "keyword":
        return token.text.upper()
    if token.kind == "name":
        return token.text.split(":", 1)[0].upper()
    return ""


def _iri_value(token: Token) -> str:
    return unescape_spec(token.text[1:-1]) if token.kind == "iri" else ""


def _graph_iri(target: Token, prefixes: dict[str, str]) -> str:
    if target.kind == "iri":
        iri = _iri_value(target)
    else:
        prefix, _, local = target.text.partition(":")
        if prefix not in prefixes:
            raise _Unclear(f"the prefix of {target.text} is not declared")
        iri = prefixes[prefix] + re.sub(r"\\(.)", r"\1", local)  # \# in a local name is #
    if not _SCHEME.match(iri):
        raise _Unclear(f"the graph {target.text} is a relative IRI")
    return iri
