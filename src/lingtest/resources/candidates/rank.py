"""Rank candidates with a language model and keep the probable ones.

Offline there is no masked LM, so the paper's "LM proposals with probability >= 0.1" are
approximated: the candidate sentences of one position whose source is in ``filter_sources``
(CREST: the word-vector neighbours) are scored by a causal LM (``scorer.score(texts) ->
list[float]`` sentence log-probabilities; :class:`lingtest.resources.lm.CausalLMScorer` by
default, injected here), the scores are turned into a distribution over that position's candidates
(softmax of log-probabilities; with ``include_original`` the unchanged sentence takes part too, as
the original word does in a masked LM's distribution) and candidates below ``threshold`` are
dropped, the rest sorted by probability. Every decision is taken on the grid of
``resources.score_decimals`` (:class:`~lingtest.resources.scores.ScoreGrid`): the scorer's
log-probabilities are rounded to the ``logprob`` decimals before the softmax, the probabilities to the
``prob`` decimals before the threshold and the sort, and equal probabilities are ordered by the
candidate's text, then its proposal index (so last-digit differences between CPUs or batch layouts
change neither). Candidates of the other sources (WordNet synonyms and antonyms, which Algorithm 1
adds unconditionally) are not scored - LM scoring is the dominant cost on a CPU - and come first, in
proposal order. All positions passed to :meth:`LMRanker.rank` (or, for several sentences,
:meth:`LMRanker.rank_many`) go to the scorer in one call: one group of texts per position, sharing
the left context, which the scorer runs once
(:meth:`lingtest.resources.lm.CausalLMScorer.score_grouped`).

With ``min_fit`` the ranker also checks how each candidate of ``fit_sources`` fits where it stands
against the word it replaces: its ``fit`` is ``log p(candidate window) - log p(original window)`` (the left
context cancels; :func:`lingtest.resources.naturalness.logprob_differences` computes the same for text
pairs), set on the candidate on the ``logprob`` grid, and a candidate under ``min_fit`` is dropped, whatever
its source. The softmax says how a candidate compares with the other candidates only; the fit says how it
compares with the original, which a masked LM's probability of the fill does (the paper's ``>= 0.1``) and a
share among candidates does not.

How close the windowed, bfloat16 ranking comes to whole-sentence float32 ranking is measured by
``bench/bench_ranker_agreement.py`` (README, CREST section).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

from lingtest.data.align import detokenize, replace_words
from lingtest.data.model import Sentence
from lingtest.resources.candidates.base import Candidate
from lingtest.resources.scores import ScoreGrid, stable_ranking


def softmax(logps: Sequence[float]) -> list[float]:
    """``exp(x) / sum(exp)`` of each log-probability (computed from the largest one down)."""
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
    the words after the window is the one approximation (whole sentences cost ~5x more).
    ``None`` scores whole sentences. ``left_window`` likewise keeps only that many words before the
    position (the left context is then shorter, but still the same for every candidate of the
    position); ``None`` keeps the whole prefix. ``shared_prefix``: when the scorer has
    ``score_grouped`` (:class:`~lingtest.resources.lm.CausalLMScorer`), the texts of one position
    are scored as one group - the shared left context runs once and its log-probability, common to
    all of them, is left out - instead of one by one with ``score``; the probabilities are the same, up
    to the rounding of the log-probabilities to the grid (sum reduction only; a scorer reducing by the mean
    goes through ``score``). ``grid``: the decimals of
    ``resources.score_decimals`` (see the module notes). Every option comes from config (``crest.ranker``,
    ``tin.fill.ranker``). ``min_fit`` (None: no check) and ``fit_sources``: see the module notes."""

    def __init__(self, scorer: Any, *, grid: ScoreGrid, threshold: float, include_original: bool,
                 filter_sources: Sequence[str], window: int | None, left_window: int | None,
                 shared_prefix: bool, min_fit: float | None = None, fit_sources: Sequence[str] = ()) -> None:
        self.scorer = scorer
        self.min_fit = min_fit
        self.fit_sources = set(fit_sources) if min_fit is not None else set()
        self.fits_removed = 0  # candidates dropped by the fit check
        self.grid = grid
        self.threshold = threshold
        self.include_original = include_original
        self.filter_sources = set(filter_sources)
        self.window = window
        self.left_window = left_window
        self.shared_prefix = shared_prefix
        self.texts_scored = 0
        self.seconds = 0.0  # wall time spent in the scorer

    def _text(self, words: list[str], ws: list[str], pos: int, new: list[str] | None) -> str:
        end = len(words) if self.window is None else min(len(words), pos + 1 + self.window)
        start = 0 if self.left_window is None else max(0, pos - self.left_window)
        if new is None:
            return detokenize(words[start:end], ws[start:end])
        nw, nws = replace_words(words[start:end], ws[start:end], pos - start, new)
        return detokenize(nw, nws)

    def rank(self, sentence: Sentence, candidates: dict[int, list[Candidate]]) -> dict[int, list[Candidate]]:
        """Score the ``filter_sources`` and ``fit_sources`` candidates (one scorer call), set their ``prob`` (on
        the grid) and ``fit`` (the log-probability in place minus the original word's), drop those under
        ``threshold`` and, with ``min_fit``, the ``fit_sources`` ones whose fit is below it; per position:
        unscored candidates first, then scored ones by ``prob`` (equal ones by text, then proposal order)."""
        return self.rank_many([(sentence, candidates)])[0]

    def rank_many(self, items: Sequence[tuple[Sentence, dict[int, list[Candidate]]]]
                  ) -> list[dict[int, list[Candidate]]]:
        """:meth:`rank` for the candidates of several sentences with **one** scorer call (one
        group of texts per position of every sentence), so that the scorer can fill its batches."""
        groups: list[list[str]] = []  # the texts of one position (they share the left context)
        index: list[tuple[int, int, int]] = []  # (item, position, candidate index or -1 for the original)
        for it, (sentence, candidates) in enumerate(items):
            words, ws = sentence.words, [t.ws for t in sentence.tokens]
            for pos, cands in sorted(candidates.items()):
                scored = [ci for ci, c in enumerate(cands)
                          if c.source in self.filter_sources or c.source in self.fit_sources]
                if not scored:
                    continue
                group = []
                if self.include_original or any(cands[ci].source in self.fit_sources for ci in scored):
                    group.append(self._text(words, ws, pos, None))
                    index.append((it, pos, -1))
                for ci in scored:
                    group.append(self._text(words, ws, pos, cands[ci].words))
                    index.append((it, pos, ci))
                groups.append(group)
        texts = [t for g in groups for t in g]
        t0 = time.perf_counter()
        if not texts:
            scores: list[float] = []
        elif (self.shared_prefix and hasattr(self.scorer, "score_grouped")
              and getattr(self.scorer, "reduction", "sum") == "sum"):
            # the left context is run once per position; its log-probability (the same for every
            # candidate of the position) is left out, which leaves the per-position softmax unchanged
            scores = [s for g in self.scorer.score_grouped(groups, relative=True) for s in g]
        else:
            scores = list(self.scorer.score(texts))
        self.seconds += time.perf_counter() - t0
        self.texts_scored += len(texts)
        if len(scores) != len(texts):
            raise ValueError(f"scorer returned {len(scores)} scores for {len(texts)} texts")
        by_pos: dict[tuple[int, int], list[tuple[int, float]]] = {}
        for (it, pos, ci), s in zip(index, scores, strict=True):
            by_pos.setdefault((it, pos), []).append((ci, self.grid.round("logprob", s)))
        results: list[dict[int, list[Candidate]]] = []
        for it, (_, candidates) in enumerate(items):
            out: dict[int, list[Candidate]] = {}
            for pos, cands in sorted(candidates.items()):
                scored_items = by_pos.get((it, pos), [])
                fits = self._fits(cands, scored_items)
                kept = [c for ci, c in enumerate(cands) if c.source not in self.filter_sources and fits.get(ci, True)]
                ranked_items = [(ci, s) for ci, s in scored_items
                                if (ci < 0 and self.include_original)
                                or (ci >= 0 and cands[ci].source in self.filter_sources)]
                probs = [self.grid.round("prob", p) for p in softmax([s for _, s in ranked_items])]
                passed: list[tuple[int, Candidate]] = []
                for (ci, _), p in zip(ranked_items, probs, strict=True):
                    if ci < 0:
                        continue
                    c = cands[ci]
                    c.prob = p
                    if p >= self.threshold and fits.get(ci, True):
                        passed.append((ci, c))
                # stable_ranking keeps the proposal order (the index) among equal texts
                ranked = [c for _, c in stable_ranking(passed, lambda x: x[1].prob or 0.0, lambda x: x[1].text)]
                if kept or ranked:
                    out[pos] = kept + ranked
            results.append(out)
        return results

    def _fits(self, cands: Sequence[Candidate], scored_items: Sequence[tuple[int, float]]) -> dict[int, bool]:
        """Set ``fit`` (on the ``logprob`` grid) on each scored candidate of ``fit_sources`` and say, by candidate
        index, whether it reaches ``min_fit`` (candidates without a check are absent)."""
        if self.min_fit is None:
            return {}
        original = next((s for ci, s in scored_items if ci < 0), None)
        out: dict[int, bool] = {}
        for ci, s in scored_items:
            if ci < 0 or cands[ci].source not in self.fit_sources:
                continue
            if original is None:  # cannot happen: the original is scored with every fit-checked group
                raise ValueError("the fit check needs the original's score")
            c = cands[ci]
            c.fit = self.grid.round("logprob", s - original)
            out[ci] = c.fit >= self.min_fit
            if not out[ci]:
                self.fits_removed += 1
        return out
