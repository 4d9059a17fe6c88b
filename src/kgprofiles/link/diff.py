"""`link diff`: our claims about a linked person beside Wikidata's.

Compared: the name (label and aliases); employers (P108) and positions held (P39) with their start
(P580) and end (P582) at their precision; works (P50 author, P800 notable work) with their dates
(P577); fields of work (P101); birth and death (P569, P570 at their precision; P19, P20 places);
awards (P166 with P585); education (P69 with P580, P582); doctoral advisors and students (P184,
P185); identifiers (P496, P2456, P1960, P2037).
Our side is matched to theirs by our own links first, then by name.
Each finding is one of: agrees, differs, only ours, only Wikidata — what a curator needs to fix
our data or Wikidata's.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass

import pyoxigraph as ox

from kgprofiles.link.local import LocalClaim, LocalData, LocalEntity, curie, qid_of
from kgprofiles.link.names import same_name
from kgprofiles.link.wikidata import IDENTIFIER_PROPS, Item, Statement, Wikidata
from kgprofiles.link.wikidata_dates import Date
from kgprofiles.vocab import KGP_NS

AGREES, DIFFERS, ONLY_OURS, ONLY_WIKIDATA = "agrees", "differs", "only ours", "only Wikidata"
OUTCOMES = (AGREES, DIFFERS, ONLY_OURS, ONLY_WIKIDATA)
SECTIONS = {
    "link": "link",
    "name": "name (label, aliases)",
    "roles": "employers and positions (P108, P39; start P580, end P582)",
    "works": "works (P50 author, P800 notable work; date P577)",
    "fields": "fields of work (P101)",
    "life": "birth and death (P569, P570, P19, P20)",
    "awards": "awards (P166; point in time P585)",
    "education": "education (P69; start P580, end P582)",
    "advisors": "doctoral advisors and students (P184, P185)",
    "identifiers": "identifiers (P496 ORCID, P2456 DBLP, P1960 Google Scholar, P2037 GitHub)",
}
PROPS = {"P50": "author (P50)", "P800": "notable work (P800)"}


@dataclass(frozen=True)
class Finding:
    section: str
    outcome: str
    text: str


@dataclass(frozen=True)
class PersonDiff:
    entity: LocalEntity
    qid: str  # the item compared (a redirect's target)
    label: str | None
    findings: tuple[Finding, ...]

    def counts(self) -> Counter[str]:
        return Counter(f.outcome for f in self.findings)

    def to_dict(self) -> dict[str, object]:
        return {
            "entity": self.entity.iri,
            "name": self.entity.name,
            "wikidata": self.qid,
            "wikidata_label": self.label,
            "findings": [{"section": f.section, "outcome": f.outcome, "text": f.text} for f in self.findings],
            "summary": {o: self.counts()[o] for o in OUTCOMES},
        }


def diff_people(people: list[LocalEntity], local: LocalData, wikidata: Wikidata) -> list[PersonDiff]:
    """One comparison per linked person, in the order given."""
    items = wikidata.items(qid_of(p.wikidata or "") for p in people)
    targets = {i.redirect for i in items.values() if i.redirect and i.redirect not in items}
    if targets:
        items.update(wikidata.items(targets))
    compared = {}
    for person in people:
        qid = qid_of(person.wikidata or "")
        item = items.get(qid, Item(qid, False))
        compared[person.iri] = item.redirect or qid
    statements = wikidata.statements(set(compared.values()))
    out = []
    for person in people:
        qid = qid_of(person.wikidata or "")
        item = items.get(qid, Item(qid, False))
        findings: list[Finding] = []
        if item.redirect:
            findings.append(
                Finding("link", DIFFERS, f"our link {qid} redirects to {item.redirect}: compared with that")
            )
            item = items.get(item.redirect, Item(item.redirect, False))
        if not item.exists:
            findings.append(Finding("link", ONLY_OURS, f"Wikidata has no item {item.qid}"))
            out.append(PersonDiff(person, item.qid, None, tuple(findings)))
            continue
        claims = local.claims(person.iri)
        found = statements.get(item.qid, [])
        findings.extend(_names(person, item))
        findings.extend(_roles([c for c in claims if c.section == "role"], found))
        findings.extend(_works([c for c in claims if c.section == "work"], found))
        findings.extend(_fields([c for c in claims if c.section == "topic"], found))
        findings.extend(_life(claims, found))
        findings.extend(_awards([c for c in claims if c.section == "award"], found))
        findings.extend(_education([c for c in claims if c.section == "education"], found))
        findings.extend(_supervisions([c for c in claims if c.section in ("advisor", "student")], found))
        findings.extend(_identifiers([c for c in claims if c.section == "identifier"], found))
        out.append(PersonDiff(person, item.qid, item.label, tuple(findings)))
    return out


# ------------------------------------------------------------------------------------ sections


def _names(person: LocalEntity, item: Item) -> list[Finding]:
    if same_name([person.name], item.labels):
        return [Finding("name", AGREES, repr(person.name))]
    alias = same_name([person.name], item.aliases)
    if alias:
        return [Finding("name", AGREES, f"{person.name!r} is an alias; the label is {item.label!r}")]
    if item.label is None:
        return [Finding("name", ONLY_OURS, f"{person.name!r}: Wikidata has no English label")]
    return [Finding("name", DIFFERS, f"ours {person.name!r}, Wikidata {item.label!r}")]


def _matches(claim: LocalClaim, qid: str | None, label: str | None) -> bool:
    if qid is None:
        return False
    if claim.target_link:
        return qid_of(claim.target_link) == qid
    return same_name((claim.target_name, *claim.target_alt_names), (label,)) is not None


def _ours(claim: LocalClaim) -> str:
    name = claim.target_name or curie(claim.target)
    return f"{name} ({qid_of(claim.target_link)})" if claim.target_link else name


def _dates(section: str, where: str, pairs: list[tuple[str, ox.Literal | None, Date | None, str]]) -> list[Finding]:
    out = []
    for which, ours_term, theirs, prop in pairs:
        ours = Date.from_literal(ours_term)
        if ours and theirs:
            how = ours.compare(theirs)
            if how == "same":
                out.append(Finding(section, AGREES, f"{which} {where}: {ours.text()}"))
            elif how == "precision":
                out.append(
                    Finding(
                        section,
                        DIFFERS,
                        f"{which} {where}: ours {ours.text()}, Wikidata {theirs.text()} (same at the coarser one)",
                    )
                )
            else:
                out.append(Finding(section, DIFFERS, f"{which} {where}: ours {ours.text()}, Wikidata {theirs.text()}"))
        elif ours:
            out.append(Finding(section, ONLY_OURS, f"{which} {where}: {ours.text()} (Wikidata has no {prop})"))
        elif theirs:
            out.append(Finding(section, ONLY_WIKIDATA, f"{which} {where}: {theirs.text()} ({prop}; we give none)"))
    return out


def _status(role: LocalClaim, statement: Statement, where: str) -> list[Finding]:
    if statement.end and role.status == KGP_NS + "Current":
        return [Finding("roles", DIFFERS, f"status {where}: ours current, Wikidata ended {statement.end.text()}")]
    return []


def _roles(roles: list[LocalClaim], statements: list[Statement]) -> list[Finding]:
    out: list[Finding] = []
    matched: set[int] = set()
    for statement in (s for s in statements if s.prop == "P108"):
        hits = [i for i, r in enumerate(roles) if _matches(r, statement.value, statement.value_label)]
        if not hits:
            out.append(Finding("roles", ONLY_WIKIDATA, f"employer {statement.value_text}{_span(statement)}"))
            continue
        for index in hits:
            role = roles[index]
            matched.add(index)
            where = f"at {statement.value_label or _ours(role)}"
            out.append(
                Finding("roles", AGREES, f"employer {statement.value_label or role.target_name} ({statement.value})")
            )
            out.extend(
                _dates(
                    "roles",
                    where,
                    [("start", role.start, statement.start, "P580"), ("end", role.end, statement.end, "P582")],
                )
            )
            out.extend(_status(role, statement, where))
    for statement in (s for s in statements if s.prop == "P39"):
        of = f" of {statement.of_label or statement.of}" if statement.of else ""
        hits = [i for i, r in enumerate(roles) if _matches(r, statement.of, statement.of_label)]
        if not hits:
            out.append(Finding("roles", ONLY_WIKIDATA, f"position {statement.value_text}{of}{_span(statement)}"))
            continue
        for index in hits:
            role = roles[index]
            matched.add(index)
            where = f"as {statement.value_label or statement.value}{of}"
            if role.title and same_name([role.title], [statement.value_label]):
                out.append(Finding("roles", AGREES, f"position {statement.value_text}{of}"))
            elif role.title:
                out.append(
                    Finding("roles", DIFFERS, f"position{of}: ours {role.title!r}, Wikidata {statement.value_text}")
                )
            else:
                out.append(
                    Finding("roles", ONLY_WIKIDATA, f"position {statement.value_text}{of} (our role has no title)")
                )
            out.extend(
                _dates(
                    "roles",
                    where,
                    [("start", role.start, statement.start, "P580"), ("end", role.end, statement.end, "P582")],
                )
            )
            out.extend(_status(role, statement, where))
    for index, role in enumerate(roles):
        if index not in matched:
            title = f" ({role.title})" if role.title else ""
            out.append(Finding("roles", ONLY_OURS, f"role at {_ours(role)}{title}: no Wikidata statement"))
    return out


def _span(statement: Statement) -> str:
    parts = []
    if statement.start:
        parts.append(f"from {statement.start.text()}")
    if statement.end:
        parts.append(f"until {statement.end.text()}")
    return f", {' '.join(parts)}" if parts else ""


def _works(works: list[LocalClaim], statements: list[Statement]) -> list[Finding]:
    out: list[Finding] = []
    by_work: dict[str, list[Statement]] = defaultdict(list)
    for statement in (s for s in statements if s.prop in PROPS):
        by_work[statement.value].append(statement)
    matched: set[int] = set()
    for qid, found in by_work.items():
        first = found[0]
        props = ", ".join(PROPS[s.prop] for s in found)
        date = next((s.date for s in found if s.date), None)
        hits = [i for i, w in enumerate(works) if _matches(w, qid, first.value_label)]
        if not hits:
            when = f", {date.text()}" if date else ""
            out.append(Finding("works", ONLY_WIKIDATA, f"work {first.value_text}: {props}{when}"))
            continue
        for index in hits:
            matched.add(index)
            work = works[index]
            out.append(Finding("works", AGREES, f"work {first.value_label or work.target_name} ({qid}): {props}"))
            out.extend(
                _dates("works", f"of {work.target_name or first.value_text}", [("date", work.start, date, "P577")])
            )
    for index, work in enumerate(works):
        if index not in matched:
            out.append(Finding("works", ONLY_OURS, f"work {_ours(work)}: Wikidata names no such work (P50, P800)"))
    return out


def _fields(topics: list[LocalClaim], statements: list[Statement]) -> list[Finding]:
    out: list[Finding] = []
    matched: set[int] = set()
    for statement in (s for s in statements if s.prop == "P101"):
        hits = [i for i, t in enumerate(topics) if _matches(t, statement.value, statement.value_label)]
        if hits:
            matched.update(hits)
            name = statement.value_label or topics[hits[0]].target_name
            out.append(Finding("fields", AGREES, f"field of work {name} ({statement.value})"))
        else:
            out.append(Finding("fields", ONLY_WIKIDATA, f"field of work {statement.value_text}"))
    for index, topic in enumerate(topics):
        if index not in matched:
            out.append(Finding("fields", ONLY_OURS, f"topic {_ours(topic)}: not a field of work (P101) on Wikidata"))
    return out


def _life(claims: list[LocalClaim], statements: list[Statement]) -> list[Finding]:
    out: list[Finding] = []
    for section, date_prop, place_prop, word in (("birth", "P569", "P19", "born"), ("death", "P570", "P20", "died")):
        ours = next((c for c in claims if c.section == section), None)
        when = next((s.time for s in statements if s.prop == date_prop and s.time), None)
        out.extend(_dates("life", word, [("date", ours.start if ours else None, when, date_prop)]))
        for s in (s for s in statements if s.prop == place_prop):
            if ours is not None and ours.target_link and _matches(ours, s.value, s.value_label):
                out.append(Finding("life", AGREES, f"place {word}: {s.value_text}"))
            elif ours is not None and ours.target_link:
                out.append(Finding("life", DIFFERS, f"place {word}: ours {_ours(ours)}, Wikidata {s.value_text}"))
            else:
                out.append(Finding("life", ONLY_WIKIDATA, f"place {word}: {s.value_text} ({place_prop})"))
    return out


def _awards(awards: list[LocalClaim], statements: list[Statement]) -> list[Finding]:
    out: list[Finding] = []
    matched: set[int] = set()
    for statement in (s for s in statements if s.prop == "P166"):
        hits = [
            i for i, a in enumerate(awards) if i not in matched and _matches(a, statement.value, statement.value_label)
        ]
        when = f", {statement.when.text()}" if statement.when else ""
        if not hits:
            out.append(Finding("awards", ONLY_WIKIDATA, f"award {statement.value_text}{when}"))
            continue
        award = awards[hits[0]]
        matched.add(hits[0])
        out.append(Finding("awards", AGREES, f"award {statement.value_label or award.target_name} ({statement.value})"))
        out.extend(
            _dates(
                "awards", f"of {statement.value_label or _ours(award)}", [("date", award.start, statement.when, "P585")]
            )
        )
    for index, award in enumerate(awards):
        if index not in matched:
            out.append(Finding("awards", ONLY_OURS, f"award {_ours(award)}: no Wikidata statement (P166)"))
    return out


def _education(educations: list[LocalClaim], statements: list[Statement]) -> list[Finding]:
    out: list[Finding] = []
    matched: set[int] = set()
    for statement in (s for s in statements if s.prop == "P69"):
        hits = [i for i, e in enumerate(educations) if _matches(e, statement.value, statement.value_label)]
        if not hits:
            out.append(Finding("education", ONLY_WIKIDATA, f"educated at {statement.value_text}{_span(statement)}"))
            continue
        for index in hits:
            matched.add(index)
            education = educations[index]
            where = f"at {statement.value_label or _ours(education)}"
            out.append(Finding("education", AGREES, f"educated {where} ({statement.value})"))
            pairs = [("start", education.start, statement.start, "P580"), ("end", education.end, statement.end, "P582")]
            out.extend(_dates("education", where, pairs))
    for index, education in enumerate(educations):
        if index not in matched:
            out.append(Finding("education", ONLY_OURS, f"education at {_ours(education)}: no Wikidata statement"))
    return out


def _supervisions(links: list[LocalClaim], statements: list[Statement]) -> list[Finding]:
    out: list[Finding] = []
    matched: set[int] = set()
    for prop, section, word in (("P184", "advisor", "doctoral advisor"), ("P185", "student", "doctoral student")):
        for statement in (s for s in statements if s.prop == prop):
            hits = [
                i
                for i, c in enumerate(links)
                if c.section == section and _matches(c, statement.value, statement.value_label)
            ]
            matched.update(hits)
            outcome = AGREES if hits else ONLY_WIKIDATA
            out.append(Finding("advisors", outcome, f"{word} {statement.value_text}" + ("" if hits else f" ({prop})")))
    for index, link in enumerate(links):
        if index not in matched:
            word = "doctoral advisor" if link.section == "advisor" else "doctoral student"
            out.append(Finding("advisors", ONLY_OURS, f"{word} {_ours(link)}: no Wikidata statement"))
    return out


def _identifiers(identifiers: list[LocalClaim], statements: list[Statement]) -> list[Finding]:
    out: list[Finding] = []
    ours: dict[str, set[str]] = defaultdict(set)  # scheme → our values
    for identifier in identifiers:
        ours[identifier.target.rsplit("#", 1)[-1]].add(identifier.title or "")
    for prop, scheme in IDENTIFIER_PROPS.items():
        theirs = {s.value for s in statements if s.prop == prop}
        for value in sorted(theirs & ours[scheme]):
            out.append(Finding("identifiers", AGREES, f"{scheme} {value}"))
        for value in sorted(theirs - ours[scheme]):
            how = ONLY_WIKIDATA if not ours[scheme] else DIFFERS
            out.append(
                Finding(
                    "identifiers",
                    how,
                    f"{scheme} {value} ({prop})"
                    + (f"; ours {', '.join(sorted(ours[scheme]))}" if ours[scheme] else ""),
                )
            )
        if not theirs:
            for value in sorted(ours[scheme]):
                out.append(Finding("identifiers", ONLY_OURS, f"{scheme} {value}: Wikidata has no {prop}"))
    return out


# ------------------------------------------------------------------------------------------ output


COUNTED = {AGREES: "agree", DIFFERS: "differ", ONLY_OURS: "only ours", ONLY_WIKIDATA: "only Wikidata"}


def _summary(counts: Counter[str]) -> str:
    return ", ".join(f"{counts[o]} {COUNTED[o]}" for o in OUTCOMES)


def format_text(diffs: list[PersonDiff]) -> list[str]:
    lines: list[str] = []
    total: Counter[str] = Counter()
    for diff in diffs:
        entity = diff.entity
        where = f"  ({entity.file})" if entity.file else ""
        lines.append(f"{entity.label}  {entity.name}  ↔  {diff.qid} {diff.label or '(no label)'}{where}")
        for section, title in SECTIONS.items():
            found = [f for f in diff.findings if f.section == section]
            if not found:
                continue
            lines.append(f"  {title}")
            lines.extend(f"    {f.outcome:<14} {f.text}" for f in found)
        counts = diff.counts()
        total.update(counts)
        lines.append(f"  {_summary(counts)}")
    lines.append(f"summary: {len(diffs)} person(s) compared: {_summary(total)}")
    return lines


def format_json(diffs: list[PersonDiff]) -> str:
    return json.dumps([d.to_dict() for d in diffs], indent=2, ensure_ascii=False)
