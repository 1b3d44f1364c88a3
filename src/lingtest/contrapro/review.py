"""The quality sample: a seeded sample of attacked examples written next to their originals for a
person to judge, as the paper did (100 synonym-replacement examples; 11 had a semantically
inappropriate synonym). One TSV row per example: the attack, what changed, the original and the
attacked texts side by side, and two empty columns (``ok``, ``note``) for the judgement.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from pathlib import Path

from lingtest.contrapro.attack import AttackOutcome
from lingtest.contrapro.evaluate import original_id
from lingtest.data.io import atomic_open
from lingtest.data.model import ContrastiveExample
from lingtest.errors import InputError

COLUMNS = (
    "id",
    "attack",
    "variant",
    "changes",
    "src_context",
    "attacked_src_context",
    "src",
    "attacked_src",
    "ref_context",
    "attacked_ref_context",
    "ref",
    "attacked_ref",
    "ok",
    "note",
)


def sample_for_review(attacked: Sequence[ContrastiveExample], n: int, seed: int) -> list[ContrastiveExample]:
    """``n`` attacked examples drawn with ``seed`` (all of them when there are fewer), in id order so
    that the draw does not depend on the input order."""
    if n < 0:
        raise ValueError(f"sample size must be >= 0, got {n}")
    pool = sorted(attacked, key=lambda e: e.id)
    if n >= len(pool):
        return pool
    return sorted(random.Random(seed).sample(pool, n), key=lambda e: e.id)


def _cell(text: str) -> str:
    return " ".join(text.replace("\t", " ").split())


def review_rows(
    sample: Sequence[ContrastiveExample], originals: Mapping[str, ContrastiveExample]
) -> list[dict[str, str]]:
    rows = []
    for ex in sample:
        oid = original_id(ex)
        if oid not in originals:
            raise InputError(f"attacked example {ex.id}: original {oid} not given")
        orig = originals[oid]
        rec = ex.meta.get("attack", {})
        changes = [f"{c['where']}: {c['old']} => {c['new']}" for c in rec.get("changes", [])]
        details = {k: v for k, v in rec.items() if k not in ("name", "variant", "original_id", "changes")}
        rows.append(
            {
                "id": ex.id,
                "attack": str(rec.get("name", "")),
                "variant": str(rec.get("variant", "")),
                "changes": _cell(json.dumps(details, ensure_ascii=False, sort_keys=True))
                if details
                else _cell(" | ".join(changes)),
                "src_context": _cell(orig.src_context),
                "attacked_src_context": _cell(ex.src_context),
                "src": _cell(orig.src),
                "attacked_src": _cell(ex.src),
                "ref_context": _cell(orig.ref_context),
                "attacked_ref_context": _cell(ex.ref_context),
                "ref": _cell(orig.ref),
                "attacked_ref": _cell(ex.ref),
                "ok": "",
                "note": "",
            }
        )
    return rows


def review_pool(outcomes: Sequence[AttackOutcome], attacks: Sequence[str]) -> list[ContrastiveExample]:
    """The attacked examples the review sample is drawn from: those of ``attacks`` that differ from their
    original, in outcome order."""
    from lingtest.contrapro.sample import is_changed

    return [ex for out in outcomes if out.attack in attacks for ex in out.examples if is_changed(ex)]


def write_review(
    path: str | Path,
    attacked: Sequence[ContrastiveExample],
    originals: Mapping[str, ContrastiveExample],
    *,
    n: int,
    seed: int,
) -> int:
    """Write the review TSV of a seeded sample; returns the number of rows."""
    rows = review_rows(sample_for_review(attacked, n, seed), originals)
    with atomic_open(path) as fh:
        fh.write("\t".join(COLUMNS) + "\n")
        for r in rows:
            fh.write("\t".join(r[c] for c in COLUMNS) + "\n")
    return len(rows)
