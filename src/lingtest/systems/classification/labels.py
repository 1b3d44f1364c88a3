"""Turning a classifier's own outputs into the labels a test expects.

* :func:`map_labels`: a model's labels (its ``id2label`` names) onto the task's, summing the
  probabilities of model labels that map to the same task label (e.g. HateXplain's ``offensive`` and
  ``normal`` both onto ``non-hate``).
* :func:`three_class`: a binary sentiment probability ``p`` = p(positive) onto negative / neutral /
  positive, CheckList's convention for binary sentiment models (its tutorial's ``pred_and_conf``):
  with the neutral band ``[½ − margin/2, ½ + margin/2]`` (CheckList: margin ⅓, so p < ⅓ negative,
  p > ⅔ positive, else neutral) the label is neutral inside the band, else the side of ½ that ``p``
  is on. ``inclusive`` says whether the band's edges are neutral (CheckList) or not (VADER's
  "compound ≥ 0.05 is positive").

  The probabilities make exactly that label the most probable one (strictly, so no tie-breaking is
  involved) and keep ``p`` recoverable: outside the band ``{negative: 1 − p, neutral: 0, positive:
  p}``; inside it ``neutral`` gets ``1 − |p − ½|`` and the side of ½ that ``p`` is on gets ``|p − ½|``.
  (CheckList's own numbers inside the band, ``1 − |p − ½|/margin``, tie with the side at the
  edges; these never tie.)
"""

from __future__ import annotations

from collections.abc import Mapping

from lingtest.errors import ConfigError

NEGATIVE, NEUTRAL, POSITIVE = "negative", "neutral", "positive"
SENTIMENT_LABELS = (NEGATIVE, NEUTRAL, POSITIVE)
#: a p within this distance of a band edge is on the edge ((0.05 + 1) / 2 - 0.5 is 0.025000000000000022)
EDGE_TOLERANCE = 1e-12

__all__ = ["NEGATIVE", "NEUTRAL", "POSITIVE", "SENTIMENT_LABELS", "EDGE_TOLERANCE", "check_margin", "map_labels",
           "three_class", "three_class_label"]


def check_margin(margin: float, inclusive: bool, where: str) -> float:
    """A valid neutral-band width: ``0 <= margin < 1`` (``margin == 0`` only with ``inclusive``,
    where exactly ½ is neutral)."""
    if isinstance(margin, bool) or not isinstance(margin, int | float) or not 0.0 <= float(margin) < 1.0:
        raise ConfigError(f"{where}: the neutral margin must be a number in [0, 1), got {margin!r}")
    if float(margin) == 0.0 and not inclusive:
        raise ConfigError(f"{where}: an exclusive neutral band of width 0 is empty (nothing is neutral); "
                          "use a margin > 0 or an inclusive band")
    return float(margin)


def three_class_label(p: float, margin: float, inclusive: bool = True) -> str:
    """Negative / neutral / positive of p(positive) (see the module notes)."""
    d = abs(p - 0.5)
    half = margin / 2.0
    if abs(d - half) <= EDGE_TOLERANCE:  # on an edge (up to float rounding of p's computation)
        inside = inclusive
    else:
        inside = d < half
    if inside:
        return NEUTRAL
    return POSITIVE if p > 0.5 else NEGATIVE


def three_class(p: float, margin: float, inclusive: bool = True) -> dict[str, float]:
    """Three-class probabilities of p(positive) whose most probable label is
    :func:`three_class_label` (see the module notes)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p(positive) must be in [0, 1], got {p!r}")
    label = three_class_label(p, margin, inclusive)
    if label != NEUTRAL:
        return {NEGATIVE: 1.0 - p, NEUTRAL: 0.0, POSITIVE: p}
    d = abs(p - 0.5)
    return {NEGATIVE: d if p < 0.5 else 0.0, NEUTRAL: 1.0 - d, POSITIVE: d if p > 0.5 else 0.0}


def map_labels(probs: Mapping[str, float], label_map: Mapping[str, str] | None) -> dict[str, float]:
    """``probs`` keyed by the task's labels: each model label renamed by ``label_map`` (``None``: as
    they are), probabilities of labels mapped together summed. A model label missing from the map is a
    :class:`ConfigError`."""
    if label_map is None:
        return dict(probs)
    missing = sorted(set(probs) - set(label_map))
    if missing:
        raise ConfigError(f"label_map has no entry for the model label(s) {missing}; it maps "
                          f"{sorted(label_map)}")
    out: dict[str, float] = {}
    for label, p in probs.items():
        out[label_map[label]] = out.get(label_map[label], 0.0) + p
    return {k: min(1.0, v) for k, v in out.items()}  # a sum of softmax outputs may pass 1 by an ulp
