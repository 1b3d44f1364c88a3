"""Rank candidates with a language model and keep the probable ones.

Offline there is no masked LM, so the paper's "LM proposals with probability >= 0.1" are
approximated: every candidate sentence of one position is scored by a causal LM
(``scorer.score(texts) -> list[float]`` sentence log-probabilities;
:class:`lingtest.resources.lm.CausalLMScorer` by default, injected here), the scores are turned
into a distribution over that position's candidates (softmax of log-probabilities; with
``include_original`` the unchanged source sentence takes part, as the original word does in a
masked LM's distribution) and candidates from ``filter_sources`` below ``threshold`` are dropped.
Candidates of the other sources (WordNet synonyms/antonyms, added unconditionally by Algorithm 1)
are kept but ordered by the same probability. All positions of a source go to the scorer in one
batch.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from lingtest.crest.candidates.base import Candidate
from lingtest.crest.align import detokenize, replace_words
from lingtest.data.model import Sentence


def softmax(logps: Sequence[float]) -> list[float]:
    if not logps:
        return []
    m = max(logps)
    ex = [math.exp(x - m) for x in logps]
    z = sum(ex)
    return [e / z for e in ex]


class LMRanker:
    def __init__(self, scorer: Any, threshold: float = 0.1, include_original: bool = True,
                 filter_sources: Sequence[str] = ("vectors",)) -> None:
        self.scorer = scorer
        self.threshold = threshold
        self.include_original = include_original
        self.filter_sources = set(filter_sources)
        self.texts_scored = 0

    def rank(self, sentence: Sentence, candidates: dict[int, list[Candidate]]) -> dict[int, list[Candidate]]:
        """Set ``prob`` on every candidate, drop filtered ones under threshold, sort by ``prob``
        (stable: ties keep proposal order)."""
        words, ws = sentence.words, [t.ws for t in sentence.tokens]
        texts: list[str] = []
        index: list[tuple[int, int]] = []  # (position, candidate index or -1 for the original)
        if self.include_original and candidates:
            texts.append(detokenize(words, ws))
            index.append((-1, -1))
        for pos, cands in sorted(candidates.items()):
            for ci, c in enumerate(cands):
                nw, nws = replace_words(words, ws, pos, c.words)
                texts.append(detokenize(nw, nws))
                index.append((pos, ci))
        if not texts:
            return {}
        scores = list(self.scorer.score(texts))
        self.texts_scored += len(texts)
        if len(scores) != len(texts):
            raise ValueError(f"scorer returned {len(scores)} scores for {len(texts)} texts")
        original = scores[0] if self.include_original else None
        by_pos: dict[int, list[tuple[int, float]]] = {}
        for (pos, ci), s in zip(index, scores):
            if pos >= 0:
                by_pos.setdefault(pos, []).append((ci, float(s)))
        out: dict[int, list[Candidate]] = {}
        for pos, items in by_pos.items():
            logps = [s for _, s in items] + ([original] if original is not None else [])
            probs = softmax(logps)
            ranked = []
            for (ci, _), p in zip(items, probs):
                c = candidates[pos][ci]
                c.prob = round(p, 6)
                if c.source in self.filter_sources and p < self.threshold:
                    continue
                ranked.append(c)
            ranked.sort(key=lambda c: -(c.prob or 0.0))
            if ranked:
                out[pos] = ranked
        return out
