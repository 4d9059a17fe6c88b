"""Dates at their own precision: the datatype says it (xsd:gYear, xsd:gYearMonth, xsd:date)."""

from __future__ import annotations

import pyoxigraph as ox

from kgprofiles.vocab import XSD_NS as XSD

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def precision(term: ox.Literal) -> str:
    """ "year", "month" or "day"."""
    datatype = term.datatype.value
    if datatype == XSD + "gYear":
        return "year"
    if datatype == XSD + "gYearMonth":
        return "month"
    return "day"


def format_date(term: ox.Literal) -> str:
    """ "2019", "Mar 2017" or "Oct 27, 2020", as the value's precision allows."""
    text = term.value
    kind = precision(term)
    try:
        if kind == "year":
            return str(int(text[:4]))
        month = MONTHS[int(text[5:7]) - 1]
        if kind == "month":
            return f"{month} {int(text[:4])}"
        return f"{month} {int(text[8:10])}, {int(text[:4])}"
    except (ValueError, IndexError):
        return text
