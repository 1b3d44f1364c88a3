"""Examples per second of the offline LM scorer of contrastive pronoun candidates
(:class:`lingtest.systems.contrastive.causal_lm.CausalLMContrastiveScorer`, Gemma-3-270M) with packed
shared-prefix scoring vs naive per-candidate scoring, on a seeded sample of ContraPro (the mirror's
grouped files). Both must make the same choices (the best-scoring candidate of every example); the
largest score difference is reported too. Target: shared >= 3x naive and >= 25 examples/s on
the 2-core machine.

    .venv/bin/python -W ignore bench/bench_contrastive.py [--n 60] [--seed 0] [--template en|de]
        [--dtype float32|bfloat16] [--threads 1] [--window N] [--bound] [--out bench/results/contrastive.json]

``--template``: ``en`` the English-prompted scorer (``English: {src_context} {src}\\nGerman:\\n``),
``de`` the German-only one (``{tgt_context}\\n``); ``both`` runs the two in turn. ``--bound`` also
counts the FLOPs of the shared-prefix scorer over the sample and divides this CPU's measured peak
matrix-product rate by them (``bench/lm_bound.py``): the most examples per second any code could
reach here with this model and exact scoring.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

TEMPLATES = {"en": "English: {src_context} {src}\nGerman:\n", "de": "{tgt_context}\n"}


def _mirror() -> Path:
    for cand in (os.environ.get("LINGTEST_MIRROR"), ROOT.parent / "shared" / "data"):
        if cand and (Path(cand) / "contrapro").is_dir():
            return Path(cand) / "contrapro"
    sys.exit("ContraPro not found: set LINGTEST_MIRROR to the data mirror")


def _run_interleaved(shared_sys, naive_sys, queries, warmup: int, chunks: int):
    """Both systems over the same queries, chunk by chunk in turn (shared, then naive), so that a
    change in the load of a shared machine hits both alike. Returns outputs and summed seconds."""
    shared_sys.predict(queries[:warmup])
    naive_sys.predict(queries[:warmup])
    size = max(1, -(-len(queries) // chunks))
    out_s, out_n, t_s, t_n = [], [], 0.0, 0.0
    for start in range(0, len(queries), size):
        part = queries[start : start + size]
        t0 = time.perf_counter()
        out_s += shared_sys.predict(part)
        t1 = time.perf_counter()
        out_n += naive_sys.predict(part)
        t2 = time.perf_counter()
        t_s += t1 - t0
        t_n += t2 - t1
    return out_s, out_n, t_s, t_n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=60, help="examples in the seeded sample")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--template", choices=["en", "de", "both"], default="both")
    ap.add_argument("--dtype", default="float32", help="compute dtype of the LM (float32 | bfloat16)")
    ap.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's choice)")
    ap.add_argument(
        "--window",
        type=int,
        default=None,
        help="score only this many words after the last difference (an approximation; default: all)",
    )
    ap.add_argument("--warmup", type=int, default=4)
    ap.add_argument(
        "--chunks", type=int, default=6, help="timing alternates between the modes chunk by chunk"
    )
    ap.add_argument("--bound", action="store_true", help="add the compute bound (bench/lm_bound.py)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "contrastive.json"))
    args = ap.parse_args()

    import torch

    from lingtest.data.io import write_json
    from lingtest.readers.options import configured
    from lingtest.resources.lm import CausalLMScorer
    from lingtest.systems.contrastive.base import ContrastiveQuery
    from lingtest.systems.contrastive.causal_lm import CausalLMContrastiveScorer

    if args.threads:
        torch.set_num_threads(args.threads)
    examples = list(configured("contrapro_grouped")(_mirror()))
    sample = random.Random(args.seed).sample(examples, args.n)
    queries = [ContrastiveQuery(e.src, (e.ref, *e.contrastive), e.src_context, e.ref_context) for e in sample]
    lm = CausalLMScorer("offline-default", device="cpu", dtype=args.dtype)
    results = {}
    for name in ["en", "de"] if args.template == "both" else [args.template]:
        template = TEMPLATES[name]
        shared_sys = CausalLMContrastiveScorer.from_scorer(
            lm, template=template, shared_prefix=True, window=args.window
        )
        naive_sys = CausalLMContrastiveScorer.from_scorer(
            lm, template=template, shared_prefix=False, window=args.window
        )
        shared, naive, t_shared, t_naive = _run_interleaved(
            shared_sys, naive_sys, queries, args.warmup, args.chunks
        )
        choice = lambda s: max(range(len(s)), key=s.__getitem__)  # noqa: E731
        same = [choice(a) == choice(b) for a, b in zip(shared, naive, strict=True)]
        diff = max(abs(x - y) for a, b in zip(shared, naive, strict=True) for x, y in zip(a, b, strict=True))
        correct = sum(s[0] > max(s[1:]) for s in shared)
        res = {
            "template": template,
            "examples": len(queries),
            "candidates": sum(len(q.candidates) for q in queries),
            "shared_seconds": round(t_shared, 3),
            "naive_seconds": round(t_naive, 3),
            "shared_examples_per_s": round(len(queries) / t_shared, 2),
            "naive_examples_per_s": round(len(queries) / t_naive, 2),
            "speedup": round(t_naive / t_shared, 2),
            "same_choices": sum(same),
            "max_abs_score_diff": round(diff, 5),
            "accuracy_shared": round(correct / len(queries), 4),
        }
        if args.bound:
            from lm_bound import bound, count_gflop

            _, gflop = count_gflop(functools.partial(shared_sys.predict, queries))
            res["bound"] = bound(len(queries), gflop, 25.0)
        print(json.dumps({name: res}, indent=1), flush=True)
        assert all(same), f"{len(same) - sum(same)} examples with different choices"
        results[name] = res
    out = {
        "bench": "contrastive",
        "model": lm.model_name,
        "dtype": str(lm.dtype),
        "seed": args.seed,
        "window": args.window,
        "sample": args.n,
        "torch_threads": torch.get_num_threads(),
        "cpus": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "python": platform.python_version(),
        "targets": {"speedup": 3.0, "shared_examples_per_s": 25.0},
        "results": results,
    }
    write_json(args.out, out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
