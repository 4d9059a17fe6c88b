"""Test helper: run a real build, but stop just before the new store is published, print WROTE
and wait to be killed. The parent test sends SIGKILL, then checks the old store is untouched."""

import sys
import time
from pathlib import Path

from kgprofiles import pipeline
from kgprofiles.config import load_settings
from kgprofiles.store import generations


def hang(store_path: Path, generation: Path) -> None:
    print("WROTE", generation, flush=True)
    time.sleep(600)


generations.publish = hang  # type: ignore[assignment]
root, store = Path(sys.argv[1]), sys.argv[2]
pipeline.build(load_settings(root, store=store))
