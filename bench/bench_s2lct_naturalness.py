"""Calibrate S2LCT's naturalness threshold ``s2lct.expansion.validate.min_naturalness_drop`` on real SST sentences
against corrupted ones.

An expansion is accepted when its *drop* (the causal LM's mean token log-probability of the expansion minus the
seed's, :class:`lingtest.s2lct.expand.Naturalness`) is at least the threshold. This script measures the drop of

* **real** pairs: a real sentence against the same sentence with one removable word deleted (a word-level POS
  whose parent phrase has other children: the inverse of an expansion, which inserts such a word; with
  ``--real modifiers`` only an adjective or adverb, so that the shorter sentence stays grammatical as a seed
  is; ``--real any``: any such word); and
* **corrupted** pairs: a corruption of the real sentence against the real sentence: ``duplicate`` (a random
  word written twice), ``swap`` (two adjacent words swapped), ``replace`` (a random word replaced by a random
  word of the same tag from the sample's sentences),

picks the largest drop on the ``logprob`` grid that keeps at least ``--keep`` of the real pairs
(:func:`~lingtest.s2lct.expand.threshold_keeping`) and reports the share of each corruption it rejects.
The LM is the configured ``resources.lm`` (the packaged Gemma-3-270M offline) on the configured grid.

    .venv/bin/python bench/bench_s2lct_naturalness.py [--parsed data/parsed/sst] [--splits dev,test]
        [--sentences 300] [--keep 0.95] [--real modifiers] [--seed 13]
        [--out bench/results/s2lct_naturalness.json]

The parsed SST is read only (the ``parse@sst`` output: tokens, PTB tags and trees).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def load_sentences(parsed: Path, splits: Sequence[str]) -> list[tuple[list[str], list[str], Any]]:
    """``(words, tags, tree)`` of every parsed sentence with a tree, splits in order."""
    from lingtest.data.io import read_jsonl
    from lingtest.data.model import Document
    from lingtest.s2lct.grammar import node_from_tree

    out = []
    for split in splits:
        for d in read_jsonl(parsed / f"{split}.jsonl", Document.from_dict):
            for s in d.sentences:
                if s.tree is not None:
                    words = [t.text for t in s.tokens]
                    out.append((words, [t.tag or "" for t in s.tokens], node_from_tree(s.tree, words)))
    return out


#: the tags ``--real modifiers`` deletes
MODIFIERS = frozenset({"JJ", "JJR", "JJS", "RB", "RBR", "RBS"})


def make_pairs(sample: Sequence[tuple[list[str], list[str], Any]], by_tag: dict[str, list[str]],
               rng: random.Random, removable: frozenset[str] | None) -> dict[str, list[tuple[str, str]]]:
    """Per kind (``real`` and each corruption), the ``(candidate, reference)`` text pairs of the sample."""
    from lingtest.s2lct.expand import CORRUPTIONS, corrupt, removable_positions

    pairs: dict[str, list[tuple[str, str]]] = {k: [] for k in ("real", *CORRUPTIONS)}
    for words, tags, tree in sample:
        text = " ".join(words)
        spots = removable_positions(tree, removable)
        if spots:
            i = rng.choice(spots)
            pairs["real"].append((text, " ".join(words[:i] + words[i + 1:])))
        for kind in CORRUPTIONS:
            bad = corrupt(kind, words, tags, by_tag, rng)
            if bad is not None:
                pairs[kind].append((" ".join(bad), text))
    return pairs


def summary(drops: Sequence[float]) -> dict[str, float]:
    q = statistics.quantiles(drops, n=20)
    return {"n": len(drops), "mean": round(statistics.fmean(drops), 4), "median": round(statistics.median(drops), 4),
            "p05": round(q[0], 4), "p95": round(q[-1], 4)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--parsed", type=Path, default=ROOT / "data" / "parsed" / "sst")
    ap.add_argument("--splits", default="dev,test")
    ap.add_argument("--sentences", type=int, default=300)
    ap.add_argument("--min-words", type=int, default=4, help="word-level tokens a sampled sentence has at least")
    ap.add_argument("--keep", type=float, default=0.95, help="share of the real pairs the threshold keeps")
    ap.add_argument("--real", choices=("modifiers", "any"), default="modifiers", help="the words real pairs delete")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "s2lct_naturalness.json")
    args = ap.parse_args()

    sys.path.insert(0, str(ROOT / "src"))
    from lingtest.config import compose
    from lingtest.resources.lm import scorer_from_config
    from lingtest.resources.scores import ScoreGrid
    from lingtest.s2lct.expand import Naturalness, rejected_share, threshold_keeping
    from lingtest.s2lct.grammar import is_word_pos

    cfg = compose([])
    rng = random.Random(args.seed)
    sents = [s for s in load_sentences(args.parsed, args.splits.split(","))
             if sum(is_word_pos(t) for t in s[1]) >= args.min_words]
    sample = [sents[i] for i in sorted(rng.sample(range(len(sents)), min(args.sentences, len(sents))))]
    by_tag: dict[str, list[str]] = {}
    for words, tags, _ in sample:
        for w, t in zip(words, tags, strict=True):
            by_tag.setdefault(t, []).append(w)
    by_tag = {t: sorted(set(ws)) for t, ws in by_tag.items()}
    pairs = make_pairs(sample, by_tag, rng, MODIFIERS if args.real == "modifiers" else None)

    t0 = time.perf_counter()
    scorer = scorer_from_config(cfg.resources)
    load = time.perf_counter() - t0
    nat = Naturalness(scorer, grid=ScoreGrid.from_config(cfg.resources), min_drop=0.0)
    t1 = time.perf_counter()
    flat = [(kind, p) for kind, ps in pairs.items() for p in ps]
    values = nat.drops([p for _, p in flat])  # one call: each text scored once, a sentence's texts together
    drops: dict[str, list[float]] = {kind: [] for kind in pairs}
    for (kind, _), d in zip(flat, values, strict=True):
        drops[kind].append(d)
    seconds = time.perf_counter() - t1

    threshold = threshold_keeping(drops["real"], args.keep)
    corrupted = [d for kind, ds in drops.items() if kind != "real" for d in ds]
    rows = {kind: {**summary(ds), "rejected": round(rejected_share(ds, threshold), 4)} for kind, ds in drops.items()}
    other = {f"keep_{k}": {"threshold": (thr := threshold_keeping(drops["real"], k)),
                           "corrupted_rejected": round(rejected_share(corrupted, thr), 4)}
             for k in (0.9, 0.95, 0.975, 0.99)}
    examples = {kind: [{"candidate": c, "reference": r, "drop": d}
                       for (c, r), d in zip(ps[:5], drops[kind][:5], strict=True)] for kind, ps in pairs.items()}
    result = {"model": scorer.model_name, "sentences": len(sample), "splits": args.splits, "seed": args.seed,
              "real": args.real, "keep": args.keep, "threshold": threshold,
              "real_kept": round(1 - rejected_share(drops["real"], threshold), 4),
              "corrupted_rejected": round(rejected_share(corrupted, threshold), 4), "by_kind": rows,
              "other_keeps": other, "texts_scored": nat.texts_scored, "load_seconds": round(load, 1),
              "score_seconds": round(seconds, 1), "examples": examples}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "examples"}, indent=2))


if __name__ == "__main__":
    main()
