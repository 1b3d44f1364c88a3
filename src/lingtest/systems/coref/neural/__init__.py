"""A trainable neural coreference resolver: a mention-ranking model in the style of Lee et al. (2017)
over a transformer encoder (the packaged MiniLM offline, any Hugging Face encoder id on the hub),
with candidate mentions from the parse.

:mod:`.features` (candidates, segments, word vectors, gold labels, span checks), :mod:`.model` (the
scorer, the marginal log-likelihood, decoding), :mod:`.trainer` (training, checkpoints) and
:mod:`.system` (the system under test, ``kind: neural``). The DVC stages that train and evaluate it
live in :mod:`lingtest.coref_training`.
"""
