"""Labelled bracket scoring in the style of ``evalb`` with the standard ``COLLINS.prm``.

Conventions (as in COLLINS.prm): words whose **gold** preterminal is punctuation
(``, : `` '' .``) or an empty element (``-NONE-``) are removed from both trees before spans are
computed; ``TOP``/``ROOT`` brackets are not counted; preterminals are not brackets; function
tags and indices are stripped (``NP-SBJ-1`` → ``NP``, ``PP=2`` → ``PP``); ``ADVP`` and ``PRT``
are the same label; brackets are compared as multisets of (label, start, end). Corpus scores sum
matched/gold/test counts over sentences (like evalb's summary), they do not average sentence
scores.

Why our own: the only PyPI candidate (``PYEVALB`` 0.1.3, 2016) is unmaintained; the rules are
short and tested against hand-computed cases in ``tests/parsing/test_evalb.py``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from lingtest.data.model import Tree

__all__ = ["EvalbParams", "BracketCounts", "brackets", "evalb_sentence", "evalb_corpus", "normalise_label"]


@dataclass(frozen=True, slots=True)
class EvalbParams:
    """The COLLINS.prm settings."""

    delete_labels: frozenset[str] = frozenset({"TOP", "ROOT", "-NONE-", ",", ":", "``", "''", "."})
    equivalent: tuple[tuple[str, str], ...] = (("PRT", "ADVP"),)
    labelled: bool = True


COLLINS = EvalbParams()


@dataclass(slots=True)
class BracketCounts:
    """Counts for one sentence or a corpus; precision/recall/F1 in [0, 1]."""

    matched: int = 0
    gold: int = 0
    test: int = 0
    matched_unlabelled: int = 0
    sentences: int = 0
    exact: int = 0
    words: int = 0
    extra: dict[str, int] = field(default_factory=dict)

    def __iadd__(self, other: BracketCounts) -> BracketCounts:
        self.matched += other.matched
        self.gold += other.gold
        self.test += other.test
        self.matched_unlabelled += other.matched_unlabelled
        self.sentences += other.sentences
        self.exact += other.exact
        self.words += other.words
        return self

    @staticmethod
    def _f(p: float, r: float) -> float:
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def precision(self) -> float:
        return self.matched / self.test if self.test else 0.0

    @property
    def recall(self) -> float:
        return self.matched / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        return self._f(self.precision, self.recall)

    @property
    def unlabelled_precision(self) -> float:
        return self.matched_unlabelled / self.test if self.test else 0.0

    @property
    def unlabelled_recall(self) -> float:
        return self.matched_unlabelled / self.gold if self.gold else 0.0

    @property
    def unlabelled_f1(self) -> float:
        return self._f(self.unlabelled_precision, self.unlabelled_recall)

    def as_dict(self) -> dict[str, float | int]:
        return {
            "labelled_precision": self.precision, "labelled_recall": self.recall, "labelled_f1": self.f1,
            "unlabelled_precision": self.unlabelled_precision, "unlabelled_recall": self.unlabelled_recall,
            "unlabelled_f1": self.unlabelled_f1, "matched": self.matched, "gold_brackets": self.gold,
            "test_brackets": self.test, "n_sentences": self.sentences, "exact_match": self.exact,
            "n_words": self.words,
        }


def normalise_label(label: str, params: EvalbParams = COLLINS) -> str:
    """Strip function tags/indices and apply label equivalences (``NP-SBJ-1`` → ``NP``)."""
    if not label.startswith("-"):
        for sep in ("-", "="):
            if sep in label:
                label = label.split(sep, 1)[0]
    for a, b in params.equivalent:
        if label == a:
            label = b
    return label


def _preterminal_labels(tree: Tree) -> dict[int, str]:
    return {t.token: t.label for t in tree.subtrees() if t.token is not None}


def brackets(tree: Tree, keep: Sequence[bool], params: EvalbParams = COLLINS) -> Counter[tuple[str, int, int]]:
    """The multiset of (label, start, end) brackets over the kept words (renumbered)."""
    new_index, n = [], 0
    for k in keep:
        new_index.append(n)
        n += int(k)
    out: Counter[tuple[str, int, int]] = Counter()
    for node in tree.subtrees():
        if node.token is not None:
            continue
        if node.label in params.delete_labels or normalise_label(node.label, params) in params.delete_labels:
            continue
        kept = [new_index[i] for i in node.leaves() if i < len(keep) and keep[i]]
        if not kept:
            continue
        out[(normalise_label(node.label, params), min(kept), max(kept) + 1)] += 1
    return out


def evalb_sentence(gold: Tree, test: Tree, params: EvalbParams = COLLINS) -> BracketCounts:
    """Bracket counts of one sentence; both trees index the same words (``Tree.token``)."""
    gold_tags = _preterminal_labels(gold)
    test_tags = _preterminal_labels(test)
    if set(gold_tags) != set(test_tags):
        raise ValueError(f"trees cover different words: gold {len(gold_tags)}, test {len(test_tags)}")
    n = max(gold_tags) + 1 if gold_tags else 0
    keep = [gold_tags.get(i, "-NONE-") not in params.delete_labels for i in range(n)]
    g = brackets(gold, keep, params)
    t = brackets(test, keep, params)
    gu = Counter((s, e) for (_, s, e), c in g.items() for _ in range(c))
    tu = Counter((s, e) for (_, s, e), c in t.items() for _ in range(c))
    matched = sum((g & t).values())
    return BracketCounts(matched=matched, gold=sum(g.values()), test=sum(t.values()),
                         matched_unlabelled=sum((gu & tu).values()), sentences=1,
                         exact=int(g == t), words=sum(keep))


def evalb_corpus(pairs: Iterable[tuple[Tree, Tree]], params: EvalbParams = COLLINS,
                 max_length: int | None = None) -> BracketCounts:
    """Summed counts over (gold, test) tree pairs; ``max_length`` keeps sentences of at most that
    many words after punctuation removal (evalb's ``CUTOFF_LEN``)."""
    total = BracketCounts()
    for gold, test in pairs:
        c = evalb_sentence(gold, test, params)
        if max_length is not None and c.words > max_length:
            continue
        total += c
    return total
