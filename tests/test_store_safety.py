"""The store is never lost or corrupted: readers never write, one writer at a time, generations are
immutable once published, and a killed writer leaves the store as it was. Real processes, real
signals; every loop bounded in count and time."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import pyoxigraph as ox
import pytest
from typer.testing import CliRunner

from conftest import examples
from kgprofiles.cli import app
from kgprofiles.config import Settings
from kgprofiles.errors import StoreError
from kgprofiles.pipeline import WriteOptions, build, load
from kgprofiles.store import generations
from kgprofiles.store.generations import StoreBusy
from kgprofiles.store.oxigraph import OxigraphStore
from kgprofiles.store.writer import GenerationWriter

ROOT = Path(__file__).resolve().parents[1]
DRIVER = ROOT / "tests" / "store_driver.py"
ONE, TWO = '"Inference and serving"', '"Inference & serving"'
runner = CliRunner()


# -- fixtures and helpers -----------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path, settings: Settings) -> Settings:
    """A copy of the seed data with its store in a temporary directory, and two edited copies of
    it: one with a topic renamed (data-renamed/), one with a person renamed (data-jane/)."""
    shutil.copytree(ROOT / "data", tmp_path / "data")
    for name, relative, before, after in (
        ("data-renamed", "topics/topics.ttl", ONE, TWO),
        ("data-jane", "people/jane-xu.ttl", '"Jane Xu"', '"Jane Q. Xu"'),
    ):
        shutil.copytree(tmp_path / "data", tmp_path / name)
        path = tmp_path / name / relative
        text = path.read_text(encoding="utf-8")
        assert before in text
        path.write_text(text.replace(before, after), encoding="utf-8")
    return settings.with_overrides(data_dir=tmp_path / "data", store=str(tmp_path / "store"))


def renamed_data(project: Settings) -> Path:
    """A whole data directory whose build gives the renamed state."""
    return project.data_dir.parent / "data-renamed"


def renamed(project: Settings) -> Path:
    """The topics file with one topic renamed: loading it is a change readers can see."""
    return renamed_data(project) / "topics" / "topics.ttl"


def load_renamed(project: Settings, **options: object) -> None:
    """Load the renamed topics file into the project's store (in this process)."""
    load(project.with_overrides(data_dir=renamed_data(project)), [renamed(project)], **options)  # type: ignore[arg-type]


def dump(store: str) -> list[str]:
    """Every quad of the published store, sorted: equal lists mean equal stores."""
    reader = OxigraphStore(store, read_only=True)
    try:
        return sorted(str(q) for q in reader.quads())
    finally:
        reader.close()


def kgprofiles(*args: str) -> list[str]:
    return [sys.executable, "-m", "kgprofiles", "--project", str(ROOT), *args]


class Driver:
    """A real kgprofiles process taking store commands on stdin (tests/store_driver.py)."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(DRIVER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.ready = False

    def wait_ready(self) -> Driver:
        if not self.ready:
            line = self.process.stdout.readline()  # type: ignore[union-attr]
            assert line.strip() == "READY", line + self.process.stderr.read()  # type: ignore[union-attr]
            self.ready = True
        return self

    def send(self, *words: str) -> None:
        self.wait_ready()
        self.process.stdin.write(" ".join(words) + "\n")  # type: ignore[union-attr]
        self.process.stdin.flush()  # type: ignore[union-attr]

    def answer(self) -> str:
        line = self.process.stdout.readline()  # type: ignore[union-attr]
        assert line, "the driver died: " + self.process.stderr.read()  # type: ignore[union-attr]
        return line.strip()

    def ask(self, *words: str) -> str:
        self.send(*words)
        return self.answer()

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=30)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.close()  # type: ignore[union-attr]
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()


def start_server(store: str) -> tuple[subprocess.Popen[str], str]:
    with __import__("socket").socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        kgprofiles("serve", "--store", store, "--port", str(port)), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(base + "/", timeout=2)
            return process, base
        except httpx.TransportError:
            assert process.poll() is None, process.stderr.read()  # type: ignore[union-attr]
            assert time.monotonic() < deadline, "the server did not answer"
            time.sleep(0.1)


def topic_names_over_http(base: str) -> set[str]:
    answer = httpx.get(
        base + "/sparql", params={"query": "SELECT ?n WHERE { ?t a kgp:Topic ; kgp:name ?n }"}, timeout=10
    )
    assert answer.status_code == 200, answer.text
    return {b["n"]["value"] for b in answer.json()["results"]["bindings"]}


def every_read_command_works(project: Settings) -> None:
    """profile, related, org, topic, people, query and export all answer from the store."""
    common = ["--project", str(ROOT)]
    store = ["--store", project.store]
    for command in (
        ["profile", "horace-he"],
        ["related", "horace-he"],
        ["org", "pytorch"],
        ["topic", "inference-and-serving"],
        ["people"],
        ["query", "-e", "ASK { ?s ?p ?o }"],
        ["export", "--format", "nq"],
    ):
        result = runner.invoke(app, [*common, *command, *store])
        assert result.exit_code == 0, (command, result.output)


# -- the everyday workflow ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("second", "stop"),
    [("build", signal.SIGINT), ("build", signal.SIGKILL), ("load", signal.SIGINT)],
    ids=["build-then-sigint", "build-then-sigkill", "load-then-sigint"],
)
def test_build_serve_write_stop_then_every_reader_works(
    project: Settings, tmp_path: Path, second: str, stop: signal.Signals
) -> None:
    """build; serve; build (or load) after an edit; stop the server: the store opens, every read
    command works, the server saw the new generation, and the store equals a fresh build's."""
    build(project)
    server, base = start_server(project.store)
    try:
        assert topic_names_over_http(base) >= {ONE.strip('"')}
        if second == "build":
            shutil.copy(renamed(project), project.data_dir / "topics" / "topics.ttl")
            done = subprocess.run(kgprofiles("build", "-q", "--store", project.store), env=_data_env(project))
        else:
            done = subprocess.run(
                kgprofiles("load", "-q", str(renamed(project)), "--store", project.store),
                env={**os.environ, "KGPROFILES_DATA": str(renamed_data(project))},
            )
        assert done.returncode == 0
        deadline = time.monotonic() + 10
        while TWO.strip('"') not in topic_names_over_http(base):  # the server follows the new generation
            assert time.monotonic() < deadline, "the server kept serving the old generation"
            time.sleep(0.1)
    finally:
        server.send_signal(stop)
        server.wait(timeout=30)
    every_read_command_works(project)
    fresh = project.with_overrides(data_dir=renamed_data(project), store=str(tmp_path / "fresh"))
    build(fresh)
    assert dump(project.store) == dump(fresh.store)
    check = runner.invoke(app, ["--project", str(ROOT), "store", "check", "--store", project.store])
    assert check.exit_code == 0 and "published" in check.output and "good" in check.output, check.output


def _data_env(project: Settings) -> dict[str, str]:
    return {**os.environ, "KGPROFILES_DATA": str(project.data_dir)}


# -- one writer at a time -----------------------------------------------------------------------


def test_a_second_writer_waits_and_says_for_whom(project: Settings) -> None:
    build(project)
    messages: list[str] = []
    with GenerationWriter(project.store, command="kgprofiles build"):
        waiting = threading.Thread(
            target=load_renamed,
            args=(project,),
            kwargs={"writing": WriteOptions(on_wait=messages.append, command="kgprofiles load")},
        )
        waiting.start()
        waiting.join(timeout=2)
        assert waiting.is_alive(), "the load did not wait for the writer"
        assert messages and "kgprofiles build" in messages[0] and f"pid {os.getpid()}" in messages[0]
    waiting.join(timeout=30)
    assert TWO in " ".join(dump(project.store))


def test_no_wait_fails_at_once_with_exit_3_and_no_traceback(project: Settings) -> None:
    build(project)
    with GenerationWriter(project.store, command="kgprofiles build"):
        with pytest.raises(StoreBusy, match="kgprofiles build"):
            load_renamed(project, writing=WriteOptions(wait=False))
        done = subprocess.run(
            kgprofiles("load", "--no-wait", str(renamed(project)), "--store", project.store),
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "KGPROFILES_DATA": str(renamed_data(project))},
        )
    assert done.returncode == 3, done.stderr
    assert "another process is writing the store" in done.stderr and "Traceback" not in done.stderr


WRITER_PAIRS = ["build+build", "build+load", "load+load"]


def test_two_writers_started_together_leave_one_of_the_outcomes(project: Settings) -> None:
    """Races with random start offsets between two real processes (6 under the ci profile, two of
    each pair; 60 nightly): both writes happen, one
    after the other, and the store holds exactly what running them in some order gives."""
    build(project)
    base = OxigraphStore(project.store, read_only=True)  # its lease keeps the base generation
    outcomes = _sequential_outcomes(project)
    rng = random.Random(13)
    first, second = Driver(), Driver()
    try:
        for iteration in range(examples(6)):
            pair = WRITER_PAIRS[iteration % len(WRITER_PAIRS)]
            _reset(project, Path(base.location))
            commands = [_command(project, kind, n) for n, kind in enumerate(pair.split("+"))]
            first.wait_ready()
            second.wait_ready()
            first.send(*commands[0])
            time.sleep(rng.uniform(0, 0.6))
            second.send(*commands[1])
            answers = (first.answer(), second.answer())
            assert all(a.startswith("OK") for a in answers), (pair, answers)
            assert dump(project.store) in outcomes[pair], f"iteration {iteration} ({pair}): not a sequential outcome"
            assert not list(generations.generations_dir(Path(project.store)).glob("*.building"))
    finally:
        first.close()
        second.close()
        base.close()


def _command(project: Settings, kind: str, n: int) -> list[str]:
    """The n-th writer's command: builds of the two data versions, loads of two different files."""
    if kind == "build":
        data = project.data_dir if n == 0 else renamed_data(project)
        return ["build", str(ROOT), str(data), project.store]
    if n == 0:
        return ["load", str(ROOT), str(renamed_data(project)), str(renamed(project)), project.store]
    jane = project.data_dir.parent / "data-jane"
    return ["load", str(ROOT), str(jane), str(jane / "people" / "jane-xu.ttl"), project.store]


def _reset(project: Settings, base: Path) -> None:
    """Publish the base generation again (kept by a reader's lease): cheaper than a build."""
    with GenerationWriter(project.store):
        generations.point(Path(project.store), base)


def _sequential_outcomes(project: Settings) -> dict[str, list[list[str]]]:
    """For each pair of writers, the stores that running them one after the other gives. Writer 0
    builds the base data or loads the renamed topic; writer 1 builds the renamed-topic data or
    loads the renamed person."""
    base = dump(project.store)
    jane = project.data_dir.parent / "data-jane"
    states = {}
    for name, data in (("topic", renamed_data(project)), ("jane", jane)):
        scratch = project.with_overrides(store=f"{project.store}-{name}", data_dir=data)
        build(scratch)
        states[name] = dump(scratch.store)
    load(scratch.with_overrides(data_dir=renamed_data(project)), [renamed(project)])  # jane, then the topic
    both = dump(scratch.store)
    return {
        "build+build": [base, states["topic"]],
        "build+load": [states["jane"], base],
        "load+load": [both],
    }


# -- readers beside writers ---------------------------------------------------------------------


#: The readers' pause between reads: dozens of reads a write, and the CPU left to the writer (and
#: to the rest of the suite) instead of spinning.
PACE = 0.02


def test_readers_see_only_complete_generations_during_builds_and_loads(project: Settings, tmp_path: Path) -> None:
    """A server and a CLI reader read in loops while builds and loads (3 of each in ci) alternate between two
    states: no reader ever fails, and every answer is one of the two states, whole."""
    build(project)
    state_one = _read_state(project.store)
    load_renamed(project)
    state_two = _read_state(project.store)
    assert state_one != state_two
    build(project)
    server, base = start_server(project.store)
    stop = threading.Event()
    seen: dict[str, list[object]] = {"http": [], "cli": [], "errors": []}

    def http_reader() -> None:
        while not stop.is_set():
            try:
                query = "SELECT (COUNT(*) AS ?n) (GROUP_CONCAT(?t; separator='|') AS ?names) WHERE { "
                query += "{ SELECT ?t WHERE { ?x a kgp:Topic ; kgp:name ?t } ORDER BY ?t } }"
                answer = httpx.get(base + "/sparql", params={"query": query}, timeout=10)
                assert answer.status_code == 200, answer.text
                seen["http"].append(answer.json()["results"]["bindings"][0]["names"]["value"])
            except Exception as exc:  # recorded, then asserted on below
                seen["errors"].append(f"http: {exc!r}")
            stop.wait(PACE)

    def cli_reader(driver: Driver) -> None:
        while not stop.is_set():
            answer = driver.ask("read", str(ROOT), project.store)
            (seen["cli"] if answer.startswith("OK") else seen["errors"]).append(answer)
            stop.wait(PACE)

    reader = Driver()
    threads = [threading.Thread(target=http_reader), threading.Thread(target=cli_reader, args=(reader.wait_ready(),))]
    writer = Driver()
    try:
        for thread in threads:
            thread.start()
        for _ in range(examples(3)):
            assert writer.ask(*_command(project, "load", 0)).startswith("OK")
            assert writer.ask("build", str(ROOT), str(project.data_dir), project.store).startswith("OK")
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=60)
        writer.close()
        reader.close()
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)
    assert seen["errors"] == []
    assert seen["cli"] and seen["http"]
    assert {a.removeprefix("OK ") for a in seen["cli"]} <= {state_one, state_two}  # type: ignore[union-attr]
    names = {state_one.split(" ", 1)[1], state_two.split(" ", 1)[1]}
    assert set(seen["http"]) <= names  # type: ignore[arg-type]
    check = runner.invoke(app, ["--project", str(ROOT), "store", "gc", "--store", project.store])
    assert check.exit_code == 0, check.output
    assert len(generations.generation_dirs(Path(project.store))) == 1


def _read_state(store: str) -> str:
    sys.path.insert(0, str(DRIVER.parent))
    try:
        from store_driver import read
    finally:
        sys.path.remove(str(DRIVER.parent))
    return read(str(ROOT), store)


# -- killed writers -----------------------------------------------------------------------------


def test_a_load_killed_at_random_moments_leaves_the_old_or_the_new_store(project: Settings, tmp_path: Path) -> None:
    """Loads SIGKILLed at random moments (8 in ci, 80 nightly) (some before they start, some after they finish): the
    store opens every time and holds exactly the old or the new content."""
    build(project)
    old = dump(project.store)
    new_store = project.with_overrides(store=str(tmp_path / "new"))
    build(new_store)
    load_renamed(new_store)
    new = dump(new_store.store)
    rng = random.Random(1313)
    started = time.monotonic()
    driver = Driver().wait_ready()
    _, duration = _timed_load(driver, project)
    outcomes = {"old": 0, "new": 0}
    build(project)
    base = OxigraphStore(project.store, read_only=True)  # its lease keeps the old generation
    next_driver = Driver()
    for _ in range(examples(8)):
        driver, next_driver = next_driver.wait_ready(), Driver()
        driver.send(*_command(project, "load", 0))
        time.sleep(rng.uniform(0, duration * 1.2))
        driver.kill()
        now = dump(project.store)
        assert now in (old, new)
        outcomes["old" if now == old else "new"] += 1
        if now == new:
            _reset(project, Path(base.location))
    next_driver.kill()
    base.close()
    assert time.monotonic() - started < 240
    assert outcomes["old"] > 0  # the kills did land before the switch; "new" may be 0 on a fast machine
    health = runner.invoke(app, ["--project", str(ROOT), "store", "check", "--store", project.store])
    assert health.exit_code == 0, health.output


def _timed_load(driver: Driver, project: Settings) -> tuple[str, float]:
    started = time.monotonic()
    answer = driver.ask(*_command(project, "load", 0))
    assert answer.startswith("OK"), answer
    return answer, time.monotonic() - started


def test_a_writer_killed_between_publishing_steps_leaves_a_good_store(project: Settings) -> None:
    """Killed after the new generation is renamed into place but before the link moves: readers
    still get the old store; the next writer and `store gc` clean up."""
    build(project)
    old = dump(project.store)
    hang = (
        "import sys, time\n"
        "from kgprofiles.store import generations\n"
        "def hang(store_path, generation):\n"
        "    print('RENAMED', flush=True); time.sleep(600)\n"
        "generations.point = hang\n"
        "from pathlib import Path\n"
        "from kgprofiles.config import load_settings\n"
        "from kgprofiles.pipeline import load\n"
        f"settings = load_settings(Path({str(ROOT)!r}), store={project.store!r}, "
        f"data_dir=Path({str(renamed_data(project))!r}))\n"
        f"load(settings, [Path({str(renamed(project))!r})])\n"
    )
    child = subprocess.Popen([sys.executable, "-c", hang], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "RENAMED"  # type: ignore[union-attr]
    finally:
        child.kill()
        child.wait(timeout=30)
    assert dump(project.store) == old
    every_read_command_works(project)
    gc = runner.invoke(app, ["--project", str(ROOT), "store", "gc", "--store", project.store])
    assert gc.exit_code == 0 and "removed" in gc.output, gc.output
    assert [p.name for p in generations.generation_dirs(Path(project.store))] == [
        generations.current(Path(project.store)).name  # type: ignore[union-attr]
    ]


# -- the rules, one by one ----------------------------------------------------------------------


def test_a_published_store_is_never_opened_for_writing(project: Settings) -> None:
    build(project)
    with pytest.raises(Exception, match="never written in place"):
        OxigraphStore(project.store)


def test_a_reader_keeps_its_generation_while_newer_ones_are_published(project: Settings) -> None:
    build(project)
    reader = OxigraphStore(project.store, read_only=True)
    try:
        held = Path(reader.location)
        for _ in range(3):
            load_renamed(project)
            build(project)
        assert held.is_dir() and generations.current(Path(project.store)) != held
        assert reader.query("ASK { ?t kgp:name " + ONE + " }") is True
    finally:
        reader.close()
    generations.collect_garbage(Path(project.store))
    assert not held.exists()


def test_reading_never_changes_a_generation(project: Settings) -> None:
    build(project)
    generation = generations.current(Path(project.store))
    assert generation is not None
    before = {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in generation.iterdir()}
    every_read_command_works(project)
    after = {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in generation.iterdir()}
    assert after == before


def test_store_check_names_a_good_generation_when_the_published_one_is_broken(project: Settings) -> None:
    build(project)
    reader = OxigraphStore(project.store, read_only=True)  # keeps the first generation from gc
    good = Path(reader.location).name
    load_renamed(project)
    published = generations.current(Path(project.store))
    assert published is not None
    for sst in published.glob("*.sst"):  # a disk that lost the new data files
        sst.unlink()
    result = runner.invoke(app, ["--project", str(ROOT), "store", "check", "--store", project.store])
    reader.close()
    assert result.exit_code == 3, result.output
    assert "BROKEN" in result.output and f"kgprofiles store use {good}" in result.output
    used = runner.invoke(app, ["--project", str(ROOT), "store", "use", good, "--store", project.store])
    assert used.exit_code == 0, used.output
    assert ONE in " ".join(dump(project.store))


def test_store_commands_without_a_store_say_so(tmp_path: Path) -> None:
    result = runner.invoke(app, ["--project", str(ROOT), "store", "check", "--store", str(tmp_path / "none")])
    assert result.exit_code == 3 and "no store at" in result.output


def test_a_generation_still_open_in_this_process_is_never_published(project: Settings) -> None:
    """The corruption of issue 13 came from a process writing into a directory after it was
    published; a writer refuses to publish a generation it still has open."""
    build(project)
    before = dump(project.store)
    with GenerationWriter(project.store) as writer:
        fresh = writer.fresh()
        fresh.update("INSERT DATA { GRAPH <urn:g> { <urn:a> <urn:b> 'c' } }")
        leaked = ox.Store.read_only(fresh.location)  # a second handle, not closed
        with pytest.raises(Exception, match="still open in this process"):
            writer.publish(fresh)
        del leaked
    assert dump(project.store) == before


TWO_INT = '"2"^^<http://www.w3.org/2001/XMLSchema#integer>'


def publish_tiny(store: Path, value: int) -> None:
    """A generation of one quad published (no build: the store's mechanics alone)."""
    with GenerationWriter(str(store)) as writer:
        fresh = writer.fresh()
        fresh.update(f"INSERT DATA {{ GRAPH <urn:g> {{ <urn:a> <urn:b> {value} }} }}")
        writer.publish(fresh)


def test_generations_moved_elsewhere_and_linked_back_keep_the_published_one(tmp_path: Path) -> None:
    """store.generations as a link to another disk: the published generation was taken for an old
    one (its path compared with the link's resolved target), so `store check` found none published
    (exit 3), and `store gc`, and every build, removed the one just published: the store was gone."""
    store = tmp_path / "project" / "store"
    store.parent.mkdir()
    elsewhere = tmp_path / "disk" / "generations"
    elsewhere.mkdir(parents=True)
    generations.generations_dir(store).symlink_to(elsewhere)
    publish_tiny(store, 1)
    publish_tiny(store, 2)  # (the first removed by its publishing: no reader holds it)
    assert dump(str(store)) == [f"<urn:a> <urn:b> {TWO_INT} <urn:g>"]
    checked = runner.invoke(app, ["--project", str(ROOT), "store", "check", "--store", str(store)])
    assert checked.exit_code == 0 and checked.output.startswith("published "), checked.output
    collected = runner.invoke(app, ["--project", str(ROOT), "store", "gc", "--store", str(store)])
    assert collected.exit_code == 0 and "removed" not in collected.output, collected.output
    assert dump(str(store)) == [f"<urn:a> <urn:b> {TWO_INT} <urn:g>"]


def test_a_stray_link_or_file_among_the_generations_is_left_and_never_followed(tmp_path: Path) -> None:
    """A link to a directory elsewhere (or to nothing) and a file beside the generations: gc
    removed the link's name and then failed on it, "cannot remove …: Cannot call rmtree on a
    symbolic link", on every gc and every build after it; what it points to is never touched."""
    store = tmp_path / "store"
    publish_tiny(store, 1)
    outside = tmp_path / "outside"
    (outside / "keep").mkdir(parents=True)
    (outside / "keep" / "f").write_text("mine")
    base = generations.generations_dir(store)
    (base / "linked").symlink_to(outside)
    (base / "dangling").symlink_to(tmp_path / "nothing")
    (base / "notes.txt").write_text("mine")
    for _ in range(2):
        collected = runner.invoke(app, ["--project", str(ROOT), "store", "gc", "--store", str(store)])
        assert collected.exit_code == 0, collected.output
        publish_tiny(store, 2)
    assert (outside / "keep" / "f").read_text() == "mine" and (base / "notes.txt").read_text() == "mine"
    checked = runner.invoke(app, ["--project", str(ROOT), "store", "check", "--store", str(store)])
    assert checked.exit_code == 0 and "linked" not in checked.output, checked.output
    assert dump(str(store)) == [f"<urn:a> <urn:b> {TWO_INT} <urn:g>"]


def test_a_new_generation_that_cannot_be_opened_is_removed_at_once(tmp_path: Path) -> None:
    """A full disk (here a file-size limit, RLIMIT_FSIZE, in a child) fails RocksDB's open of the
    new generation (its OPTIONS file cannot be written): the ``.building`` directory was left
    beside the store until the next writer, by ``build`` (``fresh``) and ``load``
    (``copy_of_current``) alike."""
    link = tmp_path / "store"
    with GenerationWriter(link) as writer:
        store = writer.fresh()
        store.update("INSERT DATA { GRAPH <http://example.org/g> { <http://example.org/a> a <http://example.org/T> } }")
        published = writer.publish(store)
    child = (
        "import resource, signal, sys\n"
        "from kgprofiles.errors import StoreError\n"
        "from kgprofiles.store.writer import GenerationWriter\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))\n"
        "for how in ('fresh', 'copy_of_current'):\n"
        f"    with GenerationWriter({str(link)!r}) as writer:\n"
        "        try:\n"
        "            getattr(writer, how)()\n"
        "        except StoreError as exc:\n"
        "            print(how, 'refused', (exc.hint or '')[:38])\n"
        "        else:\n"
        "            print(how, 'opened')\n"
        "        sys.stdout.flush()\n"
    )
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [  # (the hint: the published store is fine)
        "fresh refused nothing was published, the store is as",
        "copy_of_current refused nothing was published, the store is as",
    ], done.stdout
    base = generations.generations_dir(link)
    assert sorted(p.name for p in base.iterdir()) == [published.name, published.name + ".lease"]
    assert generations.current(link) == published


def test_a_store_another_user_built_is_read_without_writing_to_it() -> None:
    """A store built by one user and read by another who may not write its directory (a site
    served by www-data, built by a deploy user): every read failed, "system error: Permission
    denied (….lease)", as a reader opened (or created) its generation's lease file for writing.
    Run as root, the reader is a child that runs as the user nobody (setpriv)."""
    base = Path(tempfile.mkdtemp(prefix="kgprofiles-test-readonly-"))  # (not tmp_path: nobody must reach it)
    try:
        base.chmod(0o755)
        link = base / "store"
        with GenerationWriter(link) as writer:
            store = writer.fresh()
            store.update(
                "INSERT DATA { GRAPH <http://example.org/g> { <http://example.org/a> a <http://example.org/T> } }"
            )
            writer.publish(store)
        for folder, _, names in os.walk(base):  # read-only for its owner too (a reader not root)
            for name in names:
                os.chmod(os.path.join(folder, name), 0o444)
            os.chmod(folder, 0o555)

        as_another = []
        if os.geteuid() == 0:
            setpriv = shutil.which("setpriv")
            if setpriv is None:
                pytest.skip("run as root, and no setpriv to read the store as another user")
            as_another = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
        reader = (
            "from kgprofiles.store.oxigraph import OxigraphStore\n"
            f"store = OxigraphStore({str(link)!r}, read_only=True)\n"
            "print(store.query('ASK { GRAPH ?g { <http://example.org/a> a <http://example.org/T> } }'))\n"
            "store.close()\n"
        )
        done = subprocess.run(
            [*as_another, sys.executable, "-c", reader],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},
        )
        assert done.returncode == 0 and done.stdout.strip() == "True", done.stderr
    finally:
        for folder, _, _ in os.walk(base):
            os.chmod(folder, 0o755)
        shutil.rmtree(base, ignore_errors=True)


def test_a_directory_or_file_that_is_not_a_store_is_never_taken_for_one(project: Settings, tmp_path: Path) -> None:
    """--store (or ``Project(store=…)``) naming a directory of the user's own, or a file: a build
    "adopted" it as a store from before generations, moved it among the generations and, as
    every publish removes the generations no reader holds, deleted the directory with
    everything in it (``store=""`` is the current directory). It is refused, and left as it was."""
    mine = tmp_path / "thesis"
    (mine / "chapters").mkdir(parents=True)
    (mine / "chapters" / "one.tex").write_text("mine")
    with pytest.raises(StoreError, match="not a kgprofiles store") as refused:
        build(project.with_overrides(store=str(mine)))
    assert refused.value.hint is not None and "another path" in refused.value.hint
    assert (mine / "chapters" / "one.tex").read_text() == "mine" and not mine.is_symlink()
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    for write in (build, lambda settings: load(settings, [project.data_dir / "people" / "jane-xu.ttl"])):
        with pytest.raises(StoreError, match="not a kgprofiles store"):
            write(project.with_overrides(store=str(notes)))
    assert notes.read_text() == "mine" and not notes.is_symlink()


def test_a_store_from_before_generations_is_adopted_and_rebuilt(project: Settings, tmp_path: Path) -> None:
    """A plain pyoxigraph directory (what kgprofiles wrote before generations) is still taken in."""
    legacy = tmp_path / "legacy-store"
    old = ox.Store(str(legacy))
    old.add(ox.Quad(ox.NamedNode("urn:a"), ox.NamedNode("urn:b"), ox.Literal("c"), ox.NamedNode("urn:g")))
    old.flush()
    del old
    settings = project.with_overrides(store=str(legacy))
    build(settings)
    assert legacy.is_symlink() and "<urn:a>" not in " ".join(dump(str(legacy)))


# -- gc beside a writer that publishes ----------------------------------------------------------


def test_gc_while_a_writer_publishes_never_removes_the_new_generation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`store gc` run between a publish's rename of the new generation and its switch of the link
    (the generation neither building nor published, no reader on it): gc removed it, the link
    was switched to nothing, and the publish's own gc then removed the previous generation: the
    store was gone (`store check`: "points at no generation"), the writer saying it succeeded."""
    store = tmp_path / "store"
    publish_tiny(store, 1)
    real_point = generations.point
    collected: list[str] = []

    def gc_then_point(store_path: Path, generation: Path) -> None:
        result = runner.invoke(app, ["--project", str(ROOT), "store", "gc", "--store", str(store)])
        collected.append(result.output)
        real_point(store_path, generation)

    monkeypatch.setattr(generations, "point", gc_then_point)
    publish_tiny(store, 2)
    monkeypatch.setattr(generations, "point", real_point)
    assert collected and "removed" not in collected[0], collected
    assert dump(str(store)) == [f"<urn:a> <urn:b> {TWO_INT} <urn:g>"]
    checked = runner.invoke(app, ["--project", str(ROOT), "store", "check", "--store", str(store)])
    assert checked.exit_code == 0, checked.output


def test_a_gc_that_read_the_link_before_a_publish_never_removes_the_published_generation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gc reads which generation is published once, then walks the generations: a publish in
    between (the link switched to a generation gc then reaches) had gc remove the published one."""
    store = tmp_path / "store"
    publish_tiny(store, 1)
    old = generations.current(store)
    reader = OxigraphStore(str(store), read_only=True)  # keeps the old generation
    try:
        publish_tiny(store, 2)
        new = generations.current(store)
        assert new is not None and new != old
        real_current = generations.current
        calls = iter([old])  # the first look (gc's view before the publish) sees the old link

        def stale_once(path: Path) -> Path | None:
            return next(calls, None) or real_current(path)

        monkeypatch.setattr(generations, "current", stale_once)
        collected = generations.collect_garbage(store)
        monkeypatch.setattr(generations, "current", real_current)
        assert new.name not in collected.removed and new.is_dir(), collected
    finally:
        reader.close()
    assert dump(str(store)) == [f"<urn:a> <urn:b> {TWO_INT} <urn:g>"]


def test_store_use_beside_gc_publishes_the_generation_it_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`store use G` checks G, then points the link at it; a `store gc` in between (G neither
    published nor read) removed G, and the link pointed at nothing."""
    store = tmp_path / "store"
    publish_tiny(store, 1)
    reader = OxigraphStore(str(store), read_only=True)  # keeps the first generation
    first = Path(reader.location).name
    publish_tiny(store, 2)
    reader.close()
    real_point = generations.point

    def gc_then_point(store_path: Path, generation: Path) -> None:
        generations.collect_garbage(store_path)  # what `store gc` does beside a writer
        real_point(store_path, generation)

    monkeypatch.setattr(generations, "point", gc_then_point)
    used = runner.invoke(app, ["--project", str(ROOT), "store", "use", first, "--store", str(store)])
    monkeypatch.setattr(generations, "point", real_point)
    assert used.exit_code == 0, used.output
    assert dump(str(store)) == ['<urn:a> <urn:b> "1"^^<http://www.w3.org/2001/XMLSchema#integer> <urn:g>']


def test_two_gcs_removing_the_same_generation_both_succeed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A publish's gc and a `store gc` (or two of them) walk the same old generation: the second,
    having seen it a moment before the first removed it, failed renaming it ("No such file or
    directory"): `store gc` exited 3, and a build or load that had just published said it failed."""
    store = tmp_path / "store"
    publish_tiny(store, 1)
    reader = OxigraphStore(str(store), read_only=True)  # keeps the first generation until now
    old = Path(reader.location)
    publish_tiny(store, 2)
    reader.close()
    real_remove = generations._remove_unless_leased
    raced: list[generations.Collected] = []

    def another_gc_first(generation: Path, store_path: Path) -> int | None:
        if not raced:  # another gc removes it all between this gc's look and its removal
            monkeypatch.setattr(generations, "_remove_unless_leased", real_remove)
            raced.append(generations.collect_garbage(store_path))
            monkeypatch.setattr(generations, "_remove_unless_leased", another_gc_first)
        return real_remove(generation, store_path)

    monkeypatch.setattr(generations, "_remove_unless_leased", another_gc_first)
    publish_tiny(store, 3)  # (its gc is the second)
    monkeypatch.setattr(generations, "_remove_unless_leased", real_remove)
    assert raced and old.name in raced[0].removed
    assert dump(str(store)) == ['<urn:a> <urn:b> "3"^^<http://www.w3.org/2001/XMLSchema#integer> <urn:g>']
    assert sorted(p.name for p in generations.generations_dir(store).iterdir()) == [
        generations.current(store).name,  # type: ignore[union-attr]
        generations.current(store).name + ".lease",  # type: ignore[union-attr]
    ]


def test_store_check_while_a_build_publishes_finds_no_broken_generation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build publishing (its gc removing the generation published before) while `store check`
    lists the generations and then reads them one by one: the one removed meanwhile was reported
    "BROKEN: the store generation … is gone", and, being the published one when check looked at
    the link, check exited 3 ("the published generation … is broken") on a good store."""
    from kgprofiles.store import health

    store = tmp_path / "store"
    publish_tiny(store, 1)
    real_dirs = generations.generation_dirs
    published: list[bool] = []

    def listed_then_a_publish(store_path: Path) -> list[Path]:
        found = real_dirs(store_path)
        if not published:
            published.append(True)
            publish_tiny(store, 2)
        return found

    monkeypatch.setattr(health.generations, "generation_dirs", listed_then_a_publish)
    checked = runner.invoke(app, ["--project", str(ROOT), "store", "check", "--store", str(store)])
    monkeypatch.setattr(health.generations, "generation_dirs", real_dirs)
    assert published
    assert checked.exit_code == 0 and "BROKEN" not in checked.output, checked.output
    assert checked.output.startswith("published ") and generations.current(store).name in checked.output  # type: ignore[union-attr]


def test_a_load_that_waited_for_another_writer_stores_the_file_as_it_is_when_it_writes(project: Settings) -> None:
    """A load parsed its files before it waited for the writer lock: a file saved again while the
    load waited (an editor's save hook loading at every save, behind a build) was stored as it
    was at the first save; and as waiting writers are not served in order, the load of the
    earlier save could publish after the later one, leaving the store behind the file for good,
    both loads saying they succeeded."""
    build(project)
    topics = project.data_dir / "topics" / "topics.ttl"
    waiting = threading.Event()
    failed: list[BaseException] = []

    def load_topics() -> None:
        try:
            load(project, [topics], writing=WriteOptions(on_wait=lambda message: waiting.set()))
        except BaseException as exc:  # (asserted on below)
            failed.append(exc)

    with GenerationWriter(project.store, command="kgprofiles build"):
        loading = threading.Thread(target=load_topics)
        loading.start()
        assert waiting.wait(60), "the load did not wait for the writer"
        shutil.copy(renamed(project), topics)  # saved again while the load waits
    loading.join(timeout=60)
    assert not loading.is_alive() and not failed, failed
    assert TWO in " ".join(dump(project.store)) and ONE not in " ".join(dump(project.store))


def test_a_build_that_waited_for_another_writer_builds_the_data_as_it_is_when_it_writes(project: Settings) -> None:
    """A build listed the data directory's files before it waited for the writer lock, and read
    them after: a file removed meanwhile (a checkout, `git pull`) failed the build ("cannot read:
    No such file or directory"), and a file added meanwhile was left out without a word while
    the files beside it were read as edited."""
    build(project)
    waiting = threading.Event()
    failed: list[BaseException] = []

    def build_it() -> None:
        try:
            build(project, writing=WriteOptions(on_wait=lambda message: waiting.set()))
        except BaseException as exc:  # (asserted on below)
            failed.append(exc)

    gone = project.data_dir / "people" / "ian-buck.ttl"
    with GenerationWriter(project.store, command="kgprofiles load"):
        building = threading.Thread(target=build_it)
        building.start()
        assert waiting.wait(60), "the build did not wait for the writer"
        gone.unlink()  # removed while the build waits
    building.join(timeout=120)
    assert not building.is_alive() and not failed, failed
    reader = OxigraphStore(project.store, read_only=True)
    try:
        assert not [g for g in reader.graphs() if g.endswith("people/ian-buck.ttl")]
        assert [g for g in reader.graphs() if g.endswith("people/jane-xu.ttl")]
    finally:
        reader.close()


def test_a_writer_stopped_holding_the_lock_is_named_as_stopped_with_how_to_resume_it(project: Settings) -> None:
    """A writer stopped while it holds the lock (Ctrl-Z in another terminal, SIGSTOP): the next
    writer waited for it, or with --no-wait was told to wait for it, as if it were running:
    nothing said that it would never finish unless resumed."""
    build(project)
    holder = (
        "import sys, time\n"
        "from kgprofiles.store.writer import GenerationWriter\n"
        f"with GenerationWriter({project.store!r}, command='kgprofiles build'):\n"
        "    print('HELD', flush=True)\n"
        "    time.sleep(600)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", holder], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "HELD"  # type: ignore[union-attr]
        child.send_signal(signal.SIGSTOP)
        deadline = time.monotonic() + 10
        while Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "T":
            assert time.monotonic() < deadline, "the child did not stop"
            time.sleep(0.01)
        with pytest.raises(StoreBusy) as busy:
            load_renamed(project, writing=WriteOptions(wait=False))
        said = f"{busy.value.message}\n{busy.value.hint}"
        assert f"pid {child.pid}" in said and "stopped" in said and f"kill -CONT {child.pid}" in said, said
    finally:
        child.kill()
        child.wait(timeout=30)


def test_store_gc_names_the_processes_that_hold_what_it_keeps(tmp_path: Path) -> None:
    """`kept NAME: a reader holds it` left the user to find which process (a server started long
    ago, a notebook): gc now names each by pid and command."""
    store = tmp_path / "store"
    publish_tiny(store, 1)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import sys, time\nfrom kgprofiles.store.oxigraph import OxigraphStore\n"
            f"reader = OxigraphStore({str(store)!r}, read_only=True)\nprint('open', flush=True)\ntime.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "open\n"
        kept = generations.current(store)
        assert kept is not None
        publish_tiny(store, 2)
        collected = runner.invoke(app, ["--project", str(ROOT), "store", "gc", "--store", str(store)])
        assert collected.exit_code == 0, collected.output
        assert f"kept {kept.name}: a reader holds it: pid {holder.pid} (python" in collected.output
    finally:
        holder.kill()
        holder.wait()
