"""A Wikidata endpoint's SPARQL JSON results, read as untrusted input.

The answer is decoded as UTF-8 and read with ``json`` (whose strings have no size limit, unlike
Oxigraph's results parser, which stops at a MemoryError on a value over about 8 MB); each term
becomes an Oxigraph term as soon as it is read. A value (a text or an IRI) longer than
``max_text_chars`` is left out of its row (the variable is then unbound), and said in a note;
anything that is not SPARQL JSON results (bad JSON, another shape, an invalid IRI or language tag,
a boolean) is a WikidataBadAnswer.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import pyoxigraph as ox

from kgprofiles.link.wikidata_errors import WikidataBadAnswer
from kgprofiles.store.base import SelectResult, Term

_LANGUAGE = re.compile(r"[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*")  # BCP 47, as RDF literals take it
_HINT = "the endpoint answered something other than SPARQL results: check --wikidata-endpoint"


@dataclass(frozen=True)
class _LeftOut:
    """A value longer than the limit, in place of its term until its row is read."""

    length: int


def read_select(body: bytes, max_text_chars: int, answered: str) -> tuple[SelectResult, list[str]]:
    """The rows of a SPARQL JSON SELECT answer, and one note per value left out for its length.
    ``answered`` starts the error messages ("http://… answered application/json")."""

    def bad(why: str) -> WikidataBadAnswer:
        return WikidataBadAnswer(f"{answered} that is not valid SPARQL results JSON: {why}: {snippet(body, '')}", _HINT)

    def term(obj: dict) -> object:
        kind = obj.get("type")
        if not isinstance(kind, str):
            return obj  # not a term: the document, its head or results, or a row
        value = obj.get("value")
        if not isinstance(value, str):
            raise bad(f"a term of type {kind[:40]!r} without a string value")
        if kind not in ("uri", "bnode", "literal", "typed-literal"):
            raise bad(f"a term of unknown type {kind[:40]!r}")
        if len(value) > max_text_chars:
            return _LeftOut(len(value))
        try:
            if kind == "uri":
                return ox.NamedNode(value)
            if kind == "bnode":
                return ox.BlankNode(value)
            language, datatype = obj.get("xml:lang"), obj.get("datatype")
            if language is not None:
                if not isinstance(language, str) or not _LANGUAGE.fullmatch(language):
                    raise bad(f"a literal with the invalid language tag {str(language)[:40]!r}")
                return ox.Literal(value, language=language)
            if datatype is not None:
                return ox.Literal(value, datatype=ox.NamedNode(str(datatype)))
            return ox.Literal(value)
        except ValueError as error:
            raise bad(f"{str(error)[:200]} in {value[:80]!r}") from None

    try:
        document = json.loads(body.decode("utf-8"), object_hook=term)
    except UnicodeDecodeError as error:
        raise bad(f"not UTF-8 ({error.reason} at byte {error.start})") from None
    except RecursionError:
        raise bad("nested too deeply") from None
    except ValueError as error:
        raise bad(str(error)) from None
    if isinstance(document, dict) and "boolean" in document:
        raise WikidataBadAnswer(f"{answered}: a boolean where rows were expected", _HINT)
    head = document.get("head") if isinstance(document, dict) else None
    results = document.get("results") if isinstance(document, dict) else None
    variables = head.get("vars") if isinstance(head, dict) else None
    bindings = results.get("bindings") if isinstance(results, dict) else None
    if not isinstance(variables, list) or not all(isinstance(v, str) for v in variables):
        raise bad("no head.vars list of names")
    if not isinstance(bindings, list):
        raise bad("no results.bindings list")
    rows: list[dict[str, Term]] = []
    notes: dict[str, None] = {}
    for binding in bindings:
        if not isinstance(binding, dict):
            raise bad("a row that is not an object")
        row: dict[str, Term] = {}
        left_out: list[tuple[str, int]] = []
        for name, value in binding.items():
            if isinstance(value, _LeftOut):
                left_out.append((name, value.length))
            elif isinstance(value, (ox.NamedNode, ox.BlankNode, ox.Literal)):
                row[name] = value
            else:
                raise bad(f"?{name[:40]!r} is not a term")
        for name, length in left_out:
            notes[_note(name, length, row, max_text_chars)] = None
        rows.append(row)
    return SelectResult(tuple(variables), tuple(rows)), list(notes)


def _note(name: str, length: int, row: dict[str, Term], limit: int) -> str:
    about = next((t.value for t in row.values() if isinstance(t, ox.NamedNode)), None)
    variable = f"?{name}" if re.fullmatch(r"\w{1,40}", name) else "a value"
    where = f"{variable} of {about[:120]}" if about else variable
    return (
        f"wikidata: left out a value of {length:,} characters ({where}): longer than the {limit:,} kept "
        "(max_text_chars in [kgprofiles.wikidata])"
    )


def snippet(body: bytes, content_type: str) -> str:
    """A short description of an answer's body for a message: an HTML page's title, or its start."""
    text = body[:2000].decode("utf-8", errors="replace")
    if "html" in content_type or text.lstrip().startswith("<"):
        title = re.search(r"<title[^>]*>(.*?)</title>", text, re.IGNORECASE | re.DOTALL)
        if title:
            return f"an HTML page titled {title.group(1).strip()!r}"
        return "an HTML page"
    text = " ".join(text.split())
    return repr(text[:160] + ("…" if len(text) > 160 else ""))
