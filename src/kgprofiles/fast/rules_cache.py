"""The compiled rules of an ontology, kept on disk between processes.

Compiling runs owlrl over the ontology alone (about half a second for the project's ontology), and
every ``build`` and ``load`` needs the plan: it is written once, as JSON, to
``$KGPROFILES_CACHE_DIR/rules/`` (default ``$XDG_CACHE_HOME/kgprofiles``, else
``~/.cache/kgprofiles``), under a name made of the ontology's content and of what the plan is made
by (this package's compiler and owlrl's version), so an edited ontology or a new version compiles
afresh. A file that is unreadable, truncated or of another shape is ignored and written again;
a cache directory that cannot be written only costs the compilation. Files are written whole (a
temporary file renamed into place), so two processes never read half a plan.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import owlrl

from kgprofiles.fast.disk_cache import cache_dir, log, made_by, read_json, write_json
from kgprofiles.store import rdf_syntax

if TYPE_CHECKING:
    import pyoxigraph as ox

    from kgprofiles.fast.rules import RulesPlan

__all__ = ["cache_dir", "plan_path", "read_plan", "write_plan"]

_FORMAT = 1
_MADE_BY = ("rules.py", "../infer.py")  # the compiler and the closure it compiles
_WHAT = "compiled rules cache"


def plan_path(ontology_key: str) -> Path:
    """The file of the plan for an ontology whose content digest is ``ontology_key``."""
    made = made_by(str(_FORMAT), owlrl.__version__, sources=_MADE_BY)
    return cache_dir() / "rules" / f"{ontology_key[:32]}-{made[:16]}.json"


def read_plan(path: Path) -> RulesPlan | None:
    """The plan stored at ``path``, or None when there is none or it cannot be read whole."""
    from kgprofiles.fast.rules import RulesPlan

    raw = read_json(path, _WHAT)
    if not isinstance(raw, dict):
        return None
    try:
        if raw.get("format") != _FORMAT:
            return None
        return RulesPlan(
            ontology_new=_triples(raw["ontology_new"]),
            ontology_errors=tuple(_strings(raw["ontology_errors"])),
            ontology_triples=_triples(raw["ontology_triples"]),
            subproperties=_relation(raw["subproperties"]),
            inverses=_relation(raw["inverses"]),
            domains=_relation(raw["domains"]),
            ranges=_relation(raw["ranges"]),
            superclasses=_relation(raw["superclasses"]),
            chains=[(str(p), tuple(_strings(elements))) for p, elements in raw["chains"]],
            disjoint={(str(a), str(b)) for a, b in raw["disjoint"]},
            unsupported=_strings(raw["unsupported"]),
        )
    except (ValueError, TypeError, KeyError, AttributeError, SyntaxError) as exc:
        log.warning("%s: ignoring %s (%s)", _WHAT, path, exc)
        return None


def write_plan(path: Path, plan: RulesPlan) -> None:
    """Store ``plan`` at ``path`` whole, or not at all (a cache that cannot be written is only slower)."""
    data = {
        "format": _FORMAT,
        "ontology_new": _ntriples(plan.ontology_new),
        "ontology_errors": list(plan.ontology_errors),
        "ontology_triples": _ntriples(plan.ontology_triples),
        "subproperties": _sorted_relation(plan.subproperties),
        "inverses": _sorted_relation(plan.inverses),
        "domains": _sorted_relation(plan.domains),
        "ranges": _sorted_relation(plan.ranges),
        "superclasses": _sorted_relation(plan.superclasses),
        "chains": [[p, list(elements)] for p, elements in plan.chains],
        "disjoint": sorted([a, b] for a, b in plan.disjoint),
        "unsupported": list(plan.unsupported),
    }
    write_json(path, data, _WHAT)


def _ntriples(triples: list[ox.Triple]) -> str:
    return "".join(f"{t} .\n" for t in triples)


def _triples(text: Any) -> list[ox.Triple]:
    if not isinstance(text, str):
        raise TypeError("triples are not N-Triples text")
    return [q.triple for q in rdf_syntax.parse(text.encode("utf-8"), format=rdf_syntax.RdfFormat.N_TRIPLES)]


def _strings(values: Any) -> list[str]:
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise TypeError("not a list of strings")
    return values


def _relation(raw: Any) -> dict[str, set[str]]:
    if not isinstance(raw, dict):
        raise TypeError("not a mapping")
    return {str(k): set(_strings(v)) for k, v in raw.items()}


def _sorted_relation(relation: dict[str, set[str]]) -> dict[str, list[str]]:
    return {k: sorted(v) for k, v in sorted(relation.items())}
