"""The well-formedness of TIN's kept mutants, as judged by a reader: draw the mutants to read, then summarise
the judgements with Wilson intervals.

``sample``: every kept mutant of ``bench/results/tin_rules_<label>_mutants.jsonl`` (``bench_tin_rules.py``;
both systems), or a seeded sample of ``--size`` of them when there are more, in the file's order, written as
JSONL rows to judge (``id``, ``system``, ``transformation``, ``source_text``, ``text``). ``summarise``: the
judged rows (the same fields plus ``well_formed`` true/false and ``note``; ``bench/results/tin_review.jsonl``)
-> the share well-formed overall, per transformation and per system, each with its 95% Wilson interval
(:func:`lingtest.review.rates.wilson_interval`: statsmodels' ``proportion_confint(method="wilson")`` when
statsmodels is installed, else scipy's identical score interval) -> ``bench/results/tin_review.json``.

    .venv/bin/python bench/bench_tin_review.py sample --label after [--size 100] [--seed 13] --out FILE
    .venv/bin/python bench/bench_tin_review.py summarise [--judged bench/results/tin_review.jsonl]
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"


def read_rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def draw(rows: list[dict[str, Any]], size: int, seed: int) -> list[dict[str, Any]]:
    """Every kept row, or a seeded sample of ``size`` of them in file order."""
    kept = [r for r in rows if r["kept"]]
    if len(kept) <= size:
        return kept
    picked = sorted(random.Random(seed).sample(range(len(kept)), size))
    return [kept[i] for i in picked]


def rate(values: Iterable[bool]) -> dict[str, Any]:
    from lingtest.review.rates import wilson_interval

    vals = list(values)
    k, n = sum(vals), len(vals)
    if n == 0:
        return {"k": 0, "n": 0, "rate": None, "low": None, "high": None}
    low, high = wilson_interval(k, n)
    return {"k": k, "n": n, "rate": round(k / n, 4), "low": round(low, 4), "high": round(high, 4)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sample")
    s.add_argument("--label", required=True)
    s.add_argument("--size", type=int, default=100)
    s.add_argument("--seed", type=int, default=13)
    s.add_argument("--out", required=True)
    m = sub.add_parser("summarise")
    m.add_argument("--judged", default=str(RESULTS / "tin_review.jsonl"))
    m.add_argument("--out", default=str(RESULTS / "tin_review.json"))
    args = ap.parse_args()

    if args.cmd == "sample":
        rows = read_rows(RESULTS / f"tin_rules_{args.label}_mutants.jsonl")
        picked = draw(rows, args.size, args.seed)
        with open(args.out, "w", encoding="utf-8") as fh:
            for r in picked:
                fh.write(json.dumps({k: r[k] for k in ("id", "system", "transformation", "source_text", "text")})
                         + "\n")
        print(f"{len(picked)} of {sum(r['kept'] for r in rows)} kept mutants -> {args.out}")
        return

    from lingtest.data.io import write_json

    path = Path(args.judged).resolve()
    judged = read_rows(path)
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    out: dict[str, Any] = {"judged": str(where), "overall": rate(r["well_formed"] for r in judged)}
    for key in ("transformation", "system"):
        groups = sorted({r[key] for r in judged})
        out[f"by_{key}"] = {g: rate(r["well_formed"] for r in judged if r[key] == g) for g in groups}
    write_json(args.out, out)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
