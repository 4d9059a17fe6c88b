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


def normalize(text: str) -> str:
    """ "Douglas Noël  Adams." → "douglas noel adams"."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    words = re.sub(r"[^\w]+", " ", plain.casefold())
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
    query = normalize(wanted)
    if not query:
        return False
    words = sorted(query.split(), key=len, reverse=True)  # the longest first: an initial takes what is left
    for name in names:
        plain = normalize(name)
        if query in plain:
            return True
        free = plain.split()
        for word in words:
            found = next((w for w in free if w.startswith(word)), None)
            if found is None:
                break
            free.remove(found)
        else:
            return True
    return False
