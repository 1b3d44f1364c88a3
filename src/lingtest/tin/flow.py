"""The TIN flow over a set of sources, as functions of their inputs (systems, models and
transformations are passed in): what each stage body runs between reading and writing files.

* :func:`tin_sources` - stored sources + the system's N(s) -> :class:`TinSource` records;
* :func:`generate_cases` - transformations -> filters -> test cases, with counts and seconds per
  transformation; :func:`merge_generated` - the results of consecutive waves of sources as one;
* :func:`check_cases` - the cases through :func:`lingtest.suite.run.run_suite` -> issues, and
  :func:`summarize_checked` - issues graded against gold when there is gold (precision, source-wrong
  issues, hits, error categories; the validity of the checked mutants and the precision with issues
  on invalid mutants counted as false positives), issue counts only when there is none;
* :func:`source_wrong_map` / :func:`source_f1` - the system's N(s) graded against gold;
* :func:`issue_record` / :func:`issue_from_record` - an issue as JSON (the repair stage reads them);
* :func:`attack_cases` - the word-substitution baseline graded like TIN's issues.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lingtest.data.model import Document, Entity, TestCase
from lingtest.metrics.ner import PRF
from lingtest.metrics.validity import Validity, validity_summary
from lingtest.tin.filters import FilterConfig, FilterCounts, filter_mutants
from lingtest.tin.grading import (
    EntityMapper,
    GradedIssue,
    case_validity,
    grade_issue,
    ner_f1,
    prediction_correct,
    summarize_issues,
)
from lingtest.tin.issues import Issue, issues_from_run
from lingtest.tin.mutant import Mutant, TinSource
from lingtest.tin.sources import gold_of
from lingtest.tin.suite import case_mutant, mutant_case

if TYPE_CHECKING:
    from lingtest.tin.baseline import AttackConfig


def tin_sources(docs: Sequence[Document], predictions: Sequence[Sequence[Entity]]) -> list[TinSource]:
    """One :class:`TinSource` per stored source (parse and gold from the document)."""
    return [TinSource.from_sentence(d.id, d.sentences[0], list(p), gold=gold_of(d))
            for d, p in zip(docs, predictions, strict=True)]


@dataclass(slots=True)
class Generated:
    """Kept mutants as cases (source order, then transformation order), the filter counts and the
    seconds spent per transformation and filter."""

    cases: list[TestCase]
    counts: dict[str, FilterCounts]
    seconds: dict[str, float] = field(default_factory=dict)

    def counts_dict(self, names: Sequence[str]) -> dict[str, dict[str, int]]:
        out = {n: self.counts.get(n, FilterCounts()).to_dict() for n in names}
        total = FilterCounts()
        for c in self.counts.values():
            total.add(c)
        out["overall"] = total.to_dict()
        return out


def generate_cases(sources: Sequence[TinSource], transformations: Sequence[Any], *, embedder: Any, lm: Any,
                   config: FilterConfig, system: str, packed: bool) -> Generated:
    """Every transformation's mutants of every source, both filters, then test cases (gold on both
    sides when the source has gold). Case order: by source, then by transformation, then each
    transformation's own order."""
    seconds: dict[str, float] = {}
    mutants: list[Mutant] = []
    for t in transformations:
        t0 = time.perf_counter()
        mutants.extend(t.generate(sources))
        seconds[t.name] = round(time.perf_counter() - t0, 3)
    order = {s.id: k for k, s in enumerate(sources)}
    rank = {t.name: k for k, t in enumerate(transformations)}
    mutants = [m for _, m in sorted(enumerate(mutants), key=lambda x: (order[x[1].seed_id],
                                                                        rank[x[1].transformation], x[0]))]
    t0 = time.perf_counter()
    res = filter_mutants(mutants, embedder=embedder, lm=lm, config=config, packed=packed)
    seconds["filters"] = round(time.perf_counter() - t0, 3)
    gold = {s.id: s.gold for s in sources}
    cases = [mutant_case(m, system=system, gold=gold[m.seed_id]) for m in res.kept]
    return Generated(cases, res.counts, seconds)


def merge_generated(parts: Sequence[Generated]) -> Generated:
    """:func:`generate_cases` of consecutive waves of sources as one result: cases in wave order (so by
    source, then transformation, as for one wave of all), filter counts and seconds summed."""
    cases: list[TestCase] = []
    counts: dict[str, FilterCounts] = {}
    seconds: dict[str, float] = {}
    for g in parts:
        cases.extend(g.cases)
        for name, c in g.counts.items():
            counts.setdefault(name, FilterCounts()).add(c)
        for step, sec in g.seconds.items():
            seconds[step] = round(seconds.get(step, 0.0) + sec, 3)
    return Generated(cases, counts, seconds)


@dataclass(slots=True)
class Checked:
    """The issues of a checked suite and their summary (``graded`` is empty without gold)."""

    issues: list[Issue]
    summary: dict[str, Any]
    results: list[Any]
    graded: list[GradedIssue] = field(default_factory=list)


def source_wrong_map(sources: Sequence[TinSource], label_map: EntityMapper) -> dict[str, bool]:
    """Labelled source id -> whether N(s), mapped to the gold scheme, differs from gold."""
    return {s.id: not prediction_correct(label_map.map_entities(s.entities), s.gold)
            for s in sources if s.gold is not None}


def source_f1(sources: Sequence[TinSource], label_map: EntityMapper) -> PRF:
    """Entity F1 of N(s) (mapped to the gold scheme) against gold over the source sentences."""
    return ner_f1([s.entities for s in sources], [s.gold or [] for s in sources], [len(s.tokens) for s in sources],
                  label_map)


def check_cases(cases: Sequence[TestCase], system: Any, sources: Sequence[TinSource],
                label_map: EntityMapper | None) -> Checked:
    """Run the cases and turn failures into issues, summarised by :func:`summarize_checked`."""
    from lingtest.suite.run import run_suite

    run = run_suite(system, cases)
    issues = issues_from_run(cases, run.results, run.outputs)
    summary, graded = summarize_checked(cases, issues, sources, label_map)
    return Checked(issues, summary, run.results, graded)


def summarize_checked(cases: Sequence[TestCase], issues: Sequence[Issue], sources: Sequence[TinSource],
                      label_map: EntityMapper | None) -> tuple[dict[str, Any], list[GradedIssue]]:
    """The summary of checked ``cases`` and their ``issues`` (per transformation and ``overall``, each
    with the number of cases ``checked``) and the graded issues. With gold on every source (and a label
    map) every issue is graded (:func:`lingtest.tin.grading.summarize_issues`) and every case's validity
    decided (:func:`lingtest.tin.grading.case_validity`: ``validity``, ``validity_valid``,
    ``validity_total``, ``validity_reasons`` per group; ``precision_validity_adjusted`` and
    ``issues_invalid`` beside each precision); without, the summary holds issue counts and the graded
    list is empty."""
    checked_by: dict[str, int] = {}
    for c in cases:
        checked_by[c.provenance.transformation] = checked_by.get(c.provenance.transformation, 0) + 1
    labelled = label_map is not None and all(s.gold is not None for s in sources) and bool(sources)
    if not labelled:
        summary: dict[str, Any] = {}
        names = sorted(checked_by)
        for name in [*names, "overall"]:
            group = [i for i in issues if name == "overall" or i.transformation == name]
            summary[name] = {"issues": len(group), "sources_with_issues": len({i.seed_id for i in group})}
        _add_checked(summary, checked_by)
        return summary, []
    assert label_map is not None
    wrong = source_wrong_map(sources, label_map)
    gold = {s.id: s.gold for s in sources}
    validity = {c.id: case_validity(c, gold.get(c.provenance.seed_id)) for c in cases}
    graded = [GradedIssue(it.seed_id, it.transformation,
                          grade_issue(it.source_pred, it.followup_pred,
                                      it.source_gold if it.source_gold is not None else gold[it.seed_id] or [],
                                      it.followup_gold, label_map),
                          _valid(validity.get(it.case_id)))
              for it in issues]
    summary = summarize_issues(graded, wrong)
    _add_checked(summary, checked_by)
    for name, row in summary.items():
        verdicts = (validity[c.id] for c in cases if name == "overall" or c.provenance.transformation == name)
        row.update(validity_summary(v for v in verdicts if v is not None))
    return summary, graded


def _valid(validity: Validity | None) -> bool | None:
    return None if validity is None else validity.valid


def _add_checked(summary: dict[str, Any], checked_by: Mapping[str, int]) -> None:
    for name, row in summary.items():
        row["checked"] = sum(checked_by.values()) if name == "overall" else checked_by.get(name, 0)
    for name, n in checked_by.items():
        if name not in summary:
            summary[name] = {"checked": n, "issues": 0}


# ---- issues as JSON -------------------------------------------------------------------------------------
def _ents(es: Sequence[Entity] | None) -> list[list[Any]] | None:
    return None if es is None else [e.to_list() for e in es]


def _read_ents(v: Any) -> list[Entity] | None:
    return None if v is None else [Entity(int(a), int(b), str(c)) for a, b, c in v]


def issue_record(issue: Issue, case: TestCase) -> dict[str, Any]:
    return {"case": case.to_dict(), "source_pred": _ents(issue.source_pred),
            "followup_pred": _ents(issue.followup_pred),
            "suspicious_source": [list(s) for s in issue.suspicious_source],
            "suspicious_followup": [list(s) for s in issue.suspicious_followup]}


def issue_from_record(d: dict[str, Any]) -> Issue:
    case = TestCase.from_dict(d["case"])
    from lingtest.tin.suite import case_gold

    gold, fu_gold = case_gold(case)
    return Issue(case.id, case_mutant(case), _read_ents(d["source_pred"]) or [],
                 _read_ents(d["followup_pred"]) or [],
                 [(int(a), int(b)) for a, b in d["suspicious_source"]],
                 [(int(a), int(b)) for a, b in d["suspicious_followup"]], gold, fu_gold)


# ---- the word-substitution baseline ---------------------------------------------------------------------
def attack_cases(sources: Sequence[TinSource], *, system: Any, proposer: Any, config: AttackConfig,
                 label_map: EntityMapper | None) -> tuple[list[TestCase], dict[str, Any]]:
    """Attack every source (gold entity tokens protected, so gold maps onto the adversarial
    sentence unchanged); each success is an issue, graded like TIN's (with the validity of the
    adversarial sentences, each one an issue)."""
    from lingtest.tin.baseline import attack

    protected = {s.id: {i for e in (s.gold or []) for i in range(e.start, e.end)} for s in sources}
    results = attack(sources, system=system, proposer=proposer, config=config, protected=protected)
    gold = {s.id: s.gold for s in sources}
    cases = [mutant_case(r.mutant, system=getattr(system, "name", None), gold=gold[r.seed_id])
             for r in results if r.success and r.mutant is not None]
    queries = sum(r.queries for r in results)
    summary: dict[str, Any] = {"sources": len(sources), "attacked": len(results), "issues": len(cases),
                               "queries": queries}
    if label_map is None or any(g is None for g in gold.values()):
        return cases, summary
    by_id = {s.id: s for s in sources}
    muts = [case_mutant(c) for c in cases]
    fu_preds = system.predict([list(m.tokens) for m in muts]) if muts else []
    graded = []
    verdicts = []
    for c, m, fu_pred in zip(cases, muts, fu_preds, strict=True):
        s = by_id[c.provenance.seed_id]
        g = grade_issue(s.entities, fu_pred, s.gold or [], m.alignment.map_entities(s.gold or []), label_map)
        v = case_validity(c, s.gold)
        if v is not None:
            verdicts.append(v)
        graded.append(GradedIssue(s.id, "attack", g, _valid(v)))
    summary.update(summarize_issues(graded, source_wrong_map(sources, label_map))["overall"])
    summary.update(validity_summary(verdicts))
    summary["issues"] = len(cases)
    return cases, summary
