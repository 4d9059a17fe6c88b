"""OWL RL's inconsistencies as the error a user reads.

The fast inference reports them in owlrl's words (``fast/linear.py``: the same text as owlrl, so
the two stay comparable); here each gets the file and line of the statements it is about, where
they can be found, and the error a hint for its kind: an ill-typed literal (a lexical form its
datatype does not allow, such as ``"]]>"^^rdf:XMLLiteral``) or an individual of disjoint classes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

import pyoxigraph as ox

from kgprofiles.config import SearchPath
from kgprofiles.errors import ValidationFailed
from kgprofiles.fast.linear import ill_typed
from kgprofiles.fast.literals import XSD_STRING, rdflib_literal
from kgprofiles.ingest import SourceFile, subject_key
from kgprofiles.queries import get_query
from kgprofiles.store.base import Store
from kgprofiles.terms import to_rdflib
from kgprofiles.validate import ValidationResult, compact, locate_subjects
from kgprofiles.vocab import OWL_NS

_LITERAL = re.compile(
    r"Lexical value of the literal '(?P<value>.*)' does not match its datatype \((?P<datatype>[^()]*)\)", re.S
)
_DISJOINT = re.compile(r"Disjoint classes \S+ and \S+ have a common individual (?P<node>.+)", re.S)

#: OWL's terms through which data can be inconsistent in OWL RL other than by an ill-typed literal
#: (owlrl's eq-diff1–3, prp-irp, prp-asyp, prp-pdw, prp-adp, cls-nothing2, cls-com, cls-maxc1,
#: cls-maxqc1–2, cax-dw, cax-adc). Where neither the ontology nor the data uses one, only a
#: literal can make the data inconsistent, and ``validate`` checks literals without the inference.
AXIOMS = frozenset(
    OWL_NS + name
    for name in (
        "disjointWith",
        "AllDisjointClasses",
        "propertyDisjointWith",
        "AllDisjointProperties",
        "AsymmetricProperty",
        "IrreflexiveProperty",
        "differentFrom",
        "AllDifferent",
        "Nothing",
        "complementOf",
        "maxCardinality",
        "maxQualifiedCardinality",
    )
)
#: What a violation OWL RL finds adds to its message, in ``validate``.
_REFUSED = ": OWL RL finds the data inconsistent (build and load refuse it)"
_LITERAL_HINT = 'write each literal as its datatype allows (xsd:date "2019-06-01"), or give it another datatype'
_DISJOINT_HINT = "fix the data so no individual belongs to disjoint classes or breaks a property axiom"


def inconsistent(
    messages: Sequence[str], files: Sequence[SourceFile], queries_dir: Path | SearchPath, store: Store | None = None
) -> ValidationFailed:
    """The error for OWL RL's ``messages`` about the data of ``files``: each message after the
    place it is about (``file:line:``) where one is found, in the files' own triples or, for a
    build (whose files keep none in memory), in ``store``."""
    located = locate_subjects(files)
    lines, hints = [], []
    for message in messages:
        literal, disjoint = _LITERAL.fullmatch(message), _DISJOINT.fullmatch(message)
        if literal is not None:
            term = ox.Literal(literal["value"], datatype=ox.NamedNode(literal["datatype"]))
            subjects = _subjects_stating(term, files, queries_dir, store)
            hints.append(_LITERAL_HINT)
        elif disjoint is not None:
            subjects = _node_keys(disjoint["node"])
            hints.append(_DISJOINT_HINT)
        else:
            subjects = []
        places = [located[s] for s in subjects if s in located]
        where = "".join(f"{file}:{line}: " if line else f"{file}: " for file, line in places[:1])
        lines.append(f"{where}{message}")
    return ValidationFailed(
        "OWL RL inference found the data inconsistent with the ontology:\n" + "\n".join(lines),
        "; ".join(dict.fromkeys(hints)) or _DISJOINT_HINT,
    )


def _subjects_stating(
    literal: ox.Literal, files: Sequence[SourceFile], queries_dir: Path | SearchPath, store: Store | None
) -> list[str]:
    found = [subject_key(t.subject) for f in files for t in f.triples if t.object == literal]
    if not found and store is not None:
        rows = get_query(queries_dir, "literal-subjects").rows(store, {"value": literal})
        found = [subject_key(row["subject"]) for row in rows]
    return [key for key in found if key is not None]


def ill_typed_results(
    files: Sequence[SourceFile],
    shown: set[str],
    located: dict[str, tuple[str, int | None]],
) -> list[ValidationResult]:
    """What ``build`` and ``load`` will refuse in ``files`` (those ``shown``) though no shape
    looks at it: each literal its OWL RL datatype does not allow, as a violation at its subject's
    line (``located``: ``locate_subjects(files)``; ``validate`` runs the shapes, not the
    inference). ``validate`` leaves out those at a (focus, path) the shapes already report."""
    checked: dict[ox.Literal, str | None] = {}  # (each distinct literal checked once)
    results = []
    for file in files:
        if file.display not in shown:
            continue
        for triple in file.triples:
            value = triple.object
            if not isinstance(value, ox.Literal) or isinstance(triple.subject, ox.Triple):
                continue
            if value.language or value.datatype.value == XSD_STRING:  # (owlrl takes them as they are)
                continue
            if value not in checked:
                checked[value] = ill_typed(rdflib_literal(value))
            message = checked[value]
            if message is None:
                continue
            focus, path = compact(to_rdflib(triple.subject)) or "", compact(to_rdflib(triple.predicate))
            place, line = located.get(subject_key(triple.subject) or "", (file.display, None))
            results.append(
                ValidationResult(
                    severity="violation",
                    message=f"{message}{_REFUSED}",
                    focus=focus,
                    path=path,
                    shape="OWL RL",
                    constraint="Datatype",
                    value=value.value,
                    file=place,
                    line=line,
                )
            )
    return results


def store_uses_axioms(store: Store) -> bool:
    """Whether ``store`` holds a statement using one of ``AXIOMS`` (as a predicate, a class or a
    value): two index lookups a term, where ``uses_axioms`` reads every triple."""
    for term in map(ox.NamedNode, sorted(AXIOMS)):
        as_predicate = next(store.quads_for_pattern(None, term, None), None)
        if as_predicate is not None or next(store.quads_for_pattern(None, None, term), None) is not None:
            return True
    return False


def uses_axioms(triples: Iterable[ox.Triple]) -> bool:
    """Whether ``triples`` use one of ``AXIOMS`` (as a predicate, a class or a value)."""
    return any(
        t.predicate.value in AXIOMS or (isinstance(t.object, ox.NamedNode) and t.object.value in AXIOMS)
        for t in triples
    )


def inference_results(
    messages: Sequence[str],
    using: str | None,
    shown: set[str],
    located: dict[str, tuple[str, int | None]],
) -> list[ValidationResult]:
    """OWL RL's ``messages`` about the files ``shown`` as violations, for ``validate``: an
    individual of disjoint classes at its line; what cannot be placed at ``using``, the first
    shown file that uses one of ``AXIOMS`` (``uses_axioms``). Ill-typed literals are left to
    ``ill_typed_results``."""
    results = []
    for message in messages:
        if _LITERAL.fullmatch(message):
            continue
        disjoint = _DISJOINT.fullmatch(message)
        node = disjoint["node"] if disjoint is not None else ""
        place, line = next((located[k] for k in _node_keys(node) if k in located), (None, None))
        if place not in shown:  # (not placed, or in a file not asked about: where the axiom is used)
            place, line = using, None
        if place is None:
            continue
        results.append(
            ValidationResult(
                severity="violation",
                message=f"{message}{_REFUSED}",
                focus=_compact_node(node),
                path=None,
                shape="OWL RL",
                constraint="Disjointness" if disjoint is not None else "Consistency",
                value=None,
                file=place,
                line=line,
            )
        )
    return results


def _node_keys(node: str) -> list[str]:
    """The keys ``locate_subjects`` may hold a node of owlrl's message under (owlrl writes a blank
    node's label bare)."""
    return [node, f"_:{node}"]


def _compact_node(node: str) -> str:
    """An IRI as a CURIE where a prefix fits (as the shapes' results name their focus)."""
    try:
        return compact(to_rdflib(ox.NamedNode(node))) or node
    except ValueError:  # (a blank node's label)
        return node
