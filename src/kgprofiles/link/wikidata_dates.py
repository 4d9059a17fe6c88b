"""Dates on both sides at their precision: Wikidata's time value + precision (9 year, 10 month,
11 day) and our xsd:gYear / xsd:gYearMonth / xsd:date literals."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pyoxigraph as ox

from kgprofiles.dates import format_date
from kgprofiles.vocab import XSD_NS as XSD

ORDER = ("year", "month", "day")
DATATYPES = {"year": XSD + "gYear", "month": XSD + "gYearMonth", "day": XSD + "date"}
LENGTHS = {"year": 4, "month": 7, "day": 10}
WIKIDATA_PRECISIONS = {9: "year", 10: "month", 11: "day"}


@dataclass(frozen=True)
class Date:
    """A date at a precision: ``iso`` is "2019", "2019-06" or "2019-06-01"."""

    iso: str
    precision: str  # year, month, day
    note: str | None = None  # e.g. Wikidata gave a decade, read here as its first year

    @classmethod
    def from_wikidata(cls, time: str, precision: int | str | None) -> Date | None:
        """From a Wikidata time value (``1978-01-01T00:00:00Z``) and precision; None before year 1,
        or for a value that does not start with a four-digit year, month and day."""
        text = time.strip().lstrip("+")
        if not re.match(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:T|$)", text):
            return None
        try:
            level = int(precision) if precision is not None else 11
        except ValueError:
            level = 11
        note = None
        if level < 9:
            note = "Wikidata gives a coarser precision than a year"
            level = 9
        kind = WIKIDATA_PRECISIONS[min(level, 11)]
        return cls(text[: LENGTHS[kind]], kind, note)

    @classmethod
    def from_literal(cls, term: ox.Literal | None) -> Date | None:
        """From one of our date literals (its datatype is its precision)."""
        if term is None:
            return None
        for kind, datatype in DATATYPES.items():
            if term.datatype.value == datatype:
                return cls(term.value[: LENGTHS[kind]], kind)
        if term.datatype.value == XSD + "dateTime":
            return cls(term.value[:10], "day")
        return None

    def literal(self) -> ox.Literal:
        return ox.Literal(self.iso, datatype=ox.NamedNode(DATATYPES[self.precision]))

    def text(self) -> str:
        """ "2019 (year)", "Jun 2019 (month)", "Jun 1, 2019 (day)"."""
        return f"{format_date(self.literal())} ({self.precision})"

    def compare(self, other: Date) -> str:
        """ "same"; "precision" when they agree only at the coarser precision; else "different"."""
        coarser = min(ORDER.index(self.precision), ORDER.index(other.precision))
        length = LENGTHS[ORDER[coarser]]
        if self.iso[:length] != other.iso[:length]:
            return "different"
        return "same" if self.precision == other.precision else "precision"
