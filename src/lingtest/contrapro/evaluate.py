"""Accuracy of contrastive scores, as ContraPro's ``evaluate.py`` counts it: an example is correct when
its reference (candidate 0) scores strictly above every contrastive variant (scores are
log-probabilities: higher is better). Breakdowns by reference pronoun (``er``/``sie``/``es``), by
antecedent distance (``0``, ``1``, ``2``, ``3``, ``>3``) and by intrasegmental are given whenever the
examples carry that metadata (:mod:`lingtest.contrapro.metadata`); an example without it is left out
of that breakdown only. Pure functions over (examples, scores).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from lingtest.contrapro.metadata import ante_distance, distance_bucket, intrasegmental, ref_pronoun
from lingtest.data.model import ContrastiveExample
from lingtest.errors import InputError

DISTANCE_ORDER = ("0", "1", "2", "3", ">3")


def is_correct(scores: Sequence[float]) -> bool:
    """The reference (first) score is strictly above every other one."""
    if len(scores) < 2:
        raise ValueError(f"need the reference and at least one variant, got {len(scores)} score(s)")
    return scores[0] > max(scores[1:])


def _cell(correct: int, total: int) -> dict[str, Any]:
    return {"correct": correct, "total": total, "accuracy": round(correct / total, 6) if total else None}


def _breakdown(
    keys: Sequence[str | None], flags: Sequence[bool], order: Sequence[str] | None = None
) -> dict[str, Any]:
    counts: dict[str, list[int]] = {}
    for k, ok in zip(keys, flags, strict=True):
        if k is None:
            continue
        c = counts.setdefault(k, [0, 0])
        c[0] += ok
        c[1] += 1
    names = [k for k in order if k in counts] if order else sorted(counts)
    names += sorted(k for k in counts if k not in names)
    return {k: _cell(*counts[k]) for k in names}


def _pronoun_key(ex: ContrastiveExample) -> str | None:
    return ref_pronoun(ex)


def _intra_key(ex: ContrastiveExample) -> str | None:
    v = intrasegmental(ex)
    return None if v is None else str(v).lower()


BREAKDOWNS: dict[str, tuple[Callable[[ContrastiveExample], str | None], Sequence[str] | None]] = {
    "by_pronoun": (_pronoun_key, ("er", "sie", "es")),
    "by_distance": (lambda ex: distance_bucket(ante_distance(ex)), DISTANCE_ORDER),
    "by_intrasegmental": (_intra_key, ("true", "false")),
}


def check_scores(examples: Sequence[ContrastiveExample], scores: Sequence[Sequence[float]]) -> None:
    if len(examples) != len(scores):
        raise InputError(f"{len(scores)} score lists for {len(examples)} examples")
    for ex, s in zip(examples, scores, strict=True):
        if len(s) != 1 + len(ex.contrastive):
            raise InputError(f"example {ex.id}: {len(s)} scores for {1 + len(ex.contrastive)} candidates")


def accuracy_report(
    examples: Sequence[ContrastiveExample], scores: Sequence[Sequence[float]]
) -> dict[str, Any]:
    """``{"overall": {correct, total, accuracy}, "by_pronoun": {...}, "by_distance": {...},
    "by_intrasegmental": {...}}``; a breakdown appears only when some example has its metadata."""
    check_scores(examples, scores)
    flags = [is_correct(s) for s in scores]
    out: dict[str, Any] = {"overall": _cell(sum(flags), len(flags))}
    for name, (key, order) in BREAKDOWNS.items():
        keys = [key(ex) for ex in examples]
        if any(k is not None for k in keys):
            out[name] = _breakdown(keys, flags, order)
    return out


def original_id(ex: ContrastiveExample) -> str:
    """The id of the clean example an attacked one came from (its own id for a clean one)."""
    rec = ex.meta.get("attack")
    return rec["original_id"] if isinstance(rec, Mapping) and "original_id" in rec else ex.id


def attack_delta(
    clean: Sequence[ContrastiveExample],
    clean_scores: Sequence[Sequence[float]],
    attacked: Sequence[ContrastiveExample],
    attacked_scores: Sequence[Sequence[float]],
) -> dict[str, Any]:
    """Accuracy on an attacked set next to the clean accuracy *on the same examples* (an attack may
    apply to a subset), the difference, and how many examples flipped either way."""
    check_scores(clean, clean_scores)
    check_scores(attacked, attacked_scores)
    clean_ok = {ex.id: is_correct(s) for ex, s in zip(clean, clean_scores, strict=True)}
    pairs = []
    for ex, s in zip(attacked, attacked_scores, strict=True):
        oid = original_id(ex)
        if oid not in clean_ok:
            raise InputError(f"attacked example {ex.id}: its original {oid} is not among the clean examples")
        pairs.append((clean_ok[oid], is_correct(s)))
    n = len(pairs)
    before = sum(a for a, _ in pairs)
    after = sum(b for _, b in pairs)
    return {
        "total": n,
        "clean": _cell(before, n),
        "attacked": _cell(after, n),
        "delta": round((after - before) / n, 6) if n else None,
        "broken": sum(a and not b for a, b in pairs),
        "fixed": sum(b and not a for a, b in pairs),
    }
