"""Content negotiation: the best of the server's offers for a request's ``Accept`` header (RFC 9110
§12.5.1: quality values, ``type/*`` and ``*/*`` ranges, the most specific range deciding), and the
file suffixes that ask for one representation directly."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: ``/id/…`` suffixes and the media type each asks for.
SUFFIXES = {
    ".html": "text/html",
    ".ttl": "text/turtle",
    ".jsonld": "application/ld+json",
    ".nt": "application/n-triples",
}
#: Media types → the export format names of kgprofiles.export.
RDF_FORMATS = {
    "text/turtle": "ttl",
    "application/ld+json": "jsonld",
    "application/n-triples": "nt",
}


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
    """The media ranges of an Accept header; parameters other than ``q`` are ignored."""
    ranges = []
    for part in (header or "").split(","):
        fields = [f.strip() for f in part.split(";")]
        kind, slash, sub = fields[0].lower().partition("/")
        if not slash or not kind or not sub:
            continue
        q = 1.0
        for param in fields[1:]:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = min(max(float(value), 0.0), 1.0)
                except ValueError:
                    q = 0.0
        ranges.append(MediaRange(kind, sub, q))
    return ranges


def choose(accept: str | None, offers: Sequence[str]) -> str | None:
    """The offer the client prefers most (ties go to the earlier offer: the server's preference);
    the first offer when there is no Accept header; None when the client accepts none (406)."""
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
