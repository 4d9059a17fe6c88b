"""Caps on data files: a literal may hold at most max_literal_bytes (UTF-8, default 1 MB).

Issue 14: a 50 MB literal gave a MemoryError traceback. Now it is an input error at its file and
line (exit 2), whether pyoxigraph refuses it itself (over its 16 MB buffer) or parses it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgprofiles.cli import app
from kgprofiles.errors import InputError
from kgprofiles.ingest import parse_file
from test_budgets import make_project

HEAD = """\
@prefix kgp: <https://w3id.org/kgprofiles/ontology#> .
@prefix topic: <https://w3id.org/kgprofiles/id/topic/> .

# a "comment" with 'quotes' and <angles>
topic:example-topic a kgp:Topic ;
    kgp:name "Example \\"topic\\"" ;
"""


def data_file(directory: Path, text: str, name: str = "long.ttl") -> Path:
    path = directory / name
    path.write_text(HEAD + text + " .\n", encoding="utf-8")
    return path


def test_a_50_mb_literal_is_an_input_error_at_its_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_project(tmp_path)
    (root / "data").mkdir()
    path = root / "data" / "long.ttl"
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(HEAD + '    kgp:description """')
        handle.write("x" * 50_000_000)
        handle.write('""" .\n')
    monkeypatch.chdir(root)

    result = CliRunner().invoke(app, ["validate", "data/long.ttl"], catch_exceptions=False)

    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == (
        "kgprofiles: input error: data/long.ttl:7: literal of 50,000,000 bytes is over the 1,000,000-byte limit"
    )
    assert "max_literal_bytes" in result.stderr


@pytest.mark.parametrize(
    "literal",
    [
        '"' + "é" * 51 + '"',  # 102 bytes of UTF-8 in 51 characters
        '"""' + "x" * 60 + "\n" + "y" * 41 + '"""',  # 102 bytes on two lines
        '"' + "\\u00e9" * 51 + '"',  # 102 bytes, written as escapes (306 characters)
    ],
    ids=["two-byte characters", "long string", "escapes"],
)
def test_a_literal_over_the_configured_limit_is_refused(tmp_path: Path, literal: str) -> None:
    path = data_file(tmp_path, f"    kgp:description {literal}")

    with pytest.raises(InputError) as refused:
        parse_file(path, tmp_path, max_literal_bytes=100)

    assert refused.value.message == "long.ttl:7: literal of 102 bytes is over the 100-byte limit"


def test_a_literal_at_the_limit_is_kept(tmp_path: Path) -> None:
    path = data_file(tmp_path, '    kgp:description "' + "é" * 50 + '"')

    parsed = parse_file(path, tmp_path, max_literal_bytes=100)

    assert ("é" * 50) in {t.object.value for t in parsed.triples}


def test_the_limit_comes_from_kgprofiles_toml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_project(tmp_path, limits="max_literal_bytes = 100")
    (root / "data").mkdir()
    data_file(root / "data", '    kgp:description "' + "x" * 101 + '"')
    monkeypatch.chdir(root)

    result = CliRunner().invoke(app, ["validate", "data/long.ttl"], catch_exceptions=False)

    assert result.exit_code == 2
    assert "data/long.ttl:7: literal of 101 bytes is over the 100-byte limit" in result.stderr
