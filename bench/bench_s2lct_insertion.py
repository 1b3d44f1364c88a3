"""Calibrate S2LCT's insertion bound ``s2lct.expansion.validate.min_insertion_logprob`` on real sentences, and
measure it on the reviewed expanded sentences.

The *insertion log-probability* of an expansion is its total log-probability under the causal LM minus its seed's
(:meth:`lingtest.s2lct.expand.Naturalness.insertion_logprobs`, on the ``logprob`` grid). This script measures it on

* **real** pairs: a sentence of a suite's searched corpus (SST, HateXplain) against the same sentence with one
  word deleted, where that word is one an expansion could have inserted there: it fills a slot an insertion rule
  of its tag matches (the rule's phrase, tag and neighbours; the word before it one of ``after_words`` and none of
  ``not_after``; never the first word), it is among the rule's ``attested`` words of the reference treebank and
  no refused lexicon has it. These are the words a writer put in the slots the expander fills;

scores at most ``--max-pairs`` of them per tag (a seeded draw), picks, per tag, the largest value on the grid
that keeps at least ``--keep`` of the real pairs (:func:`~lingtest.s2lct.expand.threshold_keeping`, as the
naturalness drop is calibrated) and then reports what
that bound removes among the **reviewed** expanded sentences of the released suites (``--reviews``: the judged
sentences of ``reviews/s2lct-<suite>-expansion-sentences@<version>``, the later review's judgement where two
reviewers agree, the adjudication's where they do not: ``bench/results/s2lct_expansion_adjudication.jsonl``).

    .venv/bin/python bench/bench_s2lct_insertion.py --data <workspace>/data [--keep 0.95]
        [--max-pairs 400] [--seed 13] [--reviews 1.2.0,1.3.0] [--out bench/results/s2lct_insertion.json]

``--data``: a pipeline workspace's ``data`` folder (read only: ``parsed/``, ``prepared/ptb_sample``,
``manifests``, ``suites/s2lct/<suite>.jsonl`` for the reviewed sentences).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BENCHMARK = ("S2LCT's insertion bound: the insertion log-probability of real slot fills of the searched corpora "
             "(the bound per tag keeping a share of them) and what the bound removes among reviewed expansions")


def one_word(node: Any) -> Any:
    """The preterminal a node is, or a unary chain over; else ``None``."""
    while len(node.children) == 1:
        node = node.children[0]
    return node if not node.children and node.word is not None else None


def slot_fills(tree: Any) -> Iterable[tuple[Any, int, str]]:
    """``(slot, leaf position, word)`` of every word of ``tree`` that is a phrase's child or the one word of a
    child phrase (as :func:`lingtest.s2lct.grammar.slot_contexts`, with the word's position)."""
    from lingtest.s2lct.grammar import EDGE_AFTER, EDGE_BEFORE, Slot

    def walk(node: Any, start: int) -> Iterable[tuple[Any, int, str]]:
        labels = [c.label for c in node.children]
        at = start
        for i, c in enumerate(node.children):
            width = len(c.leaves()) if c.children else 1
            leaf = one_word(c)
            if leaf is not None:
                rhs = [*labels[:i], leaf.label, *labels[i + 1:]]
                yield (Slot(node.label, rhs[i - 1] if i > 0 else EDGE_BEFORE, rhs[i],
                            rhs[i + 1] if i + 1 < len(rhs) else EDGE_AFTER, i + 2 == len(rhs)), at, leaf.word)
            if c.children:
                yield from walk(c, at)
            at += width

    yield from walk(tree, 0)


def real_pairs(trees: Iterable[tuple[list[str], Any]], rules: Sequence[Any], attested: Mapping[str, frozenset[str]],
               refused: frozenset[str]) -> list[dict[str, Any]]:
    """The real pairs of sentences ``(words, tree)`` (see the module notes), each once per deleted position."""
    out: list[dict[str, Any]] = []
    for words, tree in trees:
        for slot, pos, word in slot_fills(tree):
            low = word.lower()
            if pos == 0 or low in refused or not word.isalnum():
                continue
            prev = words[pos - 1].lower()
            for r in rules:
                if not r.matches(slot):
                    continue
                if r.attested is not None and low not in attested.get(slot.tag, frozenset()):
                    continue
                if (r.after_words is not None and prev not in r.after_words) or prev in r.not_after:
                    continue
                out.append({"tag": slot.tag, "word": low, "text": " ".join(words),
                            "seed": " ".join(words[:pos] + words[pos + 1:])})
                break
    return out


def consensus(reviews: Path, suite: str, versions: Sequence[str]) -> dict[str, bool]:
    """Per judged expanded sentence id: the second review's judgement, the adjudication's where the two disagree."""
    from bench_review_agreement import adjudicated, read_adjudication, well_formed

    if len(versions) != 2:
        raise SystemExit(f"--reviews: two review versions, got {len(versions)}")
    first, second = (well_formed(reviews / f"s2lct-{suite}-expansion-sentences@{v}") for v in versions)
    return adjudicated(first, second, read_adjudication(ROOT / "bench" / "results" /
                                                        "s2lct_expansion_adjudication.jsonl"))


def removed_at(values: Sequence[tuple[float, bool]], bound: float) -> dict[str, Any]:
    """What ``bound`` removes among ``(value, well_formed)`` judged sentences, and the well-formed rate kept."""
    kept = [wf for v, wf in values if v >= bound]
    return {"bound": bound, "removed_well_formed": sum(wf for v, wf in values if v < bound),
            "removed_ill_formed": sum(not wf for v, wf in values if v < bound), "kept": len(kept),
            "kept_well_formed": sum(kept), "kept_rate": round(sum(kept) / len(kept), 4) if kept else None}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--suites", default="sst,hatexplain")
    ap.add_argument("--keep", type=float, default=0.95)
    ap.add_argument("--max-pairs", type=int, default=400, help="real pairs scored per tag (a seeded draw)")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--reviews", default="1.2.0,1.3.0", help="the two review versions the judgements come from")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "s2lct_insertion.json")
    ap.add_argument("overrides", nargs="*")
    args = ap.parse_args()

    sys.path.insert(0, str(ROOT / "src"))
    sys.path.insert(0, str(ROOT / "bench"))
    from lingtest.config import compose
    from lingtest.data.io import read_jsonl
    from lingtest.data.model import TestCase
    from lingtest.execution.context import StageContext
    from lingtest.s2lct import components
    from lingtest.s2lct.config import S2lctConfig
    from lingtest.s2lct.expand import Naturalness, threshold_keeping
    from lingtest.s2lct.expansion_review import expansion_sentences
    from lingtest.s2lct.grammar import attested_words, node_from_tree

    t0 = time.perf_counter()
    data = args.data.resolve()
    cfg = compose([f"paths.parsed={data / 'parsed'}", f"paths.prepared={data / 'prepared'}",
                   f"paths.manifests={data / 'manifests'}", *args.overrides])
    config = S2lctConfig.from_config(cfg)
    ctx = StageContext(components.GENERATE_STAGE, cfg, root=ROOT)
    k = components.knowledge(ctx, config)
    rules = config.expansion.insertion_rules(config.lexicons) or []
    attested = attested_words(components.reference_trees(ctx, config), rules)
    refused = components.refused_words(config, k)
    parts = components.FillParts(ctx, lambda _w, _t: True)
    nat = Naturalness(parts.lm_scorer(None), grid=parts.score_grid, min_drop=float("-inf"))

    pairs: list[dict[str, Any]] = []
    for suite in args.suites.split(","):
        spec = config.suite(suite)
        docs = components.read_documents(ctx, "parsed", spec.search.corpus, spec.search.splits)
        trees = [(s.words, node_from_tree(s.tree, s.words)) for d in docs for s in d.sentences if s.tree is not None]
        found = real_pairs(trees, rules, attested, refused)
        for p in found:
            p["corpus"] = spec.search.corpus
        pairs.extend(found)
    print("real pairs found:", len(pairs), flush=True)
    found_by_tag = {t: sum(p["tag"] == t for p in pairs) for t in sorted({p["tag"] for p in pairs})}
    rng = random.Random(args.seed)
    chosen: list[dict[str, Any]] = []
    for tag in found_by_tag:  # at most --max-pairs of a tag, a seeded draw in corpus order
        of_tag = [p for p in pairs if p["tag"] == tag]
        keep = sorted(rng.sample(range(len(of_tag)), min(args.max_pairs, len(of_tag))))
        chosen.extend(of_tag[i] for i in keep)
    pairs = chosen
    values = nat.insertion_logprobs([(p["text"], p["seed"]) for p in pairs])
    for p, v in zip(pairs, values, strict=True):
        p["insertion_logprob"] = v
    tags = sorted({p["tag"] for p in pairs})
    calibration: dict[str, Any] = {}
    for tag in tags:
        vals = [p["insertion_logprob"] for p in pairs if p["tag"] == tag]
        words: dict[str, int] = {}
        for p in pairs:
            if p["tag"] == tag:
                words[p["word"]] = words.get(p["word"], 0) + 1
        calibration[tag] = {"real_pairs": len(vals), "found": found_by_tag[tag],
                            "words": dict(sorted(words.items(), key=lambda x: -x[1])),
                            "by_corpus": {c: sum(p["corpus"] == c for p in pairs if p["tag"] == tag)
                                          for c in sorted({p["corpus"] for p in pairs})},
                            "median": statistics.median(vals),
                            "bounds": {f"keep_{q}": threshold_keeping(vals, q) for q in (0.9, 0.95, 0.975, 0.99)},
                            "bound": threshold_keeping(vals, args.keep)}
        print(tag, json.dumps({key: v for key, v in calibration[tag].items() if key != "words"}), flush=True)

    reviewed: dict[str, Any] = {}
    versions = args.reviews.split(",")
    for suite in args.suites.split(","):
        judged = consensus(ROOT / "reviews", suite, versions)
        cases = list(read_jsonl(data / "suites" / "s2lct" / f"{suite}.jsonl", TestCase.from_dict))
        units = [u for u in expansion_sentences(cases) if u.id in judged]
        if len(units) != len(judged):
            raise SystemExit(f"{suite}: {len(judged) - len(units)} judged sentences are not in the suite file "
                             f"(--data must hold the suite of review {versions[-1]})")
        vals = nat.insertion_logprobs([(u.text, u.seed) for u in units])
        by_tag: dict[str, Any] = {}
        for tag in sorted({u.tags[0] for u in units}):
            pts = [(v, judged[u.id]) for u, v in zip(units, vals, strict=True) if u.tags[0] == tag]
            by_tag[tag] = {"judged": len(pts), "well_formed": sum(wf for _, wf in pts)}
            if tag in calibration:
                by_tag[tag]["at_bound"] = removed_at(pts, calibration[tag]["bound"])
                by_tag[tag]["at_bounds"] = {q: removed_at(pts, b) for q, b in calibration[tag]["bounds"].items()}
        every = [(v if u.tags[0] in calibration else float("inf"), judged[u.id])
                 for u, v in zip(units, vals, strict=True)]
        allb = [(v - (calibration[u.tags[0]]["bound"] if u.tags[0] in calibration else 0.0), wf)
                for (v, wf), u in zip(every, units, strict=True)]
        reviewed[suite] = {"review": f"reviews/s2lct-{suite}-expansion-sentences@{versions[-1]}",
                           "judged": len(units), "well_formed": sum(judged[u.id] for u in units),
                           "by_tag": by_tag, "all": removed_at(allb, 0.0),
                           "sentences": [{"text": u.text, "tag": u.tags[0], "fills": list(u.fills),
                                          "insertion_logprob": v, "well_formed": judged[u.id]}
                                         for u, v in zip(units, vals, strict=True)]}
        print(suite, json.dumps(reviewed[suite]["all"]), flush=True)

    result = {"benchmark": BENCHMARK, "keep": args.keep, "lm": str(cfg.resources.lm.model),
              "reviews": versions, "calibration": calibration, "reviewed": reviewed,
              "texts_scored": nat.texts_scored, "seconds": round(time.perf_counter() - t0, 1),
              "real_pairs": pairs}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print("wrote", args.out)


if __name__ == "__main__":
    main()
