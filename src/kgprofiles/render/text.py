"""Plain-text views, laid out like the seed page; footnotes are superscripts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgprofiles.profiles import OrganizationView, PersonRow, Profile, TopicView
from kgprofiles.related import Related
from kgprofiles.render import (
    HEADINGS,
    as_of,
    award_text,
    education_text,
    latest_note,
    life_text,
    people_count,
    role_line,
    superscript,
    supervision_label,
)

if TYPE_CHECKING:
    from kgprofiles.search import Results


def profile(p: Profile) -> str:
    out: list[str] = [p.name, ""]
    if p.headline:
        out += [p.headline, ""]
    if p.has_facts:
        out += [*facts(p), ""]
    for para in p.summary:
        out += [para.text + superscript(para.notes), ""]
    if p.writing:
        out += [HEADINGS["writing"], ""]
        for para in p.writing:
            out += [para.text + superscript(para.notes), ""]
    if p.works:
        out += [HEADINGS["works"], ""]
        for w in p.featured_works:
            out.append(f"• {w.name} — {w.kind}")
            out.append("")
            if w.description:
                out += [f"  {w.description}{superscript(w.notes)}", ""]
    if p.timeline:
        out += [HEADINGS["timeline"], ""]
        for number, item in enumerate(p.timeline, start=1):
            out.append(f"{number}. {item.date.text} — {item.label}{superscript(item.notes)}")
        out.append("")
    if p.awards:
        out += [HEADINGS["awards"], ""]
        out += [f"• {award_text(a)}{superscript(a.notes)}" for a in p.awards]
        out.append("")
    if p.education or p.supervisions:
        out += [HEADINGS["education"], ""]
        out += [f"• {education_text(e)}{superscript(e.notes)}" for e in p.education]
        out += [f"• {supervision_label(s.relation)}: {s.person.name}{superscript(s.notes)}" for s in p.supervisions]
        out.append("")
    former = p.roles_with("former")
    if former:
        out += [HEADINGS["former"], ""]
        out += [
            f"• {role_line(r.title, r.organization_name)}{_span(r) or as_of(r.as_of)}{superscript(r.notes)}"
            for r in former
        ]
        out.append("")
    other = p.roles_with("not confirmed")
    if other:
        out += [HEADINGS["other"], "", HEADINGS["other_intro"], ""]
        for r in other:
            out.append(f"• {role_line(r.title, r.organization_name)}{as_of(r.as_of)}{superscript(r.notes)}")
        out.append("")
    if p.workplaces:
        out += [HEADINGS["workplaces"], ""]
        if p.workplaces_as_of:
            out += [latest_note(p.workplaces_as_of), ""]
        for place in p.workplaces:
            out.append(f"• {place.name} — {people_count(place.people)}")
        out.append("")
    if p.related:
        out += [HEADINGS["related"], ""]
        for person in p.related:
            out.append(f"• {person.name} — {person.reason}")
        out.append("")
    if p.sources:
        out += [HEADINGS["sources"], ""]
        for s in p.sources:
            retrieved = f"retrieved {s.retrieved}" if s.retrieved else None
            detail = "; ".join(x for x in (s.site, s.kind, *(s.urls or (s.url,)), retrieved) if x)
            out.append(f"{s.number}. {s.title}" + (f" ({detail})" if detail else ""))
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def facts(p: Profile) -> list[str]:
    """The summary box: born, died, education, awards, identifiers (with their addresses)."""
    out = [f"{x.kind.capitalize()}: {life_text(x)}{superscript(x.notes)}" for x in p.life]
    if p.education:
        out.append("Education: " + "; ".join(education_text(e) for e in p.education))
    if p.awards:
        out.append("Awards: " + "; ".join(f"{a.name} ({a.date.text})" for a in p.awards))
    for i in p.identifiers:
        out.append(f"{i.label}: {i.value}" + (f" <{i.url}>" if i.url else ""))
    return out


def _span(role: object) -> str:
    start = getattr(role, "start", None)
    end = getattr(role, "end", None)
    if not start and not end:
        return ""
    return f" ({start.text if start else '?'} – {end.text if end else ''})".replace(" – )", " –)")


def related(people: list[Related], explain: bool = False) -> str:
    out = []
    for number, r in enumerate(people, start=1):
        out.append(f"{number}. {r.name} — {r.reason}  [score {r.score:g}]")
        if explain:
            for c in r.components:
                names = ", ".join(c.names)
                out.append(f"     {c.kind}: {c.count} × {c.weight:g} = {c.points:g}  ({names})")
    return "\n".join(out) + ("\n" if out else "no related people\n")


def organization(o: OrganizationView) -> str:
    out = [o.name, ""]
    if o.alt_names:
        out += ["Also known as " + ", ".join(o.alt_names), ""]
    out += [people_count(o.people).capitalize(), ""]
    if o.parts:
        out += [f"With its parts, {people_count(o.people_with_parts)}, including:", ""]
        out += [f"• {part.name}: {part.count}" for part in o.parts]
        out.append("")
    for status in ("current", "former", "not confirmed"):
        members = [m for m in o.members if m.status == status]
        if members:
            out += [f"{status.capitalize()} ({len(members)})", ""]
            out += [f"• {m.name}" + (f" — {m.title}" if m.title else "") + _span(m) for m in members]
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def topic(t: TopicView) -> str:
    out = [t.name, "", people_count(t.people).capitalize(), ""]
    out += [f"• {m.name}" + (f" — {', '.join(m.organizations)}" if m.organizations else "") for m in t.members]
    return "\n".join(out).rstrip() + "\n"


def people(rows: tuple[PersonRow, ...]) -> str:
    out = [f"{r.slug:<24} {r.name}" + (f" — {r.headline}" if r.headline else "") for r in rows]
    out.append(f"{len(rows)} {'person' if len(rows) == 1 else 'people'}")
    return "\n".join(out) + "\n"


def search(results: Results) -> str:
    """Search results: one line per hit (kind, name, IRI), its snippet below with matches in [ ]."""
    out = [f"{results.count_text()} for “{results.text}”"]
    for hit in results.hits:
        out.append(f"{hit.kind:<12} {hit.name}  <{hit.iri}>")
        snippet = "".join(f"[{text}]" if matched else text for text, matched in hit.snippet)
        if hit.snippet_text() != hit.name:
            out.append(f"             {snippet}")
    if len(results.hits) < results.total:
        out.append(f"(the first {len(results.hits)} shown; --limit N for more)")
    return "\n".join(out) + "\n"
