"""`link check`: every owl:sameAs into Wikidata, checked against the endpoint.

For each link: the item exists; it is not a redirect (the target is reported); its type fits (a
person is a human, Q5; an organisation is not); its label or an alias is the name we use. One
report per link, the worst finding as its status, every finding as a note, and a summary.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass

from kgprofiles.link.local import LocalEntity, is_qid, qid_of
from kgprofiles.link.names import same_name
from kgprofiles.link.wikidata import HUMAN, Item, Wikidata

OK, REDIRECT, WRONG_TYPE, LABEL_MISMATCH, MISSING, NOT_AN_ITEM = (
    "ok",
    "redirect",
    "wrong type",
    "label mismatch",
    "missing",
    "not an item",
)
#: Worst first: a link's status is the worst of its findings.
SEVERITY = (NOT_AN_ITEM, MISSING, REDIRECT, WRONG_TYPE, LABEL_MISMATCH, OK)


@dataclass(frozen=True)
class LinkCheck:
    """The finding for one link."""

    entity: LocalEntity
    qid: str
    status: str
    target: str | None = None  # where a redirect leads
    label: str | None = None  # the (target) item's label
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {
            "entity": self.entity.iri,
            "kind": self.entity.kind,
            "name": self.entity.name,
            "file": str(self.entity.file) if self.entity.file else None,
            "wikidata": self.qid,
            "status": self.status,
            "redirect_target": self.target,
            "wikidata_label": self.label,
            "notes": list(self.notes),
        }


def check_links(links: list[LocalEntity], wikidata: Wikidata) -> list[LinkCheck]:
    """One finding per link, in the order given; two batched lookups at most (items, redirect targets)."""
    items_wanted = {qid_of(e.wikidata) for e in links if e.wikidata and is_qid(qid_of(e.wikidata))}
    items = wikidata.items(items_wanted)
    targets = {i.redirect for i in items.values() if i.redirect and i.redirect not in items}
    if targets:
        items.update(wikidata.items(targets))
    return [_check(entity, items) for entity in links]


def _check(entity: LocalEntity, items: dict[str, Item]) -> LinkCheck:
    qid = qid_of(entity.wikidata or "")
    if not is_qid(qid):
        return LinkCheck(entity, qid, NOT_AN_ITEM, notes=(f"{entity.wikidata} is not a Wikidata item IRI",))
    item = items.get(qid)
    if item is None or not item.exists:
        return LinkCheck(entity, qid, MISSING, notes=(f"Wikidata has no item {qid} (deleted, or a typo)",))
    findings: list[tuple[str, str]] = []
    target = None
    if item.redirect:
        target = item.redirect
        findings.append((REDIRECT, f"{qid} redirects to {target}: link to {target} instead"))
        item = items.get(target, Item(target, False))
        if not item.exists:
            findings.append((MISSING, f"the redirect target {target} does not exist"))
    if item.exists:
        findings.extend(_type_findings(entity, item))
        findings.extend(_label_findings(entity, item))
    status = min((f[0] for f in findings), key=SEVERITY.index, default=OK)
    return LinkCheck(entity, qid, status, target, item.label, tuple(note for _, note in findings))


def _type_findings(entity: LocalEntity, item: Item) -> list[tuple[str, str]]:
    types = ", ".join(item.types) or "nothing"
    if entity.kind == "person" and HUMAN not in item.types:
        return [
            (WRONG_TYPE, f"a person must link to a human (instance of {HUMAN}); {item.qid} is an instance of {types}")
        ]
    if entity.kind == "organization" and HUMAN in item.types:
        return [(WRONG_TYPE, f"an organisation must not link to a human; {item.qid} is an instance of {HUMAN}")]
    return []


def _label_findings(entity: LocalEntity, item: Item) -> list[tuple[str, str]]:
    names = (entity.name, *entity.alt_names)
    if same_name(names, item.labels):
        return []
    alias = same_name(names, item.aliases)
    if alias:
        return [(OK, f"our name matches the alias {alias!r}, not the label {item.label!r}")]
    if item.label is None:
        return [(LABEL_MISMATCH, f"{item.qid} has no English label to compare with {entity.name!r}")]
    return [(LABEL_MISMATCH, f"ours {entity.name!r}, Wikidata {item.label!r}")]


# ------------------------------------------------------------------------------------------ output


def summary(checks: list[LinkCheck]) -> str:
    counts = Counter(c.status for c in checks)
    parts = [f"{counts[s]} {s}" for s in reversed(SEVERITY) if counts[s]]
    return f"summary: {len(checks)} link(s) checked: {', '.join(parts) or 'none'}"


def format_text(checks: list[LinkCheck]) -> list[str]:
    """One line per link, its notes under it, then the summary."""
    width = max((len(c.entity.label) for c in checks), default=0)
    lines = []
    for check in checks:
        label = check.label or "(no label)"
        if check.target:
            label = f"→ {check.target} {label}"
        lines.append(f"{check.status:<14} {check.entity.label:<{width}}  {check.qid:<13} {label}")
        lines.extend(f"    {note}" for note in check.notes)
    lines.append(summary(checks))
    return lines


def format_json(checks: list[LinkCheck]) -> str:
    counts = Counter(c.status for c in checks)
    return json.dumps(
        {"links": [c.to_dict() for c in checks], "summary": {s: counts[s] for s in reversed(SEVERITY)}},
        indent=2,
        ensure_ascii=False,
    )
