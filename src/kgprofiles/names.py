"""Names as people type them: case, accents, punctuation, middle names and initials do not count.

``normalize`` is the one way two names are compared ("Jörg  Müller." and "jorg muller" are the same);
``matches`` is how a looked-for text finds a name: the text is part of the name, or each of its words
starts a different word of the name ("Richard Feynman" and "R. Feynman" find "Richard P. Feynman",
"Rontgen" finds "Wilhelm Röntgen").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

_NON_WORD = re.compile(r"[^\w]+")


def normalize(text: str) -> str:
    """ "Douglas Noël  Adams." → "douglas noel adams"."""
    if text.isascii():  # (no accents to take off: most names, read 100,000 at a time)
        plain = text
    else:
        decomposed = unicodedata.normalize("NFKD", text)
        plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    words = _NON_WORD.sub(" ", plain.casefold())
    return " ".join(words.split())


def matches(wanted: str, names: Iterable[str]) -> bool:
    """Whether ``wanted`` finds one of ``names`` (a name and its other names).

    >>> matches("Richard Feynman", ["Richard P. Feynman"]), matches("rontgen", ["Wilhelm Röntgen"])
    (True, True)
    >>> matches("R. Feynman", ["Richard P. Feynman"]), matches("Feynman Richard", ["Richard P. Feynman"])
    (True, True)
    >>> matches("Richard Fineman", ["Richard P. Feynman"]), matches("", ["Anyone"])
    (False, False)
    """
    return NameMatcher(wanted).finds(normalize(name) for name in names)


class NameMatcher:
    """``matches`` for one looked-for text against many names: the text is read once, and the
    names come normalized (``normalize``), as a list of names read once keeps them."""

    def __init__(self, wanted: str) -> None:
        self.query = normalize(wanted)
        # the longest word first: an initial takes what is left
        self.words = sorted(self.query.split(), key=len, reverse=True)

    def finds(self, plain_names: Iterable[str]) -> bool:
        """Whether the text finds one of ``plain_names`` (normalized names)."""
        if not self.query:
            return False
        for plain in plain_names:
            if self.query in plain:
                return True
            free = plain.split()
            for word in self.words:
                found = next((w for w in free if w.startswith(word)), None)
                if found is None:
                    break
                free.remove(found)
            else:
                return True
        return False
