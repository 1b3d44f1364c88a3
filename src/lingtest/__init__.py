"""lingtest: testing NLP systems without labelled test sets.

``lingtest.load_suite(source)`` loads a suite file or a release folder to run your own model on
(:mod:`lingtest.harness`); it is imported on first use, so ``import lingtest`` stays light.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

#: names imported on first use: name -> (module, attribute); plain strings, so that no stage's import
#: closure (lingtest.pipeline.deps) grows by code it never runs
_LAZY = {"load_suite": ("lingtest.harness.loading", "load_suite")}
__all__ = ["__version__", "load_suite"]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'lingtest' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
