"""Grading TIN against gold (CoNLL-2003), automatically, where the paper inspected by hand.

All comparisons are on gold-scheme labels and exact spans: predictions are mapped by an
:class:`EntityMapper`, e.g. one scheme of :class:`lingtest.systems.ner.labels.LabelMaps` (the
``ner_label_maps`` config table) through :class:`SchemeMapper`, or a user's own table through
:class:`TableMapper`; :func:`labels_mapper` picks one from what a user gives (a scheme name, a mapping,
a YAML/JSON file).

* A prediction is **correct** when its entity set equals gold's. Gold maps onto s' through the
  mutant's token alignment (replacements touch no predicted entity, shuffles and the structural
  rule move spans that can be tracked); when a gold entity does not survive the mutation (the
  system missed it and the mutation changed it), s' has no gold and only N(s) is graded - N(s) is
  then wrong anyway.
* An issue is **erroneous** (the paper's precision, Eq. 6) when N(s) or N(s') is wrong; since a
  mutant of a wrong N(s) inherits the error, also reported: issues whose **source** prediction is
  wrong, and **hits** - how many of the system's wrong source sentences are revealed by at least
  one issue.
* **Error categories** (RQ2) of a wrong prediction, one per gold or predicted entity at fault
  (:func:`error_categories`): a gold entity with a prediction of the same span but another label is
  an *incorrect category*; one overlapped only by predictions of other spans is a *range error*;
  one overlapped by no prediction an *omission*; a prediction overlapping no gold entity is an
  *over-labelling*, and one of another span overlapping only gold entities that are found
  themselves a *range error* too (so every wrong prediction has at least one category).
* **Validity** (:func:`mutant_validity`, :func:`case_validity`): whether a mutant keeps its source's
  gold - every gold entity intact (no token of it replaced, no entity split by a reordering, its words
  unchanged), no two gold entities of one label made adjacent (merged), no new capitalised word inside
  the sentence (a name gold lacks). The paper counts an issue on an "unnatural" mutant as a false
  positive; an issue on a mutant whose gold is not preserved is counted the same way in
  ``precision_validity_adjusted`` (beside ``precision``; ``issues_invalid`` of them). The paper keeps
  such an issue when N(s) is wrong; ``source_wrong`` and ``issues_invalid`` let a reader recount that.
* **Repair** (Table 6): each suspicious span is T or F before repair (the label predicted for
  exactly that span, or NULL, equals gold's label for exactly that span, or NULL) and after
  (same with R(s)): TT, TF, FT, FF, Err2Cor = FT / (FT + FF), Cor2Err = TF / (TT + TF),
  ErrorReduce = (FT - TF) / (FT + FF); and entity-level F1 (conlleval's) before and after repair.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from lingtest.data.model import Entity, TestCase
from lingtest.errors import InputError
from lingtest.metrics.ner import PRF, score_ner
from lingtest.metrics.validity import FOLLOWUP_GOLD_MISMATCH, Validity, adjusted_precision, entity_edit_reasons
from lingtest.systems.ner.labels import LabelMaps
from lingtest.systems.ner.spans import entities_to_iob2
from lingtest.tin.mutant import Mutant
from lingtest.tin.repair.relabel import label_at
from lingtest.tin.spans import Span
from lingtest.tin.suite import case_gold, case_mutant

CATEGORIES = ("omission", "over_labelling", "incorrect_category", "range_error")
TRANSITIONS = ("TT", "TF", "FT", "FF")


class EntityMapper(Protocol):
    def map_entities(self, entities: Iterable[Entity]) -> list[Entity]:
        """The entities in the gold scheme (those with no counterpart left out)."""
        ...


@dataclass(frozen=True, slots=True)
class SchemeMapper:
    """One scheme of a :class:`~lingtest.systems.ner.labels.LabelMaps` table as an
    :class:`EntityMapper` (sorted, duplicates merged)."""

    maps: LabelMaps
    scheme: str

    def map_entities(self, entities: Iterable[Entity]) -> list[Entity]:
        return sorted(set(self.maps.map_entities(self.scheme, entities)))


@dataclass(frozen=True, slots=True)
class TableMapper:
    """A user's own label table as an :class:`EntityMapper`: ``table`` maps each label the system emits to a
    gold-scheme label or ``None`` (not a gold-scheme entity: dropped); ``where`` says where the table came
    from (a file, or ``labels``), for the error on a label the table lacks (sorted, duplicates merged)."""

    table: Mapping[str, str | None]
    where: str

    def map_entities(self, entities: Iterable[Entity]) -> list[Entity]:
        out = set()
        for e in entities:
            if e.label not in self.table:
                raise InputError(f"the system's label {e.label!r} is not in its label mapping ({self.where}): "
                                 f"map it to a gold label or to null", field=f"labels.{e.label}")
            to = self.table[e.label]
            if to is not None:
                out.add(Entity(e.start, e.end, to))
        return sorted(out)


#: file suffixes read as a label mapping (anything else is a scheme name unless it is an existing file)
LABEL_FILE_SUFFIXES = (".yaml", ".yml", ".json")


def labels_mapper(labels: Any, label_maps: Any) -> EntityMapper:
    """The grading map ``labels`` names: an :class:`~lingtest.tin.grading.EntityMapper` (used as it is), a
    scheme of ``ner_label_maps.schemes`` (``"conll"``, ``"ontonotes"``), a mapping ``{system label: gold
    label or None}``, or the path of a YAML/JSON file holding such a mapping (a ``Path``, a string ending
    in ``.yaml``/``.yml``/``.json``, or an existing file). Gold labels are those of ``ner_label_maps.target``.
    An unknown scheme, a missing or malformed file or a bad entry is an :class:`~lingtest.errors.InputError`
    naming the file and the field."""
    if callable(getattr(labels, "map_entities", None)):
        return labels  # type: ignore[no-any-return]
    maps = LabelMaps.from_config(label_maps)
    if isinstance(labels, Mapping):
        return TableMapper(label_table(labels, maps.target, path=None), "labels")
    if isinstance(labels, str) and labels in maps.schemes:
        return SchemeMapper(maps, labels)
    if isinstance(labels, os.PathLike) or (isinstance(labels, str) and _is_label_file(labels)):
        path = Path(os.fspath(labels)).expanduser()
        return TableMapper(label_table(read_label_file(path), maps.target, path=path), str(path))
    if not isinstance(labels, str) or not labels.strip():
        raise InputError(f"labels must be a scheme name, a mapping of labels or a YAML/JSON file, got {labels!r}",
                         field="labels")
    raise InputError(f"unknown NER label scheme {labels!r}; known (ner_label_maps.schemes): "
                     f"{', '.join(sorted(maps.schemes))}, or give a mapping or a YAML/JSON file", field="labels")


def _is_label_file(labels: str) -> bool:
    path = Path(labels).expanduser()
    return path.suffix.lower() in LABEL_FILE_SUFFIXES or path.is_file()


def read_label_file(path: Path) -> Any:
    """The content of a YAML or JSON file of labels (JSON is YAML, so one reader does both)."""
    import yaml

    if not path.is_file():
        raise InputError("no such label mapping file", path=path, field="labels")
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 ({exc.reason} at byte {exc.start})", path=path) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        raise InputError(f"not a YAML/JSON file of labels: {getattr(exc, 'problem', None) or exc}", path=path,
                         line=line) from None


def label_table(data: Any, target: Sequence[str], *, path: Path | None) -> dict[str, str | None]:
    """``data`` checked as ``{system label: one of target or None}`` (errors name ``path`` and the label)."""
    if not isinstance(data, Mapping) or not data:
        raise InputError(f"a label mapping is a non-empty mapping of the system's labels to gold labels "
                         f"({', '.join(target)}) or null, got {type(data).__name__}", path=path, field="labels")
    out: dict[str, str | None] = {}
    for label, to in data.items():
        if not isinstance(label, str) or not label:
            raise InputError(f"label {label!r} is not a name (quote a label that YAML reads as a boolean or a "
                             f"number: 'NO', 'ON')", path=path, field=f"labels.{label}")
        if to is not None and (not isinstance(to, str) or to not in target):
            raise InputError(f"maps to {to!r}, which is not a gold label ({', '.join(target)}) or null", path=path,
                             field=f"labels.{label}")
        out[label] = to
    return out


def prediction_correct(pred: Iterable[Entity], gold: Iterable[Entity]) -> bool:
    return set(pred) == set(gold)


def error_categories(pred: Sequence[Entity], gold: Sequence[Entity]) -> Counter[str]:
    """The errors of one prediction against gold (both in the gold scheme), by category."""
    out: Counter[str] = Counter()
    pset = set(pred)
    for g in gold:
        if g in pset:
            continue
        same_span = [p for p in pred if (p.start, p.end) == (g.start, g.end)]
        if same_span:
            out["incorrect_category"] += 1
        elif any(p.start < g.end and g.start < p.end for p in pred):
            out["range_error"] += 1
        else:
            out["omission"] += 1
    gset = set(gold)
    for p in pred:
        if p in gset or any((g.start, g.end) == (p.start, p.end) for g in gold):
            continue  # right, or counted as the gold entity's incorrect category
        hit = [g for g in gold if p.start < g.end and g.start < p.end]
        if not hit:
            out["over_labelling"] += 1
        elif all(g in pset for g in hit):
            out["range_error"] += 1  # an extra span across a gold entity that is itself found
    return out


@dataclass(frozen=True, slots=True)
class IssueGrade:
    """``followup_wrong`` is ``None`` when the follow-up has no gold."""

    erroneous: bool
    source_wrong: bool
    followup_wrong: bool | None
    source_errors: dict[str, int] = field(default_factory=dict)
    followup_errors: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"erroneous": self.erroneous, "source_wrong": self.source_wrong,
                "followup_wrong": self.followup_wrong, "source_errors": dict(self.source_errors),
                "followup_errors": dict(self.followup_errors)}


def grade_issue(source_pred: Sequence[Entity], followup_pred: Sequence[Entity], source_gold: Sequence[Entity],
                followup_gold: Sequence[Entity] | None, label_map: EntityMapper) -> IssueGrade:
    """Grade one issue (predictions in the system's labels, gold in the gold scheme)."""
    sp, fp = label_map.map_entities(source_pred), label_map.map_entities(followup_pred)
    src_wrong = not prediction_correct(sp, source_gold)
    fu_wrong = None if followup_gold is None else not prediction_correct(fp, followup_gold)
    return IssueGrade(
        erroneous=src_wrong or bool(fu_wrong), source_wrong=src_wrong, followup_wrong=fu_wrong,
        source_errors=dict(sorted(error_categories(sp, list(source_gold)).items())) if src_wrong else {},
        followup_errors=(dict(sorted(error_categories(fp, list(followup_gold or [])).items()))
                         if fu_wrong else {}),
    )


@dataclass(frozen=True, slots=True)
class GradedIssue:
    """``valid``: whether the issue's mutant keeps its gold (``None``: not decided)."""

    seed_id: str
    transformation: str
    grade: IssueGrade
    valid: bool | None = None


def mutant_validity(mutant: Mutant, gold: Sequence[Entity], followup_gold: Sequence[Entity] | None = None, *,
                    recorded: bool = False) -> Validity:
    """Whether ``mutant`` keeps the source's ``gold`` (see the module docstring). ``recorded``: the
    mutant's case records ``followup_gold`` (``None`` there: a gold entity does not survive), which must
    then be the gold moved through the alignment."""
    changed_fu = mutant.changed_followup or mutant.changed
    reasons = entity_edit_reasons(
        mutant.source, mutant.tokens, [(e.start, e.end, e.label) for e in gold], mutant.alignment.to_followup,
        changed=mutant.changed, changed_followup=changed_fu,
        followup_entities=None if not recorded or followup_gold is None else
        [(e.start, e.end, e.label) for e in followup_gold])
    if recorded and followup_gold is None and not reasons:
        reasons.append(FOLLOWUP_GOLD_MISMATCH)  # recorded as lost, though every entity survives
    return Validity.of(reasons)


def case_validity(case: TestCase, gold: Sequence[Entity] | None = None) -> Validity | None:
    """:func:`mutant_validity` of a TIN case, with the gold it records (else ``gold``); ``None`` when
    there is no gold."""
    source_gold, followup_gold = case_gold(case)
    g = source_gold if source_gold is not None else gold
    if g is None:
        return None
    return mutant_validity(case_mutant(case), g, followup_gold, recorded="followup_gold" in case.meta)


def _ratio(a: int, b: int) -> float | None:
    return a / b if b else None


def summarize_issues(issues: Sequence[GradedIssue], source_wrong: Mapping[str, bool]) -> dict[str, Any]:
    """Per transformation and ``overall``: issues, erroneous, precision, issues with a wrong source,
    hits (wrong sources revealed / all wrong sources tested) and error categories (RQ2: each wrong
    source prediction counted once, each wrong follow-up prediction once). ``source_wrong``: every
    tested source sentence -> whether N(s) is wrong. When every issue's validity is decided, also
    ``precision_validity_adjusted`` (erroneous issues on valid mutants / issues) and ``issues_invalid``."""
    wrong_total = sum(bool(v) for v in source_wrong.values())
    decided = all(it.valid is not None for it in issues)
    groups: dict[str, list[GradedIssue]] = {}
    for it in issues:
        groups.setdefault(it.transformation, []).append(it)
    out: dict[str, Any] = {}
    for name, group in [*sorted(groups.items()), ("overall", list(issues))]:
        erroneous = sum(it.grade.erroneous for it in group)
        src_wrong = sum(it.grade.source_wrong for it in group)
        hit_seeds = {it.seed_id for it in group if source_wrong.get(it.seed_id, it.grade.source_wrong)}
        cats: Counter[str] = Counter()
        counted: set[str] = set()
        for it in group:
            if it.grade.source_wrong and it.seed_id not in counted:
                counted.add(it.seed_id)
                cats.update(it.grade.source_errors)
            cats.update(it.grade.followup_errors)
        n_cat = sum(cats.values())
        out[name] = {
            "issues": len(group), "erroneous": erroneous, "precision": _ratio(erroneous, len(group)),
            **(adjusted_precision((it.grade.erroneous, bool(it.valid)) for it in group) if decided else {}),
            "source_wrong": src_wrong, "source_wrong_share": _ratio(src_wrong, len(group)),
            "hits": len(hit_seeds), "wrong_sources": wrong_total,
            "hit_rate": _ratio(len(hit_seeds), wrong_total),
            "error_categories": {c: cats.get(c, 0) for c in CATEGORIES},
            "error_category_shares": {c: _ratio(cats.get(c, 0), n_cat) for c in CATEGORIES},
        }
    return out


# ---- repair -------------------------------------------------------------------------------------------
def repair_transition(before: Sequence[Entity], after: Sequence[Entity], gold: Sequence[Entity], span: Span,
                      label_map: EntityMapper) -> str:
    """``"TT"``, ``"TF"``, ``"FT"`` or ``"FF"`` for one suspicious span (predictions in the system's
    labels, gold in the gold scheme)."""
    g = label_at(gold, span)
    ok_before = label_at(label_map.map_entities(before), span) == g
    ok_after = label_at(label_map.map_entities(after), span) == g
    return ("T" if ok_before else "F") + ("T" if ok_after else "F")


@dataclass(frozen=True, slots=True)
class RepairCounts:
    tt: int = 0
    tf: int = 0
    ft: int = 0
    ff: int = 0

    @classmethod
    def of(cls, transitions: Iterable[str]) -> RepairCounts:
        c = Counter(transitions)
        unknown = set(c) - set(TRANSITIONS)
        if unknown:
            raise ValueError(f"unknown repair transitions {sorted(unknown)}")
        return cls(c["TT"], c["TF"], c["FT"], c["FF"])

    @property
    def num_error(self) -> int:
        return self.ft + self.ff

    @property
    def num_correct(self) -> int:
        return self.tt + self.tf

    @property
    def err2cor(self) -> float | None:
        return _ratio(self.ft, self.num_error)

    @property
    def cor2err(self) -> float | None:
        return _ratio(self.tf, self.num_correct)

    @property
    def error_reduce(self) -> float | None:
        return _ratio(self.ft - self.tf, self.num_error)

    def to_dict(self) -> dict[str, Any]:
        return {"TT": self.tt, "TF": self.tf, "FT": self.ft, "FF": self.ff, "num_error": self.num_error,
                "num_correct": self.num_correct, "err2cor": self.err2cor, "cor2err": self.cor2err,
                "error_reduce": self.error_reduce}


def ner_f1(preds: Sequence[Sequence[Entity]], golds: Sequence[Sequence[Entity]], lengths: Sequence[int],
           label_map: EntityMapper) -> PRF:
    """conlleval's overall entity scores of system predictions (mapped) against gold over sentences
    of the given lengths (entities written as IOB2 tags,
    :func:`~lingtest.systems.ner.spans.entities_to_iob2`; they must not overlap)."""
    if not len(preds) == len(golds) == len(lengths):
        raise ValueError(f"{len(preds)} predictions, {len(golds)} gold, {len(lengths)} lengths")
    gold_tags = [entities_to_iob2(list(g), n) for g, n in zip(golds, lengths, strict=True)]
    pred_tags = [entities_to_iob2(label_map.map_entities(p), n) for p, n in zip(preds, lengths, strict=True)]
    return score_ner(gold_tags, pred_tags).overall
