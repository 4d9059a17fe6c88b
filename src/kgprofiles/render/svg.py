"""The small SVG writer the charts share: escaped text and attributes, numbers written the same
way every time (so a chart is byte-identical for the same input), and links only where
``link()`` allows one (a thing of the graph, or an http, https or mailto address)."""

from __future__ import annotations

from functools import lru_cache

from markupsafe import Markup


def num(value: float) -> str:
    """A coordinate: one decimal at most, no "-0", no trailing ".0"."""
    text = f"{value:.1f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def esc(text: str) -> str:
    """``text`` escaped as markupsafe escapes it (the same bytes), without a Markup object for each
    of the hundreds of attributes and labels a picture has. (Five ``replace`` calls: 3-10 times
    faster than ``str.translate`` with a table of strings, which looks up every character.)"""
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&#34;").replace("'", "&#39;")
    )


@lru_cache(maxsize=256)
def _attribute(name: str) -> str:
    return name.rstrip("_").replace("_", "-")


def attrs(**values: str | float | None) -> str:
    """``name="value"`` pairs, escaped; ``None`` values left out; ``_`` in a name written ``-``."""
    out = []
    for name, value in values.items():
        if value is None:
            continue
        kind = type(value)  # (the common kinds first, without isinstance's walk of a union)
        if kind is float or kind is int:
            text = num(value)  # type: ignore[arg-type]
        elif kind is str:
            text = esc(value)  # type: ignore[arg-type]
        elif isinstance(value, float | int) and not isinstance(value, bool):
            text = num(value)
        else:
            text = esc(str(value))
        out.append(f' {_attribute(name)}="{text}"')
    return "".join(out)


def tag(name: str, body: str = "", **values: str | float | None) -> str:
    return f"<{name}{attrs(**values)}>{body}</{name}>" if body else f"<{name}{attrs(**values)}/>"


def text(x: float, y: float, content: str, **values: str | float | None) -> str:
    return tag("text", esc(content), x=x, y=y, **values)


def title(content: str) -> str:
    """A tooltip and accessible name for the element it is the first child of."""
    return f"<title>{esc(content)}</title>"


def linked(href: str | None, body: str) -> str:
    """``body`` inside a link when ``href`` is one, else as it is."""
    return f"<a{attrs(href=href)}>{body}</a>" if href else body


def svg(width: float, height: float, label: str, body: str, css_class: str) -> Markup:
    """The chart: scales with its container (viewBox), named by ``label`` (aria-label and <title>).

    Its role is ``group``, not ``img``: the marks inside are links, and ``img`` would make them
    presentational, out of reach of a screen reader (axe-core's "nested-interactive", serious).
    As a group, each link is reached and read by its own <title>."""
    return Markup(
        f'<svg xmlns="http://www.w3.org/2000/svg"{attrs(class_=css_class, viewBox=f"0 0 {num(width)} {num(height)}")}'
        f"{attrs(role='group', aria_label=label)}>{title(label)}{body}</svg>"
    )


def clip(content: str, limit: int) -> str:
    """At most ``limit`` characters, an ellipsis standing for the rest."""
    return content if len(content) <= limit else content[: limit - 1].rstrip() + "…"
