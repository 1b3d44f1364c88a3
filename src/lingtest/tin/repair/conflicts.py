"""Range conflicts among relabelled entities (TIN section 3.5.2, 4).

Relabelling is independent per suspicious span, so the relabelled entities of a sentence may
overlap (*Cricket South Africa* and *South Africa*). Of two overlapping entities with different
spans, the one with the lower ``p_score`` is dropped; on a tie the longer one (the public TIN
code's rule), then the later one. An entity of the original prediction that was not relabelled
takes part with ``p_score = KEEP_SCORE`` (1e18), as a kept original does; two such entities never
conflict with each other (the system's own nested predictions are left alone).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from lingtest.data.model import Entity


@dataclass(frozen=True, slots=True, order=True)
class ScoredEntity:
    start: int
    end: int
    label: str
    p_score: float
    relabeled: bool

    @property
    def entity(self) -> Entity:
        return Entity(self.start, self.end, self.label)

    def overlaps(self, other: ScoredEntity) -> bool:
        return self.start < other.end and other.start < self.end


def resolve_conflicts(entities: Iterable[ScoredEntity]) -> list[ScoredEntity]:
    """The entities that survive, sorted by position."""
    ordered = sorted(entities, key=lambda e: (-e.p_score, e.end - e.start, e.start, e.end, e.label))
    kept: list[ScoredEntity] = []
    for e in ordered:
        clash = any(e.overlaps(k) and (e.start, e.end) != (k.start, k.end) and (e.relabeled or k.relabeled)
                    for k in kept)
        if not clash:
            kept.append(e)
    return sorted(kept)
