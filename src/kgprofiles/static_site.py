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
    id/<kind>/<slug>.{ttl,jsonld,nt,nq,rdf}   its data (.rdf only where the data allows RDF/XML;
                                   ``data_forms``: which of them, if any, are written and linked)
    static/style.css, search.js
    .kgprofiles-site               marks the directory as a site this command wrote

Pages are rendered by the web app's own functions (``web/pages.py``) with ``base`` set to the
relative path to the site's root, so the HTML is the server's with relative links. Which resources
get a page: the items of the search index (people, organisations, topics, works), then whatever
/id/ IRI a written page links to, until none is left: every link between pages resolves. ("Why?"
pages are not read for links: theirs are their two people's, seeds or on those people's pages.)

Deterministic: the same store gives the same bytes (no dates, sorted indexes, the exports' own
ordering), however many processes render the pages. The site is written beside the output
directory and moved into place when complete: a previous site is replaced whole, an interrupted
or failed build leaves the previous site (or nothing); any other non-empty directory is refused
unless ``force``, and then written into (its other files are left alone, and it is not marked as
a site: the next build would replace it whole). The project's data directory and store are never
written into.

Pages are rendered by ``jobs`` worker processes forked once the whole-graph results (the related
index) are read, each over its own read-only handle of the store's generation; the main process
walks the links and hands out batches. The whole-graph downloads are written meanwhile by a
process of their own, forked before the related index is read (N-Triples made from the N-Quads
file, Turtle from the N-Triples one, ``download_chains``). Ctrl-C or a failure kills them all.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import gc
import glob
import hashlib
import json
import multiprocessing
import os
import re
import shutil
import signal
import tempfile
import unicodedata
from collections import defaultdict, deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from functools import partial
from importlib import resources
from multiprocessing.connection import Connection
from pathlib import Path
from typing import ParamSpec, TypeVar

from kgprofiles.config import MEMORY, Settings, refuse_the_projects_own
from kgprofiles.errors import InputError, StoreError
from kgprofiles.export import MEDIA_TYPES, NotRepresentable, export_store_to, in_order, serialize_triples, to_rdfxml
from kgprofiles.killable import die_with_parent
from kgprofiles.profile_shelf import ProfileShelf
from kgprofiles.profiles import NotFound, Views
from kgprofiles.progress import Progress, Silent
from kgprofiles.render.html import page
from kgprofiles.scratch import scratch_dir
from kgprofiles.search import COLUMNS, KIND_ORDER, Document, documents, index_path, indexed_documents
from kgprofiles.store import rdf_syntax
from kgprofiles.store.base import Store
from kgprofiles.store.generations import writer_lock
from kgprofiles.store.oxigraph import OxigraphStore
from kgprofiles.vocab import ids
from kgprofiles.web import downloads
from kgprofiles.web.negotiation import SUFFIXES, split_suffix
from kgprofiles.web.pages import resource_page, why_page
from kgprofiles.web.resources import KINDS, SLUG, data

#: The path of a "Why?" page under the base IRI (the server's /id/person/A/related/B).
WHY = re.compile(r"person/(?P<person>[A-Za-z0-9][A-Za-z0-9._-]*)/related/(?P<other>[A-Za-z0-9][A-Za-z0-9._-]*)")


def _why_person(path: str) -> str | None:
    """The IRI of the person whose "Why?" page ``path`` (under the base IRI) is, else None."""
    found = WHY.fullmatch(path)
    return ids().namespace("person") + found["person"] if found else None


#: The collector's thresholds while pages are rendered (``gc.set_threshold``: Python's are 700, 10, 10).
COLLECTOR_THRESHOLDS = (50_000, 20, 100)
MARKER = ".kgprofiles-site"
MARKER_TEXT = "A static site written by `kgprofiles site build`; the next build replaces this directory whole.\n"
#: The data forms written beside each page (by default): suffix → export format.
DATA_FORMS = {".ttl": "ttl", ".jsonld": "jsonld", ".nt": "nt", ".nq": "nq", ".rdf": "rdf"}
STATIC_FILES = ("style.css", "search.js")
_TOKENS = re.compile(r"[^\W_]+")
_P = ParamSpec("_P")
_T = TypeVar("_T")
#: Directories a process remembers having made (every page has its own: 1.7 million at 100,000
#: people, which a worker kept, 1 GB of paths, before the set was bounded).
MADE_KEPT = 10_000
#: Resources a worker renders per task: about a second of work, few enough round trips, and
#: the batch its views read at once (``Views.prefetch``): at 100,000 people a person page 8.15 ms
#: in batches of 32 and 7.59 ms in batches of 128, a source page 0.71 and 0.62 ms.
BATCH = 128
#: The processes of a build, as its errors name them.
PAGES_PROCESS, DOWNLOADS_PROCESS = "a page-rendering worker", "a process writing the downloads"
#: A file of the site opened for writing: created or emptied, binary (Windows), not inherited.
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)


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
    """Files under one directory, counted; ``made`` holds the directories known to exist (a
    process's own, for one build: a page's data files go beside pages already written, and a
    directory costs a system call as dear as a file's). Paths are plain strings and files are
    written by the system calls themselves: a site has millions of files, and pathlib and
    buffered files cost 24 µs more a file (~2 minutes of a 100,000-person site)."""

    def __init__(self, root: Path, made: set[str] | None = None) -> None:
        self.root = root
        self._prefix = os.fspath(root) + os.sep
        self.made = set[str]() if made is None else made
        self.files = 0
        self.bytes = 0

    def _directory_of(self, relative: str) -> str:
        path = self._prefix + relative
        parent = os.path.dirname(path)
        if parent not in self.made:
            os.makedirs(parent, exist_ok=True)
            if len(self.made) >= MADE_KEPT:  # most are a page's own, used once: start again
                self.made.clear()
            self.made.add(parent)
        return path

    def file(self, relative: str, make: Callable[[Path], None]) -> None:
        """A file ``make`` writes itself (a large export, streamed)."""
        path = Path(self._directory_of(relative))
        make(path)
        self.files += 1
        self.bytes += path.stat().st_size

    def write(self, relative: str, content: bytes | str) -> None:
        data = content.encode("utf-8") if isinstance(content, str) else content
        fd = os.open(self._directory_of(relative), _WRITE_FLAGS, 0o666)
        try:
            left = memoryview(data)
            while left:
                left = left[os.write(fd, left) :]
        finally:
            os.close(fd)
        self.files += 1
        self.bytes += len(data)


@dataclass(frozen=True)
class _Batch:
    """What rendering some resources wrote: pages, the IRIs with nothing to show, the /id/ IRIs
    the pages link to (their "Why?" pages apart), and the files and bytes written."""

    pages: int
    missing: tuple[str, ...]
    links: tuple[str, ...]
    whys: tuple[str, ...]
    files: int
    bytes: int


class _Renderer:
    """Writes resources' pages and data forms (and downloads) into the site's directory: in this
    process, or in each worker process over its own handle of the store."""

    def __init__(
        self, settings: Settings, store: Store, views: Views, root: Path, forms: Mapping[str, str] = DATA_FORMS
    ) -> None:
        self.settings = settings
        self.store = store
        self.views = views  # what the web app's page functions need of a site (web/pages.py HasViews)
        self.root = root
        self.forms = forms  # the data forms to write beside pages (``chosen_forms``)
        self.made = set[str]()  # the directories this process has made or seen (``_Writer``)

    def render(self, iris: list[str]) -> _Batch:
        """The pages of ``iris``, with the links they hold (the "Why?" pages apart: they need
        two people's profiles, rendered once everyone's is on the views' shelf)."""
        out = _Writer(self.root, self.made)
        pages, missing, links, whys = 0, list[str](), list[str](), list[str]()
        paths = {iri: ids().slug_of(iri) or "" for iri in iris}
        batch = defaultdict[str, list[str]](list)  # kind → IRIs, for the views to read at once
        for iri, path in paths.items():
            person = _why_person(path)
            if person is not None:  # ("why": what its person's "Why?" pages read)
                batch["why"].append(person)
            else:
                batch[path.partition("/")[0]].append(iri)
        self.views.prefetch(batch)
        for iri in iris:
            path = paths[iri]
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
                    forms = self._data(out, kind, iri, path)
                    html = resource_page(self, kind, iri, base, forms)
                except NotFound:
                    missing.append(iri)
                    continue
            out.write(f"id/{path}/index.html", html)
            pages += 1
            if why is not None:
                # Not read for links: a "Why?" page links to its two people, and to the organisations,
                # works, topics and sources of their profiles: search documents (the crawl's seeds) or
                # links of the two people's own pages. (A million pages at 100,000 people; the crawl
                # of tests/test_static_site.py follows every link of every page the site has.)
                continue
            for linked in dict.fromkeys(re.findall(r'href="' + re.escape(base) + r'/id/([^"#?]+)"', html)):
                name, suffix = split_suffix(linked)
                if suffix is None:
                    (whys if WHY.fullmatch(name) else links).append(ids().base + name)
        return _Batch(pages, tuple(missing), tuple(links), tuple(whys), out.files, out.bytes)

    def download(self, chain: list[tuple[str, str]]) -> _Batch:
        """The whole graph as ``downloads/NAME`` in each (NAME, format) of ``chain``, in order:
        N-Triples after N-Quads, from an embedded store, is made from that file
        (``OxigraphStore.dump_union_from``), and Turtle after N-Triples from that one
        (``turtle_from_ntriples``): each the bytes of the store's own export, without reading
        the store again."""
        out = _Writer(self.root, self.made)
        limit = self.settings.limits.jsonld_max_quads
        written: dict[str, str] = {}  # format → the download's name
        for name, fmt in chain:
            if fmt == "nt" and "nq" in written and isinstance(self.store, OxigraphStore):
                make = partial(self.store.dump_union_from, self.root / "downloads" / written["nq"])
            elif fmt == "ttl" and "nt" in written:
                make = partial(turtle_from_ntriples, self.root / "downloads" / written["nt"])
            else:
                make = partial(export_store_to, self.store, fmt, jsonld_max_quads=limit)
            out.file(f"downloads/{name}", make)
            written[fmt] = name
        return _Batch(0, (), (), (), out.files, out.bytes)

    def _data(self, out: _Writer, kind: str, iri: str, path: str) -> list[str]:
        """Write the resource's data forms (those asked for: none, and its data is not read); the
        media types written."""
        if not self.forms:
            return []
        triples = in_order(data(self, kind, iri))  # (sorted once for all the forms)
        written, bodies = [], dict[str, bytes]()
        for suffix, fmt in self.forms.items():
            if fmt == "rdf":
                try:
                    body = to_rdfxml(triples)
                except NotRepresentable:  # (offered only where the data allows it)
                    continue
            elif fmt == "nq":  # one graph's N-Quads are its N-Triples
                body = bodies["nt"] if "nt" in bodies else serialize_triples(triples, "nt")
            else:
                body = bodies[fmt] = serialize_triples(triples, fmt)
            out.write(f"id/{path}{suffix}", body)
            written.append(SUFFIXES[suffix])
        return written


def data_forms(text: str) -> tuple[str, ...]:
    """The data forms a comma-separated list names (``all``: every one, ``none``: none), in
    ``DATA_FORMS``' order; an unknown name is an InputError.

    >>> data_forms("rdf, TTL"), data_forms("none"), data_forms("all")
    (('ttl', 'rdf'), (), ('ttl', 'jsonld', 'nt', 'nq', 'rdf'))
    >>> data_forms("all,ttl")
    Traceback (most recent call last):
    kgprofiles.errors.InputError: 'all,ttl' names all or none beside other forms
    hint: give all or none alone
    """
    names = {name.strip().lower() for name in text.split(",") if name.strip()}
    if names == {"all"}:
        return tuple(DATA_FORMS.values())
    if names == {"none"}:
        return ()
    if {"all", "none"} & names:
        raise InputError(f"{text!r} names all or none beside other forms", "give all or none alone")
    if not names:
        raise InputError(f"no data form {text!r}", _FORMS_HINT)
    return tuple(chosen_forms(names).values())


_FORMS_HINT = "give all, none, or some of " + ", ".join(DATA_FORMS.values()) + " separated by commas"


def chosen_forms(names: Collection[str]) -> dict[str, str]:
    """The data forms ``names`` names, as ``DATA_FORMS`` (suffix → format) in its order; an
    unknown name is an InputError."""
    unknown = sorted(set(names) - set(DATA_FORMS.values()))
    if unknown:
        raise InputError(f"no data form {', '.join(unknown)}", _FORMS_HINT)
    return {suffix: fmt for suffix, fmt in DATA_FORMS.items() if fmt in names}


def turtle_from_ntriples(ntriples: Path, output: Path) -> None:
    """The Turtle download written from the N-Triples one: the same triples in the same order,
    so the same bytes as the store's own Turtle export (``tests/test_static_site.py``), without
    reading the store again: at 100,000 people 32 s and 20 MB against 192 s and 830 MB (the
    union of the graphs' triples is made distinct in memory by the store)."""
    triples = rdf_syntax.parse(path=str(ntriples), format=rdf_syntax.RdfFormat.N_TRIPLES)
    rdf_syntax.serialize(triples, output=str(output), format=rdf_syntax.RdfFormat.TURTLE)


def download_chains(offered: Mapping[str, tuple[str, str]]) -> list[list[tuple[str, str]]]:
    """The downloads in the order a process makes them: (name, format) chains, each made after
    the one before it in its chain (N-Quads, N-Triples from it, Turtle from that), the chains
    of one format alone first (JSON-LD, offered only for a graph small enough).

    >>> download_chains({"g.nq": ("nq", ""), "g.ttl": ("ttl", ""), "g.nt": ("nt", ""), "g.jsonld": ("jsonld", "")})
    [[('g.jsonld', 'jsonld')], [('g.nq', 'nq'), ('g.nt', 'nt'), ('g.ttl', 'ttl')]]
    >>> download_chains({"g.ttl": ("ttl", ""), "g.nt": ("nt", "")})
    [[('g.nt', 'nt'), ('g.ttl', 'ttl')]]
    """
    by_format = {fmt: name for name, (fmt, _) in offered.items()}
    chained = [fmt for fmt in ("nq", "nt", "ttl") if fmt in by_format]
    alone = [[(name, fmt)] for fmt, name in by_format.items() if fmt not in chained]
    return [*alone, [(by_format[fmt], fmt) for fmt in chained]] if chained else alone


#: What a process forked from a build starts from: settings, the store's location, the views
#: (and what they have read), the site's directory and the data forms (``_start_worker``).
_WorkerStart = tuple[Settings, str, Views, Path, Mapping[str, str]]
#: The renderer of a worker process (``_start_worker``), over the worker's own store handle.
_worker: _Renderer | None = None


def _start_worker(settings: Settings, location: str, views: Views, root: Path, forms: Mapping[str, str]) -> None:
    """A worker forked from the build: it opens the same store generation read-only (a RocksDB
    handle is never shared across a fork) and keeps what the parent's views read once (the
    related index: copied on write, not read again). It dies with the build: a build killed
    outright (SIGKILL, the OOM killer) left its page workers waiting for work for ever, each
    holding its copy of the related index."""
    global _worker
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it stops the workers
    store = OxigraphStore(location, read_only=True)
    _worker = _Renderer(settings, store, views.over(store), root, forms)


def _render_in_worker(iris: list[str]) -> _Batch:
    assert _worker is not None
    return _worker.render(iris)


def _download_in_worker(chain: list[tuple[str, str]]) -> _Batch:
    assert _worker is not None
    return _worker.download(chain)


class _Downloads:
    """The whole-graph downloads (``download_chains``), written by a process forked for them
    alone, which ends once they are written and gives its memory back (a pool's worker lives as
    long as its pool: it held ~600 MB to the end of a 100,000-person build). The process sends
    each chain's result on a pipe as it is written; used as a context, it is killed if the
    build stops (Ctrl-C, an error) and waited for otherwise."""

    def __init__(self, start: _WorkerStart, chains: list[list[tuple[str, str]]]) -> None:
        context = multiprocessing.get_context("fork")
        self._pipe, sending = context.Pipe(duplex=False)
        self._process = context.Process(
            target=_write_downloads, args=(sending, start, chains), name="kgprofiles site: downloads"
        )
        self._process.start()
        sending.close()
        self._expected = len(chains)
        self._received: list[_Batch] = []  # each chain's result, in order, as it comes

    def __enter__(self) -> _Downloads:
        return self

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        if kind is not None:
            self._process.kill()
        self._process.join()
        self._pipe.close()

    def check(self) -> None:
        """Take the results already sent, without waiting; the process's error, or its death,
        raised now rather than once the pages are written."""
        while len(self._received) < self._expected and self._pipe.poll():
            self._receive()

    def results(self) -> Iterator[_Batch]:
        """Each chain's result, in order, waiting for those still being written."""
        for n in range(self._expected):
            while len(self._received) <= n:
                self._receive()
            yield self._received[n]

    def _receive(self) -> None:
        try:
            ok, value = self._pipe.recv()
        except (EOFError, OSError) as exc:  # the process died without a word: killed
            raise _stopped(DOWNLOADS_PROCESS) from exc
        if not ok:
            raise value
        self._received.append(value)


def _write_downloads(pipe: Connection, start: _WorkerStart, chains: list[list[tuple[str, str]]]) -> None:
    """The downloads' process: each chain written, its result sent; an error sent as it is (or
    as its text, when it cannot be pickled), and the process ends."""
    _start_worker(*start)
    try:
        for chain in chains:
            pipe.send((True, _download_in_worker(chain)))
    except Exception as exc:
        try:
            pipe.send((False, exc))
        except Exception:  # (an exception pickle cannot carry)
            pipe.send((False, RuntimeError(f"{type(exc).__name__}: {exc}")))
    finally:
        pipe.close()


def _kill_workers(pool: ProcessPoolExecutor) -> None:
    """Stop the pool's workers at once (Python 3.14's ``kill_workers``; before it, the pool's own
    table of processes), and let the pool wind down without waiting for their tasks.

    A worker killed while it sent a result leaves half a message in the pool's result pipe, and
    the pool's manager thread (which the interpreter waits for as it exits) waiting for the rest
    for ever: the command said "interrupted" and then hung. So, the workers dead, the parent's
    own writing end of that pipe is closed too, and the thread reads the pipe's end instead."""
    kill = getattr(pool, "kill_workers", None)
    if kill is not None:
        kill()
    else:
        # (None once the pool is shut down: stopping it then is no error)
        processes = list((getattr(pool, "_processes", None) or {}).values())
        for process in processes:
            process.kill()
        for process in processes:
            process.join(5)
        writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
        if writer is not None and not any(p.is_alive() for p in processes):
            writer.close()
    pool.shutdown(wait=False, cancel_futures=True)


class _InProcess(Executor):
    """The executor of a one-process build: each call runs when it is submitted."""

    def submit(self, fn: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> Future[_T]:
        future: Future[_T] = Future()
        future.set_result(fn(*args, **kwargs))
        return future


def default_jobs() -> int:
    """The processes ``site build`` renders pages in by default: one per core it may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def can_fork(store: Store) -> bool:
    """Whether pages can be rendered in forked workers: an embedded store on disk (each worker
    opens it read-only) on a system with ``fork``."""
    return hasattr(os, "fork") and isinstance(store, OxigraphStore) and store.read_only and store.location != MEMORY


class _Builder:
    """Renders the pages of one store, in ``jobs`` processes where the store allows it."""

    def __init__(
        self, settings: Settings, store: Store, out: _Writer, progress: Progress, jobs: int, forms: Mapping[str, str]
    ) -> None:
        self.settings = settings
        self.store = store
        self.views = Views(store, settings.queries_dir, settings.related_weights, stable=True)
        self.out = out
        self.progress = progress
        self.jobs = jobs if can_fork(store) else 1
        self.forms = forms

    def build(self) -> tuple[int, tuple[str, ...]]:
        thresholds = gc.get_threshold()
        with scratch_dir("site") as scratch:
            self.views.shelf = ProfileShelf(Path(scratch) / "profiles.sqlite")
            try:
                return self._build()
            finally:
                gc.unfreeze()
                gc.set_threshold(*thresholds)
                self.views.shelf.close()
                self.views.shelf = None

    def _build(self) -> tuple[int, tuple[str, ...]]:
        self.progress.stage("search documents")
        offered = downloads.offered(self.store, self.settings.limits.jsonld_max_quads)
        chains = download_chains(offered)
        if self.jobs == 1:
            renderer = _Renderer(self.settings, self.store, self.views, self.out.root, self.forms)
            written = self._crawl(_InProcess(), renderer.render, self._first_pages(self._documents(), offered))
            self._download(chains, (renderer.download(chain) for chain in chains))
            return written
        # The downloads in a process of their own, forked first (this process still small: it
        # shares little) to write beside everything else: on the core the related index leaves
        # idle, then beside the pages (~270 s of a core at 100,000 people; written after the
        # pages, they were the build's last four minutes).
        with _Downloads(self._worker_start(), chains) as writing:
            seeds = self._first_pages(self._documents(), offered)
            with self._workers(self.jobs, PAGES_PROCESS) as pool:
                written = self._crawl(pool, _render_in_worker, seeds, beside=writing)
            self._download(chains, writing.results())
        return written

    def _documents(self) -> list[Document]:
        """The search documents: the resources every page starts from."""
        where = index_path(self.settings, self.store)  # the store's search index has them, if it has one
        found = indexed_documents(where) if where is not None else None
        return found if found is not None else list(documents(self.store, self.settings.queries_dir))

    def _first_pages(self, docs: list[Document], offered: Mapping[str, tuple[str, str]]) -> list[tuple[str, str]]:
        """The related index read, and the pages that are not a resource's (home, people, search,
        downloads, the SPARQL note) written; the resources whose pages come next, by kind."""
        self.views.read_once(self.progress)  # here, before any worker starts: the workers share what it reads
        # What is read now lives to the end of the build (its million objects at 100,000 people):
        # out of the collector's way, so that full collections in this process and in the workers
        # forked from it no longer walk it (1.2 ms of a person's 16 ms), nor write to its pages.
        gc.collect()
        gc.freeze()
        # With Python's thresholds the collector took 0.43 ms of a person's page at 100,000 people
        # (a young collection every 3 pages, a middle one every 30 at 3.9 ms, a full one every 340
        # at 49 ms); run less often, 6% less CPU a person page.
        gc.set_threshold(*COLLECTOR_THRESHOLDS)
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
        self._page(
            "downloads",
            page(
                "downloads.html",
                "..",
                downloads=offered,
                media_types=MEDIA_TYPES,
                resource_forms=list(self.forms),
            ),
        )
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
        return sorted((d.kind, d.iri) for d in docs)

    @contextlib.contextmanager
    def _workers(self, jobs: int, which: str) -> Iterator[ProcessPoolExecutor]:
        """``jobs`` processes forked from this one (``_start_worker``), killed if anything goes
        wrong while they work (Ctrl-C, an error: not left blocked on a result nobody reads);
        ``which`` names one in the message when one dies."""
        context = multiprocessing.get_context("fork")
        start = self._worker_start()
        with ProcessPoolExecutor(jobs, mp_context=context, initializer=_start_worker, initargs=start) as pool:
            try:
                yield pool
            except BaseException as exc:
                _kill_workers(pool)
                if isinstance(exc, BrokenProcessPool):
                    raise _stopped(which) from exc
                raise

    def _worker_start(self) -> _WorkerStart:
        """What a process forked from this one starts from (``_start_worker``)."""
        assert isinstance(self.store, OxigraphStore)
        return (self.settings, self.store.location, self.views, self.out.root, self.forms)

    def _page(self, directory: str, html: str) -> None:
        self.out.write(f"{directory}/index.html" if directory else "index.html", html)
        self.progress.advance()

    def _crawl(
        self,
        executor: Executor,
        render: Callable[[list[str]], _Batch],
        seeds: list[tuple[str, str]],
        beside: _Downloads | None = None,
    ) -> tuple[int, tuple[str, ...]]:
        """Every seed's page and data, then every /id/ IRI a page links to, until none is left;
        the "Why?" pages once every other page is written (every person's, its profile then on
        the shelf); at most two batches a process in flight. ``beside``: the downloads being
        written meanwhile, whose failure stops the pages at once."""
        running: set[Future[_Batch]] = set()
        rendering: set[Future[_Batch]] = set()  # batches of pages other than "Why?" pages
        queue, whys = deque(iri for _, iri in seeds), deque[str]()
        seen = set(queue)
        pages, missing = 0, list[str]()
        stage = "pages"
        while queue or whys or running:
            while len(running) < 2 * self.jobs and (queue or (whys and not rendering)):
                if not queue and stage == "pages":  # every other page written: the "Why?" pages' own bar
                    stage = "why"
                    whys = deque(sorted(whys, key=self._near))
                    self.progress.stage('"Why?" pages', len(whys))
                todo = queue or whys
                future = executor.submit(render, [todo.popleft() for _ in range(min(BATCH, len(todo)))])
                running.add(future)
                if todo is queue:
                    rendering.add(future)
            done, running = wait(running, return_when=FIRST_COMPLETED)
            if beside is not None:
                beside.check()
            for future in done:
                rendering.discard(future)
                result = future.result()
                pages += result.pages
                missing.extend(result.missing)
                self.out.files += result.files
                self.out.bytes += result.bytes
                self.progress.advance(result.pages + len(result.missing))
                for found, to in ((result.links, queue), (result.whys, whys)):
                    new = [iri for iri in dict.fromkeys(found) if iri not in seen]
                    seen.update(new)
                    to.extend(new)
                    if to is queue or stage == "why":  # (before, the "Why?" pages found are their stage's total)
                        self.progress.grow(len(new))
        return pages + 5, tuple(sorted(missing))

    def _near(self, why: str) -> tuple[str, str]:
        """A "Why?" page's place among the others: by its person's home organisation (where most of
        their related people are), so that the profiles a process keeps in memory serve the pages
        that follow it (the other person's profile is otherwise read from the shelf)."""
        person = _why_person(ids().slug_of(why) or "") or why
        return self.views.related_index().home_organization(person), why

    def _download(self, chains: list[list[tuple[str, str]]], results: Iterable[_Batch]) -> None:
        """The whole-graph downloads: each chain's result, as it is made or comes."""
        self.progress.stage("downloads", sum(len(chain) for chain in chains))
        for chain, result in zip(chains, results, strict=True):
            self.out.files += result.files
            self.out.bytes += result.bytes
            self.progress.advance(len(chain))


def _stopped(which: str) -> StoreError:
    """The error of a build whose process ``which`` died."""
    return StoreError(
        f"{which} stopped (killed, or out of memory); nothing was published", "run again with fewer --jobs, or --jobs 1"
    )


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
    settings: Settings,
    store: Store,
    output: Path,
    *,
    force: bool = False,
    progress: Progress | None = None,
    jobs: int = 1,
    data_forms: Collection[str] = tuple(DATA_FORMS.values()),
    on_wait: Callable[[str], None] | None = None,
) -> SiteReport:
    """Write the static site of ``store`` into ``output`` (see the module's docstring), its pages
    rendered by ``jobs`` processes where the store is an embedded one on disk (``can_fork``);
    ``data_forms``: the formats written beside each page (and linked from it), of ``DATA_FORMS``.
    Another build writing ``output``: wait for it (telling ``on_wait`` who it is)."""
    forms = chosen_forms(data_forms)
    output = output.resolve()  # (a link to the site: the site it points to is the one replaced)
    refuse_the_projects_own(settings, output)
    if output.exists() and not output.is_dir():
        raise InputError(f"{output} is a file, not a directory", "give --output a directory")
    # One build a directory at a time: a second waits (two at once had the second fail to
    # publish, "Directory not empty", its whole build left beside the site)
    with writer_lock(output, command="kgprofiles site build", on_wait=on_wait, lock=_site_lock(output)):
        return _build_into(settings, store, output, force, progress or Silent(), max(1, jobs), forms)


_AT_FDCWD, _RENAME_EXCHANGE = -100, 2


def exchange_directories(a: Path, b: Path) -> bool:
    """Swap ``a`` and ``b`` in one step (Linux ``renameat2`` with ``RENAME_EXCHANGE``); False where
    the system or its file system cannot (the caller then moves them one after the other)."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # not glibc 2.28+, not Linux
        return False
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def _left_behind(output: Path) -> list[Path]:
    """The directories a build of ``output`` writes beside it (the new site, the old one while
    they swap) that a killed build left: gigabytes each at 100,000 people."""
    name = glob.escape(output.name)
    found = (p for kind in ("building", "old") for p in output.parent.glob(f".{name}.{kind}-*"))
    return sorted(p for p in found if p.name.rsplit("-", 1)[1].isdigit() and p.is_dir())  # (-PID: ours only)


def _site_lock(output: Path) -> Path:
    """The lock file of a site's directory: in the temporary directory, not beside the site
    (where it would be left in the user's project), one per user and resolved path."""
    digest = hashlib.sha256(str(output.resolve()).encode("utf-8")).hexdigest()[:24]
    return Path(tempfile.gettempdir()) / f"kgprofiles-site-lock.{os.getuid()}.{digest}"  # (no scratch name: a file)


def _build_into(
    settings: Settings, store: Store, output: Path, force: bool, progress: Progress, jobs: int, forms: dict[str, str]
) -> SiteReport:
    existing = output.is_dir() and any(output.iterdir())
    previous = existing and (output / MARKER).is_file()
    if existing and not previous and not force:
        raise InputError(
            f"{output} is not empty, and is not a site `kgprofiles site build` wrote",
            "give an empty or new directory, or --force to write into it anyway (its other files stay)",
        )
    in_place = existing and not previous  # --force into a directory of other files: written into
    target = output if in_place else output.with_name(f".{output.name}.building-{os.getpid()}")
    for left in _left_behind(output):  # (by a build killed outright: the lock says none runs)
        shutil.rmtree(left, ignore_errors=True)
    target.mkdir(parents=True, exist_ok=True)
    out = _Writer(target)
    try:
        pages, missing = _Builder(settings, store, out, progress, jobs, forms).build()
        if not in_place:  # (a directory of other files is not made a site: the next build replaces a site whole)
            out.write(MARKER, MARKER_TEXT)
            _publish(target, output, previous)
    except BaseException:
        if not in_place and target.is_dir():  # an interrupted or failed build leaves nothing (or the previous site)
            shutil.rmtree(target, ignore_errors=True)
        raise
    return SiteReport(output, pages, out.files, out.bytes, missing)


def _publish(target: Path, output: Path, previous: bool) -> None:
    """The site built in ``target`` moved to ``output``, in place of the previous site there: the
    two exchanged in one step where the system can (never a moment without a site at ``output``,
    which a web server may be serving), else moved aside and replaced."""
    if previous and exchange_directories(target, output):
        shutil.rmtree(target, ignore_errors=True)  # (the previous site, now)
        return
    if previous:
        old = output.with_name(f".{output.name}.old-{os.getpid()}")
        output.rename(old)
        try:
            target.rename(output)
        except BaseException:
            old.rename(output)  # (the previous site back in its place)
            raise
        shutil.rmtree(old, ignore_errors=True)
    else:
        if output.is_dir():
            output.rmdir()  # empty
        target.rename(output)
