"""Reviewed validity of S2LCT expansions: the share of judged expansions that are well-formed, label-consistent
and both, each with its 95 % Wilson interval (statsmodels ``proportion_confint(method="wilson")``).

    python bench/bench_s2lct_review.py bench/results/s2lct_review_sst.jsonl [more.jsonl ...] \\
        [--out bench/results/s2lct_review.json]

Each input line is one judged expansion: ``id`` or ``text``, ``well_formed`` and ``label_consistent``
(true/false), ``note``. Needs statsmodels (not a project dependency: ``pip install statsmodels`` in any
environment; the script imports nothing of lingtest).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def rate(k: int, n: int) -> dict[str, Any]:
    """``k`` of ``n`` as a share with its 95 % Wilson interval."""
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson") if n else (0.0, 1.0)
    return {"k": k, "n": n, "rate": round(k / n, 4) if n else None, "wilson95": [round(lo, 4), round(hi, 4)]}


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Well-formed, label-consistent and both, over ``rows``."""
    for i, r in enumerate(rows, start=1):
        for key in ("well_formed", "label_consistent"):
            if not isinstance(r.get(key), bool):
                raise ValueError(f"row {i} ({r.get('id') or r.get('text')!r}): {key} must be true or false")
    wf = sum(r["well_formed"] for r in rows)
    lc = sum(r["label_consistent"] for r in rows)
    both = sum(r["well_formed"] and r["label_consistent"] for r in rows)
    n = len(rows)
    return {"well_formed": rate(wf, n), "label_consistent": rate(lc, n), "valid": rate(both, n)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("reviews", nargs="+", type=Path)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    out = {}
    for path in args.reviews:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        out[path.name] = summary(rows)
        print(path.name, json.dumps(out[path.name]))
    if args.out:
        args.out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
