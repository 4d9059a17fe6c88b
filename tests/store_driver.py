"""Test helper: a real kgprofiles process that does store operations on command.

It imports kgprofiles once, prints READY, then reads one command a line from stdin and answers one
line: ``OK <detail>`` or ``ERR <exit code> <message>``. Commands (paths are absolute):

    build <project root> <data dir> <store>          kgprofiles build, waiting for other writers
    build-nowait <project root> <data dir> <store>   the same, failing at once if a writer runs
    load <project root> <data dir> <file> <store>    kgprofiles load of one file of that data dir
    read <project root> <store>                      count the quads and read the topic names
    quit

Tests use it to start writers and readers at chosen moments without paying Python's start-up each
time, and to SIGKILL a real process in the middle of a write.
"""

from __future__ import annotations

import sys
from pathlib import Path

from kgprofiles.config import load_settings
from kgprofiles.errors import KgError
from kgprofiles.pipeline import WriteOptions, build, load
from kgprofiles.store.oxigraph import OxigraphStore

TOPIC_NAMES = "SELECT ?n WHERE { ?t a kgp:Topic ; kgp:name ?n } ORDER BY ?n"
COUNT = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"


def read(root: str, store: str) -> str:
    """'<quads> <topic names joined by |>' from one read-only opening of the store."""
    reader = OxigraphStore(store, read_only=True)
    try:
        (row,) = reader.query(COUNT).rows  # type: ignore[union-attr]
        names = "|".join(r["n"].value for r in reader.query(TOPIC_NAMES).rows)  # type: ignore[union-attr]
        return f"{row['n'].value} {names}"
    finally:
        reader.close()


def run(words: list[str]) -> str:
    command, root = words[0], words[1]
    if command in ("build", "build-nowait"):
        settings = load_settings(Path(root), store=words[3], data_dir=Path(words[2]))
        report = build(settings, writing=WriteOptions(wait=command == "build"))
        return f"{report.triples}"
    if command == "load":
        report = load(load_settings(Path(root), store=words[4], data_dir=Path(words[2])), [Path(words[3])])
        return f"{report.triples}"
    if command == "read":
        return read(root, words[2])
    raise ValueError(f"unknown command {command!r}")


def main() -> None:
    print("READY", flush=True)
    for line in sys.stdin:
        words = line.split()
        if not words or words[0] == "quit":
            return
        try:
            print(f"OK {run(words)}", flush=True)
        except KgError as error:
            print(f"ERR {error.exit_code} {error.message.splitlines()[0]}", flush=True)


if __name__ == "__main__":
    main()
