"""The examples in the public API's docstrings run, and say what they print."""

from __future__ import annotations

import doctest
import importlib

import pytest

DOCUMENTED = [
    "kgprofiles",
    "kgprofiles.api",
    "kgprofiles.atomic_files",
    "kgprofiles.profile_shelf",
    "kgprofiles.profiles",
    "kgprofiles.rdflib_speedups",
    "kgprofiles.render.html",
    "kgprofiles.search",
    "kgprofiles.static_site",
    "kgprofiles.store.binding",
    "kgprofiles.store.oxigraph",
    "kgprofiles.store.sorted_dump",
    "kgprofiles.store.writer",
    "kgprofiles.vocab",
]


@pytest.mark.parametrize("name", DOCUMENTED)
def test_the_examples_in_the_docstrings_hold(name: str) -> None:
    module = importlib.import_module(name)
    failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert attempted > 0, f"{name} has no examples"
    assert failed == 0
