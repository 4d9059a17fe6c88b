"""A reader of the reference page ../shared/seed/profile-horace-he.txt, item by item.

The page runs footnote numbers together ("¹³¹¹" for 1, 3 and 11); ``decode_notes`` reads them back
as the only split into distinct numbers of the page's source list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_NOTES_AT_END = re.compile(f"([{SUPERSCRIPTS}]+)$")
_DATE = re.compile(r"^((?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (?:\d{1,2}, )?\d{4}|\d{4})")


def decode_notes(text: str, highest: int) -> tuple[int, ...]:
    """The footnote numbers in a run of superscripts: the one split into distinct numbers 1..highest."""
    digits = text.translate(str.maketrans(SUPERSCRIPTS, "0123456789"))

    def splits(rest: str) -> list[list[int]]:
        if not rest:
            return [[]]
        out = []
        for size in (1, 2):
            head = rest[:size]
            if len(head) == size and not head.startswith("0") and 1 <= int(head) <= highest:
                out += [[int(head), *tail] for tail in splits(rest[size:])]
        return out

    found = [s for s in splits(digits) if len(set(s)) == len(s)]
    if len(found) != 1:
        raise ValueError(f"footnotes {text!r} can be read {len(found)} ways: {found}")
    return tuple(found[0])


@dataclass(frozen=True)
class Item:
    section: str
    text: str
    notes: tuple[int, ...]


def split_notes(line: str, highest: int) -> tuple[str, tuple[int, ...]]:
    match = _NOTES_AT_END.search(line)
    if not match:
        return line, ()
    return line[: match.start()], decode_notes(match.group(1), highest)


@dataclass(frozen=True)
class SeedPage:
    name: str
    headline: str
    items: tuple[Item, ...]

    def section(self, name: str) -> list[Item]:
        return [i for i in self.items if i.section == name]


SECTIONS = (
    "Research and writing",
    "Work and contributions",
    "Timeline",
    "Other documented roles",
    "Where they work",
    "Related people",
)


def read_seed_page(path: Path, highest: int = 11) -> SeedPage:
    lines = [line.rstrip() for line in path.read_text(encoding="utf-8").splitlines()]
    name, headline = lines[0], lines[2]
    section = "Summary"
    items: list[Item] = []
    for line in lines[3:]:
        if not line.strip():
            continue
        if line in SECTIONS:
            section = line
            continue
        text, notes = split_notes(line.strip(), highest)
        if section == "Timeline":
            text = re.sub(r"^\d+\.\s*", "", text)
        items.append(Item(section, text, notes))
    return SeedPage(name, headline, tuple(items))


def timeline_date(text: str) -> tuple[str, str]:
    """("Mar 2017", "Became a core …") from a timeline line, whose date runs into the text."""
    match = _DATE.match(text)
    if not match:
        raise ValueError(f"no date at the start of {text!r}")
    return match.group(1), text[match.end() :]


def related_name_and_reason(text: str) -> tuple[str, str]:
    """("Joe Spisak", "Also at PyTorch") from "• Joe SpisakAlso at PyTorch"."""
    text = text.lstrip("• ").strip()
    match = re.match(r"^(.*?[a-z])([A-Z].*)$", text)
    if not match:
        raise ValueError(f"cannot split {text!r}")
    return match.group(1), match.group(2)
