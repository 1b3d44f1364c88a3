"""Rank candidates with a language model and keep the probable ones.

Offline there is no masked LM, so the paper's "LM proposals with probability >= 0.1" are
approximated: every candidate sentence of one position is scored by a causal LM
(``scorer.score(texts) -> list[float]`` sentence log-probabilities;
:class:`lingtest.resources.lm.CausalLMScorer` by default, injected here), the scores are turned
into a distribution over that position's candidates (softmax of log-probabilities; with
``include_original`` the unchanged source sentence takes part, as the original word does in a
masked LM's distribution) and candidates from ``filter_sources`` below ``threshold`` are dropped.
With ``include_original`` a probability >= 0.1 means the candidate is at most about 2.3 nats less
likely than the original sentence when it is the only candidate, less when there are several.
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
    """``window``: score each candidate sentence only up to ``window`` words after the replaced
    position. Tokens before the position are identical for all candidates of that position, so
    their log-probabilities cancel exactly in the per-position softmax under a causal LM; cutting
    the words after the window is the one approximation, and makes scoring about twice as fast.
    ``None`` scores whole sentences."""

    def __init__(self, scorer: Any, threshold: float = 0.1, include_original: bool = True,
                 filter_sources: Sequence[str] = ("vectors",), window: int | None = None) -> None:
        self.scorer = scorer
        self.threshold = threshold
        self.include_original = include_original
        self.filter_sources = set(filter_sources)
        self.window = window
        self.texts_scored = 0

    def _text(self, words: list[str], ws: list[str], pos: int, new: list[str] | None) -> str:
        end = len(words) if self.window is None else min(len(words), pos + 1 + self.window)
        if new is None:
            return detokenize(words[:end], ws[:end])
        nw, nws = replace_words(words[:end], ws[:end], pos, new)
        return detokenize(nw, nws)

    def rank(self, sentence: Sentence, candidates: dict[int, list[Candidate]]) -> dict[int, list[Candidate]]:
        """Set ``prob`` on every candidate, drop filtered ones under threshold, sort by ``prob``
        (stable: ties keep proposal order). One scorer call for all positions."""
        words, ws = sentence.words, [t.ws for t in sentence.tokens]
        texts: list[str] = []
        index: list[tuple[int, int]] = []  # (position, candidate index or -1 for the original)
        for pos, cands in sorted(candidates.items()):
            if not cands:
                continue
            if self.include_original:
                texts.append(self._text(words, ws, pos, None))
                index.append((pos, -1))
            for ci, c in enumerate(cands):
                texts.append(self._text(words, ws, pos, c.words))
                index.append((pos, ci))
        if not texts:
            return {}
        scores = list(self.scorer.score(texts))
        self.texts_scored += len(texts)
        if len(scores) != len(texts):
            raise ValueError(f"scorer returned {len(scores)} scores for {len(texts)} texts")
        by_pos: dict[int, list[tuple[int, float]]] = {}
        for (pos, ci), s in zip(index, scores):
            by_pos.setdefault(pos, []).append((ci, float(s)))
        out: dict[int, list[Candidate]] = {}
        for pos, items in by_pos.items():
            probs = softmax([s for _, s in items])
            ranked = []
            for (ci, _), p in zip(items, probs):
                if ci < 0:
                    continue
                c = candidates[pos][ci]
                c.prob = round(p, 6)
                if c.source in self.filter_sources and p < self.threshold:
                    continue
                ranked.append(c)
            ranked.sort(key=lambda c: -(c.prob or 0.0))
            if ranked:
                out[pos] = ranked
        return out
