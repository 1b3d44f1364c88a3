"""The scored sample: which examples the suite scores (``contrapro.sample`` per set), drawn with a seeded
generator so that the variants of one attack share their originals, and every sampled attacked
example comes with its clean original; and the AFA pool, the examples the suite does not score."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from lingtest.contrapro.attack import AttackOutcome
from lingtest.contrapro.cases import CLEAN, set_name
from lingtest.contrapro.evaluate import original_id
from lingtest.data.model import ContrastiveExample
from lingtest.errors import LingtestError


def sample_ids(pool: Iterable[str], n: int | None, seed: int, key: str) -> list[str]:
    """``n`` ids of ``pool`` (all with ``None``), drawn with a generator seeded by ``seed`` and ``key``
    (so that sets with the same pool, e.g. the variants of one attack, get the same originals), in
    sorted order."""
    ids = sorted(set(pool))
    if n is None or n >= len(ids):
        return ids
    if n < 0:
        raise LingtestError(f"contrapro.sample must be >= 0 or null, got {n}")
    return sorted(random.Random(f"{seed}:{key}").sample(ids, n))


def is_changed(ex: ContrastiveExample) -> bool:
    """Whether an attacked example differs from its original (an example without an attack record
    counts as changed)."""
    return bool(ex.meta.get("attack", {}).get("changed", True))


def select_for_scoring(
    clean: Sequence[ContrastiveExample], outcomes: Sequence[AttackOutcome], n: int | None, seed: int
) -> tuple[list[ContrastiveExample], dict[str, list[ContrastiveExample]]]:
    """The clean examples to score (a sample of ``n`` plus the originals of every sampled attacked
    example, in corpus order) and, per set, its sampled attacked examples (drawn among the originals
    the set applies to, one draw per attack)."""
    picked: dict[str, list[ContrastiveExample]] = {}
    needed: set[str] = set(sample_ids((ex.id for ex in clean), n, seed, CLEAN))
    for out in outcomes:
        changed = [ex for ex in out.examples if is_changed(ex)]
        chosen = set(sample_ids((original_id(ex) for ex in changed), n, seed, out.attack))
        picked[set_name(out.attack, out.variant)] = [ex for ex in changed if original_id(ex) in chosen]
        needed |= chosen
    return [ex for ex in clean if ex.id in needed], picked


def unscored_pool(examples: Sequence[ContrastiveExample], scored: set[str], cap: int | None,
                  seed: int) -> list[ContrastiveExample]:
    """The examples whose ids are not in ``scored``, in corpus order (the AFA pool, so that a model
    fine-tuned on it is never scored on its own training examples); with a ``cap``, a seeded draw of
    that many of them (key ``afa``)."""
    out = [ex for ex in examples if ex.id not in scored]
    if cap is not None:
        keep = set(sample_ids((ex.id for ex in out), cap, seed, "afa"))
        out = [ex for ex in out if ex.id in keep]
    return out
