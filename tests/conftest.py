"""Shared fixtures: the project settings, the one setting that says where real data lives, and the
Hypothesis profiles the property tests run under."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from kgprofiles.config import Settings, load_settings
from kgprofiles.vocab import DEFAULT_BASE_IRI, use_base_iri

# The collector runs less often in the test processes (Python's thresholds are 700, 10, 10): the
# reference engines' rdflib graphs make many objects, and with Python's thresholds collecting took 9.9 s
# of 139 s in test_fast_shapes, test_related_index and test_fast_rules (3.2 s with these; gc.callbacks).
# The processes the tests start (kgprofiles commands, servers) keep their own.
gc.set_threshold(50_000, 50, 100)

pytest_plugins = ["servers"]  # the oxigraph_server fixture (tests/servers.py)
ROOT = Path(__file__).resolve().parents[1]
# The compiled rules the suite and the processes it starts share, in the checkout, not the home directory.
os.environ.setdefault("KGPROFILES_CACHE_DIR", str(ROOT / ".kgprofiles" / "cache"))

# Hypothesis profiles (README, "Property tests"). ``ci``: the same examples on every run
# (derandomised), a modest number; the default when the CI environment variable is set. ``dev``:
# the same number, drawn at random (the default elsewhere). ``nightly``: ten times as many, at
# random; run it by name: ``pytest --hypothesis-profile=nightly tests/test_fast_load.py``. A
# property test states its number for ci through ``examples(n)``, so every profile scales it.
# A failing case any profile finds is pinned with ``@example`` on the test.
_SLOW_IS_FINE = [HealthCheck.too_slow, HealthCheck.data_too_large]
_CI_EXAMPLES = 100
hypothesis_settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    max_examples=_CI_EXAMPLES,
    deadline=None,
    print_blob=True,
    suppress_health_check=_SLOW_IS_FINE,
)
for _name, _factor in (("dev", 1), ("nightly", 10)):
    hypothesis_settings.register_profile(
        _name,
        derandomize=False,
        max_examples=_factor * _CI_EXAMPLES,
        deadline=None,
        print_blob=True,
        suppress_health_check=_SLOW_IS_FINE,
    )
hypothesis_settings.load_profile("ci" if "CI" in os.environ else "dev")  # set, even empty: as Hypothesis reads it


#: The test files that take the longest, longest first (the sum of their tests' ``--durations`` in a
#: run of the whole suite), run first: ``make test`` sends whole files to the xdist workers in
#: collection order (``--dist loadfile --no-loadscope-reorder``), so the last files given out are
#: short ones and the workers end together. In collection order (by file name) the Virtuoso, W3C,
#: web and wheel tests came last, and three workers waited for the fourth (busy 264-273 s against 309 s).
LONGEST_FIRST = (
    "test_store_safety.py",
    "test_build.py",
    "test_virtuoso_large_graphs.py",
    "test_virtuoso.py",
    "test_static_site.py",
    "test_fast_rules.py",
    "test_validate_cli.py",
    "test_fast_load.py",
    "test_remote_build.py",
    "test_shapes.py",
    "test_related_index.py",
    "test_union_lines.py",
    "test_store_contract.py",
    "test_w3c_shacl.py",
    "test_query_cli.py",
    "test_wheel.py",
    "test_web_browser.py",
    "test_web_serve_cli.py",
    "test_web_downloads.py",
    "test_load_check.py",
    "test_project_init.py",
    "test_profile_batches.py",
    "test_person_sections.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests of ``LONGEST_FIRST`` first, in its order; the rest after them, as collected."""
    gone = [name for name in LONGEST_FIRST if not (ROOT / "tests" / name).is_file()]
    if gone:  # a renamed file would silently go last
        raise pytest.UsageError(f"tests/conftest.py, LONGEST_FIRST: no such test file: {', '.join(gone)}")
    rank = {name: n for n, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # (a stable sort)


def examples(ci: int) -> int:
    """How many examples a property test runs: ``ci`` under the ci and dev profiles, scaled with
    the profile's ``max_examples`` under the others (ten times as many under nightly). Read when
    the test module is imported, after ``--hypothesis-profile`` has been applied."""
    return max(1, round(ci * hypothesis_settings.default.max_examples / _CI_EXAMPLES))


@pytest.fixture(autouse=True)
def seed_base_iri():
    """Each test starts and ends with the seed project's base IRI: a test that opens a project of
    its own (another base) in this process must not change the IRIs the next test resolves."""
    use_base_iri(DEFAULT_BASE_IRI)
    yield
    use_base_iri(DEFAULT_BASE_IRI)


def realdata_dir() -> Path:
    """Where ../shared/realdata is: KGPROFILES_REALDATA, or the default beside the checkout."""
    return Path(os.environ.get("KGPROFILES_REALDATA", ROOT.parent / "shared" / "realdata")).resolve()


def seed_dir() -> Path:
    """Where ../shared/seed (the reference page) is: KGPROFILES_SEED, or the default beside the checkout."""
    return Path(os.environ.get("KGPROFILES_SEED", ROOT.parent / "shared" / "seed")).resolve()


def require_realdata(*parts: str) -> Path:
    """The path under realdata/, or a skip that says why; a failure under KGPROFILES_REQUIRE_REALDATA=1."""
    return _required(realdata_dir().joinpath(*parts), "real data", "KGPROFILES_REALDATA")


def require_seed(*parts: str) -> Path:
    """The path under seed/, with the same rule: a skip that says why, a failure under
    KGPROFILES_REQUIRE_REALDATA=1."""
    return _required(seed_dir().joinpath(*parts), "the seed page", "KGPROFILES_SEED")


def _required(path: Path, what: str, setting: str) -> Path:
    if not path.exists():
        reason = f"{what} not found at {path} (set {setting} to its directory)"
        if os.environ.get("KGPROFILES_REQUIRE_REALDATA") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return path


@pytest.fixture(scope="session")
def settings() -> Settings:
    """The project's own settings, with an in-memory store."""
    return load_settings(ROOT, store="memory:")


@pytest.fixture(scope="session")
def seed_store_factory(settings: Settings):
    """Builds the seed data into a fresh in-memory store (the real pipeline, SHACL and OWL RL)."""
    from kgprofiles.pipeline import build
    from kgprofiles.store.oxigraph import OxigraphStore

    def make() -> OxigraphStore:
        store = OxigraphStore("memory:")
        build(settings, store=store)
        return store

    return make


@pytest.fixture(scope="session")
def seed_store(seed_store_factory):
    """The seed data, built once for the session. Tests must not write to it."""
    return seed_store_factory()


@pytest.fixture(scope="session")
def views(seed_store, settings: Settings):
    from kgprofiles.profiles import Views

    return Views(seed_store, settings.queries_dir)


@pytest.fixture(scope="session")
def seed_store_dir(seed_store, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seed data in an on-disk store directory (closed: nothing holds it), for the query
    workers, which open a directory read-only."""
    from collections import defaultdict

    from kgprofiles.store.oxigraph import OxigraphStore

    graphs = defaultdict(list)
    for quad in seed_store.quads():
        graphs[quad.graph_name.value].append(quad.triple)
    path = tmp_path_factory.mktemp("seed") / "store"
    with OxigraphStore(path) as disk:
        disk.replace_graphs(graphs)
    return path


@pytest.fixture(scope="session")
def disk_seed_store(seed_store_dir: Path):
    """The seed data on disk, opened read-only as ``kgprofiles serve`` does. Tests must not write."""
    from kgprofiles.store.oxigraph import OxigraphStore

    store = OxigraphStore(seed_store_dir, read_only=True)
    yield store
    store.close()


@pytest.fixture(scope="session")
def lives_store(settings: Settings):
    """tests/fixtures/lives: births, deaths, shared prizes, schools, advisors and students, built
    once for the session. Tests must not write to it."""
    from kgprofiles.pipeline import build
    from kgprofiles.store.oxigraph import OxigraphStore

    store = OxigraphStore("memory:")
    build(settings.with_overrides(data_dir=ROOT / "tests" / "fixtures" / "lives"), store=store)
    return store


@pytest.fixture(scope="session")
def synthetic_store(tmp_path_factory: pytest.TempPathFactory, settings: Settings):
    """300 synthetic people (bench/generate.py): shared organisations of every size, shared
    topics, co-authored works and shared events, so limits cut through ties. Tests must not write to it."""
    import subprocess
    import sys

    from kgprofiles.pipeline import build
    from kgprofiles.store.oxigraph import OxigraphStore

    out = tmp_path_factory.mktemp("synthetic") / "people-300"
    generator = ROOT / "bench" / "generate.py"
    args = ["--people", "300", "--seed", "5", "--out", str(out)]
    subprocess.run([sys.executable, str(generator), *args], check=True, capture_output=True)
    store = OxigraphStore("memory:")
    build(settings, [out], store=store)
    return store


def child_processes() -> set[int]:
    """The processes this test process started that are still there."""
    found: set[int] = set()
    for task in Path("/proc/self/task").iterdir():
        found.update(int(pid) for pid in (task / "children").read_text().split())
    return found


@pytest.fixture
def no_process_left_behind() -> Iterator[None]:
    before = child_processes()
    yield
    assert child_processes() <= before
