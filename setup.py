"""Ships what kgprofiles needs beside its code inside the package: ``ontology/``, ``shapes/`` and
``queries/`` (top-level directories of this repository) are copied into ``kgprofiles/resources/``
of every built wheel, and so are the query editor's built files (YASGUI, MIT licence, from the
npm package pinned in package-lock.json: run `bash tools/install-test-deps.sh --editor-only`
first, as `make dist` does), so an installed kgprofiles works outside this checkout. Everything
else is in pyproject.toml."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

RESOURCES = ("ontology", "shapes", "queries")
YASGUI = Path("node_modules") / "@triply" / "yasgui"
YASGUI_FILES = ("build/yasgui.min.js", "build/yasgui.min.css", "build/yasgui.min.js.LICENSE.txt", "LICENSE")


class BuildWithResources(build_py):
    def run(self) -> None:
        super().run()
        here = Path(__file__).resolve().parent
        target = Path(self.build_lib) / "kgprofiles" / "resources"
        for name in RESOURCES:
            if (here / name).is_dir():
                shutil.rmtree(target / name, ignore_errors=True)
                shutil.copytree(here / name, target / name)
        editor = here / YASGUI
        if (editor / YASGUI_FILES[0]).is_file():
            (target / "yasgui").mkdir(parents=True, exist_ok=True)
            for name in YASGUI_FILES:
                if (editor / name).is_file():
                    shutil.copy(editor / name, target / "yasgui" / Path(name).name)


setup(cmdclass={"build_py": BuildWithResources})
