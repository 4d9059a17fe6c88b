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
from kgprofiles.render.svg import attrs, clip, esc, linked, num, svg, text, title

WIDTH = 400.0
MARGIN = 10.0
FONT = 14.0
ROLE_ROW = 36.0
EVENT_ROW = 32.0
MIN_GAP = 20.0  # the least room between two marks on one row (a two-digit number fits)
COLOURS = {"current": "#0b5cad", "former": "#4d5761", "not confirmed": "#8a5a00", "unknown": "#4d5761"}
STATUS_WORDS = {"current": "current", "former": "former", "not confirmed": "not confirmed as current"}
#: The presentation attributes written again and again (``attrs`` once, here).
CAPTION = attrs(font_size=FONT, fill="#1d232a")
DOTTED = attrs(stroke_width=3.0, stroke_dasharray="1 5", stroke_linecap="round")  # (after the role's stroke)
WORK_MARK = attrs(fill="#fff", stroke="#0b5cad", stroke_width=2.0)
DAY_MARK = attrs(r=5.0, fill="#0b5cad")
SPAN_MARK = attrs(height=8.0, rx=2.0, fill="#0b5cad")
MARK_LABEL = attrs(font_size=FONT - 1, text_anchor="middle", fill="#1d232a")
AXIS_LINE = attrs(stroke="#5b6570", stroke_width=1.0)
TICK_SIZE, TICK_COLOUR = attrs(font_size=FONT - 1), attrs(fill="#4d5761")  # (its text-anchor between)
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
    out = [title(tooltip), f'<text x="{num(left)}" y="{num(y + FONT)}"{CAPTION}>{esc(caption)}</text>']
    mid = bar_y + 4
    current = role.status == "current"
    if start and end:
        out.append(_bar(x(start[0]), bar_y, max(x(end[1]) - x(start[0]), 3.0), colour))
    elif start and current:
        out.append(_bar(x(start[0]), bar_y, max(right - 8 - x(start[0]), 3.0), colour))
    elif start:
        out.append(_bar(x(start[0]), bar_y, max(x(start[1]) - x(start[0]), 3.0), colour))
        out.append(_dots(x(start[1]) + 4, right, mid, colour))
    elif end:
        out.append(_dots(left, x(end[0]) - 4, mid, colour))
        out.append(_bar(x(end[0]), bar_y, max(x(end[1]) - x(end[0]), 3.0), colour))
    else:
        out.append(_dots(left + 2, right - (10 if current else 2), mid, colour))
    if current and not end:
        arrow = f"M{num(right - 8)} {num(bar_y - 3)}L{num(right)} {num(mid)}L{num(right - 8)} {num(bar_y + 11)}Z"
        out.append(f'<path d="{arrow}" fill="{colour}"/>')
    return f'<g class="role">{linked(link(role.organization), "".join(out))}</g>'


def _bar(x: float, y: float, width: float, colour: str) -> str:
    """A role's known stretch of time: a solid bar."""
    return f'<rect x="{num(x)}" y="{num(y)}" width="{num(width)}" fill="{colour}" height="8"/>'


def _dots(x1: float, x2: float, y: float, colour: str) -> str:
    """A role's unknown stretch of time: a dotted line."""
    return f'<line x1="{num(x1)}" y1="{num(y)}" x2="{num(x2)}" y2="{num(y)}" stroke="{colour}"{DOTTED}/>'


def _mark(m: Mark, x0: float, x1: float, y: float) -> str:
    base = y + FONT + 8
    out = [title(m.tooltip)]
    if m.shape == "work":
        cx = (x0 + x1) / 2
        out.append(f'<path d="M{num(cx)} {num(base - 6)}l6 6l-6 6l-6 -6Z"{WORK_MARK}/>')
    elif x1 - x0 < 3:
        out.append(f'<circle cx="{num(x0)}" cy="{num(base)}"{DAY_MARK}/>')
    else:
        out.append(f'<rect x="{num(x0)}" y="{num(base - 4)}" width="{num(x1 - x0)}"{SPAN_MARK}/>')
    if m.label:
        out.append(f'<text x="{num((x0 + x1) / 2)}" y="{num(base - 9)}"{MARK_LABEL}>{esc(m.label)}</text>')
    return f'<g class="mark">{linked(m.href, "".join(out))}</g>'


def _axis(lo: int, hi: int, x: Callable[[float], float], left: float, right: float, y: float) -> str:
    out = [f'<line x1="{num(left)}" y1="{num(y + 4)}" x2="{num(right)}" y2="{num(y + 4)}"{AXIS_LINE}/>']
    step = tick_step(hi - lo)
    first = -(-lo // step) * step
    for year in range(first, hi + 1, step):
        at = num(x(year))
        out.append(f'<line x1="{at}" y1="{num(y)}" x2="{at}" y2="{num(y + 8)}"{AXIS_LINE}/>')
        anchor = "start" if year == lo else "end" if year == hi else "middle"
        out.append(
            f'<text x="{at}" y="{num(y + 8 + FONT)}"{TICK_SIZE} text-anchor="{anchor}"{TICK_COLOUR}>{year}</text>'
        )
    return f'<g class="axis">{"".join(out)}</g>'
