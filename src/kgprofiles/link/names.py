"""Comparing names across the two graphs: case, accents, punctuation and spacing do not count."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable


def normalize(text: str) -> str:
    """ "Douglas Noël  Adams." → "douglas noel adams"."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    words = re.sub(r"[^\w]+", " ", plain.casefold())
    return " ".join(words.split())


def same_name(ours: Iterable[str | None], theirs: Iterable[str | None]) -> str | None:
    """The first of ``theirs`` that is the same name as one of ``ours``, if any."""
    wanted = {normalize(n) for n in ours if n}
    for name in theirs:
        if name and normalize(name) in wanted:
            return name
    return None
