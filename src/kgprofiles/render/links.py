"""Which addresses from the data may become a link to elsewhere: the one place that decides.

Data is untrusted: a source's ``kgp:url``, an ``owl:sameAs`` or any IRI in a query result may be
``javascript:alert(document.domain)//``, and a clickable ``href`` to it is stored XSS. Only
``http``, ``https`` and ``mailto`` addresses become links; everything else is shown as text.

The scheme is read the way browsers read an ``href`` (the WHATWG URL standard): leading and
trailing C0 control characters and spaces are stripped, every tab, line feed and carriage return
is removed wherever it is, then the scheme is ASCII letters, digits, ``+``, ``-`` and ``.``
before the first ``:``, compared without regard to ASCII case. So ``java\\tscript:``,
`` JAVASCRIPT:`` and ``\\x01javascript:`` are all ``javascript:``, and none passes. The renderers
escape what they write (HTML attribute escaping, Markdown's backslash escapes), so an entity
such as ``&#106;avascript:`` reaches the browser as those very characters: no scheme at all,
never a link either.
"""

from __future__ import annotations

import re

#: The schemes that may be links.
SAFE_SCHEMES = frozenset({"http", "https", "mailto"})

_STRIP = "".join(chr(c) for c in range(0x21))  # C0 controls and space, as browsers strip them
_TAB_OR_NEWLINE = re.compile("[\t\n\r]")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")


def external_href(url: str) -> str | None:
    """``url`` as it may be written into an ``href`` (cleaned as a browser would clean it) when
    its scheme is http, https or mailto; None when it must be shown as text instead."""
    cleaned = _TAB_OR_NEWLINE.sub("", url.strip(_STRIP))
    scheme = _SCHEME.match(cleaned)
    if scheme is None or scheme.group(1).lower() not in SAFE_SCHEMES:
        return None
    return cleaned
