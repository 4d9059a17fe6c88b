"""The people around a person: an inline SVG drawn on the server, no script.

The person is at the centre; the things they share with their related people (organisations,
works, topics, events' subjects) on an inner ring, in order of kind then name; the related people
on an outer ring, each placed near the things that connect them, best first where they tie. Every
edge is drawn in its kind's style (organisation, topic, work, event) with a ``<title>`` saying
what it is; the kind is written on the edges from the centre. A related person links to the
"Why?" page of the pair, a shared thing to its page. The layout is computed, not simulated: the
same profile gives the same bytes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from markupsafe import Markup

from kgprofiles.profiles import Profile
from kgprofiles.render.svg import attrs, clip, esc, linked, num, svg, tag, title

WIDTH = 460.0
HEIGHT = 440.0
INNER = 92.0
OUTER_X = 172.0  # the outer ring is an ellipse: wide, so names fit beside and below
OUTER_Y = 168.0
FONT = 15.0
#: Each kind of link: its group on the ring, its order, the word on its edge, its stroke.
KINDS: dict[str, tuple[str, int, str, dict[str, str | float]]] = {
    "current_org": ("org", 0, "works at", {"stroke": "#0b5cad", "stroke_width": 2.5}),
    "other_org": ("org", 0, "was at", {"stroke": "#0b5cad", "stroke_width": 1.5, "stroke_dasharray": "6 3"}),
    "work": ("work", 1, "contributed", {"stroke": "#6a3d9a", "stroke_width": 2.0}),
    "topic": ("topic", 2, "topic", {"stroke": "#2e7d32", "stroke_width": 1.5, "stroke_dasharray": "2 3"}),
    "event": ("event", 3, "event", {"stroke": "#8a5a00", "stroke_width": 1.2, "stroke_dasharray": "1 3"}),
    "overlap_org": ("org", 0, "same time", {"stroke": "#0b5cad", "stroke_width": 2.0}),
    "award": ("award", 4, "shared award", {"stroke": "#b8860b", "stroke_width": 2.5}),
    "supervision": ("supervision", 5, "advisor", {"stroke": "#7b1fa2", "stroke_width": 2.5}),
}
#: Each kind's stroke, as attributes (written once, not for each of a picture's edges).
STROKES = {kind: attrs(**style) for kind, (_, _, _, style) in KINDS.items()}
#: The presentation attributes the picture writes again and again (``attrs`` once, here).
EDGE_WORD = attrs(font_size=FONT - 4, text_anchor="middle", fill="#4d5761", class_="halo")
THING_SIZE, THING_COLOUR = attrs(font_size=FONT - 2), attrs(fill="#1d232a", class_="halo")  # (its text-anchor between)
PERSON_LABEL = attrs(font_size=FONT, text_anchor="middle", fill="#0b3f75", class_="halo")
PERSON_DOT = attrs(r=7.0, fill="#fff", stroke="#0b3f75", stroke_width=2.0)
CENTRE_LABEL = attrs(font_size=FONT + 1, font_weight="bold", text_anchor="middle", fill="#1d232a", class_="halo")
#: Which kind names a thing's edge from the person when several reach it: a current role, then
#: another role, then "same time" (the person's own tie first), else in the order above.
RANK = {kind: rank for rank, kind in enumerate(dict.fromkeys(("current_org", "other_org", "overlap_org", *KINDS)))}
WORDS = {
    "current_org": "both hold a current role at",
    "other_org": "both have had a role at",
    "work": "both contributed to",
    "topic": "both work on",
    "event": "both have events about",
    "overlap_org": "both were, at the same time, at",
    "award": "both received",
    "supervision": "advisor and student:",
}


@dataclass(frozen=True)
class Thing:
    group: str
    name: str
    kinds: tuple[str, ...]


def thing_iris(p: Profile, topics: Mapping[str, str]) -> dict[tuple[str, str], str]:
    """(group, name) → IRI of the things a profile names: its organisations, works and topics."""
    found: dict[tuple[str, str], str] = {}
    for r in p.roles:
        found.setdefault(("org", r.organization_name), r.organization)
    for w in p.works:
        found.setdefault(("work", w.name), w.iri)
        found.setdefault(("work", w.title), w.iri)
    for name, iri in topics.items():
        found.setdefault(("topic", name), iri)
    return found


def _polar(angle: float, radius: float, vertical: float | None = None) -> tuple[float, float]:
    return WIDTH / 2 + radius * math.cos(angle), HEIGHT / 2 + (vertical or radius) * math.sin(angle)


def _two_lines(name: str, limit: int = 14) -> list[str]:
    """A name on one line, or two split at the space nearest its middle (each clipped)."""
    if len(name) <= limit or " " not in name:
        return [clip(name, limit)]
    spaces = [i for i, c in enumerate(name) if c == " "]
    cut = min(spaces, key=lambda i: (abs(len(name) / 2 - i), i))
    return [clip(name[:cut], limit), clip(name[cut + 1 :], limit)]


def _label(x: float, y: float, lines: list[str], style: str) -> str:
    """Text of one or more lines, the first at ``y``; ``style``: its other attributes (``attrs``)."""
    at = num(x)
    spans = []
    for i, line in enumerate(lines):
        start = f'<tspan x="{at}"' + (' dy="1.1em"' if i else "")
        spans.append(f"{start}>{esc(line)}</tspan>" if line else f"{start}/>")  # (empty: as tag() writes it)
    return f'<text x="{at}" y="{num(y)}"{style}>{"".join(spans)}</text>'


def _mean_angle(angles: list[float]) -> float:
    return math.atan2(sum(math.sin(a) for a in angles), sum(math.cos(a) for a in angles))


def network_svg(
    p: Profile,
    link: Callable[[str], str | None],
    why: Callable[[str], str | None],
    topics: Mapping[str, str] | None = None,
) -> Markup:
    """The drawing of ``p`` and the related people the profile shows; ``why(iri)`` is the address
    of the "Why?" page for one of them, ``topics`` the person's topic names → IRIs. Empty when
    nobody is related."""
    if not p.related:
        return Markup("")
    iris = thing_iris(p, topics or {})
    things: dict[tuple[str, str], set[str]] = {}
    for r in p.related:
        for c in r.components:
            if c.kind != "event":
                for name in c.names:
                    things.setdefault((KINDS[c.kind][0], name), set()).add(c.kind)

    def key(kind: str, name: str) -> tuple[str, str]:
        """The node a link goes to: an event's subject is the organisation or work of that name
        when the picture has one, else a node of its own."""
        if kind == "event":
            return next((k for k in (("org", name), ("work", name)) if k in things), ("event", name))
        return (KINDS[kind][0], name)

    for r in p.related:
        for c in r.components:
            if c.kind == "event":
                for name in c.names:
                    things.setdefault(key(c.kind, name), set()).add(c.kind)
    order = sorted(things, key=lambda node: (min(KINDS[k][1] for k in things[node]), node[1], node[0]))
    angle = {node: -math.pi / 2 + 2 * math.pi * i / len(order) for i, node in enumerate(order)}

    # The related people: each near the mean angle of its things, spread evenly in that order.
    wanted = []
    for rank, r in enumerate(p.related):
        keys = [key(c.kind, n) for c in r.components for n in c.names]
        wanted.append((_mean_angle([angle[k] for k in keys]) % (2 * math.pi), rank, r))
    wanted.sort(key=lambda w: (round(w[0], 6), w[1]))
    step = 2 * math.pi / len(wanted)
    offset = wanted[0][0] - step / 2 if len(wanted) > 1 else wanted[0][0]
    placed = [(offset + i * step, rank, r) for i, (_, rank, r) in enumerate(wanted)]

    cx, cy = WIDTH / 2, HEIGHT / 2
    inner = {node: _polar(angle[node], INNER) for node in order}  # (each thing's place on the ring)
    edges: list[str] = []
    for node in order:
        x, y = inner[node]
        kind = min(things[node], key=lambda k: (KINDS[k][1], RANK[k]))  # (not the set's order: a process's)
        tooltip = f"{p.name} — {KINDS[kind][2]} — {node[1]}"
        line = f'<line x1="{num(cx)}" y1="{num(cy)}" x2="{num(x)}" y2="{num(y)}"{STROKES[kind]}/>'
        wx, wy = num(cx + (x - cx) * 0.55), num(cy + (y - cy) * 0.55 - 3)
        word = f'<text x="{wx}" y="{wy}"{EDGE_WORD}>{esc(KINDS[kind][2])}</text>'
        edges.append(f'<g class="edge">{title(tooltip)}{line}{word}</g>')
    for a, _, r in placed:
        x, y = _polar(a, OUTER_X, OUTER_Y)
        end = f'x2="{num(x)}" y2="{num(y)}"'
        for c in r.components:
            for name in c.names:  # (the most numerous element: written whole, as tag() and title() would)
                tx, ty = inner[key(c.kind, name)]
                tooltip = esc(f"{p.name} and {r.name} {WORDS[c.kind]} {name}")
                line = f'<line x1="{num(tx)}" y1="{num(ty)}" {end}{STROKES[c.kind]}/>'
                edges.append(f'<g class="edge"><title>{tooltip}</title>{line}</g>')

    nodes: list[str] = []
    for node in order:
        x, y = inner[node]
        cos, sin = math.cos(angle[node]), math.sin(angle[node])
        anchor = "start" if cos > 0.35 else "end" if cos < -0.35 else "middle"
        lx, ly = x + 12 * cos, y + (22 if sin > 0.35 else -14 if sin < -0.35 else 5)
        parts = _two_lines(node[1], 18)
        if sin < -0.35:
            ly -= (len(parts) - 1) * FONT * 1.1
        label = _label(lx, ly, parts, f'{THING_SIZE} text-anchor="{anchor}"{THING_COLOUR}')
        body = title(f"{node[1]} ({node[0]})") + _shape(node[0], x, y) + label
        nodes.append(f'<g class="thing">{linked(link(iris[node]) if node in iris else None, body)}</g>')
    for a, rank, r in placed:
        x, y = _polar(a, OUTER_X, OUTER_Y)
        parts = _two_lines(r.name)
        above = math.sin(a) < -0.5
        ly = y - 12 - (len(parts) - 1) * FONT * 1.1 if above else y + 22
        name = _label(x, ly, parts, PERSON_LABEL)
        circle = f'<circle cx="{num(x)}" cy="{num(y)}"{PERSON_DOT}/>'
        tooltip = f"{r.name}: {r.reason} (score {r.score:g}, number {rank + 1}); why are they related?"
        nodes.append(f'<g class="person">{linked(why(r.iri), title(tooltip) + circle + name)}</g>')
    centre = tag("circle", cx=cx, cy=cy, r=10.0, fill="#0b5cad") + _label(
        cx, cy - 16, _two_lines(p.name, 18), CENTRE_LABEL
    )
    label = f"The people around {p.name}: {len(p.related)} related people and the {len(order)} things they share"
    body = "".join(edges) + "".join(nodes) + tag("g", title(p.name) + centre, class_="centre")
    return svg(WIDTH, HEIGHT, label, body, "chart network-chart")


def _shape(group: str, x: float, y: float) -> str:
    if group == "org":
        return tag("rect", x=x - 7, y=y - 7, width=14.0, height=14.0, fill="#0b5cad")
    if group == "work":
        return tag("path", d=f"M{num(x)} {num(y - 8)}l8 8l-8 8l-8 -8Z", fill="#6a3d9a")
    if group == "topic":
        return tag("circle", cx=x, cy=y, r=7.0, fill="#2e7d32")
    return tag("path", d=f"M{num(x)} {num(y - 8)}l8 14h-16Z", fill="#8a5a00")
