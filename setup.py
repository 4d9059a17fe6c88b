"""Ships the project's vocabulary inside the package: ``ontology/``, ``shapes/`` and ``queries/``
(top-level directories of this repository) are copied into ``kgprofiles/resources/`` of every
built wheel, so an installed kgprofiles works outside this checkout. Everything else is in
pyproject.toml."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

RESOURCES = ("ontology", "shapes", "queries")


class BuildWithResources(build_py):
    def run(self) -> None:
        super().run()
        here = Path(__file__).resolve().parent
        target = Path(self.build_lib) / "kgprofiles" / "resources"
        for name in RESOURCES:
            if (here / name).is_dir():
                shutil.rmtree(target / name, ignore_errors=True)
                shutil.copytree(here / name, target / name)


setup(cmdclass={"build_py": BuildWithResources})
