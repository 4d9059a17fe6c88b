"""Reading RDF answers in tests with pyoxigraph's own parsers (JSON-LD included)."""

from __future__ import annotations

import pyoxigraph as ox


def subjects(body: bytes, media_type: str) -> set[str]:
    """The IRIs that are subjects of the triples of ``body``, parsed as ``media_type``."""
    fmt = ox.RdfFormat.from_media_type(media_type.split(";")[0].strip())
    if fmt is None:
        raise ValueError(f"not an RDF media type: {media_type}")
    return {q.subject.value for q in ox.parse(body, format=fmt) if isinstance(q.subject, ox.NamedNode)}
