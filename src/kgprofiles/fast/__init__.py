"""Fast paths for validation and inference at scale, with the reference engines' exact answers.

- ``validate_store(store, shapes, ontology, locate=…, files=…, scan=…, raw=…) -> FastValidation``:
  the SHACL shapes compiled to SPARQL and run on an Oxigraph store over all focus nodes at once;
  ``.report`` is the ``ValidationReport`` ``validate.validate_graph`` (pyshacl) gives, ``.notes``
  says what fell back to pyshacl and why.
- ``infer_into(store, graph, raw, ontology, scan=…) -> FastInference`` and
  ``infer_triples(raw, ontology) -> FastInference``: the ontology's OWL RL consequences compiled into
  lookup tables and run in two linear passes over the parsed triples; exactly ``infer.closure``'s
  triples (owlrl), written into a graph or returned; ``.inconsistencies`` are owlrl's, ``.notes``
  say when owlrl did the work instead, and why.
- ``plan_load(store, files, shapes, ontology) -> LoadPlan``: what ``load`` of a few changed files
  means, computed from what they touch: the validation report and the patch of the inferred graph.

A build with them: parse the files; write their graphs and the ontology graph into the fresh
on-disk generation; ``scan = scan_literals(raw)``; start the inference passes (``inference.ClosureAhead``:
``infer_into`` in two steps, the passes in a child process for large data); ``validate_store`` (stop
if it does not conform: the generation is never published); load the passes' inferred graph;
publish. ``raw`` is a function returning a fresh iterator over the parsed triples
(``lambda: (t for f in files for t in f.triples)``).

Each takes a ``budget`` (``kgprofiles.budget``): a deadline and, for inference, an allowance of
produced triples, checked as they go; what cannot be interrupted (sh:sparql constraints, pyshacl,
owlrl) runs in a child process killed at the deadline.

See each module's docstring for how, and ``tests/test_fast_*.py`` for the equivalence tests.
"""

from kgprofiles.fast.incremental import LoadPlan, plan_load
from kgprofiles.fast.inference import FastInference, infer_into, infer_triples
from kgprofiles.fast.literals import LiteralScan, scan_literals
from kgprofiles.fast.validation import FastValidation, compile_shapes, validate_store, validate_triples

__all__ = [
    "FastInference",
    "FastValidation",
    "LiteralScan",
    "LoadPlan",
    "compile_shapes",
    "infer_into",
    "infer_triples",
    "plan_load",
    "scan_literals",
    "validate_store",
    "validate_triples",
]
