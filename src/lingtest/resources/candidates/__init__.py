"""Candidate proposers: one module per source of replacement words.

A proposer is an object with ``name`` and
``propose(sentence: Sentence, positions: Sequence[int]) -> dict[int, list[Candidate]]``
(batched over the positions of one sentence). Offline defaults: ``wordnet`` (synonyms and
antonyms) and ``vectors`` (spaCy md word-vector neighbours). ``masked_lm`` needs the hub.
:class:`~lingtest.resources.candidates.rank.LMRanker` re-ranks and filters them with a language model.
"""

import inspect
from typing import Any

from lingtest.registry import Registry
from lingtest.resources.candidates.base import Candidate, Proposer, merge_candidates
from lingtest.resources.scores import ScoreGrid

PROPOSERS: Registry = Registry("candidate proposer")
PROPOSERS.register_lazy("wordnet", "lingtest.resources.candidates.wordnet:WordNetProposer")
PROPOSERS.register_lazy("vectors", "lingtest.resources.candidates.vectors:VectorProposer")
PROPOSERS.register_lazy("masked_lm", "lingtest.resources.candidates.masked_lm:MaskedLMProposer")


def get_proposer(name: str, grid: ScoreGrid, **options: Any) -> Proposer:
    """The proposer registered as ``name`` built from its config options (a missing or unknown option
    is a :class:`~lingtest.errors.ConfigError`); ``grid`` (``resources.score_decimals``) goes to the
    proposers that score their candidates (those whose constructor takes a ``grid``)."""
    factory = PROPOSERS.get(name)
    if "grid" in inspect.signature(factory).parameters:
        options = {**options, "grid": grid}
    proposer: Proposer = PROPOSERS.build(name, options, where=f"candidate proposer {name!r}")
    return proposer


__all__ = ["PROPOSERS", "Candidate", "Proposer", "get_proposer", "merge_candidates"]
