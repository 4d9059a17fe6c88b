"""``kgprofiles site build``: the whole graph as static files a plain web server (or a Git hosting
service's pages) can serve, with the same HTML as ``kgprofiles serve`` and relative links.

Layout (each page a directory's ``index.html``, so ``/id/person/x`` is served as ``/id/person/x/``,
the way static servers answer a directory)::

    index.html                     the home page
    people/index.html              every person (one page: a static server cannot paginate)
    search/index.html, index.json  search in the browser (static/search.js) over a small index
    downloads/index.html, kgprofiles.{nq,ttl,nt,jsonld}
    sparql/index.html              a note: a static copy has no SPARQL endpoint
    id/<kind>/<slug>/index.html    every person, organisation, topic, work and source, and every
                                   other /id/ IRI a page links to
    id/<kind>/<slug>.{ttl,jsonld,nt,nq,rdf}   its data (.rdf only where the data allows RDF/XML)
    static/style.css, search.js
    .kgprofiles-site               marks the directory as a site this command wrote

Pages are rendered by the web app's own functions (``web/pages.py``) with ``base`` set to the
relative path to the site's root, so the HTML is the server's with relative links. Which resources
get a page: the items of the search index (people, organisations, topics, works), then whatever
/id/ IRI a written page links to, until none is left: every link between pages resolves.

Deterministic: the same store gives the same bytes (no dates, sorted indexes, the exports' own
ordering). A directory that is a previous site is replaced whole (the new site is written beside
it, then swapped in by renames: a killed build leaves the old site); any other non-empty directory
is refused unless ``force``, and then written into (its other files are left alone).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import unicodedata
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from importlib import resources
from pathlib import Path

import pyoxigraph as ox

from kgprofiles.config import Settings
from kgprofiles.errors import InputError
from kgprofiles.export import MEDIA_TYPES, export_store_to, rdfxml_problem, serialize_triples, to_rdfxml
from kgprofiles.profiles import NotFound, Views
from kgprofiles.progress import Progress, Silent
from kgprofiles.queries import get_query
from kgprofiles.render.html import page
from kgprofiles.search import COLUMNS, KIND_ORDER, Document, documents
from kgprofiles.store.base import Store
from kgprofiles.vocab import ids
from kgprofiles.web.negotiation import split_suffix
from kgprofiles.web.pages import DOWNLOADS, resource_page, why_page
from kgprofiles.web.resources import KINDS, SLUG

#: The path of a "Why?" page under the base IRI (the server's /id/person/A/related/B).
WHY = re.compile(r"person/(?P<person>[A-Za-z0-9][A-Za-z0-9._-]*)/related/(?P<other>[A-Za-z0-9][A-Za-z0-9._-]*)")

MARKER = ".kgprofiles-site"
MARKER_TEXT = "A static site written by `kgprofiles site build`; the next build replaces this directory whole.\n"
#: The data forms written beside each page: suffix → export format.
DATA_FORMS = {".ttl": "ttl", ".jsonld": "jsonld", ".nt": "nt", ".nq": "nq", ".rdf": "rdf"}
MEDIA = {
    ".ttl": "text/turtle",
    ".jsonld": "application/ld+json",
    ".nt": "application/n-triples",
    ".nq": "application/n-quads",
    ".rdf": "application/rdf+xml",
}
STATIC_FILES = ("style.css", "search.js")
#: The JSON-LD download is made in memory (rdflib compacts it): only for graphs up to this size.
JSONLD_MAX_QUADS = 500_000
_TOKENS = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class SiteReport:
    """What a site build wrote: pages, files in all, bytes, and links it could not give a page."""

    output: Path
    pages: int
    files: int
    bytes: int
    missing: tuple[str, ...]

    def summary(self) -> str:
        missing = f"; {len(self.missing)} linked IRI(s) with nothing to show" if self.missing else ""
        return f"{self.pages} page(s), {self.files} file(s), {self.bytes / 1e6:.1f} MB → {self.output}{missing}"


class _Writer:
    """Files under one directory, counted."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files = 0
        self.bytes = 0

    def file(self, relative: str, make: Callable[[Path], None]) -> None:
        """A file ``make`` writes itself (a large export, streamed)."""
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        make(path)
        self.files += 1
        self.bytes += path.stat().st_size

    def write(self, relative: str, content: bytes | str) -> None:
        data = content.encode("utf-8") if isinstance(content, str) else content
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        self.files += 1
        self.bytes += len(data)


class _Builder:
    """Renders the pages of one store (``views`` is all the web app's page functions need)."""

    def __init__(self, settings: Settings, store: Store, out: _Writer, progress: Progress) -> None:
        self.settings = settings
        self.store = store
        self.views = Views(store, settings.queries_dir, settings.related_weights, stable=True)
        self.out = out
        self.progress = progress

    def build(self) -> tuple[int, tuple[str, ...]]:
        docs = list(documents(self.store, self.settings.queries_dir))
        self.progress.stage("pages", len(docs) + 5)
        for name in STATIC_FILES:
            self.out.write(
                f"static/{name}", resources.files("kgprofiles.render").joinpath(f"static/{name}").read_bytes()
            )
        self._page("", page("home.html", ".", home=self.views.home()))
        everyone = self.views.people(None)
        self._page(
            "people", page("people.html", "..", rows=everyone, total=len(everyone), q="", page_number=1, pages=1)
        )
        self._page("search", page("search.html", "..", q="", results=None, static_search=True))
        self.out.write("search/index.json", search_index(docs))
        quads = sum(1 for _ in self.store.quads()) if "jsonld" in (f for f, _ in DOWNLOADS.values()) else 0
        offered = {name: d for name, d in DOWNLOADS.items() if d[0] != "jsonld" or quads <= JSONLD_MAX_QUADS}
        self._page("downloads", page("downloads.html", "..", downloads=offered, media_types=MEDIA_TYPES))
        for name, (fmt, _) in offered.items():
            self.out.file(f"downloads/{name}", partial(export_store_to, self.store, fmt))
        self._page(
            "sparql",
            page(
                "note.html",
                "..",
                heading="No SPARQL endpoint here",
                paragraphs=(
                    "This is a static copy of the graph: it has pages and files, and no query service.",
                    "Download the whole graph (N-Quads, Turtle, N-Triples or JSON-LD) and query it with any "
                    "SPARQL engine, or run `kgprofiles serve` over the graph for the SPARQL endpoint and editor.",
                ),
            ),
        )
        return self._resources(sorted((d.kind, d.iri) for d in docs))

    def _page(self, directory: str, html: str) -> None:
        self.out.write(f"{directory}/index.html" if directory else "index.html", html)
        self.progress.advance()

    def _resources(self, seeds: list[tuple[str, str]]) -> tuple[int, tuple[str, ...]]:
        """Every seed's page and data, then every /id/ IRI a page links to, until none is left."""
        queue = deque(iri for _, iri in seeds)
        seen = set(queue)
        written, missing = 0, []
        while queue:
            iri = queue.popleft()
            path = ids().slug_of(iri) or ""
            kind, _, slug = path.partition("/")
            why = WHY.fullmatch(path)
            if why is not None:  # a "Why?" page: person/A/related/B, five directories deep
                base = "../../../../.."
                html = why_page(self, why["person"], why["other"], base)
            elif kind not in KINDS or not SLUG.fullmatch(slug):
                missing.append(iri)
                continue
            else:
                base = "../../.."
                try:
                    forms = self._data(kind, iri, path)
                    html = resource_page(self, kind, iri, base, forms)
                except NotFound:
                    missing.append(iri)
                    continue
            self._page(f"id/{path}", html)
            written += 1
            for linked in re.findall(r'href="' + re.escape(base) + r'/id/([^"#?]+)"', html):
                name, suffix = split_suffix(linked)
                target = ids().base + name
                if suffix is None and target not in seen:
                    seen.add(target)
                    queue.append(target)
        return written + 5, tuple(sorted(missing))

    def _data(self, kind: str, iri: str, path: str) -> list[str]:
        """Write the resource's data forms; the media types written."""
        node = ox.NamedNode(iri)
        if kind == "person":
            if not self.views.select("person", person=node).rows:
                raise NotFound(f"no person {iri}")
            result = get_query(self.settings.queries_dir, "person-export").run(self.store, {"person": node})
            triples = result if isinstance(result, list) else []
        else:
            triples = self.views.description(iri)
            if not triples:
                raise NotFound(f"nothing is said about {iri}")
        written = []
        for suffix, fmt in DATA_FORMS.items():
            if fmt == "rdf":
                if rdfxml_problem(triples) is not None:
                    continue
                body = to_rdfxml(triples)
            else:
                body = serialize_triples(triples, fmt)
            self.out.write(f"id/{path}{suffix}", body)
            written.append(MEDIA[suffix])
        return written


def fold(text: str) -> list[str]:
    """The words of ``text`` as the browser's search compares them: accents removed, lower case
    (``static/search.js`` folds what is typed the same way).

    >>> fold("Zoë Ångström, GPT-Fast")
    ['zoe', 'angstrom', 'gpt', 'fast']
    """
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.category(c).startswith("M"))
    return _TOKENS.findall(plain.lower())


def search_index(docs: list[Document]) -> bytes:
    """The static site's search index: per item its path, kind, name, the words of its names and
    the words of its headline, organisations and topics (not the narrative: kept small)."""
    where = {name: n for n, name in enumerate(COLUMNS)}
    items = []
    for doc in sorted(docs, key=lambda d: (KIND_ORDER.get(d.kind, 9), d.name, d.iri)):
        names = " ".join(dict.fromkeys(fold(doc.columns[where["name"]] + " " + doc.columns[where["alt"]])))
        other = " ".join(
            dict.fromkeys(fold(" ".join(doc.columns[where[c]] for c in ("headline", "orgs", "topics", "works"))))
        )
        items.append([ids().slug_of(doc.iri) or "", doc.kind, doc.name, names, other])
    data = {"kinds": sorted(KIND_ORDER, key=KIND_ORDER.__getitem__), "items": items}
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")


def build_site(
    settings: Settings, store: Store, output: Path, *, force: bool = False, progress: Progress | None = None
) -> SiteReport:
    """Write the static site of ``store`` into ``output`` (see the module's docstring)."""
    output = output.absolute()
    existing = output.is_dir() and any(output.iterdir())
    previous = existing and (output / MARKER).is_file()
    if output.exists() and not output.is_dir():
        raise InputError(f"{output} is a file, not a directory", "give --output a directory")
    if existing and not previous and not force:
        raise InputError(
            f"{output} is not empty, and is not a site `kgprofiles site build` wrote",
            "give an empty or new directory, or --force to write into it anyway (its other files stay)",
        )
    target = output.with_name(f".{output.name}.building-{os.getpid()}") if previous else output
    if previous:
        shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True, exist_ok=True)
    out = _Writer(target)
    try:
        pages, missing = _Builder(settings, store, out, progress or Silent()).build()
        out.write(MARKER, MARKER_TEXT)
    except BaseException:
        if previous:
            shutil.rmtree(target, ignore_errors=True)
        raise
    if previous:
        old = output.with_name(f".{output.name}.old-{os.getpid()}")
        output.rename(old)
        target.rename(output)
        shutil.rmtree(old, ignore_errors=True)
    return SiteReport(output, pages, out.files, out.bytes, missing)
