"""Wrappers that add seeded relative float noise to every model score a generator sees, the stand-in for
another CPU (AVX-512 against AVX2), BLAS build or batch layout: each value ``x`` becomes
``x * (1 + u)`` with ``u`` uniform in ``[-rel, rel]``. ``rel = 0`` leaves the values as they are (the
noise-free run). Also :func:`without_rounding`, which turns the score grid off, to show that a fixture
is sensitive to the noise."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np

REL = 1e-6
SEEDS = (0, 1, 2, 3, 4, 5, 6, 7)


class Noise:
    """A seeded stream of relative perturbations."""

    def __init__(self, seed: int, rel: float = REL) -> None:
        self.rng = np.random.default_rng(seed)
        self.rel = rel

    def scalar(self, x: float) -> float:
        return float(x) * (1.0 + self.rel * float(self.rng.uniform(-1.0, 1.0))) if self.rel else float(x)

    def array(self, x: Any) -> np.ndarray:
        a = np.asarray(x)
        if not self.rel:
            return a
        return (a.astype(np.float64) * (1.0 + self.rel * self.rng.uniform(-1.0, 1.0, size=a.shape))).astype(a.dtype)


@dataclass
class _Scored:
    logprobs: list[float]


def noisy_scorer(inner: Any, noise: Noise) -> Any:
    """A causal-LM scorer with the methods of ``inner`` among ``score``, ``score_grouped``,
    ``token_logprobs`` and ``token_logprobs_grouped`` (and its ``reduction``), whose outputs carry
    :class:`Noise`."""
    out = SimpleNamespace(reduction=getattr(inner, "reduction", "sum"), inner=inner)
    if hasattr(inner, "score"):
        out.score = lambda texts: [noise.scalar(s) for s in inner.score(texts)]
    if hasattr(inner, "score_grouped"):
        out.score_grouped = lambda groups, **kw: [[noise.scalar(s) for s in g]
                                                  for g in inner.score_grouped(groups, **kw)]
    if hasattr(inner, "token_logprobs"):
        out.token_logprobs = lambda texts: [_Scored([noise.scalar(x) for x in r.logprobs])
                                            for r in inner.token_logprobs(texts)]
    if hasattr(inner, "token_logprobs_grouped"):
        out.token_logprobs_grouped = lambda groups: [[_Scored([noise.scalar(x) for x in r.logprobs]) for r in g]
                                                     for g in inner.token_logprobs_grouped(groups)]
    return out


class NoisySpanEmbedder:
    """A TIN span embedder (``embed_spans``) whose vectors carry :class:`Noise` in every component."""

    def __init__(self, inner: Any, noise: Noise) -> None:
        self.inner = inner
        self.noise = noise

    def embed_spans(self, requests: Any) -> np.ndarray:
        return self.noise.array(self.inner.embed_spans(requests))


class NoisyTextEmbedder:
    """A text embedder (``encode``) whose vectors carry :class:`Noise` in every component."""

    def __init__(self, inner: Any, noise: Noise) -> None:
        self.inner = inner
        self.noise = noise

    def encode(self, texts: list[str]) -> np.ndarray:
        return self.noise.array(self.inner.encode(texts))


def noisy_similarities(index: Any, noise: Noise) -> Any:
    """``index`` (a :class:`~lingtest.resources.candidates.vectors.VectorIndex`) answering with noisy
    cosines: its :meth:`similarities` output carries :class:`Noise`."""
    plain = index.similarities

    def similarities(rows: Sequence[int]) -> np.ndarray:
        return noise.array(plain(rows))

    index.similarities = similarities
    return index


def without_rounding(monkeypatch: Any) -> None:
    """Turn the score grid off (:class:`~lingtest.resources.scores.ScoreGrid` passes values through):
    what the generators would do with raw floats."""
    from lingtest.resources.scores import ScoreGrid

    monkeypatch.setattr(ScoreGrid, "round", lambda self, kind, value: float(value))
    monkeypatch.setattr(ScoreGrid, "round_array", lambda self, kind, values: np.asarray(values, dtype=np.float64))
