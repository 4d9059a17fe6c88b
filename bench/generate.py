"""Seeded generator of synthetic kgprofiles data: N people in the project's vocabulary.

Everything it makes is clearly synthetic: IRIs under ``http://example.org/kgprofiles-synthetic/``
(``person/p000123``), names like "Synthetic Person 123". The output is a directory of Turtle files laid
out like ``data/``: ``people/pNNNNNN.ttl`` (one file per person, with their profile, numbered source
list, sources, roles, contributions, the works they lead, timeline events and statements),
``organizations.ttl`` (about N/50 organisations) and ``topics.ttl`` (50 topics), plus a
``generator.json`` manifest (parameters and exact triple counts). It refuses to write into ``data/``.

Each person has about 110 triples. Works are shared: every person leads one work and contributes to one
or two works led by people close to them in index order, so related-people finds co-authors; events
are about organisations and works that others have events about too. Organisation sizes are mildly
skewed (a few large ones), topics are uniform. Real lives (version 2): everyone has a birth, a quarter an
education, a few a role known only at a point in time; every 25th person shares a prize with the next
two, every 7th (from the 10th) has the person five before as doctoral advisor, every 9th gives a
keynote with the next one. These are drawn from a stream of their own, so the rest is as before.

Deterministic for a seed: person ``i`` is drawn from its own generator seeded by (seed, i), so a
person's file does not depend on the order files are written in, and mostly not on N (only the
organisation count and the wrap-around of co-authors depend on N).

Usage: ``python bench/generate.py --people N --seed S --out DIR``
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

BASE = "http://example.org/kgprofiles-synthetic/"
KGP = "https://w3id.org/kgprofiles/ontology#"
XSD = "http://www.w3.org/2001/XMLSchema#"
TOPIC_COUNT = 50
PEOPLE_PER_ORG = 50
GENERATOR_VERSION = 2
PRIZE_EVERY, ADVISOR_EVERY, KEYNOTE_EVERY = 25, 7, 9
AWARD_COUNT = 5
BENCH_DIR = Path(__file__).resolve().parent
PROJECT_ROOT = BENCH_DIR.parent

PREFIXES = (
    f"@prefix kgp: <{KGP}> .\n"
    f"@prefix xsd: <{XSD}> .\n"
    f"@prefix person: <{BASE}person/> .\n"
    f"@prefix profile: <{BASE}profile/> .\n"
    f"@prefix claim: <{BASE}claim/> .\n"
    f"@prefix source: <{BASE}source/> .\n"
    f"@prefix work: <{BASE}work/> .\n"
    f"@prefix organization: <{BASE}organization/> .\n"
    f"@prefix topic: <{BASE}topic/> .\n"
    f"@prefix award: <{BASE}award/> .\n"
)

WORK_KINDS = (  # (class, weight, contribution kinds for the lead, for others)
    ("kgp:Paper", 60, ("kgp:CoFirstAuthor", "kgp:CoAuthor"), ("kgp:CoAuthor", "kgp:CoFirstAuthor")),
    ("kgp:Software", 25, ("kgp:Creator", "kgp:Maintainer"), ("kgp:Maintainer", "kgp:Contributor")),
    ("kgp:Essay", 10, ("kgp:Author",), ("kgp:CoAuthor", "kgp:Contributor")),
    ("kgp:ResearchPost", 5, ("kgp:CreditedAuthor",), ("kgp:CreditedAuthor", "kgp:Contributor")),
)
WORK_WEIGHTS = [k[1] for k in WORK_KINDS]
ROLE_TITLES = (
    "Research scientist",
    "Software engineer",
    "Staff engineer",
    "Engineering manager",
    "Maintainer",
    "Intern",
    "Postdoctoral researcher",
    "Technical lead",
)
SOURCE_KINDS = (  # (kind, site pattern, has a URL with this probability)
    ("homepage", "Personal site of {name}", 0.9),
    ("resume", "Personal site of {name}", 0.8),
    ("paper", "Synthetic Proceedings {year}", 0.9),
    ("organisation page", "{org}", 0.8),
    ("code repository", "Synthetic Code Host", 0.9),
    ("news post", "Synthetic News", 0.6),
)


@dataclass
class Block:
    """The statements about one subject, written as one Turtle block."""

    subject: str
    pairs: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)

    def add(self, predicate: str, *objects: str) -> None:
        self.pairs.append((predicate, objects))

    @property
    def triples(self) -> int:
        return sum(len(objects) for _, objects in self.pairs)

    def text(self) -> str:
        body = " ;\n    ".join(f"{p} {', '.join(o)}" for p, o in self.pairs)
        return f"{self.subject} {body} .\n"


def lit(text: str) -> str:
    """A Turtle string literal (the generator only makes text without quotes or backslashes)."""
    return '"' + text + '"'


def typed(value: str, datatype: str) -> str:
    return f'"{value}"^^xsd:{datatype}'


def date_at(rng: random.Random, year: int, precision: str | None = None) -> str:
    """A date in ``year`` as xsd:gYear, xsd:gYearMonth or xsd:date (chosen when not given)."""
    precision = precision or rng.choice(("gYear", "gYearMonth", "date"))
    if precision == "gYear":
        return typed(f"{year:04d}", "gYear")
    month = rng.randint(1, 12)
    if precision == "gYearMonth":
        return typed(f"{year:04d}-{month:02d}", "gYearMonth")
    return typed(f"{year:04d}-{month:02d}-{rng.randint(1, 28):02d}", "date")


class Namer:
    """IRIs (as Turtle prefixed names) and labels for people, organisations, topics and works."""

    def __init__(self, people: int) -> None:
        self.people = people
        self.orgs = max(1, round(people / PEOPLE_PER_ORG))
        self.width = max(6, len(str(people - 1)))
        self.org_width = max(5, len(str(self.orgs - 1)))

    def pid(self, i: int) -> str:
        return f"p{i:0{self.width}d}"

    def person(self, i: int) -> str:
        return f"person:{self.pid(i)}"

    def work(self, i: int) -> str:
        return f"work:w{i:0{self.width}d}"

    def org(self, k: int) -> str:
        return f"organization:o{k:0{self.org_width}d}"

    @staticmethod
    def topic(t: int) -> str:
        return f"topic:t{t:02d}"

    @staticmethod
    def org_name(k: int) -> str:
        return f"Synthetic Org {k}"

    @staticmethod
    def topic_name(t: int) -> str:
        return f"Synthetic Topic {t}"


def person_rng(seed: int, i: int) -> random.Random:
    return random.Random(seed * 1_000_003 + i)


def work_facts(seed: int, i: int) -> tuple[int, str]:
    """The kind index and year of the work led by person ``i`` (drawn from its own stream, so
    co-authors in other files can name it consistently)."""
    rng = random.Random(seed * 7_000_003 + i)
    kind = rng.choices(range(len(WORK_KINDS)), WORK_WEIGHTS)[0]
    return kind, str(rng.randint(2005, 2025))


def pick_org(rng: random.Random, orgs: int) -> int:
    """A mildly skewed choice: low-numbered organisations are larger."""
    return min(orgs - 1, int(orgs * rng.random() ** 1.5))


def person_file(namer: Namer, seed: int, i: int) -> tuple[str, int]:
    """The Turtle text of person ``i``'s file and its number of triples."""
    rng = person_rng(seed, i)
    n = namer.people
    pid = namer.pid(i)
    me = namer.person(i)
    name = f"Synthetic Person {i}"
    blocks: list[Block] = []

    # Topics (the first listed is the firstTopic) and organisations.
    topics = rng.sample(range(TOPIC_COUNT), 2)
    orgs: list[int] = []
    for _ in range(rng.choice((2, 2, 2, 3))):
        k = pick_org(rng, namer.orgs)
        if k not in orgs:
            orgs.append(k)

    # Sources, numbered 1..k in the profile's list.
    source_count = rng.choice((3, 3, 4, 4))
    sources = [f"source:{pid}-s{j}" for j in range(1, source_count + 1)]
    for j, src in enumerate(sources, start=1):
        kind, site, url_p = SOURCE_KINDS[(j - 1) % len(SOURCE_KINDS)]
        b = Block(src)
        b.add("a", "kgp:Source")
        b.add("kgp:title", lit(f"{kind.capitalize()} {j} about {name}"))
        if rng.random() < 0.6:
            b.add("kgp:site", lit(site.format(name=name, year=2000 + (i + j) % 26, org=namer.org_name(orgs[0]))))
        b.add("kgp:sourceKind", lit(kind))
        if rng.random() < url_p:
            b.add("kgp:url", f"<https://example.org/kgprofiles-synthetic/pages/{pid}/{j}>")
        blocks.append(b)

    def cite(count: int = 1) -> list[str]:
        return rng.sample(sources, min(count, len(sources)))

    # The person.
    b = Block(me)
    b.add("a", "kgp:Person")
    b.add("kgp:name", lit(name))
    if rng.random() < 0.7:
        b.add("kgp:headline", lit(f"{namer.topic_name(topics[0])} and {namer.topic_name(topics[1])}"))
    b.add("kgp:topic", *(namer.topic(t) for t in topics))
    b.add("kgp:firstTopic", namer.topic(topics[0]))
    b.add("kgp:source", sources[0])
    blocks.insert(0, b)

    # Roles: the first is current, later ones former, current or not confirmed as current.
    for r, k in enumerate(orgs, start=1):
        b = Block(f"claim:{pid}-role-{r}")
        b.add("a", "kgp:Role")
        b.add("kgp:holder", me)
        b.add("kgp:organization", namer.org(k))
        if rng.random() < 0.7:
            b.add("kgp:title", lit(rng.choice(ROLE_TITLES)))
        status = "kgp:Current" if r == 1 else rng.choice(("kgp:Former", "kgp:Former", "kgp:NotConfirmedCurrent"))
        b.add("kgp:status", status)
        if rng.random() < 0.1:
            b.add("kgp:startUnknown", "true")
        else:
            start = rng.randint(1995, 2023)
            b.add("kgp:start", date_at(rng, start))
            if status == "kgp:Former":
                b.add("kgp:end", date_at(rng, rng.randint(start + 1, 2025)))
        b.add("kgp:source", *cite())
        blocks.append(b)

    # Works: the one this person leads, and one or two led by people near them.
    kind, year = work_facts(seed, i)
    cls, _, lead_kinds, _ = WORK_KINDS[kind]
    lead = namer.work(i)
    b = Block(lead)
    b.add("a", cls)
    b.add("kgp:title", lit(f"Synthetic Work {i}: notes on {namer.topic_name(topics[0])}"))
    b.add("kgp:date", date_at(rng, int(year)))
    blocks.append(b)
    others = sorted({(i - rng.randint(1, 20)) % n for _ in range(rng.choice((1, 1, 1, 2)))} - {i})
    contributed = [(i, rng.choice(lead_kinds))]
    for j in others:
        contributed.append((j, rng.choice(WORK_KINDS[work_facts(seed, j)[0]][3])))
    for c, (j, contribution_kind) in enumerate(contributed, start=1):
        b = Block(f"claim:{pid}-contrib-{c}")
        b.add("a", "kgp:Contribution")
        b.add("kgp:contributor", me)
        b.add("kgp:work", namer.work(j))
        b.add("kgp:contributionKind", contribution_kind)
        if c == 1:
            b.add("kgp:rank", "1")
            b.add("kgp:description", lit(f"{name} leads Synthetic Work {i}."))
        b.add("kgp:source", *cite())
        blocks.append(b)

    # Timeline: joining the first organisation, and the led or a co-authored work.
    events = [
        (namer.org(orgs[0]), f"Joined {namer.org_name(orgs[0])}.", rng.randint(1995, 2024)),
        (namer.work(contributed[-1][0]), f"Published Synthetic Work {contributed[-1][0]}.", rng.randint(2005, 2025)),
    ]
    if rng.random() < 0.7:
        events.pop(0)
    for e, (about, title, when) in enumerate(events, start=1):
        b = Block(f"claim:{pid}-event-{e}")
        b.add("a", "kgp:Event")
        b.add("kgp:subject", me)
        b.add("kgp:date", date_at(rng, when))
        b.add("kgp:title", lit(title))
        b.add("kgp:about", about)
        b.add("kgp:source", *cite())
        blocks.append(b)

    # Statements: one or two summary paragraphs and one research-and-writing paragraph.
    statements: list[tuple[str, str, int]] = []
    for rank in range(1, rng.choice((1, 1, 1, 2)) + 1):
        statements.append(("summary", f"claim:{pid}-summary-{rank}", rank))
    statements.append(("writing", f"claim:{pid}-writing-1", 1))
    for section, iri, rank in statements:
        b = Block(iri)
        b.add("a", "kgp:Statement")
        b.add("kgp:subject", me)
        b.add("kgp:rank", str(rank))
        b.add(
            "kgp:text",
            lit(f"{name} works on {namer.topic_name(topics[rank % 2])}; paragraph {rank} of the {section} section."),
        )
        if section == "writing":
            b.add("kgp:about", lead)
        b.add("kgp:source", *cite(2 if section == "summary" else 1))
        blocks.append(b)

    blocks.extend(lives_blocks(namer, seed, i, sources[0]))
    sources = sources + shared_sources(namer, i)
    source_count = len(sources)

    # The profile, its numbered source list (every source, so every claim's source is listed).
    b = Block(f"profile:{pid}")
    b.add("a", "kgp:Profile")
    b.add("kgp:profileOf", me)
    for section in ("summary", "writing"):
        b.add(f"kgp:{section}", *(iri for s, iri, _ in statements if s == section))
    b.add("kgp:featuredContribution", f"claim:{pid}-contrib-1")
    b.add("kgp:citation", *(f"profile:{pid}-fn-{j}" for j in range(1, source_count + 1)))
    blocks.insert(1, b)
    for j, src in enumerate(sources, start=1):
        b = Block(f"profile:{pid}-fn-{j}")
        b.add("a", "kgp:Citation")
        b.add("kgp:number", str(j))
        b.add("kgp:cites", src)
        blocks.insert(1 + j, b)

    triples = sum(blk.triples for blk in blocks)
    text = f"# Synthetic profile {i} (kgprofiles bench generator, seed {seed}); not a real person.\n"
    text += PREFIXES + "\n" + "\n".join(blk.text() for blk in blocks)
    return text, triples


def is_recipient(namer: Namer, i: int) -> bool:
    """Whether person ``i`` shares a prize (with the two after the head of their group)."""
    head = i - i % PRIZE_EVERY
    return i % PRIZE_EVERY < 3 and head + 2 < namer.people


def in_genealogy(namer: Namer, i: int) -> bool:
    """Whether person ``i`` is a doctoral student (of ``i - 5``) or an advisor (of ``i + 5``)."""
    student = i % ADVISOR_EVERY == 3 and i >= 10
    advisor = (i + 5) % ADVISOR_EVERY == 3 and i + 5 >= 10 and i + 5 < namer.people
    return student or advisor


def gives_keynote(namer: Namer, i: int) -> bool:
    return i % KEYNOTE_EVERY == 4 and i + 1 < namer.people


def shared_sources(namer: Namer, i: int) -> list[str]:
    """The shared sources person ``i``'s claims cite, listed in their profile too."""
    found = []
    if is_recipient(namer, i):
        found.append("source:synthetic-prize-list")
    if in_genealogy(namer, i):
        found.append("source:synthetic-genealogy")
    if gives_keynote(namer, i) or (i >= 1 and gives_keynote(namer, i - 1)):
        found.append("source:synthetic-programme")
    return found


def lives_blocks(namer: Namer, seed: int, i: int, own_source: str) -> list[Block]:
    """Birth, education, a point in time, a shared prize, a doctoral advisor, a shared keynote."""
    rng = random.Random(seed * 13_000_003 + i)
    pid, me = namer.pid(i), namer.person(i)
    blocks = []
    b = Block(f"claim:{pid}-birth")
    b.add("a", "kgp:Birth")
    b.add("kgp:subject", me)
    b.add("kgp:date", date_at(rng, rng.randint(1930, 1995)))
    b.add("kgp:source", own_source)
    blocks.append(b)
    if rng.random() < 0.25:
        start = rng.randint(1950, 2015)
        b = Block(f"claim:{pid}-education")
        b.add("a", "kgp:Education")
        b.add("kgp:holder", me)
        b.add("kgp:organization", namer.org(pick_org(rng, namer.orgs)))
        b.add("kgp:degree", lit(rng.choice(("PhD", "MSc", "BSc"))))
        b.add("kgp:status", "kgp:Former")
        b.add("kgp:start", typed(f"{start:04d}", "gYear"))
        b.add("kgp:end", typed(f"{start + rng.randint(1, 6):04d}", "gYear"))
        b.add("kgp:source", own_source)
        blocks.append(b)
    if rng.random() < 0.05:
        b = Block(f"claim:{pid}-as-of")
        b.add("a", "kgp:Role")
        b.add("kgp:holder", me)
        b.add("kgp:organization", namer.org(pick_org(rng, namer.orgs)))
        b.add("kgp:status", "kgp:NotConfirmedCurrent")
        b.add("kgp:asOf", date_at(rng, rng.randint(1990, 2024)))
        b.add("kgp:source", own_source)
        blocks.append(b)
    if i % PRIZE_EVERY == 0 and is_recipient(namer, i):
        b = Block(f"claim:{pid}-prize")
        b.add("a", "kgp:AwardReceipt")
        b.add("kgp:recipient", me, namer.person(i + 1), namer.person(i + 2))
        b.add("kgp:award", f"award:a{(i // PRIZE_EVERY) % AWARD_COUNT}")
        b.add("kgp:date", typed(f"{rng.randint(1980, 2024):04d}", "gYear"))
        b.add("kgp:source", "source:synthetic-prize-list")
        blocks.append(b)
    if i % ADVISOR_EVERY == 3 and i >= 10:
        b = Block(f"claim:{pid}-advisor")
        b.add("a", "kgp:Supervision")
        b.add("kgp:advisor", namer.person(i - 5))
        b.add("kgp:student", me)
        b.add("kgp:source", "source:synthetic-genealogy")
        blocks.append(b)
    if gives_keynote(namer, i):
        b = Block(f"claim:{pid}-keynote")
        b.add("a", "kgp:Event")
        b.add("kgp:subject", me)
        b.add("kgp:participant", namer.person(i + 1))
        b.add("kgp:date", date_at(rng, rng.randint(2000, 2025)))
        b.add("kgp:title", lit(f"Gave a keynote with Synthetic Person {i + 1}."))
        b.add("kgp:source", "source:synthetic-programme")
        blocks.append(b)
    return blocks


def organizations_file(namer: Namer) -> tuple[str, int]:
    parts = ["# Synthetic organisations, awards and shared sources (kgprofiles bench generator).\n", PREFIXES, "\n"]
    for k in range(namer.orgs):
        parts.append(f"{namer.org(k)} a kgp:Organization ;\n    kgp:name {lit(namer.org_name(k))} .\n")
    for a in range(AWARD_COUNT):
        parts.append(f"award:a{a} a kgp:Award ;\n    kgp:name {lit(f'Synthetic Prize {a}')} ;\n")
        parts.append(f"    kgp:conferredBy {namer.org(0)} .\n")
    shared = (("prize-list", "list of prize winners"), ("genealogy", "academic genealogy"), ("programme", "programme"))
    for slug, title in shared:
        parts.append(f"source:synthetic-{slug} a kgp:Source ;\n    kgp:title {lit('Synthetic ' + title)} ;\n")
        parts.append(f"    kgp:url <https://example.org/kgprofiles-synthetic/{slug}> .\n")
    return "".join(parts), 2 * namer.orgs + 3 * AWARD_COUNT + 3 * len(shared)


def topics_file() -> tuple[str, int]:
    parts = ["# Synthetic topics (kgprofiles bench generator).\n", PREFIXES, "\n"]
    for t in range(TOPIC_COUNT):
        parts.append(f"{Namer.topic(t)} a kgp:Topic ;\n    kgp:name {lit(Namer.topic_name(t))} .\n")
    return "".join(parts), 2 * TOPIC_COUNT


MANIFEST = "generator.json"


def _check_out(out: Path) -> None:
    """Refuse ``data/`` (and anything inside it) and non-empty directories this generator did not make."""
    resolved = out.resolve()
    data = (PROJECT_ROOT / "data").resolve()
    if resolved == data or data in resolved.parents:
        raise SystemExit(f"refusing to write synthetic data into {data}: give --out under bench/out/")
    if resolved.exists() and any(resolved.iterdir()) and not (resolved / MANIFEST).exists():
        raise SystemExit(f"{resolved} is not empty and was not made by this generator: choose another --out")


def generate(people: int, seed: int, out: Path, quiet: bool = True) -> dict[str, object]:
    """Write the synthetic data set to ``out``; return the manifest (also written as generator.json)."""
    if people < 1:
        raise SystemExit("--people must be at least 1")
    _check_out(out)
    started = time.perf_counter()
    if (out / "people").exists():
        shutil.rmtree(out / "people")
    (out / MANIFEST).unlink(missing_ok=True)
    (out / "people").mkdir(parents=True)
    namer = Namer(people)
    person_triples = 0
    for i in range(people):
        text, count = person_file(namer, seed, i)
        (out / "people" / f"{namer.pid(i)}.ttl").write_text(text, encoding="utf-8")
        person_triples += count
        if not quiet and i and i % 10_000 == 0:
            print(f"  {i} people written", file=sys.stderr)
    org_text, org_triples = organizations_file(namer)
    (out / "organizations.ttl").write_text(org_text, encoding="utf-8")
    topic_text, topic_triples = topics_file()
    (out / "topics.ttl").write_text(topic_text, encoding="utf-8")
    manifest: dict[str, object] = {
        "generator_version": GENERATOR_VERSION,
        "people": people,
        "seed": seed,
        "organizations": namer.orgs,
        "topics": TOPIC_COUNT,
        "triples": person_triples + org_triples + topic_triples,
        "person_triples": person_triples,
        "triples_per_person": round(person_triples / people, 2),
        "seconds": round(time.perf_counter() - started, 2),
        "base": BASE,
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def read_manifest(out: Path) -> dict[str, object] | None:
    try:
        return json.loads((out / MANIFEST).read_text(encoding="utf-8"))  # type: ignore[no-any-return]
    except (OSError, ValueError):
        return None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--people", type=int, required=True, help="how many people (N)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--out", type=Path, help="output directory (default bench/out/people-N-seed-S)")
    args = parser.parse_args(argv)
    out = args.out or BENCH_DIR / "out" / f"people-{args.people}-seed-{args.seed}"
    manifest = generate(args.people, args.seed, out, quiet=False)
    print(
        f"{manifest['people']} people, {manifest['organizations']} organisations, {manifest['topics']} topics, "
        f"{manifest['triples']} triples ({manifest['triples_per_person']} a person) in {manifest['seconds']}s → {out}"
    )


if __name__ == "__main__":
    main()
