"""CREST's five baselines (Section 4.1, Tables 1-2, Figures 4(B) and 5(A) of the paper) as follow-up generators
whose output CREST's own evaluation grades unchanged.

Each baseline (SIT, CAT, PatInv, CheckList, TextAttack; registered in :data:`BASELINES`, one module each)
turns the sources CREST samples into at most M follow-ups per source, each a set of token edits
(:mod:`~lingtest.crest.baselines.edits`) written as CREST's generated records
(:mod:`~lingtest.crest.baselines.records`): the follow-up's tokens, the edit (position, old, new) and the
gold clusters carried through it. CREST's oracle (BLANC), grading against gold and validity then apply as they
are (:mod:`~lingtest.crest.baselines.stages`), and the comparison rows (Table 1, Figure 4(B)'s validity,
Figure 5(A)'s issue types) come from their outputs. Nothing here keeps coreference in mind: that is the point
of the comparison.

Offline substitutes: the baselines' masked LM is the project's fill-in proposer
(:data:`lingtest.resources.fill.FILL_PROPOSERS`); CheckList and TextAttack do not run offline and their recipes
are re-implemented as small pure functions (see each module).
"""

from lingtest.registry import Registry

#: baseline name -> its generator class (a ``Config`` block and ``from_config(config, parts)``)
BASELINES: Registry = Registry("CREST baseline")
BASELINES.register_lazy("sit", "lingtest.crest.baselines.sit:Sit")
BASELINES.register_lazy("cat", "lingtest.crest.baselines.cat:Cat")
BASELINES.register_lazy("patinv", "lingtest.crest.baselines.patinv:PatInv")
BASELINES.register_lazy("checklist", "lingtest.crest.baselines.checklist:CheckList")
BASELINES.register_lazy("textattack", "lingtest.crest.baselines.textattack:TextAttack")

__all__ = ["BASELINES"]
