"""Markdown views: footnotes are superscript links to the numbered source list."""

from __future__ import annotations

import re

from kgprofiles.profiles import Profile
from kgprofiles.render import (
    HEADINGS,
    as_of,
    award_text,
    education_text,
    latest_note,
    life_text,
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


def facts(p: Profile) -> list[str]:
    """The summary box as a list: born, died, education, awards, identifiers as links."""
    out = [f"- **{x.kind.capitalize()}:** {_escape(life_text(x))}{notes(x.notes)}" for x in p.life]
    if p.education:
        out.append("- **Education:** " + "; ".join(_escape(education_text(e)) for e in p.education))
    if p.awards:
        out.append("- **Awards:** " + "; ".join(_escape(f"{a.name} ({a.date.text})") for a in p.awards))
    for i in p.identifiers:
        href = external_href(i.url) if i.url else None
        value = f"[{_escape(i.value)}]({destination(href)})" if href else _escape(i.value)
        out.append(f"- **{_escape(i.label)}:** {value}")
    return out


def profile(p: Profile) -> str:
    out: list[str] = [f"# {_escape(p.name)}", ""]
    if p.headline:
        out += [f"*{_escape(p.headline)}*", ""]
    if p.has_facts:
        out += [*facts(p), ""]
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
