"""Run a coreference system on the CREST cases through the suite runner, grade each issue with gold
and summarise (the numbers of the paper's Tables 1 and 3).

The cases are the generated file's (every follow-up up to max(M), parsed); each carries the
``same-coreference`` expectation, checked by the configured oracle. Every (M, selection on/off)
configuration of the ablation is a filter over the same records: configuration (M, select) uses the
follow-ups with ``order < M`` (and ``selected`` when select is on), which is exactly what a run with
that M would produce because generation is deterministic and ordered.

Beside the precision (an issue is a true positive when the system is wrong on the source or on the
follow-up against the gold mapped onto it) the summary reports the ``validity`` of the tests (the share
whose follow-up keeps its source's gold, :func:`~lingtest.crest.grading.case_validity`) and
``precision_validity_adjusted``, the precision with every issue on an invalid test counted as a false
positive.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lingtest.crest.generate import Source
from lingtest.crest.grading import ERROR_TYPES, case_validity, grade_issue, same_clustering
from lingtest.data.model import TestCase, clusters_as_spans, non_singleton
from lingtest.metrics.validity import Validity, adjusted_precision, validity_summary
from lingtest.suite.run import CaseResult, run_suite

Span = tuple[int, int]


@dataclass(slots=True)
class PairRecord:
    source_id: str
    order: int
    selected: bool
    candidate_source: str
    issue: bool
    precision: float
    recall: float
    true_positive: bool
    types: list[str] = field(default_factory=list)
    invalid_reasons: list[str] = field(default_factory=list)  # why the follow-up does not keep its gold

    @property
    def valid(self) -> bool:
        return not self.invalid_reasons


@dataclass(slots=True)
class EvalResult:
    system: str
    source_correct: dict[str, bool]
    pairs: list[PairRecord]
    predict_seconds: float
    results: list[CaseResult] = field(default_factory=list)


def select_cases(cases: Sequence[TestCase], M: int | None = None, only_selected: bool = False) -> list[TestCase]:
    """The cases of configuration (M, select): ``order < M`` and, with ``only_selected``, selected."""
    return [c for c in cases if (M is None or int(c.meta["order"]) < M)
            and (bool(c.meta.get("selected", True)) or not only_selected)]


def _spans(clusters: Any) -> list[list[Span]]:
    return non_singleton(clusters_as_spans(clusters))


def _gold(clusters: Sequence[Sequence[Sequence[int]]]) -> list[list[Span]]:
    return [[(int(s), int(e)) for s, e in c] for c in clusters]


def evaluate_system(system: Any, sources: Sequence[Source], cases: Sequence[TestCase],
                    oracle: Mapping[str, Any] | None = None) -> EvalResult:
    """Predict every source and case (one batched, cached pass each), check the cases with the oracle
    (``oracle``: its name and thresholds, e.g. ``{"name": "blanc", "thr_p": 1.0, "thr_r": 1.0}``), grade
    every issue with gold and decide every case's validity."""
    t0 = time.perf_counter()
    src_pred = system.predict([s.doc for s in sources])
    run = run_suite(system, cases, {"oracle": dict(oracle or {})})
    seconds = time.perf_counter() - t0
    by_id = {s.id: _spans(p) for s, p in zip(sources, src_pred, strict=True)}
    gold = {s.id: s.gold for s in sources}
    correct = {s.id: same_clustering(s.gold, by_id[s.id]) for s in sources}
    pairs: list[PairRecord] = []
    for case, res, outs in zip(cases, run.results, run.outputs, strict=True):
        sid, m = case.provenance.seed_id, case.meta
        tp = False
        types: set[str] = set()
        if not res.passed:
            tp, types = grade_issue(gold[sid], by_id[sid], _gold(m["followup_gold_clusters"]), _spans(outs[1]))
        pairs.append(PairRecord(sid, int(m["order"]), bool(m.get("selected", True)), str(m["candidate_source"]),
                                not res.passed, float(res.details["precision"]), float(res.details["recall"]), tp,
                                [t for t in ERROR_TYPES if t in types], list(case_validity(case).reasons)))
    return EvalResult(system.name, correct, pairs, seconds, run.results)


def summarize(result: EvalResult, M: int, select: bool = True,
              seconds_per_selected: float | None = None) -> dict[str, Any]:
    """Table-1 style numbers for one configuration (see module docstring); ``validity`` is over the
    tests of the configuration, ``precision_validity_adjusted`` over its issues (``None`` without one)."""
    within = [p for p in result.pairs if p.order < M]
    used = [p for p in within if p.selected or not select]
    issues = [p for p in used if p.issue]
    tp = sum(p.true_positive for p in issues)
    wrong = {sid for sid, ok in result.source_correct.items() if not ok}
    hit = {p.source_id for p in issues} & wrong
    types = Counter(t for p in issues for t in p.types)
    n_sel = sum(p.selected for p in within)
    out: dict[str, Any] = {
        "M": M,
        "select": select,
        "sources": len(result.source_correct),
        "sources_correct": len(result.source_correct) - len(wrong),
        "sources_wrong": len(wrong),
        "generated": len(within),
        "selected": n_sel,
        "tests": len(used),
        "issues": len(issues),
        "hits": len(hit),
        "hit_rate": round(len(hit) / len(wrong), 4) if wrong else 0.0,
        "true_positives": tp,
        "false_positives": len(issues) - tp,
        "precision": round(tp / len(issues), 4) if issues else 1.0,
        **adjusted_precision(((p.true_positive, p.valid) for p in issues), digits=4),
        **validity_summary((Validity(tuple(p.invalid_reasons)) for p in used), digits=4),
        "issue_types": {t: types.get(t, 0) for t in ERROR_TYPES},
        "issues_by_candidate_source": dict(sorted(Counter(p.candidate_source for p in issues).items())),
        "tests_by_candidate_source": dict(sorted(Counter(p.candidate_source for p in used).items())),
    }
    if seconds_per_selected is not None:
        out["seconds_per_selected"] = round(seconds_per_selected, 4)
    return out
