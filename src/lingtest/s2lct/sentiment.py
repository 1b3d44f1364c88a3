"""Word sentiment from SentiWordNet, as S2LCT's reference code computes it.

The senses of a word for a part of speech are taken in WordNet's order (most frequent first) and
weighted by rank: ``score = sum_i (pos_i - neg_i) / i`` (``i`` from 1). A word is ``positive`` when
the score is above 0, ``negative`` below 0, ``neutral`` only when *every* sense has no positive and
no negative weight ("pure neutral"; a word whose senses cancel out is none of the three), and has
no sentiment (``None``) when SentiWordNet has no sense of it for that part of speech. Adverbs are
looked up as adjectives when ``adverbs_as_adjectives`` (the reference's mapping ``r -> a``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["SentiWordNetSentiment", "classify_scores"]

_WN_POS = {"adj": "a", "noun": "n", "verb": "v", "adv": "r"}


def classify_scores(scores: Sequence[tuple[float, float]]) -> str | None:
    """Sentiment of a word from its senses' ``(positive, negative)`` weights, in sense order."""
    if not scores:
        return None
    if all(p == 0 and n == 0 for p, n in scores):
        return "neutral"
    total = sum((p - n) / i for i, (p, n) in enumerate(scores, start=1))
    if total > 0:
        return "positive"
    if total < 0:
        return "negative"
    return None


class SentiWordNetSentiment:
    """``sentiment(word, pos)`` with ``pos`` in ``adj``/``noun``/``verb``/``adv`` (memoised)."""

    def __init__(self, swn: Any, *, adverbs_as_adjectives: bool) -> None:
        self.swn = swn
        self.adverbs_as_adjectives = bool(adverbs_as_adjectives)
        self._memo: dict[tuple[str, str], str | None] = {}

    def senses(self, word: str, pos: str) -> list[tuple[float, float]]:
        wn_pos = _WN_POS[pos]
        if wn_pos == "r" and self.adverbs_as_adjectives:
            wn_pos = "a"
        out = []
        for s in self.swn.senti_synsets(word.lower(), wn_pos):
            out.append((float(s.pos_score()), float(s.neg_score())))
        return out

    def __call__(self, word: str, pos: str) -> str | None:
        key = (word.lower(), pos)
        if key not in self._memo:
            self._memo[key] = classify_scores(self.senses(word, pos))
        return self._memo[key]

    def neutral_adverb(self, word: str) -> bool:
        """Whether every *adverb* sense of ``word`` is neutral (WordNet's adverbs, whatever
        ``adverbs_as_adjectives`` says: the fill check of an adverb such as *also*, which has no adjective
        sense); a word without an adverb sense fails."""
        key = (word.lower(), "adverb")
        if key not in self._memo:
            self._memo[key] = classify_scores([(float(s.pos_score()), float(s.neg_score()))
                                               for s in self.swn.senti_synsets(word.lower(), "r")])
        return self._memo[key] == "neutral"

    def neutral_word(self, word: str, pos: str | None) -> bool:
        """S2LCT's fill check: the word is pure neutral for its part of speech; for a tag outside
        adj/noun/verb/adv, every sense of the word in any part of speech is neutral. A word
        SentiWordNet does not know fails (the reference)."""
        if pos is not None:
            return self(word, pos) == "neutral"
        scores = [(float(s.pos_score()), float(s.neg_score())) for s in self.swn.senti_synsets(word.lower())]
        return classify_scores(scores) == "neutral"
