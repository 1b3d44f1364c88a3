"""Masked-language-model proposals (the paper's setting: ``bert-large-cased``, probability >= 0.1).

Needs the model hub (or a local copy): the scorer is
:class:`lingtest.resources.lm.MaskedLMScorer`, whose ``propose(words, index, top_k=...)`` masks
``words[index]`` and returns ``(token, probability)`` pairs. Offline runs use the ``vectors`` and
``wordnet`` proposers ranked by the causal LM instead (:mod:`~lingtest.crest.candidates.rank`).
The scorer is injectable so this module is tested on recorded outputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lingtest.crest.candidates.base import CONTENT_UPOS, Candidate
from lingtest.crest.inflect import match_case
from lingtest.data.model import Sentence


class MaskedLMProposer:
    name = "masked_lm"

    def __init__(self, scorer: Any = None, model: str = "bert-large-cased", min_prob: float = 0.1,
                 top_k: int = 10, content_only: bool = True, device: str = "auto") -> None:
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
        words = sentence.words
        out: dict[int, list[Candidate]] = {}
        for i in positions:
            tok = sentence.tokens[i]
            if self.content_only and tok.pos not in CONTENT_UPOS:
                continue
            cands, seen = [], {tok.text.lower()}
            for text, prob in self.scorer.propose(words, i, top_k=self.top_k):
                text = text.strip()
                if prob < self.min_prob or not text.isalpha() or text.lower() in seen:
                    continue
                seen.add(text.lower())
                cands.append(Candidate(match_case(text, tok.text), "masked_lm", prob=float(prob)))
            if cands:
                out[i] = cands
        return out
