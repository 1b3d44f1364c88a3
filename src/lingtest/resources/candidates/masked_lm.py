"""Masked-language-model proposals (the paper's setting: ``bert-large-cased``, probability >= 0.1).

Needs the model hub (or a local copy): the scorer is
:class:`lingtest.resources.lm.MaskedLMScorer`, whose ``propose(words, index, top_k=...)`` masks
``words[index]`` and returns candidates with ``token`` and ``prob`` (``propose_many`` batches). Offline runs
use the ``vectors`` and
``wordnet`` proposers ranked by the causal LM instead (:mod:`~lingtest.resources.candidates.rank`).
The scorer is injectable so this module is tested on recorded outputs. Proposals are whole words
from the masked LM's vocabulary, used as they come (no re-inflection: the LM sees the context).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lingtest.data.model import Sentence
from lingtest.resources.candidates.base import CONTENT_UPOS, Candidate
from lingtest.resources.candidates.inflect import match_case


class MaskedLMProposer:
    """The ``top_k`` fills of a masked LM with probability ``>= min_prob`` (only for content words when
    ``content_only``). Options from config (``crest.proposers.masked_lm``); ``scorer``: a
    :class:`~lingtest.resources.lm.MaskedLMScorer` to use (default: ``model`` on ``device``, loaded on
    first use)."""

    name = "masked_lm"

    def __init__(self, scorer: Any = None, *, model: str, min_prob: float, top_k: int, content_only: bool,
                 device: str) -> None:
        self._scorer = scorer
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
        results = self.scorer.propose_many([(words, i) for i in todo], top_k=self.top_k, min_prob=self.min_prob)
        out: dict[int, list[Candidate]] = {}
        for i, fills in zip(todo, results, strict=True):
            tok = sentence.tokens[i]
            cands, seen = [], {tok.text.lower()}
            for fill in fills:
                text, prob = str(fill.token).strip(), float(fill.prob)
                if prob < self.min_prob or not text.isalpha() or text.lower() in seen:
                    continue
                seen.add(text.lower())
                cands.append(Candidate(match_case(text, tok.text), "masked_lm", prob=prob))
            if cands:
                out[i] = cands
        return out
