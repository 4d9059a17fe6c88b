"""Reading a SELECT answer whole from a server that cuts answers at a row cap.

A server with a cap (Virtuoso's ``ResultSetMaxRows``, 10,000 by default) answers the first rows
and says so only in a header, or not at all. ``paged_query`` rewrites a SELECT into one page of a
stable order: its own ``ORDER BY`` (if any) with every projected variable added as a tie-break,
then ``LIMIT``/``OFFSET``; reading page after page until one is short gives every row, in the
query's own order where it has one. A query with its own LIMIT or OFFSET cannot be paged this way
(``PagingError``). A server that will not sort past a number of rows (Virtuoso: MaxSortedTopRows,
10,000 by default: "Sorted TOP clause specifies more then 20000 rows") is read past it in pages
without ORDER BY, and the rows are counted against ``count_query``: a read that does not add up
is an error, never a short answer. Unordered pages may overlap and miss rows while the count still
adds up, so the rows read must also hold as many different rows as the query's answer
(``count_query(distinct=True)``, or no row twice for a ``SELECT DISTINCT``): every row a server
sends is a row of the answer, so as many different ones as it has are all of them.
"""

from __future__ import annotations

from kgprofiles.sparql_lexer import Token, scan
from kgprofiles.store.binding import where_group_start

__all__ = ["PagingError", "count_query", "is_distinct", "paged_query"]

#: The variable ``count_query`` binds.
COUNTED = "kgprofilesRows"


class PagingError(ValueError):
    """The query cannot be read page by page."""


def paged_query(sent: str, variables: tuple[str, ...], limit: int, offset: int, *, ordered: bool = True) -> str:
    """``sent`` (a SELECT, as sent to the server) as the page ``offset``..``offset+limit`` of a
    stable order (module docstring). ``ordered=False``: no ORDER BY is added (for a server that
    will not sort past a limit, Virtuoso's MaxSortedTopRows; the caller then checks the rows
    against ``count_query``); a query with an ORDER BY of its own cannot be paged so."""
    if not variables:
        raise PagingError("the query projects no variable to order by")
    start = where_group_start(sent)
    if start is None:
        raise PagingError("the query has no WHERE group")
    tail_tokens = _after_group(sent, start - 1)
    if tail_tokens is None:
        raise PagingError("the query's WHERE group does not close")
    close, tail = tail_tokens
    words = [t.keyword for t in tail]
    if "LIMIT" in words or "OFFSET" in words:
        raise PagingError("the query has its own LIMIT or OFFSET")
    values_at = next((t.start for t in tail if t.keyword == "VALUES"), len(sent))
    modifiers = sent[close:values_at].rstrip()
    order_at = next((i for i, t in enumerate(tail) if t.keyword == "ORDER"), None)
    if not ordered:
        if order_at is not None:
            raise PagingError("the query has its own ORDER BY, which the server will not sort this far")
        return f"{sent[:close]}{modifiers}\nLIMIT {limit} OFFSET {offset}\n{sent[values_at:]}"
    # a variable the ORDER BY already names is not named again: Virtuoso 7 pages wrongly (rows
    # repeated, others missing) when an ORDER BY names a variable twice
    named = {t.text[1:] for t in tail[order_at:] if t.kind == "var"} if order_at is not None else set()
    ties = " ".join(f"?{name}" for name in variables if name not in named)
    if order_at is None:
        modifiers = f"{modifiers}\nORDER BY {ties}"
    elif ties:
        modifiers = f"{modifiers} {ties}"
    return f"{sent[:close]}{modifiers}\nLIMIT {limit} OFFSET {offset}\n{sent[values_at:]}"


def _after_group(sent: str, open_at: int) -> tuple[int, list[Token]] | None:
    """(the offset just after the ``}`` that closes the group opened at ``open_at``, the tokens
    after it at the top level)."""
    depth = 0
    close: int | None = None
    tail: list[Token] = []
    for token in scan(sent):
        if token.start < open_at:
            continue
        if close is not None:
            tail.append(token)
            continue
        if token.text == "{":
            depth += 1
        elif token.text == "}":
            depth -= 1
            if depth == 0:
                close = token.end
    return None if close is None else (close, tail)


def count_query(sent: str, *, distinct: bool = False) -> str:
    """How many rows ``sent`` (a SELECT, as sent) has: ``SELECT (COUNT(*) AS ?kgprofilesRows)``
    over it as a subquery (its prologue kept in front); ``distinct``: how many different rows
    (the subquery made ``SELECT DISTINCT``)."""
    select, modifier = _select_of(sent)
    inner = sent[select.start :]
    if distinct and (modifier is None or modifier.keyword != "DISTINCT"):
        cut = modifier.end if modifier is not None else select.end  # REDUCED becomes DISTINCT
        inner = f"SELECT DISTINCT{sent[cut:]}"
    return f"{sent[: select.start]}SELECT (COUNT(*) AS ?{COUNTED}) WHERE {{\n{inner}\n}}"


def is_distinct(sent: str) -> bool:
    """Whether ``sent`` (a SELECT) is ``SELECT DISTINCT``: no row of its answer is repeated."""
    modifier = _select_of(sent)[1]
    return modifier is not None and modifier.keyword == "DISTINCT"


def _select_of(sent: str) -> tuple[Token, Token | None]:
    """The top-level ``SELECT`` of ``sent`` and its ``DISTINCT`` or ``REDUCED``, if any."""
    found = iter(scan(sent))
    for token in found:
        if token.keyword == "SELECT" and token.depth == 0:
            after = next(found, None)
            return token, after if after is not None and after.keyword in ("DISTINCT", "REDUCED") else None
    raise PagingError("not a SELECT")
