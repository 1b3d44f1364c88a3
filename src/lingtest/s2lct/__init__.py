"""S2LCT: capability-based test generation (Yang et al.): capabilities as data (``conf/s2lct``, typed by
:mod:`.config`), search predicates (:mod:`.predicates`), seeds (:mod:`.seeds`), syntax expansion
(:mod:`.grammar`, :mod:`.fill`, :mod:`.expand`), evaluation (:mod:`.evaluate`), diversity (:mod:`.selfbleu`,
:mod:`.diversity`); components built from the config in :mod:`.components`, stage bodies in :mod:`.stages`
and :mod:`.classifier_stages`, tables and plots in :mod:`.report`.

Importing the package registers the ``s2lct-label`` expectation."""

from lingtest.s2lct import evaluate as _evaluate  # noqa: F401  (registers s2lct-label)
