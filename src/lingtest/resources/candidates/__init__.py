"""Candidate proposers: one module per source of replacement words.

A proposer is an object with ``name`` and
``propose(sentence: Sentence, positions: Sequence[int]) -> dict[int, list[Candidate]]``
(batched over the positions of one sentence). Offline: ``wordnet`` (synonyms and antonyms), ``lm_next`` (the
causal LM's own next words) and ``vectors`` (spaCy md word-vector neighbours). ``masked_lm`` needs the hub.
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
PROPOSERS.register_lazy("lm_next", "lingtest.resources.candidates.lm_next:LMNextProposer")


def needs_scorer(name: str) -> bool:
    """Whether the proposer registered as ``name`` runs a causal LM (its constructor takes a ``scorer``)."""
    return "scorer" in inspect.signature(PROPOSERS.get(name)).parameters


def get_proposer(name: str, grid: ScoreGrid, scorer: Any = None, **options: Any) -> Proposer:
    """The proposer registered as ``name`` built from its config options (a missing or unknown option
    is a :class:`~lingtest.errors.ConfigError`); ``grid`` (``resources.score_decimals``) goes to the
    proposers that score their candidates (those whose constructor takes a ``grid``), ``scorer`` (a causal-LM
    scorer) to those that run the LM (:func:`needs_scorer`)."""
    factory = PROPOSERS.get(name)
    params = inspect.signature(factory).parameters
    if "grid" in params:
        options = {**options, "grid": grid}
    if "scorer" in params and scorer is not None:
        options = {**options, "scorer": scorer}
    proposer: Proposer = PROPOSERS.build(name, options, where=f"candidate proposer {name!r}")
    return proposer


__all__ = ["PROPOSERS", "Candidate", "Proposer", "get_proposer", "merge_candidates", "needs_scorer"]
