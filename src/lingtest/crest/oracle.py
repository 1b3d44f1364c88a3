"""The BLANC consistency oracle (Section 3.3).

The follow-up prediction is mapped back to source token positions (:class:`Alignment`), then
BLANC (Recasens & Hovy 2011; Luo et al. 2014 for system mentions) is computed with the source
prediction as key and the mapped follow-up prediction as response. An issue is reported when
precision < ``thr_p`` or recall < ``thr_r`` (both 1.0 in the paper). Singleton clusters are dropped
first (CR systems do not output them; the paper assumes clusters of >= 2 mentions). Two empty
predictions are consistent (P = R = 1): BLANC is undefined there, and nothing differs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lingtest.data.align import Alignment, Span
from lingtest.data.model import non_singleton
from lingtest.suite.oracles import ORACLES

Clusters = Sequence[Sequence[Span]]


@dataclass(frozen=True, slots=True)
class OracleResult:
    issue: bool
    precision: float
    recall: float


def _default_blanc() -> Callable[[Clusters, Clusters], Any]:
    from lingtest.metrics.coref import blanc

    return blanc


@ORACLES.register("blanc")
class BlancOracle:
    """The thresholds ``thr_p``/``thr_r`` are required (``crest.oracle`` in the config: 1.0 as in the
    paper); ``metric`` replaces the BLANC scorer (tests)."""

    name = "blanc"

    def __init__(self, *, thr_p: float, thr_r: float,
                 metric: Callable[[Clusters, Clusters], Any] | None = None) -> None:
        self.thr_p = thr_p
        self.thr_r = thr_r
        self._metric = metric

    @property
    def metric(self) -> Callable[[Clusters, Clusters], Any]:
        if self._metric is None:
            self._metric = _default_blanc()
        return self._metric

    def check(self, source_pred: Clusters, followup_pred: Clusters, alignment: Alignment) -> OracleResult:
        key = non_singleton(source_pred)
        response = non_singleton(alignment.clusters_to_source(followup_pred))
        if not key and not response:
            return OracleResult(False, 1.0, 1.0)
        if key == response:
            return OracleResult(False, 1.0, 1.0)
        score = self.metric(key, response)
        p, r = float(score.precision), float(score.recall)
        return OracleResult(p < self.thr_p or r < self.thr_r, p, r)
