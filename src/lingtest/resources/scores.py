"""The grid model scores are rounded to before any generation decision, and the stable order of scored items.

A model score (a causal or masked LM's log-probability, a masked LM's logit, a cosine similarity) carries
float noise in its last digits: CPUs with other SIMD instruction sets (AVX-512 against AVX2), another BLAS
build, another batch composition or padding add up the same numbers in another order. Every ranking,
threshold and top-k of the generators is therefore taken on scores rounded to a stated number of decimals
(:class:`ScoreGrid`, from ``resources.score_decimals``), and items with equal rounded scores are ordered by
a stable key (their text, then their index), never by float order alone.

Score kinds (the ``score_kind`` of a fill proposer, :mod:`lingtest.resources.fill`):

* ``logprob``: log-probabilities straight from a model (sentence, continuation or token scores);
* ``logit``: raw output logits of a masked LM;
* ``similarity``: cosine similarities of word, phrase or span vectors;
* ``prob``: probabilities *derived* from rounded log-probabilities (a softmax over a position's
  candidates, SynEval's mix of token probabilities). Their inputs are already on the grid, so this
  rounding only removes the last-bit differences of ``exp`` between math libraries and puts thresholds
  on a stated grid.

What rounding does and does not do: two scores that are equal up to float noise become equal (unless they
straddle a rounding boundary, which happens with probability about noise / grid step), and the stable
key then orders them; a score compared with a threshold is compared on the grid. A score that lies within
the noise of a rounding boundary can still round either way: that probability is the noise divided by
the grid step, so the decimals are chosen coarser than the noise (conf/resources/default.yaml).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any, TypeVar

import numpy as np

from lingtest.errors import ConfigError

__all__ = ["SCORE_KINDS", "ScoreGrid", "on_grid", "stable_ranking"]

#: the score kinds a grid has decimals for
SCORE_KINDS = ("logprob", "logit", "prob", "similarity")
_MAX_DECIMALS = 12

T = TypeVar("T")


def on_grid(value: float, decimals: int) -> float:
    """``value`` rounded to ``decimals`` decimals (Python's correctly rounded ``round``, half to even);
    ``-0.0`` becomes ``0.0`` and infinities stay as they are."""
    v = float(value)
    if not math.isfinite(v):
        return v
    return round(v, decimals) + 0.0


@dataclass(frozen=True, slots=True)
class ScoreGrid:
    """Decimals kept of each score kind (see the module notes): ``resources.score_decimals``."""

    logprob: int
    logit: int
    prob: int
    similarity: int

    def __post_init__(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= _MAX_DECIMALS:
                raise ConfigError(f"resources.score_decimals.{f.name} must be an integer from 0 to "
                                  f"{_MAX_DECIMALS}, got {v!r}")

    @classmethod
    def from_config(cls, resources: Any) -> ScoreGrid:
        """The grid of the composed ``resources`` section (its ``score_decimals``: one integer per kind of
        :data:`SCORE_KINDS`, nothing else)."""
        from lingtest.config import to_plain

        section = to_plain(resources)
        if not isinstance(section, Mapping) or "score_decimals" not in section:
            raise ConfigError("resources.score_decimals is not configured (decimals of "
                              f"{', '.join(SCORE_KINDS)})")
        data = section["score_decimals"]
        if not isinstance(data, Mapping):
            raise ConfigError(f"resources.score_decimals must be a mapping of {', '.join(SCORE_KINDS)}")
        unknown = sorted(str(k) for k in data if k not in SCORE_KINDS)
        missing = [k for k in SCORE_KINDS if k not in data]
        if unknown or missing:
            raise ConfigError(f"resources.score_decimals: unknown key(s) {unknown}, missing key(s) {missing}")
        return cls(**{k: data[k] for k in SCORE_KINDS})

    def decimals(self, kind: str) -> int:
        """The decimals of score kind ``kind`` (a :class:`ValueError` names an unknown kind)."""
        if kind not in SCORE_KINDS:
            raise ValueError(f"unknown score kind {kind!r}; known: {', '.join(SCORE_KINDS)}")
        result: int = getattr(self, kind)
        return result

    def round(self, kind: str, value: float) -> float:
        """``value`` on the grid of ``kind`` (:func:`on_grid`)."""
        return on_grid(value, self.decimals(kind))

    def round_array(self, kind: str, values: Any) -> np.ndarray:
        """A float64 array of ``values`` on the grid of ``kind`` (``numpy.round``: half to even, applied
        elementwise, so its result does not depend on the CPU's SIMD width)."""
        return np.round(np.asarray(values, dtype=np.float64), self.decimals(kind)) + 0.0


def stable_ranking(items: Iterable[T], score: Callable[[T], float], name: Callable[[T], str]) -> list[T]:
    """``items`` best first: by ``score`` (already on a grid) descending, then by ``name`` (the
    candidate's text), then by position in ``items``; a total order that float noise cannot change."""
    indexed = list(enumerate(items))
    indexed.sort(key=lambda p: (-score(p[1]), name(p[1]), p[0]))
    return [x for _, x in indexed]
