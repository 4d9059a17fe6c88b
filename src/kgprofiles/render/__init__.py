"""Renderers of the view models: text, Markdown, HTML (Jinja templates) and JSON."""

from __future__ import annotations

_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")

#: Section headings, shared by every renderer so they read the same everywhere.
HEADINGS = {
    "writing": "Research and writing",
    "works": "Work and contributions",
    "timeline": "Timeline",
    "current": "Current roles",
    "former": "Former roles",
    "other": "Other documented roles",
    "other_intro": "Roles the sources document that are not confirmed as current.",
    "workplaces": "Where they work",
    "related": "Related people",
    "sources": "Sources",
}


def superscript(numbers: tuple[int, ...]) -> str:
    """Footnote numbers as superscripts separated by commas, so "1, 3, 11" reads "¹,³,¹¹" and can
    never be misread as "1311"."""
    return ",".join(str(n).translate(_SUPERSCRIPT) for n in numbers)


def people_count(n: int) -> str:
    return f"{n} {'person' if n == 1 else 'people'} in the graph"


def role_line(title: str | None, organization: str) -> str:
    return f"{title}, {organization}" if title else organization
