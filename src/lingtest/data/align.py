"""Token alignment between a source and a follow-up that differ in one replaced position.

Replacing token ``position`` by ``n_new`` words shifts every later token by ``n_new - 1`` (a
multi-word synonym like *ice cream*), so mentions are compared by position through this map, not
by raw index (the paper's *homemade* -> *home-baked* example). Spans use exclusive ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

Span = tuple[int, int]


def replace_words(words: Sequence[str], ws: Sequence[str], position: int,
                  new: Sequence[str]) -> tuple[list[str], list[str]]:
    """Words and trailing whitespace after replacing ``words[position]`` with ``new``."""
    if not new:
        raise ValueError("a replacement needs at least one word")
    nw = list(words[:position]) + list(new) + list(words[position + 1:])
    new_ws = [" "] * (len(new) - 1) + [ws[position]]
    nws = list(ws[:position]) + new_ws + list(ws[position + 1:])
    return nw, nws


def detokenize(words: Sequence[str], ws: Sequence[str] | None = None) -> str:
    if ws is None:
        return " ".join(words)
    return "".join(w + s for w, s in zip(words, ws, strict=True)).rstrip()


@dataclass(frozen=True, slots=True)
class Alignment:
    """Source token ``position`` became follow-up tokens ``[position, position + n_new)``."""

    n_source: int
    position: int
    n_new: int = 1

    @property
    def shift(self) -> int:
        return self.n_new - 1

    @property
    def n_followup(self) -> int:
        return self.n_source + self.shift

    def token_to_followup(self, i: int) -> int:
        """Follow-up index of source token ``i`` (the first new word for the replaced one)."""
        if not 0 <= i < self.n_source:
            raise IndexError(i)
        return i if i <= self.position else i + self.shift

    def token_to_source(self, j: int) -> int:
        """Source index of follow-up token ``j`` (every new word maps to the replaced position)."""
        if not 0 <= j < self.n_followup:
            raise IndexError(j)
        if j < self.position:
            return j
        if j < self.position + self.n_new:
            return self.position
        return j - self.shift

    def span_to_followup(self, span: Span) -> Span:
        s, e = span
        end = e if e <= self.position else e + self.shift
        return (self.token_to_followup(s), end)

    def span_to_source(self, span: Span) -> Span:
        s, e = span
        return (self.token_to_source(s), self.token_to_source(e - 1) + 1)

    def clusters_to_source(self, clusters: Sequence[Sequence[Span]]) -> list[list[Span]]:
        return [[self.span_to_source(m) for m in c] for c in clusters]

    def clusters_to_followup(self, clusters: Sequence[Sequence[Span]]) -> list[list[Span]]:
        return [[self.span_to_followup(m) for m in c] for c in clusters]
