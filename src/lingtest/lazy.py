"""Names a package exports but imports on first use (PEP 562): ``import lingtest`` and the technique
packages stay light, and no stage's import closure (:mod:`lingtest.pipeline.deps`) grows by code it
never runs, because the targets are plain strings."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, table: Mapping[str, tuple[str, str]]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: ``table`` maps an exported name to ``(module,
    attribute)``; the first access imports it and keeps it in the package's namespace."""

    def getattr_(name: str) -> Any:
        if name in table:
            module, attr = table[name]
            value = getattr(importlib.import_module(module), attr)
            setattr(sys.modules[package], name, value)
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def dir_() -> list[str]:
        return sorted({*vars(sys.modules[package]), *table})

    return getattr_, dir_
