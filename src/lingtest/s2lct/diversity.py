"""Diversity of a test suite (RQ1, Figure 4): Self-BLEU and production-rule coverage over seeded
samples of SEED (seed cases), SEED+EXP (seeds and expansions) and the baseline.

For each group and sample size, ``trials`` samples of that many texts are drawn (numpy's
generator seeded by ``(seed, group, size, trial)``; a group smaller than the size is used whole),
each is scored, and the median over trials is reported with every trial's value. Texts are
tokenised with NLTK's Treebank word tokenizer (the reference's ``word_tokenize`` without its
sentence splitter) for Self-BLEU; coverage counts the distinct non-lexical productions of the
texts' parse trees (the configured parser, each distinct text parsed once: :func:`memo_trees`).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from lingtest.data.model import TestCase, stable_id
from lingtest.s2lct.grammar import Node, node_from_tree, production_rule_coverage
from lingtest.s2lct.selfbleu import self_bleu

__all__ = ["diversity_groups", "diversity_table", "memo_trees", "tokenize"]


def tokenize(text: str) -> list[str]:
    from nltk.tokenize import TreebankWordTokenizer

    return TreebankWordTokenizer().tokenize(text)


def diversity_groups(cases: Sequence[TestCase], baseline: Sequence[TestCase]) -> dict[str, list[str]]:
    """The texts of the groups compared: ``SEED`` (the suite's seed cases), ``SEED+EXP`` (all its cases)
    and ``baseline``, each in file order."""
    return {"SEED": [str(x.source["text"]) for x in cases if x.meta.get("kind") == "seed"],
            "SEED+EXP": [str(x.source["text"]) for x in cases],
            "baseline": [str(x.source["text"]) for x in baseline]}


def memo_trees(parser: Any) -> Callable[[list[str]], list[Node]]:
    """``trees(texts)``: the parse tree of each text (tokenised with :func:`tokenize`; an ``EMPTY`` node
    when the parser gives none), every distinct text parsed once, the new ones of a call in one batch in
    sorted order."""
    memo: dict[str, Node] = {}

    def trees(texts: list[str]) -> list[Node]:
        todo = sorted({t for t in texts if t not in memo})
        if todo:
            words = [tokenize(t) for t in todo]
            for t, w, s in zip(todo, words, parser.parse(words), strict=True):
                memo[t] = node_from_tree(s.tree, w) if s.tree is not None else Node("EMPTY")
        return [memo[t] for t in texts]

    return trees


def _pick(n: int, size: int, seed: int, *parts: Any) -> list[int]:
    if size >= n:
        return list(range(n))
    rng = np.random.default_rng(int(stable_id(seed, *parts, length=12), 16))
    return sorted(rng.choice(n, size=size, replace=False).tolist())


def diversity_table(groups: Mapping[str, Sequence[str]], sizes: Sequence[int], trials: int, seed: int,
                    trees: Callable[[list[str]], list[Node]]) -> list[dict[str, Any]]:
    """One row per (group, size): ``n`` (texts in the sample), ``self_bleu`` and ``coverage``
    (medians over trials) and the per-trial values. ``trees(texts)`` parses texts (memoise it)."""
    rows = []
    for group, texts in groups.items():
        toks = [tokenize(t) for t in texts]
        for size in sizes:
            bleus, covs = [], []
            n_used = min(int(size), len(texts))
            if n_used < 2:
                continue
            for trial in range(int(trials)):
                idx = _pick(len(texts), int(size), seed, group, int(size), trial)
                bleus.append(round(self_bleu([toks[i] for i in idx]), 6))
                covs.append(production_rule_coverage(trees([texts[i] for i in idx])))
            rows.append({"group": group, "size": int(size), "n": n_used,
                         "self_bleu": round(statistics.median(bleus), 6),
                         "coverage": statistics.median(covs), "self_bleu_trials": bleus, "coverage_trials": covs})
    return rows
