"""kgprofiles: a sourced knowledge graph of people.

The public API is this module's ``__all__``; every other module is internal and may change.

* :class:`Project` — a project (data, ontology, shapes, queries, and where its store is):
  ``validate``, ``build``, ``load``, and ``open`` to read what was built;
* :class:`Graph` — the built graph opened to read: ``profile``, ``related``, ``query`` (a named
  query of ``queries/``) and ``sparql``;
* :class:`KgError` — what every failure raises: a message, a hint and an exit code.

>>> import tempfile, kgprofiles
>>> project = kgprofiles.Project(store=tempfile.mkdtemp() + "/store")
>>> _ = project.build()
>>> with project.open() as graph:
...     [p["name"] for p in graph.related("horace-he", limit=3)]
['Greg Chanan', 'Jane Xu', 'Joe Spisak']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kgprofiles.errors import KgError

__version__ = "0.1.0"
__all__ = ["Graph", "KgError", "Project", "__version__"]

if TYPE_CHECKING:
    from kgprofiles.api import Graph, Project


def __getattr__(name: str) -> Any:
    """Project and Graph are imported on first use, so that `import kgprofiles` stays quick."""
    if name in ("Graph", "Project"):
        from kgprofiles import api

        return getattr(api, name)
    raise AttributeError(f"module 'kgprofiles' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
