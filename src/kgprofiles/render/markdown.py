"""Markdown views: footnotes are superscript links to the numbered source list."""

from __future__ import annotations

import re

from kgprofiles.infobox import InfoBox, Item
from kgprofiles.profiles import Profile
from kgprofiles.render import (
    HEADINGS,
    as_of,
    award_text,
    education_text,
    latest_note,
    people_count,
    role_line,
    supervision_label,
)
from kgprofiles.render.links import external_href

#: What cannot stand in a plain ``(destination)``: spaces and controls, brackets, escapes, entities.
_MARKDOWN_SPECIAL = re.compile(r"[\x00-\x20\x7f()<>\\&]")


def notes(numbers: tuple[int, ...]) -> str:
    if not numbers:
        return ""
    return "<sup>" + ",".join(f"[{n}](#source-{n})" for n in numbers) + "</sup>"


def _escape(text: str) -> str:
    for char in "\\`*_[]<>":
        text = text.replace(char, "\\" + char)
    return text


def destination(href: str) -> str:
    """A link destination that Markdown reads back as ``href`` exactly: as it is when it has no
    character Markdown would read otherwise; else in angle brackets, with backslash escapes for
    the characters that would end it or start an escape or an entity (``\\ < > &``)."""
    if not _MARKDOWN_SPECIAL.search(href):
        return href
    return "<" + "".join("\\" + c if c in "\\<>&" else c for c in href) + ">"


def _source_title(title: str, url: str | None) -> str:
    """The title as a link when the address may be one (``external_href``); else the title, then
    the address as text."""
    if not url:
        return _escape(title)
    href = external_href(url)
    if href is None:
        return f"{_escape(title)} {_escape(url)}"
    return f"[{_escape(title)}]({destination(href)})"


def _more_url(url: str) -> str:
    """A source's second and later addresses, after its title: a link, or the text."""
    href = external_href(url)
    return f" · [{_escape(url)}]({destination(href)})" if href is not None else f" · {_escape(url)}"


def _item(item: Item) -> str:
    """An item of a summary box: a link where its IRI may be one (``external_href``), else text."""
    href = external_href(item.iri) if item.iri else None
    shown = f"[{_escape(item.text)}]({destination(href)})" if href else _escape(item.text)
    return shown + notes(item.notes)


def summary_box(b: InfoBox) -> list[str]:
    """A summary box as a list of labelled rows."""
    return [f"- **{_escape(row.label)}:** " + ", ".join(_item(i) for i in row.items) for row in b.rows] + [""]


def profile(p: Profile, box: InfoBox | None = None) -> str:
    """The person's profile; ``box`` is their summary box (``infobox.person_box``), left out when None."""
    out: list[str] = [f"# {_escape(p.name)}", ""]
    if p.headline:
        out += [f"*{_escape(p.headline)}*", ""]
    if box is not None:
        out += summary_box(box)
    out += [_escape(para.text) + notes(para.notes) + "\n" for para in p.summary]
    if p.writing:
        out += [f"## {HEADINGS['writing']}", ""]
        out += [_escape(para.text) + notes(para.notes) + "\n" for para in p.writing]
    if p.works:
        out += [f"## {HEADINGS['works']}", ""]
        for w in p.featured_works:
            out += [f"- **{_escape(w.name)}** — {w.kind}", ""]
            if w.description:
                out += [f"  {_escape(w.description)}{notes(w.notes)}", ""]
    if p.timeline:
        out += [f"## {HEADINGS['timeline']}", ""]
        for number, item in enumerate(p.timeline, start=1):
            out.append(f"{number}. **{item.date.text}** — {_escape(item.label)}{notes(item.notes)}")
        out.append("")
    if p.awards:
        out += [f"## {HEADINGS['awards']}", ""]
        out += [f"- {_escape(award_text(a))}{notes(a.notes)}" for a in p.awards]
        out.append("")
    if p.education or p.supervisions:
        out += [f"## {HEADINGS['education']}", ""]
        out += [f"- {_escape(education_text(e))}{notes(e.notes)}" for e in p.education]
        out += [f"- {supervision_label(s.relation)}: {_escape(s.person.name)}{notes(s.notes)}" for s in p.supervisions]
        out.append("")
    former = p.roles_with("former")
    if former:
        out += [f"## {HEADINGS['former']}", ""]
        out += [
            f"- {_escape(role_line(r.title, r.organization_name) + as_of(r.as_of))}{notes(r.notes)}" for r in former
        ]
        out.append("")
    other = p.roles_with("not confirmed")
    if other:
        out += [f"## {HEADINGS['other']}", "", HEADINGS["other_intro"], ""]
        out += [f"- {_escape(role_line(r.title, r.organization_name) + as_of(r.as_of))}{notes(r.notes)}" for r in other]
        out.append("")
    if p.workplaces:
        out += [f"## {HEADINGS['workplaces']}", ""]
        if p.workplaces_as_of:
            out += [_escape(latest_note(p.workplaces_as_of)), ""]
        out += [f"- **{_escape(w.name)}** — {people_count(w.people)}" for w in p.workplaces]
        out.append("")
    if p.related:
        out += [f"## {HEADINGS['related']}", ""]
        out += [f"- **{_escape(r.name)}** — {_escape(r.reason)}" for r in p.related]
        out.append("")
    if p.sources:
        out += [f"## {HEADINGS['sources']}", ""]
        for s in p.sources:
            title = _source_title(s.title, s.url) + "".join(_more_url(u) for u in s.urls[1:])
            detail = "; ".join(_escape(x) for x in (s.site, s.kind) if x)
            retrieved = f", retrieved {s.retrieved}" if s.retrieved else ""
            out.append(
                f'{s.number}. <a id="source-{s.number}"></a>{title}' + (f" ({detail}{retrieved})" if detail else "")
            )
        out.append("")
    return "\n".join(out).rstrip() + "\n"
