"""lingtest: testing NLP systems without labelled test sets.

``lingtest.load_suite(source)`` loads a suite file or a release folder to run your own model on
(:mod:`lingtest.harness`); it is imported on first use, so ``import lingtest`` stays light.
"""

from __future__ import annotations

from lingtest.lazy import lazy_exports

__version__ = "0.1.0"

#: names imported on first use: name -> (module, attribute); plain strings, so that no stage's import
#: closure (lingtest.pipeline.deps) grows by code it never runs
_LAZY = {"load_suite": ("lingtest.harness.loading", "load_suite")}
__all__ = ["__version__", "load_suite"]


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
