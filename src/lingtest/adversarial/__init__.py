"""Adversarial coreference benchmark of Chai et al. (2021): perturb the words of gold mentions
with orthographic (swap, delete, visual) and lexical (synonym, hyponym, hypernym) attacks, measure
how much train/test mention overlap remains, and score coreference systems on each set.

Modules: :mod:`~lingtest.adversarial.perturbations` (one module per scheme, a registry),
:mod:`~lingtest.adversarial.lesk` (adapted Lesk WSD), :mod:`~lingtest.adversarial.apply`
(document-level application, span bookkeeping, change records), :mod:`~lingtest.adversarial.overlap`
(mention-overlap statistics), :mod:`~lingtest.adversarial.report` (scores and the Table 3 view).
"""

from lingtest.adversarial.apply import (
    Change,
    DocumentPerturber,
    adversarial_training_set,
    document_rng,
    replace_tokens,
    strip_annotations,
)
from lingtest.adversarial.perturbations import PERTURBATIONS, groups, make_perturbation

__all__ = [
    "PERTURBATIONS", "groups", "Change", "DocumentPerturber", "adversarial_training_set",
    "document_rng", "make_perturbation", "replace_tokens", "strip_annotations",
]
