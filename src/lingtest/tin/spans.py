"""Sentence-relative entity spans: text, overlap, occurrences, entities from IOB tags, and the token
map between a sentence and its mutant.

Spans are ``(start, end)`` token offsets with an exclusive end; entities are
:class:`~lingtest.data.model.Entity` records over the tokens of one sentence (what an
:class:`~lingtest.systems.ner.base.NERSystem` returns).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from lingtest.data.model import Entity
from lingtest.metrics.ner import chunks

Span = tuple[int, int]

__all__ = ["Span", "TokenMap", "entities_from_tags", "entity_text", "find_occurrences",
           "inside_any", "overlaps", "span_text"]


def span_text(tokens: Sequence[str], span: Span) -> str:
    return " ".join(tokens[span[0]:span[1]])


def entity_text(tokens: Sequence[str], entity: Entity) -> str:
    return " ".join(tokens[entity.start:entity.end])


def overlaps(a: Span, b: Span) -> bool:
    """Whether two spans share a token."""
    return a[0] < b[1] and b[0] < a[1]


def inside_any(index: int, entities: Iterable[Entity]) -> bool:
    """Whether token ``index`` lies inside one of ``entities``."""
    return any(e.start <= index < e.end for e in entities)


def find_occurrences(tokens: Sequence[str], words: Sequence[str]) -> list[Span]:
    """Every span of ``tokens`` equal to ``words`` (as a token sequence), left to right."""
    n = len(words)
    if n == 0:
        return []
    first = words[0]
    out = []
    for i in range(len(tokens) - n + 1):
        if tokens[i] == first and list(tokens[i:i + n]) == list(words):
            out.append((i, i + n))
    return out


def entities_from_tags(tags: Sequence[str], scheme: str = "iob2") -> list[Entity]:
    """Entities of one tagged sentence, decoded by conlleval's rules (:func:`lingtest.metrics.ner.chunks`)."""
    return [Entity(c.start, c.end, c.type) for c in chunks(tags, scheme)]  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class TokenMap:
    """Where each source token went in the mutant: ``to_followup[i]`` is the mutant index of
    source token ``i``, or ``None`` when it was replaced; ``n_followup`` is the mutant's length."""

    to_followup: tuple[int | None, ...]
    n_followup: int

    def __post_init__(self) -> None:
        seen = [j for j in self.to_followup if j is not None]
        if len(set(seen)) != len(seen) or any(not 0 <= j < self.n_followup for j in seen):
            raise ValueError(f"not a token map: {self.to_followup} into {self.n_followup} tokens")

    # -- constructors ------------------------------------------------------------------------------
    @classmethod
    def identity(cls, n: int) -> TokenMap:
        return cls(tuple(range(n)), n)

    @classmethod
    def replacement(cls, n_source: int, start: int, end: int, n_new: int) -> TokenMap:
        """Source tokens ``[start, end)`` replaced by ``n_new`` new tokens."""
        if not 0 <= start < end <= n_source or n_new < 1:
            raise ValueError(f"bad replacement [{start}, {end}) -> {n_new} of {n_source} tokens")
        shift = n_new - (end - start)
        out: list[int | None] = []
        for i in range(n_source):
            out.append(i if i < start else None if i < end else i + shift)
        return cls(tuple(out), n_source + shift)

    @classmethod
    def from_order(cls, n_source: int, order: Sequence[int | None]) -> TokenMap:
        """``order[j]``: the source index of mutant token ``j`` (``None`` for an inserted token)."""
        to: list[int | None] = [None] * n_source
        for j, i in enumerate(order):
            if i is not None:
                if to[i] is not None:
                    raise ValueError(f"source token {i} placed twice")
                to[i] = j
        return cls(tuple(to), len(order))

    # -- mapping -----------------------------------------------------------------------------------
    def map_span(self, span: Span) -> Span | None:
        """The mutant span of a source span whose tokens all survive, in order and contiguous;
        else ``None``."""
        idx = [self.to_followup[i] for i in range(span[0], span[1])]
        if any(j is None for j in idx):
            return None
        js = [j for j in idx if j is not None]
        if any(b != a + 1 for a, b in zip(js, js[1:], strict=False)):
            return None
        return (js[0], js[-1] + 1)

    def map_entities(self, entities: Iterable[Entity]) -> list[Entity] | None:
        """``entities`` moved onto the mutant, or ``None`` when one of them does not survive intact."""
        out = []
        for e in entities:
            sp = self.map_span((e.start, e.end))
            if sp is None:
                return None
            out.append(Entity(sp[0], sp[1], e.label))
        return sorted(out)

    def to_source(self) -> list[int | None]:
        """For each mutant token, its source index (``None`` for new tokens)."""
        back: list[int | None] = [None] * self.n_followup
        for i, j in enumerate(self.to_followup):
            if j is not None:
                back[j] = i
        return back

    # -- JSON ----------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {"to_followup": list(self.to_followup), "n_followup": self.n_followup}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TokenMap:
        return cls(tuple(None if j is None else int(j) for j in d["to_followup"]), int(d["n_followup"]))
