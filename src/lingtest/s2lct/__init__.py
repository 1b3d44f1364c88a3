"""S2LCT: capability-based test generation (Yang et al.): capabilities as data (``conf/s2lct``, typed by
:mod:`.config`), search predicates (:mod:`.predicates`), seeds (:mod:`.seeds`), syntax expansion
(:mod:`.grammar`, :mod:`.fill`, :mod:`.expand`), evaluation (:mod:`.evaluate`), diversity (:mod:`.selfbleu`,
:mod:`.diversity`); components built from the config in :mod:`.components`, stage bodies in :mod:`.stages`
and :mod:`.classifier_stages`, tables and plots in :mod:`.report`. On your own sentences:
``lingtest.s2lct.generate(sentences, labels=...)`` (test cases) and ``lingtest.s2lct.generate_suite(...)``
(a runnable suite), from :mod:`.api`, imported on first use.

Importing the package registers the ``s2lct-label`` expectation."""

from __future__ import annotations

from lingtest.lazy import lazy_exports
from lingtest.s2lct import evaluate as _evaluate  # noqa: F401  (registers s2lct-label)

#: names imported on first use: name -> (module, attribute); plain strings, so that no stage's import
#: closure (lingtest.pipeline.deps) grows by code it never runs. (``api.suite`` is exported as
#: ``generate_suite``: ``lingtest.s2lct.suite`` is the module of the cases' records.)
_LAZY = {"generate": ("lingtest.s2lct.api", "generate"), "generate_suite": ("lingtest.s2lct.api", "suite")}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
