"""`kgprofiles site build`: the seed graph as a static site, served by `python -m http.server`
with every link resolving, the same HTML as `kgprofiles serve` with relative links, the same
bytes on every run, and the rules for the output directory."""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import struct
import subprocess
import sys
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import httpx
import pytest
from typer.testing import CliRunner

from kgprofiles import static_site
from kgprofiles.cli import app as cli
from kgprofiles.config import Settings
from kgprofiles.errors import InputError
from kgprofiles.export import export_store
from kgprofiles.queries import load_queries
from kgprofiles.related_index import RelatedIndex
from kgprofiles.static_site import MARKER, build_site
from kgprofiles.web import create_app
from processes import all_gone, children
from recorded_progress import RecordedProgress
from web.server import serving

ROOT = Path(__file__).resolve().parents[1]
_LINK = re.compile(r'(?:href|src|data-index)="([^"]*)"')


@pytest.fixture(scope="module")
def site(seed_store, settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Path:
    output = tmp_path_factory.mktemp("site") / "out"
    build_site(settings, seed_store, output)
    return output


def files_of(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def http_server(site: Path) -> Iterator[str]:
    """``python -m http.server`` on 127.0.0.1 (a free port) serving the site."""
    process = subprocess.Popen(
        [sys.executable, "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", str(site)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # "Serving HTTP on 127.0.0.1 port N (http://127.0.0.1:N/) ..."
        port = re.search(r"port (\d+)", line)
        assert port, line
        yield f"http://127.0.0.1:{port[1]}/"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_every_link_of_the_static_site_resolves(http_server: str) -> None:
    """Crawl from the home page: every href and src on every page answers 200."""
    seen: set[str] = set()
    queue = deque([http_server])
    pages = 0
    with httpx.Client(follow_redirects=True, timeout=10) as client:
        while queue:
            url = queue.popleft()
            answer = client.get(url)
            assert answer.status_code == 200, url
            if not answer.headers.get("content-type", "").startswith("text/html"):
                continue
            pages += 1
            for href in _LINK.findall(answer.text):
                target = urljoin(str(answer.url), href).split("#", 1)[0]
                if urlsplit(target).netloc == urlsplit(http_server).netloc and target not in seen:
                    seen.add(target)
                    queue.append(target)
    assert pages > 30  # home, people, search, downloads, sparql, every person, organisation, topic, source
    assert {f"{http_server}id/person/horace-he", f"{http_server}downloads/kgprofiles.nq"} <= seen
    assert f"{http_server}id/person/horace-he.rdf" in seen


def test_the_search_page_and_its_index(http_server: str, site: Path) -> None:
    page = httpx.get(http_server + "search/?q=flexattention", timeout=10)
    assert page.status_code == 200 and 'src="../static/search.js"' in page.text
    index = json.loads((site / "search" / "index.json").read_text(encoding="utf-8"))
    words = {item[0]: " ".join(item[3:]).split() for item in index["items"]}  # [path, kind, name, words…]
    found = {path for path, its in words.items() if any(w.startswith("flexatt") for w in its)}
    assert found == {"work/flexattention", "person/horace-he"}
    compilers = {path for path, its in words.items() if "compilers" in its}
    assert compilers == {"person/horace-he"}  # from the headline "PyTorch and compilers"


def test_pages_are_the_servers_html_with_relative_links(site: Path, settings: Settings, seed_store) -> None:
    kinds = ("person/horace-he", "organization/pytorch", "topic/inference-and-serving", "source/pytorch-2-paper")
    with serving(create_app(settings, seed_store)) as url:
        for path in kinds:
            served = httpx.get(f"{url}/id/{path}", headers={"Accept": "text/html"}).text
            static = (site / "id" / path / "index.html").read_text(encoding="utf-8")
            assert static.replace('="../../../', '="/') == served, path


def test_two_builds_write_the_same_bytes(site: Path, seed_store, settings: Settings, tmp_path: Path) -> None:
    build_site(settings, seed_store, tmp_path / "again")
    assert files_of(tmp_path / "again") == files_of(site)
    for fmt in ("nq", "ttl", "nt", "jsonld"):  # the downloads are the server's, byte for byte
        assert (site / "downloads" / f"kgprofiles.{fmt}").read_bytes() == export_store(seed_store, fmt)


def test_the_turtle_download_made_from_the_n_triples_one_is_the_stores_own(tmp_path: Path) -> None:
    """The site's Turtle is re-read from its N-Triples file (``turtle_from_ntriples``), not
    exported again: the same bytes as the store's own Turtle, for terms that are hard to write
    (blank nodes, escapes, every kind of literal, a non-ASCII IRI, a triple in two graphs)."""
    import pyoxigraph as ox

    from kgprofiles.store.oxigraph import OxigraphStore

    ex = "http://example.org/"
    s, p, g, h = ox.NamedNode(ex + "s"), ox.NamedNode(ex + "p"), ox.NamedNode(ex + "g"), ox.NamedNode(ex + "h")
    objects = [
        ox.BlankNode("b0"),
        ox.Literal('tab\tquote"backslash\\ line\nend .'),
        ox.Literal("chat", language="fr"),
        ox.Literal("7", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")),
        ox.Literal("1.5e3", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#double")),
        ox.NamedNode(ex + "Zoë/ü"),
    ]
    store = OxigraphStore(str(tmp_path / "store"))
    for o in objects:
        store.store.add(ox.Quad(s, p, o, g))
    store.store.add(ox.Quad(ox.BlankNode("b0"), p, ox.Literal(""), g))
    store.store.add(ox.Quad(s, p, objects[2], h))  # the same triple in another graph: once in the union
    nt, ttl = tmp_path / "all.nt", tmp_path / "all.ttl"
    nt.write_bytes(export_store(store, "nt"))
    static_site.turtle_from_ntriples(nt, ttl)
    assert ttl.read_bytes() == export_store(store, "ttl")
    store.close()


def test_workers_write_the_same_bytes(seed_store_dir: Path, settings: Settings, tmp_path: Path) -> None:
    """Pages rendered by two forked worker processes, each over its own read-only handle of the
    store on disk: the same files as one process."""
    from kgprofiles.store.oxigraph import OxigraphStore

    with OxigraphStore(seed_store_dir, read_only=True) as disk:
        one = build_site(settings, disk, tmp_path / "one", jobs=1)
        progress = RecordedProgress()
        two = build_site(settings, disk, tmp_path / "two", jobs=2, progress=progress)
    assert files_of(tmp_path / "two") == files_of(tmp_path / "one")
    assert (two.pages, two.files, two.bytes, two.missing) == (one.pages, one.files, one.bytes, one.missing)
    written = files_of(tmp_path / "two")
    assert two.files == len(written) > 300 and two.bytes == sum(map(len, written.values()))
    # each bar's total grows as pages are found (sources, claims), and ends full; the "Why?" pages
    # after the others, the whole-graph downloads last
    assert progress.names[-3:] == ["pages", '"Why?" pages', "downloads"]
    assert all(progress[name].total == progress[name].done for name in ("pages", '"Why?" pages'))
    assert (progress["downloads"].total, progress["downloads"].done) == (4, 4)  # N-Quads, N-Triples, Turtle, JSON-LD
    whys = len(list((tmp_path / "two").glob("id/person/*/related/*/index.html")))
    assert whys > 50 and (progress['"Why?" pages'].total, progress['"Why?" pages'].done) == (whys, whys)
    assert progress["pages"].total + whys == two.pages + len(two.missing)


def test_the_downloads_process_ends_once_they_are_written(
    seed_store_dir: Path, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The downloads are written beside the pages by a process of their own, which ends once they
    are (its memory with it) while the pages go on: when the "Why?" pages start, only the page
    workers are left. (A pool's worker stayed to the end and held ~600 MB at 100,000 people.)"""
    import multiprocessing
    import time

    from kgprofiles.store.oxigraph import OxigraphStore

    class Watching(RecordedProgress):
        children: tuple[str, ...] = ()

        def stage(self, name: str, total: int | None = None) -> None:
            super().stage(name, total)
            if name == '"Why?" pages':
                self.children = tuple(p.name for p in multiprocessing.active_children())

    render = static_site._Renderer.render

    def slower(self: static_site._Renderer, iris: list[str]) -> static_site._Batch:
        time.sleep(0.25)  # (the pages, ~3 s, outlast the seed graph's downloads, ~0.5 s)
        return render(self, iris)

    monkeypatch.setattr(static_site._Renderer, "render", slower)
    monkeypatch.setattr(static_site, "BATCH", 8)
    watching = Watching()
    with OxigraphStore(seed_store_dir, read_only=True) as disk:
        build_site(settings, disk, tmp_path / "site", jobs=2, progress=watching)
    assert len(watching.children) == 2, watching.children  # the two page workers
    assert (watching["downloads"].total, watching["downloads"].done) == (4, 4)


class _InterruptedAt(RecordedProgress):
    """Progress that is Ctrl-C'ed once ``stage`` has advanced past ``after`` steps."""

    def __init__(self, stage: str, after: int) -> None:
        super().__init__()
        self.at, self.after = stage, after

    def advance(self, steps: int = 1) -> None:
        super().advance(steps)
        if self.stages[-1].name == self.at and self.stages[-1].done > self.after:
            raise KeyboardInterrupt


@pytest.mark.parametrize("stage", ["pages", "downloads"])
def test_ctrl_c_stops_the_workers_and_keeps_the_previous_site(
    stage: str, seed_store_dir: Path, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while workers render pages, or write the downloads: they are stopped at once (not
    waited for: a worker's later batches, and the N-Quads download, take a minute each here), and
    the previous site, or no directory, is what is left."""
    import multiprocessing
    import time

    from kgprofiles import static_site
    from kgprofiles.store.oxigraph import OxigraphStore

    output = tmp_path / "site"
    with OxigraphStore(seed_store_dir, read_only=True) as disk:
        build_site(settings, disk, output, jobs=1)
        before = files_of(output)
        render, rendered = static_site._Renderer.render, []
        download = static_site._Renderer.download

        def slow_after_the_first(self: static_site._Renderer, iris: list[str]) -> static_site._Batch:
            if rendered:  # (each forked worker has its own list)
                time.sleep(60)
            rendered.append(iris)
            return render(self, iris)

        def slow_n_quads(self: static_site._Renderer, chain: list[tuple[str, str]]) -> static_site._Batch:
            if chain[0][1] == "nq":
                time.sleep(60)
            return download(self, chain)

        if stage == "pages":
            monkeypatch.setattr(static_site._Renderer, "render", slow_after_the_first)
            monkeypatch.setattr(static_site, "BATCH", 1)  # a batch a resource: every worker has one in hand
            interrupted = {"stage": "pages", "after": 5}  # the five fixed pages come first, then the workers'
        else:
            monkeypatch.setattr(static_site._Renderer, "download", slow_n_quads)
            interrupted = {"stage": "downloads", "after": 0}  # another download is written: N-Quads still going
        for target in (output, tmp_path / "new"):  # a previous site, then a first build
            started = time.monotonic()
            with pytest.raises(KeyboardInterrupt):
                build_site(settings, disk, target, jobs=2, progress=_InterruptedAt(**interrupted))
            assert time.monotonic() - started < 30
    deadline = time.monotonic() + 10
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert multiprocessing.active_children() == []
    assert files_of(output) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


@pytest.mark.parametrize(
    ("stage", "message"),
    [("pages", "a page-rendering worker stopped"), ("downloads", "a process writing the downloads stopped")],
)
def test_a_worker_killed_fails_the_build_and_publishes_nothing(
    stage: str, message: str, seed_store_dir: Path, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker killed outright (the kernel's OOM killer, a SIGKILL) while it renders pages or
    writes a download: the build fails saying which, and leaves no directory behind. The
    downloads are written beside the pages: their failure stops the pages at once (here pages
    that would take minutes), not once they are all written."""
    import signal
    import time

    from kgprofiles.errors import StoreError
    from kgprofiles.store.oxigraph import OxigraphStore

    def killed(*args: object) -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    render = static_site._Renderer.render

    def slow(self: static_site._Renderer, iris: list[str]) -> static_site._Batch:
        time.sleep(1)
        return render(self, iris)

    if stage == "downloads":
        monkeypatch.setattr(static_site._Renderer, "render", slow)
        monkeypatch.setattr(static_site, "BATCH", 1)  # (a minute of pages)
    monkeypatch.setattr(static_site._Renderer, "render" if stage == "pages" else "download", killed)
    started = time.monotonic()
    with OxigraphStore(seed_store_dir, read_only=True) as disk, pytest.raises(StoreError, match=message):
        build_site(settings, disk, tmp_path / "site", jobs=2)
    assert time.monotonic() - started < 10
    assert list(tmp_path.iterdir()) == []


def test_a_build_killed_outright_leaves_no_process_behind(seed_store_dir: Path, tmp_path: Path) -> None:
    """SIGKILL (the OOM killer's signal) to a build while its processes work: the page workers and
    the downloads' process go with it. (The page workers were left waiting for work for ever,
    each with its copy of the related index: 1 GB apiece at 100,000 people.)"""
    command = [sys.executable, "-m", "kgprofiles", "--project", str(ROOT), "site", "build", "--quiet"]
    command += ["--store", str(seed_store_dir), "--output", str(tmp_path / "site"), "--jobs", "2"]
    build = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen: set[int] = set()
    deadline = time.monotonic() + 60
    while len(seen) < 3 and build.poll() is None and time.monotonic() < deadline:
        seen |= set(children(build.pid))
        time.sleep(0.02)
    build.kill()
    build.wait()
    assert len(seen) == 3  # the downloads' process and two page workers
    assert all_gone(seen)


def test_two_processes_write_the_same_bytes(seed_store_dir: Path, tmp_path: Path) -> None:
    """Builds in two processes whose sets and dicts of strings iterate in different orders
    (PYTHONHASHSEED): the same files."""
    import os

    command = [sys.executable, "-m", "kgprofiles", "--project", str(ROOT), "site", "build", "--quiet"]
    for seed in ("1", "2"):
        subprocess.run(
            [*command, "--store", str(seed_store_dir), "--output", str(tmp_path / seed), "--jobs", "2"],
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=True,
            capture_output=True,
        )
    assert files_of(tmp_path / "1") == files_of(tmp_path / "2")


def test_a_store_with_its_search_index_gives_the_same_site(seed_store_dir: Path, tmp_path: Path) -> None:
    """A built store's search index holds the site's search documents (read from it, not asked of
    the store again: a minute at 100,000 people); the same site as from a store without one."""
    runner = CliRunner()
    store = tmp_path / "store"
    assert runner.invoke(cli, ["--project", str(ROOT), "build", "--store", str(store), "--quiet"]).exit_code == 0
    assert (store / "search.sqlite").is_file() and not (seed_store_dir / "search.sqlite").exists()
    for source, output in ((store, "indexed"), (seed_store_dir, "queried")):
        command = ["--project", str(ROOT), "site", "build", "--store", str(source), "--output", str(tmp_path / output)]
        assert runner.invoke(cli, [*command, "--quiet"]).exit_code == 0
    assert files_of(tmp_path / "indexed") == files_of(tmp_path / "queried")


def test_the_output_directory(seed_store, settings: Settings, tmp_path: Path) -> None:
    mine = tmp_path / "notes"
    mine.mkdir()
    (mine / "todo.txt").write_text("mine")
    with pytest.raises(InputError, match="is not empty, and is not a site"):
        build_site(settings, seed_store, mine)
    assert sorted(p.name for p in mine.iterdir()) == ["todo.txt"]
    build_site(settings, seed_store, mine, force=True)  # written into; the other file stays
    assert (mine / "todo.txt").read_text() == "mine" and (mine / "index.html").is_file()
    previous = tmp_path / "site"
    build_site(settings, seed_store, previous)
    (previous / "id" / "person" / "gone.ttl").write_text("stale")
    build_site(settings, seed_store, previous)  # a previous site is replaced whole
    assert not (previous / "id" / "person" / "gone.ttl").exists() and (previous / MARKER).is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes", "site"]  # nothing left beside it


def test_a_second_build_of_a_directory_waits_for_the_first(seed_store, settings: Settings, tmp_path: Path) -> None:
    """Two builds of one directory at once: the second waits, then replaces the first's site (it
    used to fail to publish, "Directory not empty", and leave its whole build beside the site)."""
    import threading

    from kgprofiles.store.generations import writer_lock

    output, said, done = tmp_path / "site", list[str](), threading.Event()
    with writer_lock(output, command="kgprofiles site build", lock=static_site._site_lock(output)):
        second = threading.Thread(
            target=lambda: (build_site(settings, seed_store, output, on_wait=said.append), done.set())
        )
        second.start()
        time.sleep(0.5)
        assert not done.is_set() and not output.exists()  # waiting, nothing written yet
    second.join(timeout=60)
    assert done.is_set() and (output / MARKER).is_file()
    assert said == [f"waiting for `kgprofiles site build` (pid {os.getpid()}) to finish writing {output}…"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]  # no lock file, no build left beside it


def test_what_a_build_killed_outright_left_beside_the_site_is_removed(
    seed_store, settings: Settings, tmp_path: Path
) -> None:
    """A build killed outright (SIGKILL, a power cut) leaves its half-written site beside the
    output (16.8 GB at 100,000 people); the next build of that directory removes it, and nothing
    else beside it."""
    output = tmp_path / "site"
    for left in (".site.building-999999", ".site.old-999998"):
        (tmp_path / left / "id").mkdir(parents=True)
        (tmp_path / left / "id" / "page.html").write_text("half")
    (tmp_path / ".other.building-1").mkdir()  # another site's: not this build's to remove
    (tmp_path / ".site.old-backup").mkdir()  # not a build's (no pid): the user's
    build_site(settings, seed_store, output)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".other.building-1", ".site.old-backup", "site"]


def test_a_previous_site_is_replaced_in_one_step(
    seed_store, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The new site and the previous one are exchanged at once (renameat2 RENAME_EXCHANGE): no
    moment without a site at the output, which a web server may be serving (moved aside and then
    replaced, a kill between the two left none, and the next build removed the old one)."""
    output = tmp_path / "site"
    build_site(settings, seed_store, output)
    probes = (tmp_path / "probe-a", tmp_path / "probe-b")
    for probe in probes:
        probe.mkdir()
    if not static_site.exchange_directories(*probes):
        pytest.skip("this system cannot exchange two directories (renameat2 RENAME_EXCHANGE): moved aside instead")
    for probe in probes:
        probe.rmdir()
    (output / "stale.html").write_text("from the previous build")

    def no_move(self: Path, target: Path) -> Path:
        raise AssertionError(f"moved aside: {self} -> {target}")

    monkeypatch.setattr(Path, "rename", no_move)
    build_site(settings, seed_store, output)
    monkeypatch.undo()
    assert (output / MARKER).is_file() and not (output / "stale.html").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_a_site_that_cannot_be_published_leaves_its_build_nowhere(
    seed_store, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    output = tmp_path / "site"
    build_site(settings, seed_store, output)
    before = files_of(output)

    def refused(self: Path, target: Path) -> Path:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "rename", refused)
    monkeypatch.setattr(static_site, "exchange_directories", lambda a, b: False)  # (moved aside, then replaced)
    with pytest.raises(PermissionError):
        build_site(settings, seed_store, output)
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"] and files_of(output) == before


def test_a_directory_written_into_with_force_keeps_its_files_on_the_next_build(
    seed_store, settings: Settings, tmp_path: Path
) -> None:
    """--force writes into a directory of other files and leaves them: it is not made a site
    (no marker), so the next build does not take it for a previous site and replace it whole
    (deleting the other files: a build into data/ with --force, then one without, left the
    project with no data)."""
    mine = tmp_path / "notes"
    mine.mkdir()
    (mine / "todo.txt").write_text("mine")
    build_site(settings, seed_store, mine, force=True, data_forms=())
    assert not (mine / MARKER).exists()
    with pytest.raises(InputError, match="is not empty, and is not a site"):
        build_site(settings, seed_store, mine, data_forms=())
    build_site(settings, seed_store, mine, force=True, data_forms=())
    assert (mine / "todo.txt").read_text() == "mine" and (mine / "index.html").is_file()


def test_the_projects_data_and_store_are_never_an_output(seed_store, settings: Settings, tmp_path: Path) -> None:
    """Not even with --force: pages and whole-graph downloads written into data/ are data the
    next build loads, and a site replaced whole there would take the data with it."""
    data, store = tmp_path / "data", tmp_path / ".kgprofiles" / "store"
    (data / "people").mkdir(parents=True)
    (data / "people" / "a.ttl").write_text("# mine\n")
    (tmp_path / ".kgprofiles" / "store.generations").mkdir(parents=True)
    project = settings.with_overrides(data_dir=data, store=str(store))
    for output in (data, data / "people", data / "site", store, tmp_path / ".kgprofiles" / "store.generations"):
        with pytest.raises(InputError, match="the project's"):
            build_site(project, seed_store, output, force=True, data_forms=())
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == [
        ".kgprofiles",
        ".kgprofiles/store.generations",
        "data",
        "data/people",
        "data/people/a.ttl",
    ]


def test_an_output_through_a_symbolic_link_or_dot_dot_is_the_directory_it_names(
    seed_store, settings: Settings, tmp_path: Path
) -> None:
    """A link to the site (as a web server's document root often is) stays a link, and the site
    it points to is the one replaced; a path through a directory that does not exist and back
    (``new/..``) is its parent. Before, the link was replaced by a directory (the site it pointed
    to left as it was, the old link left beside it), a link to an empty directory failed with a
    whole site left beside it, and ``missing/..`` failed with one left in ``missing/``."""
    real = tmp_path / "real"
    build_site(settings, seed_store, real, data_forms=())
    (real / "stale.html").write_text("stale")
    link = tmp_path / "www"
    link.symlink_to(real)
    build_site(settings, seed_store, link, data_forms=())
    assert link.is_symlink() and (real / MARKER).is_file() and not (real / "stale.html").exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    (tmp_path / "to-empty").symlink_to(empty)
    build_site(settings, seed_store, tmp_path / "to-empty", data_forms=())
    assert (tmp_path / "to-empty").is_symlink() and (empty / MARKER).is_file()
    with pytest.raises(InputError, match="is not empty"):
        build_site(settings, seed_store, tmp_path / "missing" / "..", data_forms=())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "real", "to-empty", "www"]


def test_the_site_build_command(tmp_path: Path, seed_store_dir: Path) -> None:
    store = str(seed_store_dir)
    runner = CliRunner()
    result = runner.invoke(
        cli, ["--project", str(ROOT), "site", "build", "--store", store, "--output", str(tmp_path / "s")]
    )
    assert result.exit_code == 0, result.output
    assert re.search(r"site: \d+ page\(s\), \d+ file\(s\)", result.output)
    assert "site: pages" in result.output  # the progress module's lines (a bar on a terminal)
    refused = runner.invoke(cli, ["--project", str(ROOT), "site", "build", "--store", store, "--output", str(ROOT)])
    assert refused.exit_code == 2 and "--force" in refused.output


def test_the_search_runs_in_the_browser(http_server: str, tmp_path: Path) -> None:
    """Debian's Chromium (Playwright) on the static site: the search script finds the seed
    person by a paper and by a word of the headline, and its result leads to the page."""
    from playwright.sync_api import expect

    from web.browser import browser, screenshot_path

    with browser(tmp_path / "chromium-profile") as context:
        context.set_default_timeout(20_000)
        tab = context.new_page()
        errors: list[str] = []
        tab.on("pageerror", lambda error: errors.append(str(error)))
        tab.goto(http_server + "search/?q=flexatt")
        results = tab.locator("#search-results li a")
        expect(results).to_have_text(["FlexAttention", "Horace He"])
        tab.screenshot(path=screenshot_path("static-search.png"))
        tab.goto(http_server + "search/?q=COMPILERS")
        expect(results).to_have_text(["Horace He"])
        results.first.click()
        expect(tab.locator("h1")).to_have_text("Horace He")
        tab.goto(http_server + "search/?q=%22%3Cscript%3E")
        expect(tab.locator("#search-results p")).to_have_text('0 results for “"<script>”')
    assert errors == []


def test_a_process_remembers_a_bounded_number_of_directories(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every page has its own directory (1.7 million at 100,000 people): a writer remembers at
    most MADE_KEPT of those it made, and still writes every file."""
    monkeypatch.setattr(static_site, "MADE_KEPT", 10)
    writer = static_site._Writer(tmp_path)
    for n in range(95):
        writer.write(f"id/person/p{n:03d}/index.html", f"page {n}")
        writer.write(f"id/person/p{n:03d}.ttl", b"")
    assert len(writer.made) <= 10
    assert writer.files == 190 and len(list((tmp_path / "id" / "person").glob("p*/index.html"))) == 95
    assert (tmp_path / "id/person/p094/index.html").read_text() == "page 94"


def test_what_the_build_read_once_is_left_out_of_collections_while_pages_are_rendered(
    seed_store, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole-graph results (the related index: a million objects at 100,000 people) live to
    the end of the build: frozen out of the collector's reach (``gc.freeze``) before the pages
    are rendered (and workers forked), so full collections no longer walk them; thawed after. The
    collector runs less often while pages are rendered, and as before after."""
    import gc

    frozen_while_rendering, thresholds_while_rendering = [], set()
    render = static_site._Renderer.render

    def counting(self: static_site._Renderer, iris: list[str]) -> static_site._Batch:
        frozen_while_rendering.append(gc.get_freeze_count())
        thresholds_while_rendering.add(gc.get_threshold())
        return render(self, iris)

    monkeypatch.setattr(static_site._Renderer, "render", counting)
    assert gc.get_freeze_count() == 0
    before = gc.get_threshold()
    build_site(settings, seed_store, tmp_path / "out", jobs=1)
    assert frozen_while_rendering and min(frozen_while_rendering) > 1_000
    assert thresholds_while_rendering == {static_site.COLLECTOR_THRESHOLDS} != {before}
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == before


def test_a_resource_page_and_its_data_forms_read_its_description_once(
    seed_store, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A claim's page and its five data forms are made from one reading of its triples: the
    batch's, read before the pages (``Views.prefetch``)."""
    from kgprofiles.profiles import Views

    sent: list[str] = []
    select_rows = type(seed_store).select_rows
    monkeypatch.setattr(
        type(seed_store),
        "select_rows",
        lambda self, text, *a, **k: sent.append(text) or select_rows(self, text, *a, **k),
    )
    views = Views(seed_store, settings.queries_dir, stable=True)
    renderer = static_site._Renderer(settings, seed_store, views, tmp_path)
    batch = renderer.render(["https://w3id.org/kgprofiles/id/claim/horace-he-role-pytorch"])
    assert batch.pages == 1 and batch.files == 6
    assert len(sent) == 1 and "LATERAL" in sent[0] and "?blankLink" in sent[0]  # (resource-description.rq)
    page = (tmp_path / "id/claim/horace-he-role-pytorch/index.html").read_text(encoding="utf-8")
    assert "kgp:holder" in page and (tmp_path / "id/claim/horace-he-role-pytorch.ttl").stat().st_size > 100


def _half_a_message(fd: int) -> None:
    """What a worker killed while sending its result leaves in the result pipe: the header of a
    1,000-byte message and 3 of its bytes (then it waits to be killed)."""
    os.write(fd, struct.pack("!i", 1_000) + b"abc")
    time.sleep(60)


def test_workers_killed_while_sending_a_result_do_not_leave_the_pool_hanging() -> None:
    """A worker killed half-way through sending its result (Ctrl-C, SIGTERM at any moment) left
    the pool's manager thread waiting for the rest for ever, and the interpreter, which joins
    that thread as it exits, hanging after the command said it was interrupted."""
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
    future = pool.submit(_half_a_message, pool._result_queue._writer.fileno())
    manager = pool._executor_manager_thread
    assert manager is not None
    time.sleep(1.0)  # the manager thread has read the header and waits for the rest
    assert manager.is_alive()
    static_site._kill_workers(pool)
    manager.join(10)
    assert not manager.is_alive()
    with pytest.raises(BrokenProcessPool):
        future.result(timeout=5)


def test_a_pool_already_shut_down_is_stopped_without_an_error() -> None:
    """A pool already shut down (its table of processes gone) is stopped without an error. A
    build once shut its downloads' pool down while pages were still rendered, and Ctrl-C or
    SIGTERM after that stopped it with "internal error: AttributeError" (exit 70) instead of
    "stopped (SIGTERM); nothing was published"; builds now end a pool only once done with it."""
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
    assert pool.submit(sum, (1, 2)).result(timeout=10) == 3
    pool.shutdown()
    static_site._kill_workers(pool)  # (no error)


def test_a_resource_rdf_xml_cannot_write_has_no_rdf_file_and_no_link_to_one(
    seed_store_factory, settings: Settings, tmp_path: Path
) -> None:
    """A property whose IRI does not end in an XML name (``…/p/``) cannot be written as RDF/XML:
    that person's page offers the other forms only, and everyone else's keep theirs."""
    import pyoxigraph as ox

    from kgprofiles.vocab import file_graph_iri

    store = seed_store_factory()
    person = ox.NamedNode("https://w3id.org/kgprofiles/id/person/horace-he")
    graph = ox.NamedNode(file_graph_iri("people/horace-he.ttl"))
    store.store.add(ox.Quad(person, ox.NamedNode("http://example.org/p/"), ox.Literal("x"), graph))
    build_site(settings, store, tmp_path / "out")
    person_dir = tmp_path / "out" / "id" / "person"
    assert not (person_dir / "horace-he.rdf").exists() and (person_dir / "horace-he.ttl").exists()
    assert "horace-he.rdf" not in (person_dir / "horace-he" / "index.html").read_text(encoding="utf-8")
    assert (person_dir / "jane-xu.rdf").exists()


def test_the_data_forms_asked_for_are_the_only_ones_written_and_linked(
    site: Path, seed_store, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--data-forms ttl,nq``: a Turtle and an N-Quads file beside each page and links to those
    two only; ``none``: no data file, no link to one, and no resource's data read at all. The
    pages are otherwise the full site's, and every link of the site without data forms resolves."""
    alternate = re.compile(r'<link rel="alternate" type="[^"]+" href="[^"]+">\n?')
    form_link = re.compile(r'<a href="[^"]+\.(?:ttl|jsonld|nt)">(?:Turtle|JSON-LD|N-Triples)</a>')

    def without_data_links(files: dict[str, bytes]) -> dict[str, str]:
        return {
            path: form_link.sub("", alternate.sub("", html.decode())).replace('<p class="formats">Data: </p>', "")
            for path, html in files.items()
            if path.endswith(".html") and path != "downloads/index.html"
        }

    build_site(settings, seed_store, tmp_path / "two", data_forms=("ttl", "nq"))
    two = files_of(tmp_path / "two")
    assert {Path(path).suffix for path in two if path.startswith("id/") and not path.endswith(".html")} == {
        ".ttl",
        ".nq",
    }
    person = two["id/person/horace-he/index.html"].decode()
    assert alternate.findall(person) == [
        '<link rel="alternate" type="text/turtle" href="../../../id/person/horace-he.ttl">\n',
        '<link rel="alternate" type="application/n-quads" href="../../../id/person/horace-he.nq">\n',
    ]
    assert form_link.findall(person) == ['<a href="../../../id/person/horace-he.ttl">Turtle</a>']
    assert two["id/person/horace-he.nq"] == files_of(site)["id/person/horace-he.nq"]
    assert "add <code>.ttl</code>, <code>.nq</code> to its page" in two["downloads/index.html"].decode()

    def refused(*args: object) -> None:
        raise AssertionError("a resource's data was read for no data form")

    monkeypatch.setattr(static_site, "data", refused)
    build_site(settings, seed_store, tmp_path / "none", data_forms=())
    none = files_of(tmp_path / "none")
    assert not [path for path in none if path.startswith("id/") and not path.endswith("/index.html")]
    assert not [
        path for path, html in none.items() if alternate.search(html.decode()) or form_link.search(html.decode())
    ]
    assert "One resource" not in none["downloads/index.html"].decode()
    assert without_data_links(none) == without_data_links(two) == without_data_links(files_of(site))
    for path, html in none.items():  # every relative link of every page is a file or a page of the site
        for href in _LINK.findall(html.decode()) if path.endswith(".html") else ():
            if "://" not in href and not href.startswith(("#", "mailto:", "?")):
                target = (tmp_path / "none" / path).parent / href.split("#", 1)[0].split("?", 1)[0]
                assert target.is_file() or (target / "index.html").is_file(), (path, href)


def test_an_unknown_data_form_is_refused_before_anything_is_opened(settings: Settings, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli,
        [
            "--project",
            str(ROOT),
            "site",
            "build",
            "--store",
            str(tmp_path / "none"),
            "-o",
            str(tmp_path / "s"),
            "--data-forms",
            "ttl,xml",
        ],
    )
    assert result.exit_code == 2 and "no data form xml" in result.output and "ttl, jsonld, nt, nq, rdf" in result.output
    assert not (tmp_path / "s").exists()
    with pytest.raises(InputError, match="no data form owl"):
        build_site(settings, None, tmp_path / "s", data_forms=("owl",))  # type: ignore[arg-type]


def test_why_pages_are_rendered_near_their_colleagues(
    seed_store, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The "Why?" pages go out in order of their person's home organisation (then IRI), not in the
    order they were found: a process then has the profiles of the people they name in memory."""
    handed: list[str] = []
    render = static_site._Renderer.render

    def recording(self: static_site._Renderer, iris: list[str]) -> static_site._Batch:
        handed.extend(iri for iri in iris if "/related/" in iri)
        return render(self, iris)

    monkeypatch.setattr(static_site._Renderer, "render", recording)
    build_site(settings, seed_store, tmp_path / "out", jobs=1)
    index = RelatedIndex(seed_store, load_queries(settings.queries_dir))
    homes = [index.home_organization(why.split("/related/")[0]) for why in handed]
    assert len(handed) > 20 and len(set(homes)) > 1  # (people of more than one organisation)
    pairs = list(zip(homes, handed, strict=True))
    assert pairs == sorted(pairs)
    assert handed != sorted(handed)  # (not merely in IRI order)
