"""The documented Python API's examples run as written (doctest)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["lingtest.harness.loading"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0
