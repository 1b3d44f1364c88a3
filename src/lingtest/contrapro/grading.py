"""The scored suite graded: a contrastive system's scores of the suite's cases -> accuracy per set (with
its breakdowns), Δ to clean on the same examples per set and per attack (all its variants pooled)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lingtest.contrapro.cases import CLEAN, case_example
from lingtest.contrapro.evaluate import accuracy_report, attack_delta
from lingtest.data.model import ContrastiveExample, TestCase
from lingtest.errors import LingtestError


def grade(cases: Sequence[TestCase], scores: Sequence[Sequence[float]]) -> dict[str, Any]:
    """Accuracy per set (with breakdowns), Δ to clean per set and per attack (all its variants
    pooled), from the cases and one score list per case."""
    by_set: dict[str, tuple[list[ContrastiveExample], list[Sequence[float]]]] = {}
    for case, s in zip(cases, scores, strict=True):
        exs, ss = by_set.setdefault(case.provenance.transformation, ([], []))
        exs.append(case_example(case))
        ss.append(s)
    if CLEAN not in by_set:
        raise LingtestError("the suite has no clean cases")
    clean_ex, clean_s = by_set[CLEAN]
    sets = {name: accuracy_report(exs, ss) for name, (exs, ss) in by_set.items()}
    deltas = {name: attack_delta(clean_ex, clean_s, exs, ss) for name, (exs, ss) in by_set.items() if name != CLEAN}
    attacks: dict[str, Any] = {}
    for attack in dict.fromkeys(n.split("/", 1)[0] for n in deltas):
        exs = [e for n, (es, _) in by_set.items() if n.startswith(attack + "/") for e in es]
        ss = [s for n, (_, sc) in by_set.items() if n.startswith(attack + "/") for s in sc]
        attacks[attack] = attack_delta(clean_ex, clean_s, exs, ss)
    return {"sets": sets, "deltas": deltas, "attacks": attacks}
