"""JSON views: the view models as a stable structure, described by ``profile.schema.json``."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from kgprofiles.profiles import Profile
from kgprofiles.related import Related

if TYPE_CHECKING:
    from kgprofiles.search import Results

SCHEMA_VERSION = 1
_OPTIONAL_SECTIONS = ("life", "awards", "education", "supervisions", "identifiers", "workplaces_as_of")


def profile_data(p: Profile) -> dict[str, Any]:
    data = asdict(p)
    for source in data["sources"]:
        if len(source["urls"]) <= 1:  # ``url`` says it; the list only for a source with several
            del source["urls"]
    # The version 2 sections appear only when the person has them: a profile without them reads as before.
    for key in _OPTIONAL_SECTIONS:
        if not data[key]:
            del data[key]
    for role in data["roles"]:
        if role["as_of"] is None:
            del role["as_of"]
    data["related"] = [related_data(r) for r in p.related]
    data["schema_version"] = SCHEMA_VERSION
    return data


def related_data(r: Related) -> dict[str, Any]:
    data = asdict(r)
    for c in data["components"]:
        c["points"] = c["count"] * c["weight"]
    return data


def dumps(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def profile(p: Profile) -> str:
    return dumps(profile_data(p))


def related(people: list[Related]) -> str:
    return dumps([related_data(r) for r in people])


def organization(o: object) -> str:
    return dumps(asdict(o))  # type: ignore[call-overload]


def topic(t: object) -> str:
    return dumps(asdict(t))  # type: ignore[call-overload]


def people(rows: tuple[object, ...]) -> str:
    return dumps([asdict(r) for r in rows])  # type: ignore[call-overload]


def search_data(results: Results) -> dict[str, Any]:
    """Search results as JSON: each hit's snippet as plain text and as parts, ``[text, matched]``
    (the caller marks the matched parts up itself; nothing here is HTML)."""
    return {
        "query": results.text,
        "total": results.total,
        "more": results.more,  # more than total matched (counted up to 1,000)
        "hits": [
            {
                "iri": hit.iri,
                "kind": hit.kind,
                "name": hit.name,
                "score": hit.score,
                "snippet": hit.snippet_text(),
                "snippet_parts": [[text, matched] for text, matched in hit.snippet],
            }
            for hit in results.hits
        ],
    }


def search(results: Results) -> str:
    return dumps(search_data(results))
