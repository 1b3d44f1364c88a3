"""Masked-language-model proposals (the paper's setting: ``bert-large-cased``, probability >= 0.1).

Needs the model hub (or a local copy): the scorer is
:class:`lingtest.resources.lm.MaskedLMScorer`, whose ``propose(words, index, top_k=...)`` masks
``words[index]`` and returns candidates with ``token`` and ``prob`` (``propose_many`` batches). Offline runs
use the ``vectors`` and
``wordnet`` proposers ranked by the causal LM instead (:mod:`~lingtest.resources.candidates.rank`).
The scorer is injectable so this module is tested on recorded outputs. Proposals are whole words
from the masked LM's vocabulary, used as they come (no re-inflection: the LM sees the context).
Probabilities are put on the grid of ``resources.score_decimals`` before the threshold and the cut
(:class:`~lingtest.resources.scores.ScoreGrid`: the log-probability on the ``logprob`` grid, its
probability on the ``prob`` grid), and equal ones are ordered by text; the scorer is asked for twice
``top_k`` fills so that the cut at ``top_k`` is taken here, on the grid.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from lingtest.data.model import Sentence
from lingtest.resources.candidates.base import CONTENT_UPOS, Candidate
from lingtest.resources.candidates.inflect import match_case
from lingtest.resources.scores import ScoreGrid, stable_ranking


class MaskedLMProposer:
    """The ``top_k`` fills of a masked LM with probability ``>= min_prob`` (only for content words when
    ``content_only``). Options from config (``crest.proposers.masked_lm``); ``scorer``: a
    :class:`~lingtest.resources.lm.MaskedLMScorer` to use (default: ``model`` on ``device``, loaded on
    first use); ``grid``: the decimals of ``resources.score_decimals``."""

    name = "masked_lm"

    def __init__(self, scorer: Any = None, *, grid: ScoreGrid, model: str, min_prob: float, top_k: int,
                 content_only: bool, device: str) -> None:
        self._scorer = scorer
        self.grid = grid
        self.model = model
        self.device = device
        self.min_prob = min_prob
        self.top_k = top_k
        self.content_only = content_only

    @property
    def scorer(self) -> Any:
        if self._scorer is None:
            from lingtest.resources.lm import MaskedLMScorer

            self._scorer = MaskedLMScorer(self.model, device=self.device)
        return self._scorer

    def propose(self, sentence: Sentence, positions: Sequence[int]) -> dict[int, list[Candidate]]:
        """One batched ``propose_many`` call for all eligible positions of the sentence."""
        words = sentence.words
        todo = [i for i in positions if not self.content_only or sentence.tokens[i].pos in CONTENT_UPOS]
        if not todo:
            return {}
        results = self.scorer.propose_many([(words, i) for i in todo], top_k=2 * self.top_k, min_prob=0.0)
        out: dict[int, list[Candidate]] = {}
        for i, fills in zip(todo, results, strict=True):
            tok = sentence.tokens[i]
            on_grid = [(str(fill.token).strip(), self._on_grid(float(fill.prob))) for fill in fills]
            cands, seen = [], {tok.text.lower()}
            for text, prob in stable_ranking(on_grid, lambda f: f[1], lambda f: f[0]):
                if prob < self.min_prob or not text.isalpha() or text.lower() in seen:
                    continue
                seen.add(text.lower())
                cands.append(Candidate(match_case(text, tok.text), "masked_lm", prob=prob))
                if len(cands) >= self.top_k:
                    break
            if cands:
                out[i] = cands
        return out

    def _on_grid(self, prob: float) -> float:
        """A masked-LM probability on the grid: its log on the ``logprob`` grid, exponentiated onto the
        ``prob`` grid (0 stays 0)."""
        if prob <= 0.0:
            return 0.0
        return self.grid.round("prob", math.exp(self.grid.round("logprob", math.log(prob))))
