"""Benchmark Self-BLEU (:mod:`lingtest.s2lct.selfbleu`) against NLTK's per-sentence loop.

Corpus: synthetic and seeded, a Zipfian vocabulary (``--vocab`` words, exponent ``--zipf``)
and sentence lengths uniform in ``[--min-len, --max-len]``, tokens as Python strings.

* **speed-up at ``--n`` sentences** (default 10,000): the fast computation of all per-sentence
  scores (median of ``--runs``) against NLTK's loop (``sentence_bleu`` of each sentence against
  all others, weights 1/3, method1). NLTK's full loop is O(n²) and would take far too long, so it
  is *measured on ``--sample`` hypotheses drawn at random, each against the full reference set of
  n - 1 sentences, and extrapolated* to n hypotheses (mean time per hypothesis × n); the sampled
  hypotheses' scores are checked against the fast ones (max absolute difference, count of
  bit-identical values);
* **wall time at ``--large`` sentences** (default 200,000; target < 60 s): the in-process
  :func:`self_bleu_scores` (token encoding + n-gram statistics + scores; tokenised input; the
  suite's Self-BLEU is their ``fsum`` mean, as :func:`self_bleu` returns it), and the
  whole command ``python -m lingtest.commands.self_bleu FILE --json`` on the corpus written to a
  temporary file (start-up, reading and tokenising included); ``--verify-large`` sampled
  hypotheses are checked against NLTK there too.

CPU times and the load average are recorded, since wall time on a shared machine depends on
what else runs. Writes ``bench/results/self_bleu.json`` and prints it.

    .venv/bin/python bench/bench_self_bleu.py [--n 10000] [--sample 20] [--large 200000] [--seed 13]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import nltk
import numpy as np

from lingtest.s2lct.selfbleu import nltk_self_bleu_scores, self_bleu_scores

ROOT = Path(__file__).resolve().parents[1]


def zipf_corpus(n: int, *, seed: int, vocab: int, zipf: float, min_len: int, max_len: int) -> list[list[str]]:
    """``n`` seeded sentences of Zipf-distributed words ``w<rank>``, lengths uniform in
    ``[min_len, max_len]``."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, vocab + 1, dtype=np.float64) ** zipf
    p /= p.sum()
    words = np.array([f"w{r}" for r in range(vocab)], dtype=object)
    lengths = rng.integers(min_len, max_len + 1, size=n).tolist()
    flat = words[rng.choice(vocab, size=sum(lengths), p=p)].tolist()
    out, at = [], 0
    for length in lengths:
        out.append(flat[at: at + length])
        at += length
    return out


def cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def timed(fn: Any) -> tuple[Any, float, float]:
    """(result, wall seconds, CPU seconds of this process)."""
    c0, t0 = cpu_seconds(), time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0, cpu_seconds() - c0


def check(fast: np.ndarray, idx: list[int], slow: list[float]) -> dict[str, Any]:
    got = fast[idx]
    return {"hypotheses_checked": len(idx),
            "max_abs_diff": float(np.max(np.abs(got - np.asarray(slow)))),
            "bit_identical": int(sum(a == b for a, b in zip(got.tolist(), slow, strict=True)))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10_000, help="suite size for the speed-up")
    ap.add_argument("--sample", type=int, default=20, help="NLTK hypotheses measured at --n")
    ap.add_argument("--large", type=int, default=200_000, help="suite size for the wall time")
    ap.add_argument("--verify-large", type=int, default=2, help="NLTK hypotheses checked at --large")
    ap.add_argument("--runs", type=int, default=3, help="fast runs at --n (median)")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--vocab", type=int, default=20_000)
    ap.add_argument("--zipf", type=float, default=1.1)
    ap.add_argument("--min-len", type=int, default=5)
    ap.add_argument("--max-len", type=int, default=40)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "self_bleu.json")
    a = ap.parse_args(argv)
    corpus_args = {"vocab": a.vocab, "zipf": a.zipf, "min_len": a.min_len, "max_len": a.max_len}
    rng = np.random.default_rng(a.seed + 1)

    # --- speed-up at --n ---------------------------------------------------------------------
    sents = zipf_corpus(a.n, seed=a.seed, **corpus_args)
    fast_runs = [timed(lambda: self_bleu_scores(sents)) for _ in range(a.runs)]
    fast = fast_runs[0][0]
    fast_wall = statistics.median(r[1] for r in fast_runs)
    idx = sorted(rng.choice(a.n, size=a.sample, replace=False).tolist())
    slow, slow_wall, slow_cpu = timed(lambda: nltk_self_bleu_scores(sents, indices=idx))
    per_hyp = slow_wall / a.sample
    nltk_extrapolated = per_hyp * a.n
    speedup = {
        "sentences": a.n,
        "tokens": sum(map(len, sents)),
        "fast_seconds_median": round(fast_wall, 4),
        "fast_seconds_runs": [round(r[1], 4) for r in fast_runs],
        "fast_cpu_seconds_median": round(statistics.median(r[2] for r in fast_runs), 4),
        "nltk_method": (f"NLTK sentence_bleu measured on {a.sample} randomly drawn hypotheses (seed "
                        f"{a.seed + 1}), each against all {a.n - 1} other sentences, and extrapolated "
                        f"linearly to all {a.n} hypotheses; the full loop was not run"),
        "nltk_sampled_seconds": round(slow_wall, 3),
        "nltk_sampled_cpu_seconds": round(slow_cpu, 3),
        "nltk_seconds_per_hypothesis": round(per_hyp, 5),
        "nltk_seconds_extrapolated": round(nltk_extrapolated, 1),
        "speedup": round(nltk_extrapolated / fast_wall, 1),
        "speedup_cpu": round(slow_cpu / a.sample * a.n / statistics.median(r[2] for r in fast_runs), 1),
        "target_speedup": 1000,
        "self_bleu": math.fsum(fast.tolist()) / fast.size,
        "equality_on_sampled": check(fast, idx, slow),
    }
    print(json.dumps(speedup, indent=2), flush=True)

    # --- wall time at --large -----------------------------------------------------------------
    big = zipf_corpus(a.large, seed=a.seed + 2, **corpus_args)
    big_scores, big_wall, big_cpu = timed(lambda: self_bleu_scores(big))
    value = math.fsum(big_scores.tolist()) / big_scores.size  # what self_bleu() returns
    vidx = sorted(rng.choice(a.large, size=a.verify_large, replace=False).tolist())
    vslow, vslow_wall, _ = timed(lambda: nltk_self_bleu_scores(big, indices=vidx))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "suite.txt"
        path.write_text("".join(" ".join(s) + "\n" for s in big), encoding="utf-8")
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "lingtest.commands.self_bleu", str(path), "--json"],
                              capture_output=True, text=True, check=True)
        cli_wall = time.perf_counter() - t0
        cli_obj = json.loads(proc.stdout)
    child = resource.getrusage(resource.RUSAGE_CHILDREN)
    large = {
        "sentences": a.large,
        "tokens": sum(map(len, big)),
        "in_process_seconds": round(big_wall, 3),
        "in_process_cpu_seconds": round(big_cpu, 3),
        "command": "python -m lingtest.commands.self_bleu FILE --json",
        "command_seconds": round(cli_wall, 3),
        "command_cpu_seconds": round(child.ru_utime + child.ru_stime, 3),
        "target_seconds": 60,
        "self_bleu": value,
        "command_output": cli_obj,
        "command_agrees": cli_obj == {"self_bleu": value, "sentences": a.large},
        "nltk_seconds_per_hypothesis": round(vslow_wall / max(1, a.verify_large), 3),
        "equality_on_sampled": check(big_scores, vidx, vslow),
    }
    result = {
        "benchmark": "Self-BLEU (weights 1/3 x 3, smoothing method1) vs NLTK's per-sentence loop",
        "corpus": {"kind": "synthetic Zipfian", "seed": a.seed, **corpus_args,
                   "tokens": "strings w<rank>"},
        "speedup_at_n": speedup,
        "wall_time_large": large,
        "machine": {"python": platform.python_version(), "numpy": np.__version__, "nltk": nltk.__version__,
                    "cpus": os.cpu_count(), "loadavg_after": [round(x, 2) for x in os.getloadavg()]},
        "invocation": "python bench/bench_self_bleu.py " + " ".join(sys.argv[1:] if argv is None else argv),
    }
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
