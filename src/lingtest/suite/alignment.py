"""Token alignment between a source and a follow-up that differ by word replacements.

Replacing source token ``p`` by ``n`` words shifts every later token by ``n - 1``; a follow-up token
inside a replacement maps back to the replaced position. Spans use exclusive ends. CREST's one-word
replacement is the special case of a single entry (:class:`lingtest.data.align.Alignment`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class ReplacementAlignment:
    """``replacements``: sorted ``(source position, number of new words)`` pairs."""

    replacements: tuple[tuple[int, int], ...] = ()

    @classmethod
    def of(cls, replacements: Sequence[Sequence[int]]) -> ReplacementAlignment:
        reps = tuple(sorted((int(p), int(n)) for p, n in replacements))
        for (p, _n), (q, _) in zip(reps, reps[1:], strict=False):
            if q <= p:
                raise ValueError(f"two replacements of source token {p}")
        if any(n < 1 for _, n in reps):
            raise ValueError("a replacement has at least one new word")
        return cls(reps)

    def token_to_source(self, j: int) -> int:
        """Source index of follow-up token ``j``."""
        shift = 0
        for p, n in self.replacements:
            start = p + shift  # follow-up index of the first new word
            if j < start:
                break
            if j < start + n:
                return p
            shift += n - 1
        return j - shift

    def span_to_source(self, span: Span) -> Span:
        s, e = span
        return (self.token_to_source(s), self.token_to_source(e - 1) + 1)

    def clusters_to_source(self, clusters: Sequence[Sequence[Span]]) -> list[list[Span]]:
        return [[self.span_to_source(tuple(m)) for m in c] for c in clusters]  # type: ignore[arg-type]


