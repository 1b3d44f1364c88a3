"""TIN's transformations (a registry): each makes mutants s' of a source sentence s and records
what it changed and how the tokens moved, so gold and predictions map onto s'.

* ``token`` (:mod:`.token_level`): one non-entity verb or adjective replaced by a fill-in proposal
  with the same PTB tag in place; MR1.
* ``phrase`` (:mod:`.phrase_level`): one minimal noun phrase outside the predicted entities
  replaced, determiner kept, by a similar phrase from a phrase index; MR1.
* ``structural`` (:mod:`.structural`): declarative -> interrogative by the paper's three rules; MR2.
* ``shuffle`` (:mod:`.shuffle`): the predicted entities of one type permuted; MR2.

Adding one: its module (the class with ``name``, ``label``, ``relation``, a ``Config`` extending
:class:`~.base.TransformationConfig` and ``from_config``; see :class:`~.base.Transformation`), its line
here, and its entry under ``tin.transformations`` in ``conf/tin/default.yaml`` (its keys, its filter
thresholds). :class:`lingtest.tin.config.TinConfig` validates the entry as its ``Config``,
:mod:`lingtest.tin.components` builds it from there and the report takes its ``label``.
"""

from lingtest.registry import Registry
from lingtest.tin.transformations.base import Transformation, TransformationConfig

TRANSFORMATIONS: Registry = Registry("tin transformation")
TRANSFORMATIONS.register_lazy("token", "lingtest.tin.transformations.token_level:TokenLevel")
TRANSFORMATIONS.register_lazy("phrase", "lingtest.tin.transformations.phrase_level:PhraseLevel")
TRANSFORMATIONS.register_lazy("structural", "lingtest.tin.transformations.structural:Structural")
TRANSFORMATIONS.register_lazy("shuffle", "lingtest.tin.transformations.shuffle:EntityShuffle")

__all__ = ["TRANSFORMATIONS", "Transformation", "TransformationConfig"]
