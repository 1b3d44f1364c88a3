"""Cycle breaking and non-projective lifting on head arrays (``heads[i]`` is the head of word ``i``,
``-1`` the root): the constituency tree built from a dependency tree is projective only when the
dependency tree is."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["break_cycles", "dominates", "projectivize", "subtree_spans"]


def subtree_spans(heads: list[int]) -> list[tuple[int, int]]:
    """``(first, last)`` word of each word's subtree (the word itself included)."""
    n = len(heads)
    lo, hi = list(range(n)), list(range(n))
    for i in range(n):
        j, seen = heads[i], 0
        while j != -1 and seen <= n:
            lo[j], hi[j] = min(lo[j], i), max(hi[j], i)
            j, seen = heads[j], seen + 1
    return list(zip(lo, hi, strict=True))


def dominates(heads: Sequence[int], h: int, d: int) -> bool:
    """Whether ``h`` is ``d`` or one of its ancestors."""
    while d != -1:
        if d == h:
            return True
        d = heads[d]
    return False


def break_cycles(heads: list[int]) -> list[int]:
    """Attach to the root one node of every head cycle (re-attaching a token that has dependents,
    e.g. punctuation that a parser gave children, can close a loop)."""
    heads = list(heads)
    n = len(heads)
    root = next((i for i in range(n) if heads[i] == -1), 0)
    heads[root] = -1
    for start in range(n):
        path: list[int] = []
        on_path: set[int] = set()
        j = start
        while j != -1 and j not in on_path:
            path.append(j)
            on_path.add(j)
            j = heads[j]
        if j != -1:  # j closes a cycle: cut it at j
            heads[j] = root if j != root else -1
    return heads


def projectivize(heads: list[int]) -> list[int]:
    """Lift non-projective arcs: reattach the dependent to its head's head until every arc is
    projective (all words between head and dependent are dominated by the head)."""
    heads = break_cycles(heads)
    n = len(heads)
    changed = True
    while changed:
        changed = False
        for d in range(n):
            h = heads[d]
            if h == -1:
                continue
            lo, hi = min(h, d), max(h, d)
            if any(not dominates(heads, h, k) for k in range(lo + 1, hi)):
                heads[d] = heads[h] if heads[h] != -1 else h
                if heads[d] == h:  # h is the root: the root dominates everything
                    continue
                changed = True
    return heads
