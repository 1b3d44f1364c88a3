"""Word-level difference of a source and its follow-up (pure)."""

from __future__ import annotations

import difflib
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
