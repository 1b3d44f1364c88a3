"""``run_suite(system, cases)``: predict everything the cases need in one batched, cached pass, check
each case's expectation, and return one result record per case."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lingtest.data.io import write_json, write_jsonl
from lingtest.data.model import TestCase
from lingtest.errors import InputError
from lingtest.suite.expectations import parse_expectation
from lingtest.systems.tasks import get_task
from lingtest.tracking import Tracker

RESULT_KIND = "result"


@dataclass(slots=True)
class CaseResult:
    """The outcome of one case for one system."""

    case_id: str
    system: str
    expectation: str
    passed: bool
    predictions: dict[str, Any]
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"case_id": self.case_id, "system": self.system, "expectation": self.expectation,
                "passed": self.passed, "predictions": self.predictions, "details": self.details}


@dataclass(slots=True)
class SuiteRun:
    """Results in case order, and the raw outputs each case was checked on (for technique grading)."""

    results: list[CaseResult]
    outputs: list[list[Any]]

    @property
    def failures(self) -> int:
        return sum(not r.passed for r in self.results)


def run_suite(system: Any, cases: Sequence[TestCase], options: Mapping[str, Any] | None = None) -> SuiteRun:
    """``system``: any system under test (usually from :func:`lingtest.systems.factory.build_system`,
    which batches and caches); ``options``: run options by expectation (``{"oracle": {...}}``)."""
    task = get_task(system.task)
    opts = dict(options or {})
    plans = []
    flat: list[Any] = []
    for case in cases:
        try:
            exp = parse_expectation(case.expected, where=f"{case.id}.expected")
            inputs = exp.inputs(case, task)
        except InputError as exc:
            raise InputError(f"test case {case.id}: {exc.reason}", field=exc.field) from None
        plans.append((exp, len(flat), len(inputs)))
        flat.extend(inputs)
    predicted = system.predict(flat) if flat else []
    results, outputs = [], []
    for case, (exp, start, n) in zip(cases, plans, strict=True):
        outs = predicted[start:start + n]
        verdict = exp.check(case, outs, task, opts)
        preds = {side: task.summary(o) for side, o in zip(exp.needs, outs, strict=True)}
        results.append(CaseResult(case.id, system.name, exp.name, bool(verdict.passed), preds, verdict.details))
        outputs.append(list(outs))
    return SuiteRun(results, outputs)


def write_results(path: str | Path, results: Iterable[CaseResult], meta: Mapping[str, Any] | None = None) -> int:
    return write_jsonl(path, results, kind=RESULT_KIND, meta=dict(meta or {}))


def score_system(system: Any, name: str, cases: Sequence[TestCase], *, technique: str,
                 grade: Callable[[list[Any]], Mapping[str, Any]],
                 flatten: Callable[[Mapping[str, Any]], Mapping[str, float]],
                 metrics_path: Path, results_path: Path, tracker: Tracker) -> dict[str, Any]:
    """A per-system scoring stage: run ``system`` on ``cases``, grade its outputs (one per case) into the
    metrics ``{"system", "cases", **grade(outputs)}`` written to ``metrics_path``, write the result records
    to ``results_path``, and log ``flatten(metrics)`` and the metrics file with the run tagged ``system``."""
    run = run_suite(system, cases)
    result = {"system": name, "cases": len(cases), **grade([o[0] for o in run.outputs])}
    write_json(metrics_path, result)
    write_results(results_path, run.results, meta={"technique": technique, "system": name})
    tracker.set_tags({"system": name})
    tracker.log_metrics(dict(flatten(result)))
    tracker.log_artifact(str(metrics_path))
    return result
