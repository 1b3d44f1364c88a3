"""Word-level difference of a source and its follow-up (pure)."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Piece:
    text: str
    kind: str  # "same" | "del" (only in the source) | "ins" (only in the follow-up)


def word_diff(source: str, followup: str) -> tuple[list[Piece], list[Piece]]:
    """(source pieces, follow-up pieces): words the two share are ``same``; a changed run is ``del``
    in the source and ``ins`` in the follow-up. Lines are kept (a newline is a token)."""
    a = source.replace("\n", " \n ").split(" ")
    b = followup.replace("\n", " \n ").split(" ")
    a = [w for w in a if w != ""]
    b = [w for w in b if w != ""]
    left: list[Piece] = []
    right: list[Piece] = []
    sm = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            left.append(Piece(_join(a[i1:i2]), "same"))
            right.append(Piece(_join(b[j1:j2]), "same"))
            continue
        if i2 > i1:
            left.append(Piece(_join(a[i1:i2]), "del"))
        if j2 > j1:
            right.append(Piece(_join(b[j1:j2]), "ins"))
    return left, right


def _join(words: list[str]) -> str:
    return " ".join(words).replace(" \n ", "\n").replace("\n ", "\n").replace(" \n", "\n")


def changed_words(pieces: list[Piece]) -> int:
    return sum(len(p.text.split()) for p in pieces if p.kind != "same")


@dataclass(frozen=True)
class TokenDiff:
    """The token-level difference of a source and its follow-up: the positions only one side has
    (``changed_source``, ``changed_followup``) and the follow-up position -> source position of every
    token the two share or that replaced a token one for one (``to_source``)."""

    changed_source: frozenset[int]
    changed_followup: frozenset[int]
    to_source: dict[int, int]


def token_diff(source: list[str], followup: list[str], source_breaks: Sequence[int] = (),
               followup_breaks: Sequence[int] = ()) -> TokenDiff:
    """Align two token lists: lists of one length position by position (a replacement, a shuffle);
    otherwise with difflib, sentence by sentence when both have as many sentences (``*_breaks``: the
    positions where a sentence starts, after the first). Equal runs map one to one, a replaced run of the
    same length maps one to one and is marked changed on both sides; other runs are marked changed."""
    if len(source) == len(followup):
        changed = frozenset(i for i, (a, b) in enumerate(zip(source, followup, strict=True)) if a != b)
        return TokenDiff(changed, changed, {i: i for i in range(len(source))})
    if source_breaks and len(source_breaks) == len(followup_breaks):
        left: set[int] = set()
        right: set[int] = set()
        mapping: dict[int, int] = {}
        a_cuts = [0, *sorted(source_breaks), len(source)]
        b_cuts = [0, *sorted(followup_breaks), len(followup)]
        for k in range(len(a_cuts) - 1):
            _align(source, followup, (a_cuts[k], a_cuts[k + 1]), (b_cuts[k], b_cuts[k + 1]), left, right, mapping)
        return TokenDiff(frozenset(left), frozenset(right), mapping)
    left, right, mapping = set(), set(), {}
    _align(source, followup, (0, len(source)), (0, len(followup)), left, right, mapping)
    return TokenDiff(frozenset(left), frozenset(right), mapping)


def _align(source: list[str], followup: list[str], a: tuple[int, int], b: tuple[int, int], left: set[int],
           right: set[int], mapping: dict[int, int]) -> None:
    sm = difflib.SequenceMatcher(a=source[a[0]:a[1]], b=followup[b[0]:b[1]], autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        i1, i2, j1, j2 = i1 + a[0], i2 + a[0], j1 + b[0], j2 + b[0]
        if op == "equal" or (op == "replace" and i2 - i1 == j2 - j1):
            mapping.update({j1 + k: i1 + k for k in range(j2 - j1)})
        if op != "equal":
            left.update(range(i1, i2))
            right.update(range(j1, j2))
