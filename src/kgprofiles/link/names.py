"""Comparing names across the two graphs: case, accents, punctuation and spacing do not count."""

from __future__ import annotations

from collections.abc import Iterable

from kgprofiles.names import normalize


def same_name(ours: Iterable[str | None], theirs: Iterable[str | None]) -> str | None:
    """The first of ``theirs`` that is the same name as one of ``ours``, if any."""
    mine = [n for n in ours if n]
    candidates = [n for n in theirs if n]
    exact = next((name for name in candidates if name in mine), None)
    if exact is not None:
        return exact
    wanted = {normalize(n) for n in mine}
    return next((name for name in candidates if normalize(name) in wanted), None)
