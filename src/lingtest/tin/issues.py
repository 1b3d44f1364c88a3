"""From a checked suite to issues, repairs and grades: the glue a TIN stage runs, as pure functions
(the system, proposer and embedder are passed in).

* :func:`issues_from_run` - every failed case of a :class:`~lingtest.suite.run.SuiteRun` is an
  :class:`Issue`: s, s', N(s), N(s'), the transformation, the relation and the suspicious spans of
  both sentences (:func:`lingtest.tin.repair.locate`).
* :func:`repair_issues` - R(s) for every source sentence with an issue (its suspicious spans pooled
  over all its issues, each relabelled once) and R(s') for every issue's mutant, with one
  ``system.predict`` call for all relabelling mutants.
* :func:`repair_counts` - what the repair changed: sources repaired, suspicious entities and how each
  was relabelled, sources whose entities changed.
* :func:`grade_run` - issues graded against gold (precision and its validity-adjusted counterpart,
  source-wrong issues, hits, error categories), repair transitions and rates over the suspicious spans
  of s and of s', and F1 over the tested sentences before and after repair.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lingtest.data.model import Entity, TestCase
from lingtest.metrics.ner import PRF
from lingtest.resources.fill import FillProposer
from lingtest.tin.embedding import TokenEmbedder
from lingtest.tin.grading import (
    EntityMapper,
    GradedIssue,
    RepairCounts,
    grade_issue,
    mutant_validity,
    ner_f1,
    prediction_correct,
    repair_transition,
    summarize_issues,
)
from lingtest.tin.mutant import Mutant
from lingtest.tin.repair import RelabelConfig, Repaired, RepairItem, locate, repair
from lingtest.tin.spans import Span
from lingtest.tin.suite import case_gold, case_mutant


@dataclass(slots=True)
class Issue:
    """A failed case: the mutant, both predictions (system labels) and the suspicious spans."""

    case_id: str
    mutant: Mutant
    source_pred: list[Entity]
    followup_pred: list[Entity]
    suspicious_source: list[Span] = field(default_factory=list)
    suspicious_followup: list[Span] = field(default_factory=list)
    source_gold: list[Entity] | None = None
    followup_gold: list[Entity] | None = None

    @property
    def seed_id(self) -> str:
        return self.mutant.seed_id

    @property
    def transformation(self) -> str:
        return self.mutant.transformation


def issues_from_run(cases: Sequence[TestCase], results: Sequence[Any],
                    outputs: Sequence[Sequence[Any]]) -> list[Issue]:
    """Issues of the failed cases (``results``/``outputs``: a SuiteRun's, in case order)."""
    out = []
    for case, res, outs in zip(cases, results, outputs, strict=True):
        if res.passed:
            continue
        m = case_mutant(case)
        src_pred, fu_pred = sorted(outs[0]), sorted(outs[1])
        sus_s, sus_f = locate(m.source, src_pred, m.tokens, fu_pred, m.restore)
        gold, fu_gold = case_gold(case)
        out.append(Issue(case.id, m, src_pred, fu_pred, sus_s, sus_f, gold, fu_gold))
    return out


@dataclass(slots=True)
class IssueRepairs:
    """R(s) by seed id (only sources with suspicious spans) and R(s') by issue (case id)."""

    sources: dict[str, Repaired]
    followups: dict[str, Repaired]


def repair_issues(issues: Sequence[Issue], *, system: Any, proposer: FillProposer,
                  embedder: TokenEmbedder, config: RelabelConfig) -> IssueRepairs:
    """Repair both sentences of every issue (one relabelling pass over all of them)."""
    pooled: dict[str, tuple[list[str], list[Entity], set[Span]]] = {}
    for it in issues:
        entry = pooled.setdefault(it.seed_id, (list(it.mutant.source), list(it.source_pred), set()))
        entry[2].update(it.suspicious_source)
    seeds = [s for s in pooled if pooled[s][2]]
    items = [RepairItem(pooled[s][0], pooled[s][1], sorted(pooled[s][2])) for s in seeds]
    items += [RepairItem(list(it.mutant.tokens), list(it.followup_pred), list(it.suspicious_followup))
              for it in issues]
    done = repair(items, system=system, proposer=proposer, embedder=embedder, config=config)
    return IssueRepairs(dict(zip(seeds, done[: len(seeds)], strict=True)),
                        {it.case_id: r for it, r in zip(issues, done[len(seeds):], strict=True)})


def repair_counts(issues: Sequence[Issue], repairs: IssueRepairs) -> dict[str, Any]:
    """Sources repaired, suspicious entities relabelled (of s and of every s': kept their original label,
    became no entity, got a label) and sources whose entities the repair changed."""
    relabels = [r for rep in [*repairs.sources.values(), *repairs.followups.values()] for r in rep.relabels.values()]
    before = {i.seed_id: sorted(i.source_pred) for i in issues}
    return {"repaired_sources": len(repairs.sources), "suspicious_entities": len(relabels),
            "relabels": {"kept_original": sum(r.kept_original for r in relabels),
                         "null": sum(r.label is None and not r.kept_original for r in relabels),
                         "label": sum(r.label is not None for r in relabels)},
            "changed_sources": sum(sorted(rep.entities) != before[sid] for sid, rep in repairs.sources.items())}


@dataclass(slots=True)
class RunGrade:
    summary: dict[str, Any]
    repair_source: RepairCounts
    repair_followup: RepairCounts
    f1_before: PRF
    f1_after: PRF

    @property
    def repair_overall(self) -> RepairCounts:
        a, b = self.repair_source, self.repair_followup
        return RepairCounts(a.tt + b.tt, a.tf + b.tf, a.ft + b.ft, a.ff + b.ff)

    def to_dict(self) -> dict[str, Any]:
        return {"issues": self.summary,
                "repair": {"source": self.repair_source.to_dict(),
                           "followup": self.repair_followup.to_dict(),
                           "overall": self.repair_overall.to_dict()},
                "f1": {"before": self.f1_before.to_dict(), "after": self.f1_after.to_dict()}}


SourceRecord = tuple[Sequence[str], Sequence[Entity], Sequence[Entity]]


def grade_run(issues: Sequence[Issue], repairs: IssueRepairs, sources: Mapping[str, SourceRecord],
              label_map: EntityMapper) -> RunGrade:
    """Grade a run against gold. ``sources``: every tested source sentence by seed id as
    ``(tokens, N(s), gold)`` (gold in the gold scheme); issues need ``source_gold``."""
    source_wrong = {sid: not prediction_correct(label_map.map_entities(pred), gold)
                    for sid, (_, pred, gold) in sources.items()}
    graded = []
    for it in issues:
        gold = it.source_gold if it.source_gold is not None else sources[it.seed_id][2]
        grade = grade_issue(it.source_pred, it.followup_pred, gold, it.followup_gold, label_map)
        valid = mutant_validity(it.mutant, gold, it.followup_gold, recorded=it.source_gold is not None).valid
        graded.append(GradedIssue(it.seed_id, it.transformation, grade, valid))
    src_t = []
    for sid, rep in sorted(repairs.sources.items()):
        _, pred, gold = sources[sid]
        src_t += [repair_transition(pred, rep.entities, gold, sp, label_map) for sp in sorted(rep.relabels)]
    fu_t = []
    for it in issues:
        fu_rep = repairs.followups.get(it.case_id)
        if fu_rep is None or it.followup_gold is None:
            continue
        fu_t += [repair_transition(it.followup_pred, fu_rep.entities, it.followup_gold, sp, label_map)
                 for sp in sorted(fu_rep.relabels)]
    ids = sorted(sources)
    lengths = [len(sources[s][0]) for s in ids]
    golds = [list(sources[s][2]) for s in ids]
    before = [list(sources[s][1]) for s in ids]
    after = [repairs.sources[s].entities if s in repairs.sources else list(sources[s][1]) for s in ids]
    return RunGrade(summarize_issues(graded, source_wrong), RepairCounts.of(src_t), RepairCounts.of(fu_t),
                    ner_f1(before, golds, lengths, label_map), ner_f1(after, golds, lengths, label_map))
