"""Debian's Chromium, headless, driven by Playwright (the PyPI package, no browser download)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, sync_playwright

ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"


def chromium() -> str:
    """Debian's Chromium (KGPROFILES_CHROMIUM overrides); a failure that says how to get it."""
    path = os.environ.get("KGPROFILES_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        pytest.fail("Chromium is not installed: run tools/install-test-deps.sh (Debian's chromium)")
    return path


@contextmanager
def browser(user_data_dir: Path) -> Iterator[BrowserContext]:
    """A fresh headless Chromium profile in ``user_data_dir``."""
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(user_data_dir),
            executable_path=chromium(),
            headless=True,
            args=ARGS,
            viewport={"width": 1280, "height": 900},
        )
        try:
            yield context
        finally:
            context.close()


def screenshot_path(name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / name
