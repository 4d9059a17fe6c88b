"""Content negotiation: the best of the server's offers for a request's ``Accept`` header (RFC 9110
§12.5.1: quality values, ``type/*`` and ``*/*`` ranges, the most specific range deciding), and the
file suffixes that ask for one representation directly."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

#: ``/id/…`` suffixes and the media type each asks for.
SUFFIXES = {
    ".html": "text/html",
    ".ttl": "text/turtle",
    ".jsonld": "application/ld+json",
    ".nt": "application/n-triples",
    ".nq": "application/n-quads",
    ".rdf": "application/rdf+xml",
}
#: Media types → the export format names of kgprofiles.export ("rdf": RDF/XML, written by
#: ``export.to_rdfxml`` when the data allows it).
RDF_FORMATS = {
    "text/turtle": "ttl",
    "application/ld+json": "jsonld",
    "application/n-triples": "nt",
    "application/n-quads": "nq",
    "application/rdf+xml": "rdf",
}
#: An Accept header's ranges beyond this many are not read (a header is a few at most).
MAX_RANGES = 64
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_QVALUE = re.compile(r"(0(\.[0-9]{0,3})?|1(\.0{0,3})?)")


@dataclass(frozen=True)
class MediaRange:
    type: str
    subtype: str
    q: float

    def matches(self, media_type: str) -> int:
        """How specifically this range matches ``media_type``: 3 exactly, 2 ``type/*``, 1 ``*/*``, 0 not."""
        kind, _, sub = media_type.partition("/")
        if self.type == "*":
            return 1
        if self.type != kind:
            return 0
        if self.subtype == "*":
            return 2
        return 3 if self.subtype == sub else 0


def parse_accept(header: str | None) -> list[MediaRange]:
    """The media ranges of an Accept header (RFC 9110 §12.5.1). A range that is not
    ``type/subtype`` tokens (``text``, ``/``, ``*/html``…) or whose ``q`` is not a qvalue (0 to 1,
    three decimals at most) is left out, as if not sent; parameters other than ``q`` are ignored."""
    ranges = []
    for part in (header or "").split(",")[:MAX_RANGES]:
        fields = [f.strip() for f in part.split(";")]
        kind, slash, sub = fields[0].lower().partition("/")
        if not slash or not _TOKEN.fullmatch(kind) or not _TOKEN.fullmatch(sub) or (kind == "*" and sub != "*"):
            continue
        q: float | None = 1.0
        for param in fields[1:]:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                value = value.strip()
                q = float(value) if _QVALUE.fullmatch(value) else None
                break  # what follows q are accept-extensions, not media type parameters
        if q is not None:
            ranges.append(MediaRange(kind, sub, q))
    return ranges


def choose(accept: str | None, offers: Sequence[str]) -> str | None:
    """The offer the client prefers most: each offer gets the q of the most specific range that
    matches it (``text/turtle`` over ``text/*`` over ``*/*``), and ties go to the earlier offer
    (the server's preference). The first offer when there is no Accept header, or none of its
    ranges can be read; None when the client accepts none (406).

    >>> choose("application/*", ["text/html", "application/ld+json"])
    'application/ld+json'
    >>> choose("*/*;q=0.1, text/turtle;q=0", ["text/turtle", "text/html"])
    'text/html'
    """
    ranges = parse_accept(accept)
    if not ranges:
        return offers[0] if offers else None
    best: tuple[float, int] | None = None
    chosen = None
    for index, offer in enumerate(offers):
        specificity, q = 0, 0.0
        for media_range in ranges:
            level = media_range.matches(offer)
            if level > specificity:
                specificity, q = level, media_range.q
        if specificity and q > 0 and (best is None or q > best[0]):
            best, chosen = (q, index), offer
    return chosen


def split_suffix(name: str) -> tuple[str, str | None]:
    """``horace-he.ttl`` → (``horace-he``, ``text/turtle``); a name without a known suffix → (name, None)."""
    for suffix, media_type in SUFFIXES.items():
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)], media_type
    return name, None


def suffix_for(media_type: str) -> str:
    return next(s for s, m in SUFFIXES.items() if m == media_type)
