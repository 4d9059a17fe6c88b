"""RDF and SPARQL-results syntaxes, read and written by the store's engine (Oxigraph).

The one door to the engine's parsers and serialisers for the rest of the package: ingest, export,
content negotiation, drafts and the results formats use these names, so the engine behind them can
change in ``store/`` alone. Terms (``NamedNode``, ``Literal``, ...) are the only other thing the
package takes from the engine directly.
"""

from __future__ import annotations

from pyoxigraph import QueryResultsFormat, RdfFormat, parse, parse_query_results, serialize

__all__ = ["QueryResultsFormat", "RdfFormat", "parse", "parse_query_results", "serialize"]
