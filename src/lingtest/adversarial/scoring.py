"""Scoring a system on the suite: corpus scores against gold on the clean documents and on every
perturbed set (:func:`~lingtest.adversarial.report.score_corpus`), and invariance failures per set with
the validity of the set's cases (:func:`~lingtest.adversarial.validity.case_validity`).

A failure (the system's clustering of the perturbed document is not its clustering of the clean one
moved through the changed words) is an issue. Nothing grades an issue here, so every one counts as
true: ``precision_validity_adjusted`` is the share of failures on cases that keep their gold (a failure
on a case whose gold changed may be the right answer), ``failures_invalid`` the others."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lingtest.adversarial.report import score_corpus
from lingtest.adversarial.sets import CLEAN
from lingtest.adversarial.validity import case_validity
from lingtest.data.model import Document, TestCase
from lingtest.metrics.validity import Validity, adjusted_precision, validity_summary


def score_cases(system: Any, cases: list[TestCase], metrics: Sequence[str]) -> tuple[dict[str, Any], Any]:
    """Run ``system`` on the suite; corpus scores against gold of the clean documents (each once) and
    of every perturbed set, and per set the invariance failures, the cases' ``validity`` (with
    ``validity_valid``, ``validity_total``, ``validity_reasons``), ``failures_invalid`` and
    ``precision_validity_adjusted`` (see the module docstring)."""
    from lingtest.suite.run import run_suite

    run = run_suite(system, cases)
    clean: dict[str, tuple[Document, Any]] = {}
    by_set: dict[str, list[tuple[Document, Any]]] = {}
    failures: dict[str, int] = {}
    checked: dict[str, list[tuple[bool, Validity]]] = {}
    for case, res, outs in zip(cases, run.results, run.outputs, strict=True):
        s = case.provenance.transformation
        clean.setdefault(case.provenance.seed_id, (Document.from_dict(case.source), outs[0]))
        by_set.setdefault(s, []).append((Document.from_dict(case.followup or {}), outs[1]))
        failures[s] = failures.get(s, 0) + (not res.passed)
        checked.setdefault(s, []).append((not res.passed, case_validity(case)))
    per_set = {}
    for s, pairs in {CLEAN: list(clean.values()), **by_set}.items():
        per_set[s] = score_corpus([d.clusters for d, _ in pairs], [p for _, p in pairs], metrics)
    invariance = {s: {"cases": len(v), "failures": failures[s], **invariance_validity(checked[s])}
                  for s, v in by_set.items()}
    return {"sets": per_set, "invariance": invariance}, run


def invariance_validity(checked: Sequence[tuple[bool, Validity]]) -> dict[str, Any]:
    """The validity figures of one set from ``(failed, validity)`` per case: ``validity``,
    ``validity_valid``, ``validity_total``, ``validity_reasons``, ``failures_invalid`` and
    ``precision_validity_adjusted`` (failures on valid cases / failures; ``None`` without a failure)."""
    adj = adjusted_precision((True, v.valid) for failed, v in checked if failed)
    return {**validity_summary(v for _, v in checked), "failures_invalid": adj["issues_invalid"],
            "precision_validity_adjusted": adj["precision_validity_adjusted"]}
