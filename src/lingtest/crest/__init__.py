"""CREST: metamorphic testing of coreference resolution (Cao et al., ESEC/FSE 2023).

A source is a sentence with intra-sentence gold coreference. CREST replaces one token that is not
related to the coreference (:mod:`~lingtest.crest.indices`) with a candidate word
(:mod:`~lingtest.resources.candidates`), keeps the follow-up only if the replaced token keeps its
constituent label (Algorithm 3, :mod:`~lingtest.crest.generate`) and every gold mention keeps its
depth in the constituency tree (Algorithm 2, :mod:`~lingtest.crest.select`), and reports an issue
when the system's predictions on source and follow-up disagree under BLANC
(:mod:`~lingtest.crest.oracle`, registered in :data:`lingtest.suite.oracles.ORACLES`). Issues are
graded against gold (:mod:`~lingtest.crest.grading`).
"""

from lingtest.crest import oracle as oracle  # registers the BLANC oracle in ORACLES
