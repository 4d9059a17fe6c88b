"""Helpers for the Wikidata command tests: the real JSON files, the test data directories, a
throwaway project that points at them, and the CLI run in-process."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import Result
from typer.testing import CliRunner

from conftest import ROOT, require_realdata
from wikidata.faults import closed_port_url

REAL_FILES = (
    "wbgetentities-Douglas-Adams.json",
    "wbgetentites-Oliver-Kahn.json",  # sic: the file's own name
    "wbgetentities-Q6-Q42-P31.json",
)
DATA = Path(__file__).resolve().parent / "data"


def real_json_files() -> list[Path]:
    """The real wbgetentities files, read in place from realdata/ (a skip, or a failure under
    KGPROFILES_REQUIRE_REALDATA=1, where they are absent)."""
    return [require_realdata("wikidata-entities", name) for name in REAL_FILES]


def project(tmp_path: Path, data: Path, endpoint: str | None = None, **wikidata: object) -> Path:
    """A project root in ``tmp_path`` that uses this checkout's ontology, shapes and queries, the data
    directory ``data``, and ``endpoint`` as its Wikidata endpoint (a closed loopback port when none
    is given: never the public endpoint), plus any other client settings."""
    settings = {
        "endpoint": endpoint or closed_port_url(),
        "min_interval_s": 0,
        "backoff_s": 0.05,
        "connect_timeout_s": 2,
        "read_timeout_s": 20,
        **wikidata,
    }
    lines = [
        "[kgprofiles]",
        f"data = {json.dumps(str(data))}",
        f"ontology = {json.dumps(str(ROOT / 'ontology'))}",
        f"shapes = {json.dumps(str(ROOT / 'shapes'))}",
        f"queries = {json.dumps(str(ROOT / 'queries'))}",
        "",
        "[kgprofiles.wikidata]",
        *(f"{k} = {json.dumps(v)}" for k, v in settings.items()),
    ]
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "kgprofiles.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path


def run_cli(root: Path, *args: str) -> Result:
    """``kgprofiles --project ROOT ARGS…`` in-process; stdout and stderr apart."""
    from kgprofiles.cli import app

    return CliRunner().invoke(app, ["--project", str(root), *args])


def copy_data(name: str, tmp_path: Path) -> Path:
    """A copy of tests/wikidata/data/NAME in ``tmp_path``: commands that write only touch copies."""
    target = tmp_path / "data"
    shutil.copytree(DATA / name, target)
    return target
