"""TIN: automated testing and black-box repair of NER systems (Yu et al., ESEC/FSE 2023).

The algorithm, as small modules of pure functions over typed records:

* :mod:`.mutant` - :class:`TinSource` (a parsed sentence with the system's prediction N(s)) and
  :class:`Mutant` (s', what changed, the token alignment);
* :mod:`.transformations` - the registry ``TRANSFORMATIONS``: ``token``, ``phrase``, ``structural``,
  ``shuffle``; :mod:`.phrases` (the phrase index), :mod:`.tagging` (PTB tags of mutants);
* :mod:`.filters` - semantic (:mod:`.embedding`, context-aware span embeddings) and naturalness
  (SynEval) filters, counted per transformation;
* :mod:`.relations` - the expectations ``tin-mr1`` and ``tin-mr2`` (checked by
  :func:`lingtest.suite.run.run_suite`); :mod:`.suite` - mutants as test cases;
* :mod:`.repair` - suspicious entity location, relabelling (Algorithm 1), range conflicts, R(s);
* :mod:`.grading` - grading against gold (labels mapped by
  :class:`lingtest.systems.ner.labels.LabelMaps`); :mod:`.issues` - failed cases to issues, repairs
  of both sentences and the graded run (the glue a stage calls);
* :mod:`.baseline` - a word-substitution adversarial baseline (BERT-Attack/CLARE style);
* :mod:`.api` - TIN for a user's own NER system and sentences: :func:`generate`, :func:`generate_for_sources`,
  :func:`grade`, :func:`label_mapper` (imported on first use, so ``import lingtest.tin`` stays light).

Fill-in proposals come through :class:`lingtest.resources.fill.FillProposer`.
"""

from lingtest.lazy import lazy_exports
from lingtest.tin import relations as _relations  # noqa: F401 - registers the expectations tin-mr1, tin-mr2
from lingtest.tin.mutant import MR1, MR2, Mutant, TinSource

#: names imported on first use: name -> (module, attribute); plain strings, so that no stage's import
#: closure (lingtest.pipeline.deps) grows by code it never runs
_LAZY = {name: ("lingtest.tin.api", name) for name in ("generate", "generate_for_sources", "grade", "label_mapper")}
__all__ = ["MR1", "MR2", "Mutant", "TinSource", *_LAZY]


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
