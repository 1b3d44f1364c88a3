"""GPU inference: is half precision within tolerance of float32, and what batch size and length
sorting give. Runs on a CUDA GPU when one is visible; otherwise it records that none was present (and
measures nothing: CPU figures are in bench_contrastive.py and bench_scale.py).

    .venv/bin/python -W ignore bench/bench_gpu.py [--n 256] [--tolerance 0.05] [--batches 16 64 256]
        [--out bench/results/gpu.json] [--check-on-cpu]

Workload: the contrastive ContraPro scorer ``causal_lm`` (Gemma-3-270M, German-context template as
``systems.contrastive.lm_de_context``) on a seeded sample of the mirror's ContraPro. For float32,
bfloat16 and float16: examples/s, the largest and mean absolute difference of the candidates'
log-probabilities from float32, and the share of examples whose best candidate is the same. A dtype is
*within tolerance* when every choice is the same and the largest difference is at most
``--tolerance`` nats; only then may a config set ``dtype`` to it on CUDA (the defaults stay float32).
Then, in float32 through the prediction cache (no store): examples/s by batch size, with and
without length-sorted batching.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = "{tgt_context}\n"


def queries_from_mirror(n: int, seed: int) -> list:
    from lingtest.readers.options import configured
    from lingtest.systems.contrastive.base import ContrastiveQuery

    mirror = Path(os.environ.get("LINGTEST_MIRROR") or ROOT.parent / "shared" / "data") / "contrapro"
    examples = list(configured("contrapro_grouped")(mirror))
    sample = random.Random(seed).sample(examples, n)
    return [ContrastiveQuery(e.src, (e.ref, *e.contrastive), e.src_context, e.ref_context) for e in sample]


def best(scores: list[float]) -> int:
    return max(range(len(scores)), key=scores.__getitem__)


def measure(device: str, args) -> dict:
    import torch

    from lingtest.resources.lm import CausalLMScorer
    from lingtest.systems.cache import CachedSystem
    from lingtest.systems.contrastive.causal_lm import CausalLMContrastiveScorer

    sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
    queries = queries_from_mirror(args.n, args.seed)
    out: dict = {"examples": len(queries), "candidates": sum(len(q.candidates) for q in queries)}
    ref: list[list[float]] | None = None
    dtypes = {}
    for dtype in ("float32", "bfloat16", "float16"):
        lm = CausalLMScorer("offline-default", device=device, dtype=dtype)
        scorer = CausalLMContrastiveScorer.from_scorer(lm, template=TEMPLATE)
        scorer.predict(queries[:8])  # warm-up (kernels, allocator)
        sync()
        t = time.perf_counter()
        scores = scorer.predict(queries)
        sync()
        secs = time.perf_counter() - t
        row = {"seconds": round(secs, 3), "examples_per_s": round(len(queries) / secs, 2)}
        if ref is None:
            ref = scores
        else:
            diffs = [abs(a - b) for s, r in zip(scores, ref, strict=True) for a, b in zip(s, r, strict=True)]
            same = sum(best(s) == best(r) for s, r in zip(scores, ref, strict=True))
            row.update({"max_abs_diff": round(max(diffs), 5), "mean_abs_diff": round(sum(diffs) / len(diffs), 6),
                        "same_choice": same, "within_tolerance": same == len(queries) and max(diffs) <= args.tolerance})
        dtypes[dtype] = row
        print(dtype, json.dumps(row), flush=True)
        del lm, scorer
        if device.startswith("cuda"):
            torch.cuda.empty_cache()
    out["dtypes"] = dtypes
    lm = CausalLMScorer("offline-default", device=device, dtype="float32")
    scorer = CausalLMContrastiveScorer.from_scorer(lm, template=TEMPLATE)
    batching = {}
    for b in args.batches:
        for sort in (False, True):
            cached = CachedSystem(scorer, None, batch_size=b, device=device, sort_by_length=sort)
            sync()
            t = time.perf_counter()
            cached.predict(queries)
            sync()
            secs = time.perf_counter() - t
            batching[f"batch_{b}_{'sorted' if sort else 'unsorted'}"] = round(len(queries) / secs, 1)
    out["batching_examples_per_s"] = batching
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=256)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tolerance", type=float, default=0.05, help="nats of log-probability")
    ap.add_argument("--batches", type=int, nargs="+", default=[16, 64, 256])
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "gpu.json"))
    ap.add_argument("--check-on-cpu", action="store_true",
                    help="run the measurement on the CPU to check the script (not GPU figures; use a small --n)")
    args = ap.parse_args()

    import torch

    from lingtest.data.io import write_json

    result: dict = {"bench": "gpu", "torch": torch.__version__, "python": platform.python_version(),
                    "cuda_build": torch.version.cuda, "tolerance_nats": args.tolerance}
    if args.check_on_cpu:
        result.update({"gpu": None, "measured": "cpu-check", **measure("cpu", args)})
    elif not torch.cuda.is_available():
        result.update({"gpu": None, "measured": False,
                       "note": "no CUDA device visible on the machine that ran this: nothing measured; half "
                               "precision stays off (dtype float32) until a GPU run shows it within tolerance"})
    else:
        from lingtest.environment import cpu_model

        props = torch.cuda.get_device_properties(0)
        result.update({"gpu": torch.cuda.get_device_name(0), "gpu_memory_mib": props.total_memory // 2**20,
                       "host_cpu": cpu_model(), "host_cpus": os.cpu_count(), "measured": True,
                       **measure("cuda", args)})
    print(json.dumps(result, indent=1))
    write_json(args.out, result)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
