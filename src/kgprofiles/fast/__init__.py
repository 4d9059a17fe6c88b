"""Fast paths for validation and inference at scale, with the reference engines' exact answers.

- ``validate_store(store, shapes, ontology, ...)``: the SHACL shapes compiled to SPARQL and run on a
  pyoxigraph store over all focus nodes at once; gives ``validate_graph``'s results (pyshacl) and
  falls back to pyshacl, saying so, for whatever it does not compile.
- ``infer_triples(data, ontology)`` / ``infer_into(store, graph, data, ontology)``: the ontology's
  OWL RL consequences compiled into lookup tables and run in two linear passes; gives
  ``infer.closure``'s triples (owlrl) and falls back to owlrl, saying so, for what it does not
  compile.

See each module's docstring for how, and ``tests/test_fast_*.py`` for the equivalence tests.
"""

from kgprofiles.fast.inference import FastInference, infer_into, infer_triples
from kgprofiles.fast.literals import LiteralScan, scan_literals
from kgprofiles.fast.validation import FastValidation, compile_shapes, validate_store, validate_triples

__all__ = [
    "FastInference",
    "FastValidation",
    "LiteralScan",
    "compile_shapes",
    "infer_into",
    "infer_triples",
    "scan_literals",
    "validate_store",
    "validate_triples",
]
