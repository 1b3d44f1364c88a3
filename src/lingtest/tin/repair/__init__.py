"""Black-box repair (TIN section 3.5): locate suspicious entities (:mod:`.locate`), relabel each
(:mod:`.relabel`, Algorithm 1), resolve range conflicts (:mod:`.conflicts`) and build the repaired
prediction R(s).

R(s) is N(s) with every suspicious span decided by its relabel: the entities predicted exactly at
that span are replaced by the relabelled one (none when the relabel is NULL; the original ones,
with ``KEEP_SCORE``, when there was no evidence). Relabelling depends only on the sentence and the
span, so a sentence that appears in several issues has its suspicious spans pooled and each
relabelled once (:func:`repair`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lingtest.data.model import Entity
from lingtest.resources.fill import FillProposer
from lingtest.tin.embedding import TokenEmbedder
from lingtest.tin.repair.conflicts import ScoredEntity, resolve_conflicts
from lingtest.tin.repair.locate import locate
from lingtest.tin.repair.relabel import (
    KEEP_SCORE,
    NULL,
    RelabelConfig,
    RelabelJob,
    RelabelResult,
    format_consistent,
    relabel,
)
from lingtest.tin.spans import Span

__all__ = ["KEEP_SCORE", "NULL", "RelabelConfig", "RelabelJob", "RelabelResult", "RepairItem", "Repaired",
           "ScoredEntity", "apply_relabels", "format_consistent", "locate", "relabel", "repair",
           "resolve_conflicts"]


@dataclass(slots=True)
class RepairItem:
    """A sentence, the system's prediction on it and its suspicious spans."""

    tokens: list[str]
    entities: list[Entity]
    suspicious: list[Span]


@dataclass(slots=True)
class Repaired:
    """R(s): ``entities``; ``scored`` with their p_scores; ``relabels`` by suspicious span."""

    entities: list[Entity]
    scored: list[ScoredEntity]
    relabels: dict[Span, RelabelResult] = field(default_factory=dict)


def apply_relabels(entities: Sequence[Entity], relabels: Mapping[Span, RelabelResult]) -> list[ScoredEntity]:
    """R(s) before conflict resolution: unsuspicious entities kept (``KEEP_SCORE``), each
    suspicious span replaced by its relabel."""
    out = [ScoredEntity(e.start, e.end, e.label, KEEP_SCORE, False) for e in entities
           if (e.start, e.end) not in relabels]
    for (a, b), r in sorted(relabels.items()):
        if r.kept_original:
            out.extend(ScoredEntity(a, b, e.label, KEEP_SCORE, False) for e in entities
                       if (e.start, e.end) == (a, b))
        elif r.label is not None:
            out.append(ScoredEntity(a, b, r.label, r.p_score, True))
    return out


def repair(items: Sequence[RepairItem], *, system: Any, proposer: FillProposer, embedder: TokenEmbedder,
           config: RelabelConfig) -> list[Repaired]:
    """R(s) of every item; all relabel mutants go through ``system.predict`` in one call."""
    jobs: dict[RelabelJob, int] = {}
    for it in items:
        for a, b in it.suspicious:
            jobs.setdefault(RelabelJob(tuple(it.tokens), (int(a), int(b))), len(jobs))
    results = relabel(list(jobs), system=system, proposer=proposer, embedder=embedder, config=config)
    out = []
    for it in items:
        spans = [(int(sp[0]), int(sp[1])) for sp in it.suspicious]
        rel = {sp: results[jobs[RelabelJob(tuple(it.tokens), sp)]] for sp in spans}
        scored = resolve_conflicts(apply_relabels(it.entities, rel))
        out.append(Repaired(sorted(e.entity for e in scored), scored, rel))
    return out
