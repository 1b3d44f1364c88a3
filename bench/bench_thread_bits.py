"""Whether the causal LM's scores depend on torch's thread count, call path by call path.

    .venv/bin/python -W ignore bench/bench_thread_bits.py [--suite releases/crest-ontogum/1.4.0] \
        [--texts 64] [--threads 1 2] [--out bench/results/thread_bits.json]

Takes the first ``--texts`` source sentences of a CREST release (in every clone), then runs the offline
Gemma-3-270M scorer (``resources.lm``, float32 on the CPU) through the three calls test generation
makes, once per thread count (``torch.set_num_threads``), and compares every result with the first
count's, bit for bit:

* ``token_logprobs``: every token's log-probability of each sentence (right-padded batches);
* ``score_grouped``: sentences with one word replaced by six fills, as the CREST ranker scores them
  (packed passes, the head 512 rows at a time);
* ``top_next_tokens``: the 20 most probable next tokens after each sentence's first 3 and 6 words, as
  the ``lm_next`` proposals of CREST and S2LCT ask (the head a few rows at a time).

Per call: whether each count gave the same bits, how many results differ, and the largest absolute
difference (for ``top_next_tokens``, also how many contexts got another set of 20 token ids). A call that
differs makes a generated suite depend on the thread count, so test generation fixes the count in its
configuration (``threads: 2``) rather than following the machine's load.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

FILLS = ("the", "a", "house", "quickly", "they", "said")


def source_texts(suite: Path, n: int) -> list[str]:
    """The first ``n`` distinct source sentences (``meta.source_text``) of a CREST suite file or release."""
    from lingtest import load_suite

    out: list[str] = []
    for case in load_suite(str(suite)).cases:
        text = str((case.meta or {}).get("source_text") or "")
        if text and text not in out:
            out.append(text)
        if len(out) >= n:
            break
    if not out:
        raise SystemExit(f"{suite}: no case has meta.source_text")
    return out


def one_word_variants(texts: list[str]) -> list[list[str]]:
    """Each sentence of at least 4 words with its middle word replaced by each of :data:`FILLS`."""
    groups = []
    for t in texts:
        w = t.split()
        if len(w) >= 4:
            k = len(w) // 2
            groups.append([" ".join([*w[:k], f, *w[k + 1:]]) for f in FILLS])
    return groups


def contexts(texts: list[str]) -> list[str]:
    return [" ".join(t.split()[:k]) for t in texts for k in (3, 6) if len(t.split()) > k]


def compare_floats(base: list[list[float]], other: list[list[float]]) -> dict[str, Any]:
    """Results (rows) that differ in any bit, and the largest absolute difference."""
    differing, largest = 0, 0.0
    for a, b in zip(base, other, strict=True):
        if a != b:
            differing += 1
            largest = max([largest, *(abs(x - y) for x, y in zip(a, b, strict=True))])
    return {"identical": differing == 0, "differing": differing, "of": len(base), "largest_abs_difference": largest}


def compare_top(base: list[list[tuple[int, float]]], other: list[list[tuple[int, float]]]) -> dict[str, Any]:
    rows = compare_floats([[p for _, p in r] for r in base], [[p for _, p in r] for r in other])
    rows["other_token_set"] = sum(1 for a, b in zip(base, other, strict=True)
                                  if {i for i, _ in a} != {i for i, _ in b})
    rows["identical"] = rows["identical"] and base == other
    return rows


def run(suite: Path, n_texts: int, thread_counts: list[int]) -> dict[str, Any]:
    import torch
    from bench_profile import machine

    from lingtest.config import compose
    from lingtest.resources.lm import scorer_from_config
    from lingtest.resources.next_words import NextTokens

    cfg = compose(["resources.device=cpu"])
    scorer = scorer_from_config(cfg.resources)
    texts = source_texts(suite, n_texts)
    groups, ctxs = one_word_variants(texts), contexts(texts)
    next_tokens = NextTokens(scorer)
    results: dict[int, dict[str, Any]] = {}
    for n in thread_counts:
        torch.set_num_threads(n)
        results[n] = {
            "token_logprobs": [list(s.logprobs) for s in scorer.token_logprobs(texts)],
            "score_grouped": scorer.score_grouped(groups, relative=True),
            "top_next_tokens": next_tokens.top_next_tokens(ctxs, 20, None),
        }
    first = thread_counts[0]
    calls: dict[str, Any] = {}
    for call in ("token_logprobs", "score_grouped", "top_next_tokens"):
        by = {}
        for n in thread_counts[1:]:
            cmp = compare_top if call == "top_next_tokens" else compare_floats
            by[str(n)] = cmp(results[first][call], results[n][call])
        calls[call] = {"against_threads": first, "by_threads": by,
                       "same_bits_for_every_count": all(v["identical"] for v in by.values())}
    return {"benchmark": "thread_bits", "suite": str(suite), "texts": len(texts), "groups": len(groups),
            "contexts": len(ctxs), "threads": thread_counts, "model": str(cfg.resources.lm.model),
            "dtype": "float32", "torch": torch.__version__, "machine": machine(), "calls": calls,
            "note": "float32 on the CPU; each count's results compared bit for bit with the first count's"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--suite", type=Path, default=ROOT / "releases/crest-ontogum/1.4.0")
    ap.add_argument("--texts", type=int, default=64)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/thread_bits.json")
    args = ap.parse_args(argv)
    if len(args.threads) < 2:
        ap.error("give at least two thread counts")
    record = run(args.suite, args.texts, args.threads)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    for call, r in record["calls"].items():
        print(f"{call}: same bits for every thread count: {r['same_bits_for_every_count']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
