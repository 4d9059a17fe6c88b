"""A person's career at a glance: an inline SVG drawn on the server, no script.

Two lanes over one axis of years:

- **Roles**, one bar each, from start to end. A current role with a start runs to the axis's end
  with an arrow (open-ended). Where a date is not known the bar is dotted: a role known only by its
  start is a mark at the start and a dotted line on; one known only by its end, a dotted line up to
  a mark at the end; one with neither is dotted across (an arrow still says "current").
- **Events and works**, as marks at their own precision: a day is a dot, a month or a year a bar
  across that month or year. An event's mark carries the number of its entry in the timeline list
  and links to that entry (``#timeline-N``), whose footnotes follow it; a dated work that no event
  marks on the same date is a diamond linking to the work's page. Marks that would overlap go on
  the next row.

The drawing scales with its container (viewBox; the stylesheet sets its width), its text is real
``<text>``, every mark has a ``<title>``, and the whole has an ``aria-label`` (its role is
``group``, not ``img``, so that its links stay reachable: ``render.svg.svg``).
The same profile gives the same bytes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from markupsafe import Markup

from kgprofiles.profiles import DateValue, Profile, RoleItem
from kgprofiles.render.svg import clip, linked, num, svg, tag, text, title

WIDTH = 400.0
MARGIN = 10.0
FONT = 14.0
ROLE_ROW = 36.0
EVENT_ROW = 32.0
MIN_GAP = 20.0  # the least room between two marks on one row (a two-digit number fits)
COLOURS = {"current": "#0b5cad", "former": "#4d5761", "not confirmed": "#8a5a00", "unknown": "#4d5761"}
STATUS_WORDS = {"current": "current", "former": "former", "not confirmed": "not confirmed as current"}
_ISO = re.compile(r"(-?\d{4,})(?:-(\d{2}))?(?:-(\d{2}))?")


def span(date: DateValue) -> tuple[float, float] | None:
    """The stretch of time a date covers, in fractional years: a whole year, a whole month, or one
    day (a point); None when the value cannot be read."""
    found = _ISO.match(date.iso)
    if found is None:
        return None
    year = int(found.group(1))
    month = int(found.group(2) or 1)
    day = int(found.group(3) or 1)
    if not 1 <= month <= 12 or not 1 <= day <= 31:
        return None
    if date.precision == "year" or found.group(2) is None:
        return (year, year + 1)
    start = year + (month - 1) / 12
    if date.precision == "month" or found.group(3) is None:
        return (start, start + 1 / 12)
    point = start + (day - 1) / 365.25
    return (point, point)


@dataclass(frozen=True)
class Mark:
    start: float
    end: float
    label: str  # the number shown above the mark ("" for a work)
    tooltip: str
    href: str | None
    shape: str  # "event" or "work"


def tick_step(years: float) -> int:
    """Years between labelled ticks: 1, 2, 5, 10, 20, 50, … so that at most 8 fit."""
    step = 1
    while years / step > 8:
        step = step * 5 // 2 if str(step)[0] == "2" else step * 2
    return step


def _notes(notes: tuple[int, ...]) -> str:
    return f" (source{'s' if len(notes) > 1 else ''} {', '.join(map(str, notes))})" if notes else ""


def marks(p: Profile, link: Callable[[str], str | None]) -> list[Mark]:
    found = []
    event_dates = {(t.date.iso, t.date.precision) for t in p.timeline}
    for number, item in enumerate(p.timeline, start=1):
        where = span(item.date)
        if where is not None:
            tooltip = f"{item.date.text}: {item.label}{_notes(item.notes)}"
            found.append(Mark(*where, str(number), tooltip, f"#timeline-{number}", "event"))
    for w in p.works:
        if w.date is None or (w.date.iso, w.date.precision) in event_dates:
            continue
        where = span(w.date)
        if where is not None:
            found.append(Mark(*where, "", f"{w.date.text}: {w.name} ({w.kind})", link(w.iri), "work"))
    found.sort(key=lambda m: (m.start, m.end, m.shape, m.label, m.tooltip))
    return found


def timeline_svg(p: Profile, link: Callable[[str], str | None]) -> Markup:
    """The drawing, or an empty Markup when the profile has no role and no readable date."""
    placed = marks(p, link)
    roles = [(r, span(r.start) if r.start else None, span(r.end) if r.end else None) for r in p.roles]
    known = [x for m in placed for x in (m.start, m.end)]
    known += [x for _, s, e in roles for pair in (s, e) if pair for x in pair]
    if not placed and not roles:
        return Markup("")
    lo = math.floor(min(known)) if known else 0
    hi = max(math.floor(max(known) - 1e-9) + 1, lo + 1) if known else 1  # the end of the last year drawn
    left, right = MARGIN, WIDTH - MARGIN

    def x(year: float) -> float:
        return left + (year - lo) / (hi - lo) * (right - left)

    body: list[str] = []
    y = 4.0
    if roles:
        body.append(text(left, y + FONT, "Roles", class_="lane", font_size=FONT, font_weight="bold"))
        y += FONT + 6
        for role, start, end in roles:
            body.append(_role(role, start, end, x, left, right, y, link))
            y += ROLE_ROW
    if placed:
        body.append(text(left, y + FONT, "Events and works", class_="lane", font_size=FONT, font_weight="bold"))
        y += FONT + 6
        rows: list[float] = []  # the right end of the last mark on each row
        for m in placed:
            x0, x1 = x(m.start), x(m.end)
            row = next((i for i, last in enumerate(rows) if x0 - last >= MIN_GAP), len(rows))
            if row == len(rows):
                rows.append(0.0)
            rows[row] = max(x1, x0)
            body.append(_mark(m, x0, x1, y + row * EVENT_ROW))
        y += len(rows) * EVENT_ROW
    if known:
        body.append(_axis(lo, hi, x, left, right, y))
        y += 30
    else:
        body.append(text(left, y + FONT, "No dates known", class_="muted", font_size=FONT))
        y += FONT + 8
    label = _label(p, len(roles), len(placed), lo, hi if known else None)
    return svg(WIDTH, y, label, "".join(body), "chart timeline-chart")


def _label(p: Profile, roles: int, placed: int, lo: int, hi: int | None) -> str:
    parts = [f"{roles} role{'s' if roles != 1 else ''}", f"{placed} dated event{'s' if placed != 1 else ''} and works"]
    years = f", {lo} to {hi - 1}" if hi is not None else ""
    return f"Timeline of {p.name}: {', '.join(parts)}{years}"


def _role(
    role: RoleItem,
    start: tuple[float, float] | None,
    end: tuple[float, float] | None,
    x: Callable[[float], float],
    left: float,
    right: float,
    y: float,
    link: Callable[[str], str | None],
) -> str:
    colour = COLOURS.get(role.status, COLOURS["unknown"])
    status = STATUS_WORDS.get(role.status, role.status)
    until = role.end.text if role.end else ("now" if role.status == "current" else "?")
    dates = f"{role.start.text if role.start else '?'} – {until}"
    tooltip = (
        f"{role.organization_name}{': ' + role.title if role.title else ''} ({status}; {dates}){_notes(role.notes)}"
    )
    caption = clip(f"{role.organization_name} · {role.status}", 48)
    bar_y = y + FONT + 6
    out = [title(tooltip), text(left, y + FONT, caption, font_size=FONT, fill="#1d232a")]
    solid = {"fill": colour, "height": 8.0}
    dotted = {"stroke": colour, "stroke_width": 3.0, "stroke_dasharray": "1 5", "stroke_linecap": "round"}
    mid = bar_y + 4
    current = role.status == "current"
    if start and end:
        out.append(tag("rect", x=x(start[0]), y=bar_y, width=max(x(end[1]) - x(start[0]), 3.0), **solid))  # type: ignore[arg-type]
    elif start and current:
        out.append(tag("rect", x=x(start[0]), y=bar_y, width=max(right - 8 - x(start[0]), 3.0), **solid))  # type: ignore[arg-type]
    elif start:
        out.append(tag("rect", x=x(start[0]), y=bar_y, width=max(x(start[1]) - x(start[0]), 3.0), **solid))  # type: ignore[arg-type]
        out.append(tag("line", x1=x(start[1]) + 4, y1=mid, x2=right, y2=mid, **dotted))  # type: ignore[arg-type]
    elif end:
        out.append(tag("line", x1=left, y1=mid, x2=x(end[0]) - 4, y2=mid, **dotted))  # type: ignore[arg-type]
        out.append(tag("rect", x=x(end[0]), y=bar_y, width=max(x(end[1]) - x(end[0]), 3.0), **solid))  # type: ignore[arg-type]
    else:
        out.append(tag("line", x1=left + 2, y1=mid, x2=right - (10 if current else 2), y2=mid, **dotted))  # type: ignore[arg-type]
    if current and not end:
        out.append(
            tag(
                "path",
                d=f"M{num(right - 8)} {num(bar_y - 3)}L{num(right)} {num(mid)}L{num(right - 8)} {num(bar_y + 11)}Z",
                fill=colour,
            )
        )
    return tag("g", linked(link(role.organization), "".join(out)), class_="role")


def _mark(m: Mark, x0: float, x1: float, y: float) -> str:
    base = y + FONT + 8
    out = [title(m.tooltip)]
    if m.shape == "work":
        cx = (x0 + x1) / 2
        out.append(
            tag(
                "path", d=f"M{num(cx)} {num(base - 6)}l6 6l-6 6l-6 -6Z", fill="#fff", stroke="#0b5cad", stroke_width=2.0
            )
        )
    elif x1 - x0 < 3:
        out.append(tag("circle", cx=x0, cy=base, r=5.0, fill="#0b5cad"))
    else:
        out.append(tag("rect", x=x0, y=base - 4, width=x1 - x0, height=8.0, rx=2.0, fill="#0b5cad"))
    if m.label:
        out.append(text((x0 + x1) / 2, base - 9, m.label, font_size=FONT - 1, text_anchor="middle", fill="#1d232a"))
    return tag("g", linked(m.href, "".join(out)), class_="mark")


def _axis(lo: int, hi: int, x: Callable[[float], float], left: float, right: float, y: float) -> str:
    out = [tag("line", x1=left, y1=y + 4, x2=right, y2=y + 4, stroke="#5b6570", stroke_width=1.0)]
    step = tick_step(hi - lo)
    first = -(-lo // step) * step
    for year in range(first, hi + 1, step):
        out.append(tag("line", x1=x(year), y1=y, x2=x(year), y2=y + 8, stroke="#5b6570", stroke_width=1.0))
        anchor = "start" if year == lo else "end" if year == hi else "middle"
        out.append(text(x(year), y + 8 + FONT, str(year), font_size=FONT - 1, text_anchor=anchor, fill="#4d5761"))
    return tag("g", "".join(out), class_="axis")
