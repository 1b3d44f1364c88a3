"""How far two reviews of the same cases agree on well-formedness, and the rate once a third judge decides
where they disagree.

    .venv/bin/python bench/bench_review_agreement.py --a reviews/<first> --b reviews/<second>
        [--adjudication FILE] [--c reviews/<third>] [--out bench/results/review_agreement.json] [--name NAME]

``--a`` and ``--b`` are two review folders (``labels.jsonl`` each) that judged cases with the same ids: the same
suite twice, or two versions of a suite whose cases (S2LCT's expanded sentences: the sentence's hash) are
mostly the same. Each reviewer's latest judgement of a case counts (``lingtest.review.labels.latest``). For the
cases both judged: the two-by-two table of well-formed judgements, the observed agreement and Cohen's kappa
(scikit-learn). ``--adjudication``: a JSONL file of ``{"id", "well_formed", "note"}`` rows, a third judge's
decision on the cases the two reviews disagree on; the consensus rate of ``--b``'s cases is then: a case is
well-formed when both reviews say so, or, where they disagree, when the third judge does (a case only ``--b``
judged keeps its judgement), with its 95% Wilson interval. The result is stored under ``NAME`` (default: the
second folder's name, or the third's with ``--c``) in ``--out``, other names kept. ``--c``: a third review
folder, judged blind to the other two: for the cases all three judged, each reviewer's well-formed count and
the majority's (a case is well-formed when at least two of the three say so), with its 95% Wilson interval,
stored alone (``--adjudication`` is not read).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def well_formed(folder: Path) -> dict[str, bool]:
    """Case id -> well-formed, from the latest judgement of each case in ``folder``'s labels (the last reviewer's
    when several judged it); cases not judged for well-formedness are left out."""
    from lingtest.review.labels import latest, read_labels

    _, judgements = read_labels(folder / "labels.jsonl")
    return {j.id: bool(j.well_formed) for j in latest(judgements) if j.well_formed is not None}


def read_adjudication(path: Path) -> dict[str, bool]:
    """Case id -> well-formed, from a JSONL file of ``{"id", "well_formed", "note"}`` rows."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return {str(r["id"]): bool(r["well_formed"]) for r in rows}


def adjudicated(a: dict[str, bool], b: dict[str, bool], adjudication: dict[str, bool]) -> dict[str, bool]:
    """``b``'s judgements, the third judge's where ``a`` and ``b`` disagree (a SystemExit when it lacks one)."""
    disagree = {i for i in set(a) & set(b) if a[i] != b[i]}
    missing = sorted(i for i in disagree if i not in adjudication)
    if missing:
        raise SystemExit(f"the adjudication lacks {len(missing)} disagreed cases: {', '.join(missing[:5])}")
    return {i: (adjudication[i] if i in disagree else b[i]) for i in b}


def agreement(a: dict[str, bool], b: dict[str, bool], adjudication: dict[str, bool] | None) -> dict[str, Any]:
    """The comparison of two reviews (module doc)."""
    from sklearn.metrics import cohen_kappa_score

    from lingtest.review.rates import wilson_interval

    common = sorted(set(a) & set(b))
    table = {f"{x}/{y}": sum(1 for i in common if a[i] == x and b[i] == y)
             for x in (True, False) for y in (True, False)}
    disagree = {i for i in common if a[i] != b[i]}
    out: dict[str, Any] = {
        "judged_a": len(a), "judged_b": len(b), "common": len(common), "table_a_by_b": table,
        "agreed": len(common) - len(disagree), "disagreed": len(disagree),
        "observed_agreement": round((len(common) - len(disagree)) / len(common), 4) if common else None,
        "cohen_kappa": round(float(cohen_kappa_score([a[i] for i in common], [b[i] for i in common])), 4)
        if common and len({*a.values(), *b.values()}) > 1 else None,
        "well_formed_a": sum(a[i] for i in common), "well_formed_b": sum(b[i] for i in common)}
    if adjudication is not None:
        final = adjudicated(a, b, adjudication)
        k, n = sum(final.values()), len(final)
        lo, hi = wilson_interval(k, n)
        out["consensus"] = {"well_formed": k, "judged": n, "rate": round(k / n, 4),
                            "wilson_95": [round(lo, 4), round(hi, 4)],
                            "adjudicated_well_formed": sum(adjudication[i] for i in disagree)}
    return out


def majority(reviews: list[dict[str, bool]]) -> dict[str, Any]:
    """The cases every review judged: each review's well-formed count and the majority's (more than half of the
    reviews say well-formed), with its 95% Wilson interval."""
    from lingtest.review.rates import wilson_interval

    common = sorted(set.intersection(*(set(r) for r in reviews))) if reviews else []
    if not common:
        raise SystemExit("no case is judged by every review")
    k = sum(2 * sum(r[i] for r in reviews) > len(reviews) for i in common)
    lo, hi = wilson_interval(k, len(common))
    return {"common": len(common), "well_formed_each": [sum(r[i] for i in common) for r in reviews],
            "unanimous": sum(len({r[i] for r in reviews}) == 1 for i in common),
            "well_formed": k, "rate": round(k / len(common), 4), "wilson_95": [round(lo, 4), round(hi, 4)]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", type=Path, required=True, help="the first review folder")
    ap.add_argument("--b", type=Path, required=True, help="the second review folder")
    ap.add_argument("--adjudication", type=Path, help="JSONL {id, well_formed, note}: a third judge's decisions")
    ap.add_argument("--c", type=Path, help="a third review folder: the majority of the three")
    ap.add_argument("--name", help="the key the result is stored under (default: the second folder's name; "
                                   "with --c the third's)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "review_agreement.json")
    args = ap.parse_args(argv)
    adjudication = None if args.adjudication is None else read_adjudication(args.adjudication)
    result = json.loads(args.out.read_text(encoding="utf-8")) if args.out.is_file() else {}
    result.setdefault("benchmark", "review_agreement")
    name = args.name or (args.c or args.b).name
    if args.c is not None:  # three reviews: their majority only (the two-review consensus is --b's, not --c's)
        entry = {"a": args.a.name, "b": args.b.name, "c": args.c.name,
                 "majority": majority([well_formed(args.a), well_formed(args.b), well_formed(args.c)])}
    else:
        entry = {"a": args.a.name, "b": args.b.name,
                 "adjudication": None if args.adjudication is None else str(args.adjudication),
                 **agreement(well_formed(args.a), well_formed(args.b), adjudication)}
    result.setdefault("pairs", {})[name] = entry
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps(result["pairs"][name], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
