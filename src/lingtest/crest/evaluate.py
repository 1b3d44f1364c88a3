"""Run a coreference system on sources and follow-ups, apply the oracle, grade with gold and
summarise (the numbers of the paper's Tables 1 and 3).

Predictions are made once for every generated follow-up (selected or not), so every
(M, selection on/off) configuration of the ablation is a filter over the same records:
configuration (M, select) uses the follow-ups with ``order < M`` (and ``selected`` when select is
on), which is exactly what a run with that M would produce because generation is deterministic
and ordered.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lingtest.crest.generate import FollowUp, Source, followup_document
from lingtest.crest.grading import ERROR_TYPES, grade_issue, same_clustering
from lingtest.crest.oracle import non_singleton
from lingtest.data.model import Document, clusters_as_spans

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


@dataclass(slots=True)
class EvalResult:
    system: str
    source_correct: dict[str, bool]
    pairs: list[PairRecord]
    predict_seconds: float
    predictions: dict[str, list[list[Span]]] = field(default_factory=dict)


def predict(system: Any, docs: Sequence[Document], batch_size: int = 64,
            progress: Any = None) -> list[list[list[Span]]]:
    """Non-singleton predicted span clusters per document, in batches."""
    out: list[list[list[Span]]] = []
    for k in range(0, len(docs), batch_size):
        batch = list(docs[k:k + batch_size])
        res = system.predict(batch)
        if len(res) != len(batch):
            raise ValueError(f"system {getattr(system, 'name', system)!r} returned {len(res)} predictions "
                             f"for {len(batch)} documents")
        out.extend(non_singleton(clusters_as_spans(r)) for r in res)
        if progress is not None:
            progress(len(batch))
    return out


def evaluate_system(system: Any, sources: Sequence[Source], followups: dict[str, list[FollowUp]],
                    oracle: Any, batch_size: int = 64, only_selected: bool = False,
                    progress: Any = None) -> EvalResult:
    """Predict, check every (source, follow-up) pair with ``oracle`` and grade it with gold."""
    t0 = time.perf_counter()
    src_pred = predict(system, [s.doc for s in sources], batch_size, progress)
    fus = [(s, f) for s in sources for f in followups.get(s.id, []) if f.selected or not only_selected]
    fu_pred = predict(system, [followup_document(s, f) for s, f in fus], batch_size, progress)
    seconds = time.perf_counter() - t0
    by_id = {s.id: p for s, p in zip(sources, src_pred)}
    correct = {s.id: same_clustering(s.gold, by_id[s.id]) for s in sources}
    pairs: list[PairRecord] = []
    predictions: dict[str, list[list[Span]]] = dict(by_id)
    for (s, f), pf in zip(fus, fu_pred):
        predictions[f"{s.id}#{f.order}"] = pf
        res = oracle.check(by_id[s.id], pf, f.alignment)
        tp, types = (False, set())
        if res.issue:
            tp, types = grade_issue(s.gold, by_id[s.id], f.gold(s.gold), pf)
        pairs.append(PairRecord(s.id, f.order, f.selected, f.candidate_source, res.issue,
                                round(res.precision, 6), round(res.recall, 6), tp,
                                [t for t in ERROR_TYPES if t in types]))
    return EvalResult(getattr(system, "name", type(system).__name__), correct, pairs, seconds, predictions)


def summarize(result: EvalResult, M: int, select: bool = True,
              seconds_per_selected: float | None = None) -> dict[str, Any]:
    """Table-1 style numbers for one configuration (see module docstring)."""
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
        "issue_types": {t: types.get(t, 0) for t in ERROR_TYPES},
        "issues_by_candidate_source": dict(sorted(Counter(p.candidate_source for p in issues).items())),
        "tests_by_candidate_source": dict(sorted(Counter(p.candidate_source for p in used).items())),
    }
    if seconds_per_selected is not None:
        out["seconds_per_selected"] = round(seconds_per_selected, 4)
    return out
