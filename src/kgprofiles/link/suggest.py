"""`link suggest`: candidates for people and organisations without a Wikidata link, ranked with the
evidence for each.

A candidate is an item whose English label or alias is exactly our name (or another name we
record). Its score adds up the evidence, each piece shown with its points:

* the name is the label (0.5) or an alias (0.4);
* the type fits, or the candidate is excluded (a person must be a human, Q5; an organisation not);
* for a person: a shared employer (P108, or the organisation of a position, P39), 0.2 each; a work
  we credit them with that Wikidata names (P50 author, P800 notable work), 0.15 each; a field of
  work (P101) among their topics, 0.1 each; at most two of each kind count; a role's start or end
  that agrees adds 0.05, one that contradicts takes 0.1 away;
* for an organisation: the employer (P108) of people we link to Wikidata who have a role there in
  our data, 0.3 each (at most two).

Scores are capped at 1. The ranking is by score, a label before an alias, then the lower Q-id, so
the same data always gives the same order.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field

from kgprofiles.link.local import LocalClaim, LocalData, LocalEntity, qid_of
from kgprofiles.link.names import same_name
from kgprofiles.link.wikidata import HUMAN, Item, Statement, Wikidata
from kgprofiles.link.wikidata_dates import Date

DEFAULT_THRESHOLD = 0.8
POINTS = {
    "label": 0.5,
    "alias": 0.4,
    "employer": 0.2,
    "work": 0.15,
    "field": 0.1,
    "date agrees": 0.05,
    "date differs": -0.1,
    "colleague": 0.3,
}
AT_MOST = 2  # pieces of evidence of one kind that count
WORK_PROPS = ("P50", "P800")
PROP_NAMES = {"P50": "author (P50)", "P800": "notable work (P800)", "P108": "employer (P108)", "P39": "position (P39)"}


@dataclass(frozen=True)
class Evidence:
    points: float
    text: str

    def format(self) -> str:
        return f"{self.points:+.2f} {self.text}"


@dataclass(frozen=True)
class Candidate:
    qid: str
    label: str | None
    description: str | None
    score: float
    evidence: tuple[Evidence, ...]
    excluded: str | None = None  # why the candidate cannot be the entity
    by_label: bool = True

    def to_dict(self) -> dict[str, object]:
        return {
            "wikidata": self.qid,
            "label": self.label,
            "description": self.description,
            "score": self.score,
            "evidence": [{"points": e.points, "text": e.text} for e in self.evidence],
            "excluded": self.excluded,
        }


@dataclass(frozen=True)
class Suggestion:
    entity: LocalEntity
    candidates: tuple[Candidate, ...]  # ranked, best first
    excluded: tuple[Candidate, ...] = field(default=())

    @property
    def best(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None

    def refusal(self, threshold: float, yes: bool) -> str | None:
        """Why the best candidate must not be applied, or None when it may be."""
        best = self.best
        if best is None:
            return "no candidate"
        if len(self.candidates) > 1 and self.candidates[1].score == best.score:
            return f"{best.qid} and {self.candidates[1].qid} tie at {best.score:.2f}; add the right link by hand"
        if best.score < threshold and not yes:
            return (
                f"the best candidate {best.qid} scores {best.score:.2f}, below the threshold {threshold:.2f}; "
                "check it, then give --yes to apply it anyway"
            )
        return None

    def to_dict(self) -> dict[str, object]:
        return {
            "entity": self.entity.iri,
            "kind": self.entity.kind,
            "name": self.entity.name,
            "file": str(self.entity.file) if self.entity.file else None,
            "candidates": [c.to_dict() for c in self.candidates],
            "excluded": [c.to_dict() for c in self.excluded],
        }


def suggest(entities: list[LocalEntity], local: LocalData, wikidata: Wikidata) -> list[Suggestion]:
    """Ranked candidates for each entity (people and organisations without a link)."""
    found = wikidata.search(n for e in entities for n in (e.name, *e.alt_names))
    matches: dict[str, dict[str, str]] = {}
    for entity in entities:
        best: dict[str, str] = {}
        for name in (entity.name, *entity.alt_names):
            for qid, how in found.get(name.strip(), []):
                if best.get(qid) != "label":
                    best[qid] = how
        matches[entity.iri] = best
    wanted = {q for m in matches.values() for q in m}
    items = wikidata.items(wanted)
    people = [e for e in entities if e.kind == "person"]
    statements = wikidata.statements({q for e in people for q in matches[e.iri]})
    colleagues = _colleagues(entities, local, wikidata)
    out = []
    for entity in entities:
        claims = local.claims(entity.iri) if entity.kind == "person" else []
        scored = [
            _score(entity, items.get(qid, Item(qid, False)), how, claims, statements.get(qid, []), colleagues)
            for qid, how in matches[entity.iri].items()
        ]
        ranked = sorted((c for c in scored if not c.excluded), key=_rank)
        excluded = sorted((c for c in scored if c.excluded), key=_rank)
        out.append(Suggestion(entity, tuple(ranked), tuple(excluded)))
    return out


def _rank(candidate: Candidate) -> tuple[float, bool, int]:
    number = int(candidate.qid[1:]) if candidate.qid[1:].isdigit() else 10**18
    return (-candidate.score, not candidate.by_label, number)


def _score(
    entity: LocalEntity,
    item: Item,
    how: str,
    claims: list[LocalClaim],
    statements: list[Statement],
    colleagues: dict[str, dict[str, list[tuple[str, str]]]],
) -> Candidate:
    names = (entity.name, *entity.alt_names)
    if how == "label":
        first = Evidence(POINTS["label"], f"the label {item.label!r} is our name")
    else:
        alias = same_name(names, item.aliases) or entity.name
        first = Evidence(POINTS["alias"], f"the alias {alias!r} is our name")
    evidence = [first]
    excluded = None
    types = ", ".join(item.types) or "nothing"
    if entity.kind == "person" and HUMAN not in item.types:
        excluded = f"not a human (instance of {types})"
    elif entity.kind == "organization" and HUMAN in item.types:
        excluded = f"a human (instance of {HUMAN}), not an organisation"
    elif entity.kind == "person":
        evidence.extend(person_evidence(claims, statements))
    elif entity.kind == "organization":
        evidence.extend(_colleague_evidence(colleagues.get(entity.iri, {}).get(item.qid, [])))
    score = round(max(0.0, min(1.0, sum(e.points for e in evidence))), 2)
    return Candidate(item.qid, item.label, item.description, score, tuple(evidence), excluded, how == "label")


def person_evidence(claims: list[LocalClaim], statements: list[Statement]) -> list[Evidence]:
    """Shared employers, works and fields of work, and whether the dates of shared roles agree."""
    out: list[Evidence] = []
    employers = [s for s in statements if s.prop in ("P108", "P39")]
    seen: set[str] = set()
    for claim in (c for c in claims if c.section == "role"):
        for statement in employers:
            org, org_label = (
                (statement.value, statement.value_label)
                if statement.prop == "P108"
                else (
                    statement.of,
                    statement.of_label,
                )
            )
            if org is None or not _same_target(claim, org, org_label):
                continue
            if org not in seen and len(seen) < AT_MOST:
                seen.add(org)
                name = f"{org_label or claim.target_name or org} ({org})"
                out.append(Evidence(POINTS["employer"], f"shared employer {name}, via {PROP_NAMES[statement.prop]}"))
            out.extend(_date_evidence(claim, statement))
    works = [s for s in statements if s.prop in WORK_PROPS]
    matched_works: set[str] = set()
    for claim in (c for c in claims if c.section == "work"):
        for statement in works:
            if statement.value in matched_works or len(matched_works) >= AT_MOST:
                continue
            if _same_target(claim, statement.value, statement.value_label):
                matched_works.add(statement.value)
                title = statement.value_label or claim.target_name or statement.value
                out.append(Evidence(POINTS["work"], f"work {title} ({statement.value}), {PROP_NAMES[statement.prop]}"))
    fields = [s for s in statements if s.prop == "P101"]
    matched_fields: set[str] = set()
    for claim in (c for c in claims if c.section == "topic"):
        for statement in fields:
            if statement.value in matched_fields or len(matched_fields) >= AT_MOST:
                continue
            if _same_target(claim, statement.value, statement.value_label):
                matched_fields.add(statement.value)
                name = statement.value_label or claim.target_name or statement.value
                out.append(Evidence(POINTS["field"], f"field of work {name} ({statement.value}, P101) is our topic"))
    return out


def _same_target(claim: LocalClaim, qid: str, label: str | None) -> bool:
    """Our organisation, work or topic is the item: by its link, else by its name."""
    if claim.target_link:
        return qid_of(claim.target_link) == qid
    return same_name((claim.target_name, *claim.target_alt_names), (label,)) is not None


def _date_evidence(claim: LocalClaim, statement: Statement) -> list[Evidence]:
    out = []
    for which, ours, theirs in (("start", claim.start, statement.start), ("end", claim.end, statement.end)):
        mine = Date.from_literal(ours)
        if mine is None or theirs is None:
            continue
        if mine.compare(theirs) == "different":
            out.append(
                Evidence(POINTS["date differs"], f"{which} differs: ours {mine.text()}, Wikidata {theirs.text()}")
            )
        else:
            out.append(Evidence(POINTS["date agrees"], f"{which} agrees: {mine.text()}"))
    return out


def _colleagues(
    entities: list[LocalEntity], local: LocalData, wikidata: Wikidata
) -> dict[str, dict[str, list[tuple[str, str]]]]:
    """For each unlinked organisation: item → [(person Q-id, person name)] of our linked people who
    have a role there in our data and whose item names that item as employer."""
    orgs = {e.iri for e in entities if e.kind == "organization"}
    if not orgs:
        return {}
    linked = [e for e in local.links() if e.kind == "person" and e.wikidata]
    members: dict[str, list[LocalEntity]] = defaultdict(list)
    for person in linked:
        for claim in local.claims(person.iri):
            if claim.section == "role" and claim.target in orgs:
                members[claim.target].append(person)
    if not members:
        return {}
    statements = wikidata.statements({qid_of(p.wikidata or "") for ps in members.values() for p in ps})
    out: dict[str, dict[str, list[tuple[str, str]]]] = defaultdict(lambda: defaultdict(list))
    for org, people in members.items():
        for person in people:
            qid = qid_of(person.wikidata or "")
            for statement in statements.get(qid, []):
                employer = statement.value if statement.prop == "P108" else statement.of
                if statement.prop in ("P108", "P39") and employer:
                    out[org][employer].append((qid, person.name))
    return out


def _colleague_evidence(people: list[tuple[str, str]]) -> list[Evidence]:
    unique = sorted(set(people))[:AT_MOST]
    return [
        Evidence(POINTS["colleague"], f"employer of {qid} ({name}), who has a role here in our data")
        for qid, name in unique
    ]


# ------------------------------------------------------------------------------------------ output


def format_text(suggestions: list[Suggestion], threshold: float) -> list[str]:
    lines: list[str] = []
    for suggestion in suggestions:
        entity = suggestion.entity
        where = f"  ({entity.file})" if entity.file else ""
        lines.append(f"{entity.label}  {entity.name}{where}")
        if not suggestion.candidates:
            lines.append("  no candidates" + (" (only excluded ones)" if suggestion.excluded else ""))
        width = max((len(c.qid) for c in suggestion.candidates), default=0)
        for rank, candidate in enumerate(suggestion.candidates, 1):
            mark = "" if candidate.score >= threshold else "  (below the threshold)"
            about = " — ".join(x for x in (candidate.label, candidate.description) if x)
            lines.append(f"  {rank}. {candidate.qid:<{width}}  {candidate.score:.2f}  {about}{mark}")
            lines.extend(f"       {e.format()}" for e in candidate.evidence)
        for candidate in suggestion.excluded:
            lines.append(f"  excluded: {candidate.qid} {candidate.label or ''}: {candidate.excluded}")
    with_candidates = sum(1 for s in suggestions if s.candidates)
    lines.append(
        f"summary: {len(suggestions)} without a link, {with_candidates} with candidates, "
        f"{sum(1 for s in suggestions if s.best and s.best.score >= threshold)} at or above {threshold:.2f}"
    )
    return lines


def format_json(suggestions: list[Suggestion]) -> str:
    return json.dumps([s.to_dict() for s in suggestions], indent=2, ensure_ascii=False)
