"""Checking S2LCT cases and the per-capability metrics of Tables 3 and 4.

The expectation ``s2lct-label`` (registered in :data:`~lingtest.suite.expectations.EXPECTATIONS`
when :mod:`lingtest.s2lct` is imported) maps a classifier's probabilities to the suite's labels
the way the paper does and passes when the label is one of the expected ones:

* hate speech: ``hate`` when p(hate) > ``hate_threshold`` (0.5), else ``non-hate``;
* sentiment from a binary system (labels ``negative``/``positive`` only): p(positive) below
  ``neutral_band.low`` (1/3) is negative, above ``neutral_band.high`` (2/3) positive, else neutral
  (CheckList's convention); a system with a ``neutral`` label: its most probable label.

The thresholds are run options (``conf/s2lct`` ``evaluate``), not part of the suite.
:func:`capability_metrics` counts, per capability: cases, failures and failure rate of the seeds,
the expansions and both together, and pass-to-fail (an expansion that fails while its seed case
passes), and the same counts for the baseline's cases; :func:`capability_totals` sums them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lingtest.data.model import TestCase
from lingtest.suite.expectations import Expectation, Verdict, expectation
from lingtest.systems.tasks import Task

__all__ = ["S2LCTLabel", "capability_metrics", "capability_totals", "predicted_label"]

EXPECTATION = "s2lct-label"


def predicted_label(probs: Mapping[str, float], options: Mapping[str, Any]) -> str:
    """The suite label of a classifier output (see the module docstring); ``options`` is
    ``conf/s2lct`` ``evaluate`` (``neutral_band``, ``hate_threshold``)."""
    labels = set(probs)
    if "hate" in labels:
        return "hate" if float(probs["hate"]) > float(options["hate_threshold"]) else "non-hate"
    if labels == {"negative", "positive"}:
        band = options["neutral_band"]
        p = float(probs["positive"])
        if p < float(band["low"]):
            return "negative"
        if p > float(band["high"]):
            return "positive"
        return "neutral"
    return min(probs, key=lambda k: (-float(probs[k]), k))


@expectation
class S2LCTLabel(Expectation):
    """The predicted suite label is one of ``labels``."""

    name = EXPECTATION
    needs = ("source",)
    accepts = frozenset({"labels"})

    def check(self, case: TestCase, outputs: Sequence[Any], task: Task, options: Mapping[str, Any]) -> Verdict:
        opts = options.get("s2lct")
        if opts is None:
            raise KeyError("s2lct-label needs the run option 's2lct' (conf/s2lct evaluate)")
        got = predicted_label(outputs[0], opts)
        allowed = list(self.params["labels"])
        return Verdict(got in allowed, {"predicted": got, "expected": allowed})


def _rate(fails: int, n: int) -> float | None:
    return round(100.0 * fails / n, 2) if n else None


def capability_metrics(cases: Sequence[TestCase], passed: Sequence[bool],
                       baseline: Sequence[TestCase] = (), baseline_passed: Sequence[bool] = ()) -> dict[str, Any]:
    """Per capability (in first-seen order of ``cases``): seeds/exps/all cases and failures,
    failure rates in %, pass-to-fail, and the baseline's cases and failures."""
    out: dict[str, dict[str, Any]] = {}
    ok = {c.id: p for c, p in zip(cases, passed, strict=True)}

    def row(cap: str) -> dict[str, Any]:
        if cap not in out:
            out[cap] = {"seeds": 0, "seed_fail": 0, "exps": 0, "exp_fail": 0, "pass_to_fail": 0,
                        "baseline": 0, "baseline_fail": 0}
        return out[cap]

    for c, p in zip(cases, passed, strict=True):
        r = row(str(c.meta["capability"]))
        if c.meta["kind"] == "seed":
            r["seeds"] += 1
            r["seed_fail"] += int(not p)
        else:
            r["exps"] += 1
            r["exp_fail"] += int(not p)
            parent = c.meta.get("parent")
            if not p and parent is not None and ok.get(parent) is True:
                r["pass_to_fail"] += 1
    for c, p in zip(baseline, baseline_passed, strict=True):
        r = row(str(c.meta["capability"]))
        r["baseline"] += 1
        r["baseline_fail"] += int(not p)
    for r in out.values():
        r["cases"] = r["seeds"] + r["exps"]
        r["fail"] = r["seed_fail"] + r["exp_fail"]
        r["fail_rate"] = _rate(r["fail"], r["cases"])
        r["seed_fail_rate"] = _rate(r["seed_fail"], r["seeds"])
        r["exp_fail_rate"] = _rate(r["exp_fail"], r["exps"])
        r["baseline_fail_rate"] = _rate(r["baseline_fail"], r["baseline"])
    return out


#: the counts of :func:`capability_metrics` that :func:`capability_totals` sums
TOTALS = ("seeds", "seed_fail", "exps", "exp_fail", "pass_to_fail", "baseline", "baseline_fail")


def capability_totals(caps: Mapping[str, Mapping[str, Any]]) -> dict[str, int]:
    """The counts of :func:`capability_metrics` summed over the capabilities."""
    return {k: sum(int(r[k]) for r in caps.values()) for k in TOTALS}
