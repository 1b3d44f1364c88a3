"""Flat, PTB-style coordination on the dependency side: every conjunct, conjunction and separating
comma hangs from the first conjunct, so that the converter can build
``(VP (VP ...) (, ,) (VP ...) (CC and) (VP ...))`` at one layer of the first conjunct."""

from __future__ import annotations

__all__ = ["normalise_coordination"]


def normalise_coordination(heads: list[int], deps: list[str]) -> list[int]:
    """New heads with flat coordination: chained conjuncts (spaCy ``A , B and C`` with C→B→A) and
    UD-style ``cc``/punctuation on later conjuncts all hang from the first conjunct."""
    heads = _conjuncts_to_first(heads, deps)
    heads = _separators_to_first(heads, deps)
    return _trailing_separators_to_first(heads, deps)


def _conjuncts_to_first(heads: list[int], deps: list[str]) -> list[int]:
    """Each conjunct hangs from the first conjunct of its chain."""
    heads = list(heads)
    for c in range(len(heads)):
        if deps[c] != "conj":
            continue
        h = heads[c]
        while h != -1 and deps[h] == "conj" and heads[h] != -1:
            h = heads[h]
        heads[c] = h
    return heads


def _separators_to_first(heads: list[int], deps: list[str]) -> list[int]:
    """A ``cc`` or punctuation dependent of a later conjunct that lies between the first conjunct
    and that conjunct (UD: ``A , B and C`` with ``and`` on C) moves to the first conjunct."""
    heads = list(heads)
    n = len(heads)
    for c in range(n):
        if deps[c] != "conj":
            continue
        first = heads[c]
        if first == -1:
            continue
        for k in range(n):
            if heads[k] != c:
                continue
            if deps[k] in ("cc", "cc:preconj") and first < k < c:
                heads[k] = first
            elif deps[k] == "punct" and first < k < c:
                heads[k] = first
    return heads


def _trailing_separators_to_first(heads: list[int], deps: list[str]) -> list[int]:
    """``cc``/punctuation left on an intermediate conjunct but lying after it, before a later
    conjunct, moves to the first conjunct."""
    heads = list(heads)
    n = len(heads)
    for k in range(n):
        h = heads[k]
        if h != -1 and deps[k] in ("cc", "punct") and deps[h] == "conj" and k > h:
            first = heads[h]
            later = [c for c in range(n) if deps[c] == "conj" and heads[c] == first and c > k]
            if first != -1 and later:
                heads[k] = first
    return heads
