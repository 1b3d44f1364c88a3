"""The scored suite graded: a contrastive system's scores of the suite's cases -> accuracy per set (with
its breakdowns), Δ to clean on the same examples per set and per attack (all its variants pooled).

Beside each Δ, the validity of the attacked cases (:func:`~lingtest.contrapro.validity.attack_validity`
against their clean originals in the suite: ``validity``, ``validity_valid``, ``validity_total``,
``validity_reasons``) and, taking the examples an attack *broke* (right on clean, wrong attacked) as its
issues, ``broken_invalid`` (broken examples whose gold the attack did not keep) and
``precision_validity_adjusted`` (broken valid examples / broken examples; ``None`` when none broke)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lingtest.contrapro.cases import CLEAN, case_example
from lingtest.contrapro.evaluate import accuracy_report, attack_delta, is_correct
from lingtest.contrapro.validity import attack_validity
from lingtest.data.model import ContrastiveExample, TestCase
from lingtest.errors import LingtestError
from lingtest.metrics.validity import Validity, adjusted_precision, validity_summary


def grade(cases: Sequence[TestCase], scores: Sequence[Sequence[float]]) -> dict[str, Any]:
    """Accuracy per set (with breakdowns), Δ to clean per set and per attack (all its variants
    pooled) with the validity figures of the attacked cases (see the module docstring), from the cases
    and one score list per case."""
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
    checked = attacked_validity(cases, scores)
    for name, row in deltas.items():
        row.update(validity_figures(checked.get(name, [])))
    attacks: dict[str, Any] = {}
    for attack in dict.fromkeys(n.split("/", 1)[0] for n in deltas):
        exs = [e for n, (es, _) in by_set.items() if n.startswith(attack + "/") for e in es]
        ss = [s for n, (_, sc) in by_set.items() if n.startswith(attack + "/") for s in sc]
        attacks[attack] = attack_delta(clean_ex, clean_s, exs, ss)
        attacks[attack].update(validity_figures([x for n, xs in checked.items() if n.startswith(attack + "/")
                                                 for x in xs]))
    return {"sets": sets, "deltas": deltas, "attacks": attacks}


def attacked_validity(cases: Sequence[TestCase], scores: Sequence[Sequence[float]]
                      ) -> dict[str, list[tuple[bool, Validity]]]:
    """Set name -> ``(broken, validity)`` of each attacked case whose clean original is in the suite
    (``broken``: the original is scored right and the attacked example wrong)."""
    clean: dict[str, tuple[ContrastiveExample, bool]] = {}
    for case, s in zip(cases, scores, strict=True):
        if case.provenance.transformation == CLEAN:
            clean[case.provenance.seed_id] = (case_example(case), is_correct(s))
    out: dict[str, list[tuple[bool, Validity]]] = {}
    for case, s in zip(cases, scores, strict=True):
        name = case.provenance.transformation
        if name == CLEAN or case.provenance.seed_id not in clean:
            continue
        original, ok = clean[case.provenance.seed_id]
        v = attack_validity(original, case_example(case), name.split("/", 1)[0], case.provenance.params)
        out.setdefault(name, []).append((ok and not is_correct(s), v))
    return out


def validity_figures(checked: Sequence[tuple[bool, Validity]]) -> dict[str, Any]:
    """``validity``, ``validity_valid``, ``validity_total``, ``validity_reasons``, ``broken_invalid`` and
    ``precision_validity_adjusted`` from ``(broken, validity)`` per attacked case."""
    adj = adjusted_precision(((True, v.valid) for broken, v in checked if broken), digits=6)
    return {**validity_summary((v for _, v in checked), digits=6), "broken_invalid": adj["issues_invalid"],
            "precision_validity_adjusted": adj["precision_validity_adjusted"]}
