"""Rates of a suite's review, from its labels (no suite loaded): well-formed, label (or relation) correct,
both, and mean capability relevance, each with a 95% interval.

The rates count the latest judgement of each case by each reviewer (:func:`lingtest.review.labels.latest`);
a rate's denominator is the judgements that answered its question (``both``: those that answered
both, counting the ones where both answers are yes). A proportion's interval is Wilson's score interval
(``scipy.stats.binomtest(...).proportion_ci(method="wilson")``, whatever else is installed, so that a
rate's last digits do not depend on the environment; the tests cross-check it against statsmodels). Mean relevance
(1-5) has Student's t interval (none for a single judgement). Every judgement is counted as an
independent trial: when several reviewers judge the same cases, the intervals are narrower than the
cases alone warrant. Groups are listed once they have ``min_group`` (10) judged cases.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from lingtest.review.labels import LABELS_FILE, Judgement, latest

#: a group's rates are listed from this many judged cases
MIN_GROUP = 10
CONFIDENCE = 0.95


def wilson_interval(successes: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson's score interval of ``successes`` out of ``n`` trials (``n`` >= 1)."""
    if n < 1 or not 0 <= successes <= n:
        raise ValueError(f"a proportion needs 0 <= successes <= n and n >= 1, got {successes}/{n}")
    from scipy.stats import binomtest

    ci = binomtest(successes, n).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def mean_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> tuple[float, float | None, float | None]:
    """(mean, low, high): Student's t interval of the mean (no interval for fewer than two values)."""
    if not values:
        raise ValueError("the mean of no values")
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, None, None
    from scipy.stats import t

    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = float(t.ppf(0.5 + confidence / 2, n - 1)) * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def proportion(successes: int, n: int) -> dict[str, Any] | None:
    """``{"k", "n", "rate", "low", "high"}`` (``None`` when nothing was judged)."""
    if n == 0:
        return None
    low, high = wilson_interval(successes, n)
    return {"k": successes, "n": n, "rate": successes / n, "low": low, "high": high}


def rates(judgements: Iterable[Judgement]) -> dict[str, Any]:
    """The rates of ``judgements`` (already the latest per case and reviewer)."""
    js = list(judgements)
    wf = [j.well_formed for j in js if j.well_formed is not None]
    lc = [j.label_correct for j in js if j.label_correct is not None]
    both = [j.well_formed and j.label_correct for j in js if j.well_formed is not None and j.label_correct is not None]
    rel = [float(j.relevance) for j in js if j.relevance is not None]
    relevance = None
    if rel:
        mean, low, high = mean_interval(rel)
        relevance = {"n": len(rel), "mean": mean, "low": low, "high": high}
    return {"cases": len({j.id for j in js}), "judgements": len(js),
            "well_formed": proportion(sum(wf), len(wf)), "label_correct": proportion(sum(lc), len(lc)),
            "both": proportion(sum(both), len(both)), "relevance": relevance}


def summarise(header: Mapping[str, Any], judgements: Iterable[Judgement], *, path: Path | None = None,
              min_group: int = MIN_GROUP) -> dict[str, Any]:
    """The review of one suite: its identity (from the labels ``header``), reviewers, overall rates and
    the rates of every group with at least ``min_group`` judged cases."""
    current = latest(judgements)
    groups: dict[str, list[Judgement]] = {}
    for j in current:
        groups.setdefault(j.group, []).append(j)
    return {"suite": header.get("suite"), "version": header.get("version"), "sha256": header.get("sha256"),
            "unit": header.get("unit", "case"), "technique": header.get("technique"), "task": header.get("task"),
            "capabilities": bool(header.get("capabilities")), "labels": str(path) if path else None,
            "sample": header.get("sample"), "reviewers": sorted({j.reviewer for j in current}),
            "overall": rates(current),
            "groups": {g: rates(js) for g, js in sorted(groups.items())
                       if len({j.id for j in js}) >= min_group}}


def reviewed_folders(root: Path | None = None) -> list[Path]:
    """Every ``reviews/<suite>@<version>`` folder holding labels, by name."""
    from lingtest.review.labels import reviews_root

    base = reviews_root(root)
    return sorted(p.parent for p in base.glob(f"*/{LABELS_FILE}")) if base.is_dir() else []


def folder_rates(folder: Path, root: Path | None = None, *, min_group: int = MIN_GROUP) -> dict[str, Any]:
    """The rates of the labels in a ``reviews/<suite>@<version>`` folder (``labels``: relative to
    ``root`` when under it)."""
    from lingtest.review.labels import read_labels

    path = folder / LABELS_FILE
    header, judgements = read_labels(path)
    shown = path
    if root is not None and path.resolve().is_relative_to(root.resolve()):
        shown = path.resolve().relative_to(root.resolve())
    return summarise(header, judgements, path=shown, min_group=min_group)
