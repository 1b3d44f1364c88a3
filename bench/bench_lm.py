"""Speed of the language-model scorer: model load time and sentences/second per batch size.

Sentences are a seeded random sample of WordNet usage examples (real English, 3-30 words, offline),
or the lines of ``--text-file``. Each batch size is timed after one warm-up pass over a few
sentences; results go to ``bench/results/bench_lm.json`` (written atomically).

    .venv/bin/python bench/bench_lm.py                               # offline Gemma, auto device
    .venv/bin/python bench/bench_lm.py --n 256 --batch-sizes 1,8,32 --device cuda
    .venv/bin/python bench/bench_lm.py --model gpt2 --out /tmp/lm.json   # any hub id or directory
    .venv/bin/python bench/bench_lm.py --threads 1     # on a shared, oversubscribed CPU
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from pathlib import Path

from lingtest.data.io import write_json


def wordnet_sentences(n: int, seed: int) -> list[str]:
    """``n`` distinct WordNet usage examples with 3..30 words, sampled with ``seed``."""
    from lingtest.resources.wordnet import ensure_wordnet

    wn = ensure_wordnet()
    pool = sorted({ex.strip().strip('"') for s in wn.all_synsets() for ex in s.examples()
                   if 3 <= len(ex.split()) <= 30})
    rng = random.Random(seed)
    return rng.sample(pool, min(n, len(pool)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="offline-default", help="offline-default, a directory or a hub id")
    ap.add_argument("--kind", choices=("causal", "masked"), default="causal")
    ap.add_argument("--device", default="auto")
    ap.add_argument("--dtype", default="auto")
    ap.add_argument("--batch-sizes", default="1,8,32")
    ap.add_argument("--n", type=int, default=128, help="sentences per timed run")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--text-file", default=None, help="one sentence per line instead of WordNet examples")
    ap.add_argument("--threads", type=int, default=None,
                    help="torch CPU threads (default: torch's choice; 1 is faster on an oversubscribed CPU)")
    ap.add_argument("--out", default="bench/results/bench_lm.json")
    args = ap.parse_args(argv)

    import os

    import torch

    if args.threads:
        torch.set_num_threads(args.threads)

    from lingtest.resources.lm import CausalLMScorer, MaskedLMScorer

    if args.text_file:
        lines = Path(args.text_file).read_text(encoding="utf-8").splitlines()
        texts = [x.strip() for x in lines if x.strip()][: args.n]
    else:
        texts = wordnet_sentences(args.n, args.seed)
    batch_sizes = [int(b) for b in args.batch_sizes.split(",")]

    t0 = time.perf_counter()
    cls = CausalLMScorer if args.kind == "causal" else MaskedLMScorer
    scorer = cls(args.model, device=args.device, batch_size=batch_sizes[0], dtype=args.dtype)
    load_s = time.perf_counter() - t0
    n_tokens = sum(len(scorer.tokenizer(t, add_special_tokens=False)["input_ids"]) for t in texts)
    scorer.score(texts[:4])  # warm-up

    runs = []
    reference = None
    for bs in batch_sizes:
        scorer.batch_size = bs
        if scorer.device.startswith("cuda"):
            torch.cuda.synchronize()
        t = time.perf_counter()
        scores = scorer.score(texts)
        if scorer.device.startswith("cuda"):
            torch.cuda.synchronize()
        dt = time.perf_counter() - t
        reference = reference or scores
        max_diff = max(abs(a - b) for a, b in zip(scores, reference, strict=True))
        runs.append({"batch_size": bs, "seconds": round(dt, 3), "sentences_per_s": round(len(texts) / dt, 2),
                     "tokens_per_s": round(n_tokens / dt, 1), "max_abs_diff_vs_first": round(max_diff, 6)})
        print(f"batch {bs:>4}: {len(texts) / dt:8.1f} sentences/s  {n_tokens / dt:9.1f} tokens/s  "
              f"(max |diff| vs batch {batch_sizes[0]}: {max_diff:.2e})")

    result = {
        "model": scorer.model_name, "kind": args.kind, "device": scorer.device, "dtype": str(scorer.dtype),
        "load_seconds": round(load_s, 2), "n_sentences": len(texts), "n_tokens": n_tokens,
        "mean_tokens_per_sentence": round(n_tokens / len(texts), 2), "runs": runs,
        "torch_threads": torch.get_num_threads(), "load_average_1min": round(os.getloadavg()[0], 2),
        "cpu_count": os.cpu_count(), "torch": torch.__version__, "python": platform.python_version(),
        "machine": platform.machine(),
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "source": args.text_file or f"wordnet examples, seed {args.seed}",
    }
    print(f"load {load_s:.1f} s; {scorer}")
    write_json(args.out, result)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
