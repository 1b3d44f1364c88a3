"""Choose TIN's offline relabel threshold ``tin.relabel.p_threshold`` on CoNLL-2003 dev.

The paper's PThreshold (a raw masked-LM logit of 5.5) has no meaning for the offline fill proposer,
whose scores are the causal LM's probabilities among a position's candidates; the issue asks for the
offline equivalent to be chosen on CoNLL-2003 dev. This script runs the relabel step of Algorithm 1
(mask each word of an entity, fill, screen by format and context similarity, NER on every mutant,
F(p, sim) with the NULL class) on every entity the system predicts in a seeded sample of dev
sentences, once with the lowest threshold of the grid, and then scores every threshold of the grid
from those mutants: a higher threshold only drops mutants. Each predicted entity is graded in the
CoNLL scheme against gold (its exact span: the gold label, or no entity): ``err2cor`` relabels fix a
wrong prediction, ``cor2err`` break a right one. The chosen threshold maximises
``err2cor - cor2err`` summed over the systems given (one threshold serves every system; ties: the
higher threshold, fewer mutants to predict).

    .venv/bin/python bench/tune_relabel_threshold.py [--systems spacy_sm,minilm_ner] [--sentences 200]
        [--grid 0,0.01,0.02,0.05,0.1,0.2,0.3] [--out bench/results/tin_relabel_threshold.json]

Everything else (the proposer, the embedder, top_k, sim_threshold, k, alpha, lam) is the configured
``params.yaml``; the sentences are ``tin.min_tokens``-``tin.max_tokens`` words, sampled with
``tin.seed``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def sweep(jobs: Sequence[Any], mutants: Sequence[Any], predictions: Sequence[Sequence[Any]],
          originals: Sequence[str | None], truths: Sequence[str | None], grid: Sequence[float], config: Any,
          to_gold: Callable[[Any, str | None], str | None]) -> list[dict[str, Any]]:
    """One row per threshold: how the relabels of ``jobs`` compare with gold.

    ``mutants``/``predictions``: every screened mutant of :func:`plan_relabel` at the lowest threshold
    and the system's entities on it; ``originals``: each job's predicted label in the gold scheme;
    ``truths``: the gold label of exactly the job's span (``None``: not an entity); ``to_gold(job,
    label)``: a system label (``None``: NULL) in the gold scheme."""
    from lingtest.tin.repair.relabel import score_relabel

    rows = []
    for thr in sorted(grid):
        by_job: dict[int, tuple[list[Any], list[Any]]] = {}
        for m, p in zip(mutants, predictions, strict=True):
            if m.p >= thr:
                ms, ps = by_job.setdefault(m.job, ([], []))
                ms.append(m)
                ps.append(p)
        counts = {"err2cor": 0, "cor2err": 0, "err2err": 0, "cor2cor": 0, "kept_original": 0, "mutants": 0}
        for ji, job in enumerate(jobs):
            ms, ps = by_job.get(ji, ([], []))
            counts["mutants"] += len(ms)
            res = score_relabel(ms, ps, replace(config, p_threshold=thr))
            new = originals[ji] if res.kept_original else to_gold(job, res.label)
            counts["kept_original"] += res.kept_original
            was, now = originals[ji] == truths[ji], new == truths[ji]
            counts[("cor" if was else "err") + "2" + ("cor" if now else "err")] += 1
        errors = counts["err2cor"] + counts["err2err"]
        rows.append({"p_threshold": thr, **counts, "entities": len(jobs), "errors": errors,
                     "net": counts["err2cor"] - counts["cor2err"],
                     "error_reduce": round((counts["err2cor"] - counts["cor2err"]) / errors, 4) if errors else None})
    return rows


def choose(rows: Sequence[dict[str, Any]]) -> float:
    """The threshold with the largest net gain; ties go to the higher threshold."""
    return max(rows, key=lambda r: (r["net"], r["p_threshold"]))["p_threshold"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--systems", default="spacy_sm,minilm_ner")
    ap.add_argument("--sentences", type=int, default=200)
    ap.add_argument("--grid", default="0,0.01,0.02,0.05,0.1,0.2,0.3")
    ap.add_argument("--split", default="dev")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "tin_relabel_threshold.json"))
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "src"))

    from lingtest.config import load_params
    from lingtest.data.io import read_jsonl
    from lingtest.data.model import Document, Entity
    from lingtest.execution.context import StageContext
    from lingtest.paths import repo_path
    from lingtest.systems.factory import build_system
    from lingtest.systems.ner import TASK
    from lingtest.tin.components import Parts, label_mapper
    from lingtest.tin.config import TinConfig
    from lingtest.tin.repair.relabel import RelabelJob, plan_relabel
    from lingtest.tin.sources import gold_of, labelled_pool, sample

    cfg = load_params(ROOT / "params.yaml")
    t = TinConfig.from_config(cfg)
    grid = [float(x) for x in args.grid.split(",")]
    docs = list(read_jsonl(repo_path(cfg.paths.prepared) / t.corpus / f"{args.split}.jsonl", Document.from_dict))
    pool = labelled_pool(docs, min_tokens=t.min_tokens, max_tokens=t.max_tokens)
    picked = sample(pool, args.sentences, t.seed)
    config = replace(t.relabel, p_threshold=min(grid))
    parts = Parts(StageContext("tune_relabel_threshold", cfg, root=ROOT), t)
    words = [d.sentences[0].words for d in picked]
    per_system: dict[str, Any] = {}
    for name in args.systems.split(","):
        system = build_system(cfg, TASK, name)
        lmap = label_mapper(cfg.systems.ner_label_maps, system)
        preds = system.predict(words)

        def to_gold(job: RelabelJob, label: str | None, lmap: Any = lmap) -> str | None:
            if label is None:
                return None
            mapped = lmap.map_entities([Entity(job.span[0], job.span[1], label)])
            return mapped[0].label if mapped else None

        jobs, originals, truths = [], [], []
        for d, ws, es in zip(picked, words, preds, strict=True):
            gold = {(g.start, g.end): g.label for g in gold_of(d) or []}
            for e in es:
                job = RelabelJob(tuple(ws), (e.start, e.end))
                jobs.append(job)
                originals.append(to_gold(job, e.label))
                truths.append(gold.get((e.start, e.end)))
        t0 = time.perf_counter()
        muts = plan_relabel(jobs, parts.fill, parts.embedder, config)
        mpreds = system.predict([list(m.tokens) for m in muts]) if muts else []
        rows = sweep(jobs, muts, mpreds, originals, truths, grid, config, to_gold)
        per_system[name] = {"entities": len(jobs), "wrong_predictions": sum(o != g for o, g in zip(originals, truths,
                                                                                                    strict=True)),
                            "mutants_at_lowest": len(muts), "seconds": round(time.perf_counter() - t0, 1),
                            "chosen_alone": choose(rows), "rows": rows}
        for r in rows:
            print(f"{name:12s} p >= {r['p_threshold']:<5}: err2cor {r['err2cor']:3d}  cor2err {r['cor2err']:3d}  "
                  f"net {r['net']:+3d}  kept {r['kept_original']:3d}  mutants {r['mutants']}")
    combined = [{"p_threshold": thr, "net": sum(v["rows"][i]["net"] for v in per_system.values()),
                 "mutants": sum(v["rows"][i]["mutants"] for v in per_system.values())}
                for i, thr in enumerate(sorted(grid))]
    chosen = choose(combined)
    out = {"systems": per_system, "split": args.split, "sentences": len(picked), "seed": t.seed, "grid": grid,
           "combined": combined, "chosen": chosen, "configured": t.relabel.p_threshold,
           "fixed": {k: v for k, v in asdict(config).items() if k != "p_threshold"}}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print("combined net: " + ", ".join(f"{r['p_threshold']}: {r['net']:+d}" for r in combined))
    print(f"chosen p_threshold {chosen} (configured {t.relabel.p_threshold}) -> {args.out}")


if __name__ == "__main__":
    main()
