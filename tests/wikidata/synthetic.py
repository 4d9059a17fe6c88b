"""Small, clearly synthetic Wikidata items for the cases the real JSON does not cover: a redirect, a
wrong type, namesakes for ranking, and one fully dated and referenced person for `link diff` and
`import`. They are written in the ``wbgetentities`` JSON shape, so the same builder turns them into
dump-shaped Turtle as the real entities.

Their ids are far above any real Wikidata id (Q999000000xx), their labels say "Fixture" and their
descriptions say "synthetic test item", so nobody can take them for real data.
"""

from __future__ import annotations

from collections.abc import Mapping

GREGORIAN = "http://www.wikidata.org/entity/Q1985727"

# Real class ids used as types (values only; no triples are made for them).
HUMAN = "Q5"
ORGANIZATION = "Q43229"
BUSINESS = "Q4830453"
ALBUM = "Q482994"
SCHOLARLY_ARTICLE = "Q13442814"
SOFTWARE = "Q7397"

REDIRECT = "Q99900000001"  # redirected to Q131261 (Oliver Kahn, real)
WRONG_TYPE = "Q99900000002"  # "Casey Fixture", an organisation
NAMESAKE = "Q99900000003"  # "Douglas Adams", a synthetic namesake of Q42
NOT_A_PERSON = "Q99900000004"  # "Douglas Adams", an album
WIDGETS = "Q99900000005"  # "Fixture Widgets Ltd", a business
ROBIN = "Q99900000006"  # "Robin Fixture", the fully dated person
JORDAN = "Q99900000007"  # "Jordan Fixture", a person with nothing but a name in common
NAMESAKE_EMPLOYER = "Q99900000020"
INSTITUTE = "Q99900000021"
CHIEF_SCIENTIST = "Q99900000022"
FIXTURE_STUDIES = "Q99900000023"
PAPER = "Q99900000024"
TOOLKIT = "Q99900000025"
ANNUAL_REPORT = "Q99900000030"
JOURNAL = "Q99900000031"
SAM = "Q99900000008"  # "Sam Fixture", a prize winner with a birth, an education, an advisor and an ORCID iD
FIXTURE_CITY = "Q99900000040"
FIXTURE_PRIZE = "Q99900000041"
FIXTURE_UNIVERSITY = "Q99900000042"
FIXTURE_DOCTORATE = "Q99900000043"
CITY = "Q515"  # real class ids, as values only
AWARD = "Q618779"
UNIVERSITY = "Q3918"

REDIRECTS = {REDIRECT: "Q131261"}


def _item_value(qid: str) -> dict:
    return {"value": {"entity-type": "item", "id": qid, "numeric-id": int(qid[1:])}, "type": "wikibase-entityid"}


def _time_value(time: str, precision: int) -> dict:
    return {
        "value": {
            "time": time,
            "timezone": 0,
            "before": 0,
            "after": 0,
            "precision": precision,
            "calendarmodel": GREGORIAN,
        },
        "type": "time",
    }


def _snak(prop: str, datavalue: dict, datatype: str) -> dict:
    return {"snaktype": "value", "property": prop, "datatype": datatype, "datavalue": datavalue}


def item_snak(prop: str, qid: str) -> dict:
    return _snak(prop, _item_value(qid), "wikibase-item")


def time_snak(prop: str, time: str, precision: int) -> dict:
    return _snak(prop, _time_value(time, precision), "time")


def url_snak(prop: str, url: str) -> dict:
    return _snak(prop, {"value": url, "type": "string"}, "url")


def string_snak(prop: str, text: str) -> dict:
    """An external identifier's value, as wbgetentities writes it."""
    return _snak(prop, {"value": text, "type": "string"}, "external-id")


def reference(ref_hash: str, *snaks: dict) -> dict:
    grouped: dict[str, list[dict]] = {}
    for snak in snaks:
        grouped.setdefault(snak["property"], []).append(snak)
    return {"hash": ref_hash, "snaks": grouped, "snaks-order": list(grouped)}


def statement(
    subject: str,
    number: int,
    mainsnak: dict,
    qualifiers: list[dict] = (),
    references: list[dict] = (),  # type: ignore[assignment]
) -> dict:
    grouped: dict[str, list[dict]] = {}
    for snak in qualifiers:
        grouped.setdefault(snak["property"], []).append(snak)
    out = {
        "id": f"{subject}$00000000-0000-4000-8000-{number:012d}",
        "mainsnak": mainsnak,
        "type": "statement",
        "rank": "normal",
        "references": list(references),
    }
    if grouped:
        out["qualifiers"] = grouped
        out["qualifiers-order"] = list(grouped)
    return out


def item(
    qid: str,
    label: str,
    description: str,
    claims: Mapping[str, list[dict]] | None = None,
    aliases: tuple[str, ...] = (),
) -> dict:
    return {
        "id": qid,
        "type": "item",
        "labels": {"en": {"language": "en", "value": label}},
        "descriptions": {"en": {"language": "en", "value": f"synthetic test item: {description}"}},
        "aliases": {"en": [{"language": "en", "value": a} for a in aliases]} if aliases else {},
        "claims": dict(claims or {}),
        "sitelinks": {},
    }


def _typed(qid: str, number: int, type_qid: str, **more: list[dict]) -> dict[str, list[dict]]:
    claims = {"P31": [statement(qid, number, item_snak("P31", type_qid))]}
    claims.update(more)
    return claims


# References of Robin Fixture's statements: one Source each in an imported draft.
REF_CV = reference(
    "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1",
    item_snak("P248", ANNUAL_REPORT),
    url_snak("P854", "https://example.org/robin-fixture/cv"),
    time_snak("P813", "+2024-05-01T00:00:00Z", 11),
)
REF_PEOPLE_PAGE = reference(
    "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2",
    url_snak("P854", "https://example.org/fixture-institute/people"),
    time_snak("P813", "+2024-05-02T00:00:00Z", 11),
)
REF_JOURNAL = reference("c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3", item_snak("P248", JOURNAL))
# References of Sam Fixture's statements.
REF_PRIZE_LIST = reference(
    "d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4",
    url_snak("P854", "https://example.org/fixture-academy/prize-winners"),
    time_snak("P813", "+2024-06-01T00:00:00Z", 11),
)
REF_THESIS = reference(
    "e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5", url_snak("P854", "https://example.org/sam-fixture/thesis")
)
REF_ORCID = reference(
    "f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6", url_snak("P854", "https://example.org/sam-fixture/home")
)


def sam_claims() -> dict[str, list[dict]]:
    """Sam Fixture: born on a day in Fixture City, educated at Fixture University (a doctorate, with
    dates), advised by Robin Fixture, awarded the Fixture Prize in a year, with an ORCID iD (ORCID's
    own documented example iD, whose checksum holds)."""
    return _typed(
        SAM,
        1,
        HUMAN,
        P569=[statement(SAM, 2, time_snak("P569", "+1970-02-03T00:00:00Z", 11), [], [REF_THESIS])],
        P19=[statement(SAM, 3, item_snak("P19", FIXTURE_CITY), [], [REF_THESIS])],
        P69=[
            statement(
                SAM,
                4,
                item_snak("P69", FIXTURE_UNIVERSITY),
                [
                    item_snak("P512", FIXTURE_DOCTORATE),
                    time_snak("P580", "+1992-00-00T00:00:00Z", 9),
                    time_snak("P582", "+1996-00-00T00:00:00Z", 9),
                ],
                [REF_THESIS],
            )
        ],
        P184=[statement(SAM, 5, item_snak("P184", ROBIN), [], [REF_THESIS])],
        P166=[
            statement(
                SAM,
                6,
                item_snak("P166", FIXTURE_PRIZE),
                [time_snak("P585", "+2010-00-00T00:00:00Z", 9)],
                [REF_PRIZE_LIST],
            )
        ],
        P496=[statement(SAM, 7, string_snak("P496", "0000-0002-1825-0097"), [], [REF_ORCID])],
    )


def synthetic_items() -> list[dict]:
    """Every synthetic item of the fixture."""
    robin_claims = _typed(
        ROBIN,
        1,
        HUMAN,
        P108=[
            statement(
                ROBIN,
                2,
                item_snak("P108", WIDGETS),
                [time_snak("P580", "+2019-06-00T00:00:00Z", 10), time_snak("P582", "+2021-00-00T00:00:00Z", 9)],
                [REF_CV],
            ),
            statement(
                ROBIN,
                3,
                item_snak("P108", INSTITUTE),
                [time_snak("P580", "+2021-09-01T00:00:00Z", 11)],
                [REF_PEOPLE_PAGE],
            ),
        ],
        P39=[
            statement(
                ROBIN,
                4,
                item_snak("P39", CHIEF_SCIENTIST),
                [item_snak("P642", INSTITUTE), time_snak("P580", "+2022-00-00T00:00:00Z", 9)],
                [REF_PEOPLE_PAGE],
            )
        ],
        P101=[statement(ROBIN, 5, item_snak("P101", FIXTURE_STUDIES), [], [REF_CV])],
        P800=[statement(ROBIN, 6, item_snak("P800", TOOLKIT))],
    )
    return [
        item(
            WRONG_TYPE,
            "Casey Fixture",
            "an organisation that shares a person's name",
            _typed(WRONG_TYPE, 1, ORGANIZATION),
        ),
        item(
            NAMESAKE,
            "Douglas Adams",
            "a namesake of Q42 for ranking",
            _typed(NAMESAKE, 1, HUMAN, P108=[statement(NAMESAKE, 2, item_snak("P108", NAMESAKE_EMPLOYER))]),
        ),
        item(NOT_A_PERSON, "Douglas Adams", "an album named like a person", _typed(NOT_A_PERSON, 1, ALBUM)),
        item(WIDGETS, "Fixture Widgets Ltd", "a company", _typed(WIDGETS, 1, BUSINESS), aliases=("Fixture Widgets",)),
        item(ROBIN, "Robin Fixture", "a researcher for diff and import tests", robin_claims, aliases=("R. Fixture",)),
        item(JORDAN, "Jordan Fixture", "a person with nothing but a name in common", _typed(JORDAN, 1, HUMAN)),
        item(NAMESAKE_EMPLOYER, "Fixture Namesake Employer", "an employer", _typed(NAMESAKE_EMPLOYER, 1, BUSINESS)),
        item(INSTITUTE, "Fixture Institute", "a research institute", _typed(INSTITUTE, 1, ORGANIZATION)),
        item(CHIEF_SCIENTIST, "Fixture Chief Scientist", "a position"),
        item(FIXTURE_STUDIES, "Fixture Studies", "a field of work"),
        item(
            PAPER,
            "A Fixture Paper",
            "a paper",
            _typed(
                PAPER,
                1,
                SCHOLARLY_ARTICLE,
                P50=[statement(PAPER, 2, item_snak("P50", ROBIN), [], [REF_JOURNAL])],
                P577=[statement(PAPER, 3, time_snak("P577", "+2020-03-15T00:00:00Z", 11))],
            ),
        ),
        item(TOOLKIT, "Fixture Toolkit", "software", _typed(TOOLKIT, 1, SOFTWARE)),
        item(ANNUAL_REPORT, "Fixture Annual Report", "a report cited as a reference"),
        item(SAM, "Sam Fixture", "a prize winner for import tests", sam_claims()),
        item(FIXTURE_CITY, "Fixture City", "a city", _typed(FIXTURE_CITY, 1, CITY)),
        item(FIXTURE_PRIZE, "Fixture Prize", "an award", _typed(FIXTURE_PRIZE, 1, AWARD)),
        item(FIXTURE_UNIVERSITY, "Fixture University", "a university", _typed(FIXTURE_UNIVERSITY, 1, UNIVERSITY)),
        item(FIXTURE_DOCTORATE, "Fixture Doctorate", "an academic degree"),
        item(JOURNAL, "Fixture Journal", "a journal cited as a reference"),
    ]
