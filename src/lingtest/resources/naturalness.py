"""How natural a text reads to a language model, and how well an edit fits where it stands: the two LM
checks that keep generated test cases sentences (TIN's mutants, CREST's follow-ups).

* :func:`syneval`: SynEval as AEON computes it, ``weight_min * min + weight_mean * mean`` of a text's
  per-token probabilities; :func:`naturalness_pairs` scores ``(source, edited)`` text pairs, each source with
  its edits in one packed group. A generator keeps an edit when ``score(edited) >= score(source) - epsilon``.
* :func:`logprob_differences`: ``log p(edited) - log p(original)`` of text pairs, the fit of a replacement
  against what it replaced when both texts are cut a few words after the edit.

All values are taken on the grid of ``resources.score_decimals`` (:class:`~lingtest.resources.scores.ScoreGrid`)
by the callers' thresholds, so float noise (another CPU, another batch layout) changes no decision.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from lingtest.resources.scores import ScoreGrid

__all__ = ["NaturalnessBound", "TokenLogprobScorer", "grid_syneval", "logprob_differences", "naturalness_pairs",
           "naturalness_scores", "syneval"]


class TokenLogprobScorer(Protocol):
    def token_logprobs(self, texts: Sequence[str]) -> list[Any]:
        """One record per text with ``logprobs`` (natural-log probability of each token)."""
        ...


def syneval(logprobs: Sequence[float], *, weight_min: float, weight_mean: float) -> float:
    """``weight_min * min(p) + weight_mean * mean(p)`` over token probabilities ``p = exp(logprob)``
    (0 for a text without tokens)."""
    if not logprobs:
        return 0.0
    probs = [math.exp(x) for x in logprobs]
    return weight_min * min(probs) + weight_mean * sum(probs) / len(probs)


def grid_syneval(logprobs: Sequence[float], *, weight_min: float, weight_mean: float, grid: ScoreGrid) -> float:
    """:func:`syneval` on the grid: of the token log-probabilities rounded to the ``logprob`` decimals,
    rounded to the ``prob`` decimals."""
    lps = [grid.round("logprob", x) for x in logprobs]
    return grid.round("prob", syneval(lps, weight_min=weight_min, weight_mean=weight_mean))


def naturalness_scores(scorer: TokenLogprobScorer, texts: Sequence[str], *, weight_min: float,
                       weight_mean: float, grid: ScoreGrid) -> list[float]:
    """SynEval of each text on the grid (:func:`grid_syneval`; each distinct text scored once)."""
    uniq = sorted(set(texts))
    scored = scorer.token_logprobs(uniq) if uniq else []
    by_text = {t: grid_syneval(list(s.logprobs), weight_min=weight_min, weight_mean=weight_mean, grid=grid)
               for t, s in zip(uniq, scored, strict=True)}
    return [by_text[t] for t in texts]


def naturalness_pairs(scorer: Any, pairs: Sequence[tuple[str, str]], *, weight_min: float, weight_mean: float,
                      grid: ScoreGrid, packed: bool) -> list[tuple[float, float]]:
    """SynEval of ``(source, mutant)`` text pairs on the grid (:func:`grid_syneval`). With ``packed`` and a
    scorer that has ``token_logprobs_grouped`` (:class:`~lingtest.resources.lm.CausalLMScorer`), each
    source and its distinct mutants form one group whose shared beginning is run once; else every
    distinct text is scored on its own (:func:`naturalness_scores`)."""
    if not packed or not hasattr(scorer, "token_logprobs_grouped"):
        flat = naturalness_scores(scorer, [a for a, _ in pairs] + [b for _, b in pairs], weight_min=weight_min,
                                  weight_mean=weight_mean, grid=grid)
        return list(zip(flat[: len(pairs)], flat[len(pairs):], strict=True))
    by_source: dict[str, set[str]] = {}
    for a, b in pairs:
        by_source.setdefault(a, set()).add(b)
    groups = [[a, *sorted(by_source[a] - {a})] for a in sorted(by_source)]
    scored = scorer.token_logprobs_grouped(groups)
    value: dict[tuple[str, str], float] = {}
    for g, res in zip(groups, scored, strict=True):
        for text, r in zip(g, res, strict=True):
            value[(g[0], text)] = grid_syneval(list(r.logprobs), weight_min=weight_min, weight_mean=weight_mean,
                                               grid=grid)
    return [(value[(a, a)], value[(a, b)]) for a, b in pairs]


def logprob_differences(scorer: Any, pairs: Sequence[tuple[str, str]]) -> list[float]:
    """``log p(edited) - log p(original)`` of each ``(original, edited)`` pair of texts under ``scorer``: how
    much more probable (negative: less) an edit leaves a text.

    The texts of one original form one group: with a scorer that has ``score_grouped``
    (:class:`~lingtest.resources.lm.CausalLMScorer`), the beginning they share runs once and its
    log-probability, the same for the whole group, is left out (``relative=True``), which leaves each
    difference unchanged; another scorer's ``token_logprobs`` are summed (a masked LM's pseudo-log-likelihood
    terms). Each distinct text is scored once, groups in the order of their original's text."""
    if isinstance(pairs, str):
        raise TypeError("logprob_differences() takes (original, edited) pairs of texts")
    groups: dict[str, list[str]] = {}
    for i, pair in enumerate(pairs):
        a, b = pair
        if not isinstance(a, str) or not isinstance(b, str):
            raise TypeError(f"pairs[{i}] is not a pair of texts: {pair!r}")
        group = groups.setdefault(a, [a])
        if b not in group:
            group.append(b)
    keys = sorted(groups)
    if not keys:
        return []
    if hasattr(scorer, "score_grouped"):
        scored = scorer.score_grouped([groups[k] for k in keys], relative=True)
    else:
        flat = [t for k in keys for t in groups[k]]
        totals = iter(float(sum(s.logprobs)) for s in scorer.token_logprobs(flat))
        scored = [[next(totals) for _ in groups[k]] for k in keys]
    diff: dict[tuple[str, str], float] = {}
    for k, values in zip(keys, scored, strict=True):
        for text, v in zip(groups[k], values, strict=True):
            diff[(k, text)] = float(v) - float(values[0])
    return [diff[(a, b)] for a, b in pairs]


@dataclass(frozen=True)
class NaturalnessBound:
    """Keep an edit when its SynEval on the grid is at least its source's less ``epsilon``
    (``score(edited) >= score(source) - epsilon``, the bound on the ``prob`` grid too, so that the subtraction
    adds no float noise of its own). ``scorer``: a causal LM (:class:`~lingtest.resources.lm.CausalLMScorer`)
    or anything with ``token_logprobs``; ``packed``: each source with its edits in one packed group."""

    scorer: Any
    epsilon: float
    weight_min: float
    weight_mean: float
    grid: ScoreGrid
    packed: bool = True

    def judge(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[float, float, bool]]:
        """``(score(source), score(edited), kept)`` of each ``(source, edited)`` text pair (one scorer call)."""
        if not pairs:
            return []
        scores = naturalness_pairs(self.scorer, pairs, weight_min=self.weight_min, weight_mean=self.weight_mean,
                                   grid=self.grid, packed=self.packed)
        return [(src, new, new >= self.grid.round("prob", src - self.epsilon)) for src, new in scores]
