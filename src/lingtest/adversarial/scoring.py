"""Scoring a system on the suite: corpus scores against gold on the clean documents and on every
perturbed set (:func:`~lingtest.adversarial.report.score_corpus`), and invariance failures per set."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lingtest.adversarial.report import score_corpus
from lingtest.adversarial.sets import CLEAN
from lingtest.data.model import Document, TestCase


def score_cases(system: Any, cases: list[TestCase], metrics: Sequence[str]) -> tuple[dict[str, Any], Any]:
    """Run ``system`` on the suite; corpus scores against gold of the clean documents (each once) and
    of every perturbed set, and invariance failures per set."""
    from lingtest.suite.run import run_suite

    run = run_suite(system, cases)
    clean: dict[str, tuple[Document, Any]] = {}
    by_set: dict[str, list[tuple[Document, Any]]] = {}
    failures: dict[str, int] = {}
    for case, res, outs in zip(cases, run.results, run.outputs, strict=True):
        s = case.provenance.transformation
        clean.setdefault(case.provenance.seed_id, (Document.from_dict(case.source), outs[0]))
        by_set.setdefault(s, []).append((Document.from_dict(case.followup or {}), outs[1]))
        failures[s] = failures.get(s, 0) + (not res.passed)
    per_set = {}
    for s, pairs in {CLEAN: list(clean.values()), **by_set}.items():
        per_set[s] = score_corpus([d.clusters for d, _ in pairs], [p for _, p in pairs], metrics)
    invariance = {s: {"cases": len(v), "failures": failures[s]} for s, v in by_set.items()}
    return {"sets": per_set, "invariance": invariance}, run
