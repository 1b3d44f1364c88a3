"""How well an edit fits where it stands: ``log p(edited) - log p(original)`` of a text pair under a
language model, the check behind TIN's fit filter (:mod:`lingtest.tin.filters`). Cut both texts a few words
after the edit and the difference says how the replacement fits its left context against what it replaced,
as a fill-in ranker's ``window`` does (:class:`~lingtest.resources.candidates.rank.LMRanker`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["logprob_differences"]


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

