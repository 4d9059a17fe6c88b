"""Shared fixtures: the project settings, and the one setting that says where real data lives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kgprofiles.config import Settings, load_settings

pytest_plugins = ["servers"]  # the oxigraph_server fixture (tests/servers.py)
ROOT = Path(__file__).resolve().parents[1]


def realdata_dir() -> Path:
    """Where ../shared/realdata is: KGPROFILES_REALDATA, or the default beside the checkout."""
    return Path(os.environ.get("KGPROFILES_REALDATA", ROOT.parent / "shared" / "realdata")).resolve()


def require_realdata(*parts: str) -> Path:
    """The path under realdata/, or a skip that says why; a failure under KGPROFILES_REQUIRE_REALDATA=1."""
    path = realdata_dir().joinpath(*parts)
    if not path.exists():
        reason = f"real data not found at {path} (set KGPROFILES_REALDATA to its directory)"
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
