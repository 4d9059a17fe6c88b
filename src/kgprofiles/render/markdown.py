"""Markdown views: footnotes are superscript links to the numbered source list."""

from __future__ import annotations

from kgprofiles.profiles import Profile
from kgprofiles.render import HEADINGS, people_count, role_line


def notes(numbers: tuple[int, ...]) -> str:
    if not numbers:
        return ""
    return "<sup>" + ",".join(f"[{n}](#source-{n})" for n in numbers) + "</sup>"


def _escape(text: str) -> str:
    for char in "\\`*_[]<>":
        text = text.replace(char, "\\" + char)
    return text


def profile(p: Profile) -> str:
    out: list[str] = [f"# {_escape(p.name)}", ""]
    if p.headline:
        out += [f"*{_escape(p.headline)}*", ""]
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
    former = p.roles_with("former")
    if former:
        out += [f"## {HEADINGS['former']}", ""]
        out += [f"- {_escape(role_line(r.title, r.organization_name))}{notes(r.notes)}" for r in former]
        out.append("")
    other = p.roles_with("not confirmed")
    if other:
        out += [f"## {HEADINGS['other']}", "", HEADINGS["other_intro"], ""]
        out += [f"- {_escape(role_line(r.title, r.organization_name))}{notes(r.notes)}" for r in other]
        out.append("")
    if p.workplaces:
        out += [f"## {HEADINGS['workplaces']}", ""]
        out += [f"- **{_escape(w.name)}** — {people_count(w.people)}" for w in p.workplaces]
        out.append("")
    if p.related:
        out += [f"## {HEADINGS['related']}", ""]
        out += [f"- **{_escape(r.name)}** — {_escape(r.reason)}" for r in p.related]
        out.append("")
    if p.sources:
        out += [f"## {HEADINGS['sources']}", ""]
        for s in p.sources:
            title = f"[{_escape(s.title)}]({s.url})" if s.url else _escape(s.title)
            detail = "; ".join(_escape(x) for x in (s.site, s.kind) if x)
            retrieved = f", retrieved {s.retrieved}" if s.retrieved else ""
            out.append(
                f'{s.number}. <a id="source-{s.number}"></a>{title}' + (f" ({detail}{retrieved})" if detail else "")
            )
        out.append("")
    return "\n".join(out).rstrip() + "\n"
