"""Renderers of the view models: text, Markdown, HTML (Jinja templates) and JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kgprofiles.profiles import AwardItem, DateValue, EducationItem, LifeItem, PersonLink

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
    "awards": "Awards",
    "education": "Education and advisors",
    "latest": "Latest known affiliation",
}


def superscript(numbers: tuple[int, ...]) -> str:
    """Footnote numbers as superscripts separated by commas, so "1, 3, 11" reads "¹,³,¹¹" and can
    never be misread as "1311"."""
    return ",".join(str(n).translate(_SUPERSCRIPT) for n in numbers)


def people_count(n: int) -> str:
    return f"{n} {'person' if n == 1 else 'people'} in the graph"


def role_line(title: str | None, organization: str) -> str:
    return f"{title}, {organization}" if title else organization


# Version 2 sections (awards, birth and death, education, advisors, points in time), worded once for
# every renderer; each returns plain text that the renderer escapes.


def span(start: DateValue | None, end: DateValue | None) -> str:
    """ " (2017 – 2019)", " (2017 –)", " (? – 2019)", or "" without either date."""
    if not start and not end:
        return ""
    return f" ({start.text if start else '?'} – {end.text if end else ''})".replace(" – )", " –)")


def as_of(date: DateValue | None) -> str:
    return f" (as of {date.text})" if date else ""


def life_text(item: LifeItem) -> str:
    """ "Nov 7, 1867, Example City, Example Country" (the date, then the place; either may be missing)."""
    return ", ".join(x for x in (item.date.text if item.date else None, item.place) if x)


def names(people: tuple[PersonLink, ...]) -> str:
    """ "A", "A and B", "A, B and C"."""
    listed = [p.name for p in people]
    return listed[0] if len(listed) == 1 else ", ".join(listed[:-1]) + " and " + listed[-1]


def award_text(a: AwardItem) -> str:
    """ "Example Prize (1903), conferred by X, shared with A and B (share 0.5): “motivation”"."""
    text = f"{a.name} ({a.date.text})"
    if a.conferred_by:
        text += f", conferred by {a.conferred_by}"
    if a.shared_with:
        text += f", shared with {names(a.shared_with)}"
    if a.share:
        text += f" (share {a.share})"
    if a.motivation:
        text += f": “{a.motivation}”"
    return text


def education_text(e: EducationItem) -> str:
    """ "PhD, Example University (1891 – 1894)"."""
    where = f"{e.degree}, {e.organization_name}" if e.degree else e.organization_name
    return where + (span(e.start, e.end) or as_of(e.as_of))


def supervision_label(relation: str) -> str:
    return "Doctoral advisor" if relation == "advisor" else "Doctoral student"


def latest_note(date: DateValue) -> str:
    """What "where they work" says when no role is current."""
    return f"{HEADINGS['latest']} (as of {date.text}); no role is recorded as current."
