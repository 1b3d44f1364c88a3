"""Stage bodies of the adversarial coreference benchmark (Chai et al. 2021); knobs from
``cfg.adversarial`` (:class:`~lingtest.adversarial.config.AdversarialConfig`), paths from
``cfg.paths.adversarial``.

* ``generate_stage``: perturb the configured splits of ``cfg.dataset`` once per set in
  ``adversarial.sets`` and write ``<sets>/<set>/<split>.{jsonl,conll}`` (the clean documents go to
  ``clean/`` the same way: keys for the official scorer, and the sets adversarial training uses), and
  the test suite ``<suite>``: one :class:`~lingtest.data.model.TestCase` per perturbed set and test
  document (source: the clean document, follow-up: the perturbed one, expectation: the same
  coreference up to the alignment of the changed words, every change in the provenance).
* ``overlap_stage``: mention-overlap statistics -> ``<metrics>/overlap.json``.
* ``score_stage``: one system on the suite through the suite runner -> ``<metrics>/systems/<system>.json``
  (corpus scores against gold on the clean and every perturbed set, invariance failures) and the
  result records ``<results>/<system>.jsonl``.
* ``report_stage``: Table 3 and the CoNLL F1 plot over ``adversarial.systems``.

The perturbers and test cases are in :mod:`~lingtest.adversarial.sets`, the statistics in
:mod:`~lingtest.adversarial.overlap`, the scoring in :mod:`~lingtest.adversarial.scoring` and
:mod:`~lingtest.adversarial.report`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lingtest.adversarial.apply import Change, strip_annotations
from lingtest.adversarial.config import AdversarialConfig
from lingtest.adversarial.overlap import changed_mention_share, compute_overlap
from lingtest.adversarial.perturbations import group_of
from lingtest.adversarial.sets import (
    CLEAN,
    DOC_KIND,
    TECHNIQUE,
    build_perturber,
    case_changes,
    load_docs,
    make_case,
    read_suite,
)
from lingtest.data import Document, write_jsonl
from lingtest.data.model import TestCase
from lingtest.errors import LingtestError
from lingtest.execution.context import StageContext
from lingtest.progress import progress

log = logging.getLogger(__name__)


def dataset_name(ctx: StageContext) -> str:
    ds = ctx.cfg.dataset
    return ds if isinstance(ds, str) else str(ds.name)


def input_path(ctx: StageContext, config: AdversarialConfig, dataset: str, split: str) -> Path:
    """The parsed split (when ``adversarial.input`` is parsed, or auto and it is present) else the
    prepared one."""
    parsed = ctx.path("parsed") / dataset / f"{split}.jsonl"
    if config.input == "parsed" or (config.input == "auto" and parsed.exists()):
        return ctx.require(parsed, f"parse@{dataset}")
    return ctx.require(ctx.path("prepared") / dataset / f"{split}.jsonl", f"prepare@{dataset}")


def load_suite(ctx: StageContext) -> list[TestCase]:
    return read_suite(ctx.require(ctx.path("adversarial.suite"), "adversarial_generate"))


def system_metrics_path(ctx: StageContext, system: str) -> Path:
    return ctx.path("adversarial.metrics") / "systems" / f"{system}.json"


def write_set(directory: Path, split: str, docs: list[Document], meta: Mapping[str, Any]) -> None:
    """``<split>.jsonl`` (Documents) and ``<split>.conll`` (CoNLL coref)."""
    from lingtest.readers.conll_coref import write_conll

    write_jsonl(directory / f"{split}.jsonl", docs, kind=DOC_KIND, meta=dict(meta))
    write_conll(docs, directory / f"{split}.conll")  # atomic


# --------------------------------------------------------------------------------------------
# stage: generate
# --------------------------------------------------------------------------------------------
def generate_stage(ctx: StageContext, config: AdversarialConfig) -> dict[str, dict[str, int]]:
    """Perturb every configured split once per configured set and write the test suite of the test
    split; returns changes per set/split. The (split, set) units run in ``adversarial.workers`` forked
    processes (:func:`~lingtest.execution.forked.fork_map`); every document draws from its own seeded
    generator, so the output is the same for any number of workers."""
    from lingtest.execution.forked import fork_map, fork_results

    c = config
    sets_root = ctx.path("adversarial.sets")
    dataset = dataset_name(ctx)
    ctx.tracker.log_params({f"adversarial.{k}": v for k, v in c.model_dump().items()
                            if not isinstance(v, dict | list) and k != "workers"})
    shared: dict[str, Any] = {}  # one instance per scheme, so Lesk caches serve every set of a process
    perturbers = {}
    for s in c.sets:
        perturbers[s] = build_perturber(c, s, shared)
        shared.update(perturbers[s]._impl)
    docs: dict[str, list[Document]] = {}
    for split in c.splits:
        docs[split] = load_docs(input_path(ctx, c, dataset, split))
        clean = [strip_annotations(d) for d in docs[split]] if c.strip_annotations else docs[split]
        write_set(sets_root / CLEAN, split, clean, {"dataset": dataset, "set": CLEAN})
    units = [(split, s) for split in c.splits for s in c.sets]
    state = _GenerateState(c, dataset, sets_root, docs, perturbers)
    finished = fork_map(_perturb_unit, units, state, workers=c.workers)
    done = fork_results(progress(finished, f"adversarial sets {dataset}", total=len(units)), len(units))
    cases: list[TestCase] = []
    summary: dict[str, dict[str, int]] = {}
    for (split, s), unit in zip(units, done, strict=True):
        summary.setdefault(s, {})[split] = unit.changes
        ctx.tracker.log_metrics({f"{s}.{split}.changes": float(unit.changes),
                                 f"{s}.{split}.changed_mention_share": unit.share})
        log.info("%s/%s: %d words changed, %d/%d mentions (%.1f%%)", s, split, unit.changes, unit.mentions_changed,
                 unit.mentions, 100 * unit.share)
        cases.extend(unit.cases)
    if not cases:
        raise LingtestError(f"adversarial.test_split {c.test_split!r} is not among adversarial.splits")
    write_jsonl(ctx.path("adversarial.suite"), cases, kind="testcase",
                meta={"technique": TECHNIQUE, "dataset": dataset, "split": c.test_split, "sets": list(c.sets)})
    ctx.tracker.log_metrics({"suite_size": float(len(cases))})
    return summary


@dataclass(frozen=True)
class _GenerateState:
    """What every (split, set) unit of ``generate_stage`` reads (inherited by forked workers)."""

    config: AdversarialConfig
    dataset: str
    sets_root: Path
    docs: Mapping[str, list[Document]]
    perturbers: Mapping[str, Any]


@dataclass(frozen=True)
class _Unit:
    """One perturbed set of one split: its counts and, for the test split, its test cases."""

    changes: int
    mentions_changed: int
    mentions: int
    share: float
    cases: list[TestCase]


def _perturb_unit(state: _GenerateState, unit: tuple[str, str]) -> _Unit:
    """Perturb the documents of one split with one set's perturber, write the set's files, and return
    its counts (and test cases on the test split)."""
    c = state.config
    split, s = unit
    out_docs: list[Document] = []
    changes: list[Change] = []
    cases: list[TestCase] = []
    for d in state.docs[split]:
        nd, ch = state.perturbers[s](d)
        out_docs.append(strip_annotations(nd) if c.strip_annotations else nd)
        changes.extend(ch)
        if split == c.test_split:
            cd = strip_annotations(d) if c.strip_annotations else d
            cases.append(make_case(cd, out_docs[-1], ch, s, c))
    write_set(state.sets_root / s, split, out_docs, {"dataset": state.dataset, "set": s, "p": c.p, "seed": c.seed})
    k, n, share = changed_mention_share(out_docs, changes)
    return _Unit(len(changes), k, n, share, cases)


# --------------------------------------------------------------------------------------------
# stage: overlap
# --------------------------------------------------------------------------------------------
def overlap_stage(ctx: StageContext, config: AdversarialConfig) -> dict[str, Any]:
    """Mention-overlap statistics of the test split of every set (:func:`compute_overlap`) ->
    ``<paths.adversarial.metrics>/overlap.json``."""
    c = config
    sets_root = ctx.path("adversarial.sets")
    train: dict[str, list[Document]] = {}
    test: dict[str, list[Document]] = {}
    changes: dict[str, list[Change]] = {}
    for case in load_suite(ctx):
        changes.setdefault(case.provenance.transformation, []).extend(case_changes(case))
    for s in [CLEAN, *c.sets]:
        d = sets_root / s
        test[s] = load_docs(ctx.require(d / f"{c.test_split}.jsonl", "adversarial_generate"))
        if (d / "train.jsonl").exists():
            train[s] = load_docs(d / "train.jsonl")
    if CLEAN not in train:
        raise LingtestError(f"no clean train split under {sets_root / CLEAN}: add train to adversarial.splits")
    out = compute_overlap(train, test, changes, lowercase=c.overlap.lowercase,
                          at_ratio=c.overlap.adversarial_train_ratio, seed=c.seed)
    out["dataset"] = dataset_name(ctx)
    out["test_split"] = c.test_split
    ctx.write_metrics(ctx.path("adversarial.metrics") / "overlap.json", out, "overlap.")
    return out


# --------------------------------------------------------------------------------------------
# stage: score (one system) and report (all systems)
# --------------------------------------------------------------------------------------------
def score_stage(ctx: StageContext, config: AdversarialConfig, item: str) -> dict[str, Any]:
    """System ``item`` on the suite (:func:`~lingtest.adversarial.scoring.score_cases`) ->
    ``<paths.adversarial.metrics>/systems/<item>.json`` and ``<paths.adversarial.results>/<item>.jsonl``."""
    from lingtest.adversarial.report import table3_row
    from lingtest.adversarial.scoring import score_cases
    from lingtest.suite.run import write_results
    from lingtest.systems.coref import TASK
    from lingtest.systems.factory import build_system

    dataset = dataset_name(ctx)
    cases = load_suite(ctx)
    system = build_system(ctx.cfg, TASK, item)
    scored, run = score_cases(system, cases, tuple(config.metrics))
    per_set = scored["sets"]
    conll = {s: v["conll"]["f1"] for s, v in per_set.items() if "conll" in v}
    result = {"dataset": dataset, "split": config.test_split, "sets": per_set, "table3": table3_row(conll),
              "groups": {s: group_of(s) for s in per_set}, "invariance": scored["invariance"]}
    write_results(ctx.path("adversarial.results") / f"{item}.jsonl", run.results,
                  meta={"technique": TECHNIQUE, "system": item, "dataset": dataset})
    ctx.tracker.set_tags({"system": item, "dataset": dataset})
    ctx.write_metrics(system_metrics_path(ctx, item), result, f"{item}.")
    return result


def report_stage(ctx: StageContext, config: AdversarialConfig) -> str:
    """Table 3 and the CoNLL F1 plot over ``adversarial.systems`` (their score stages' metrics)."""
    from lingtest.adversarial.report import plot_sets, render_table3
    from lingtest.data.io import atomic_open

    rows: dict[str, Any] = {}
    conll: dict[str, dict[str, float]] = {}
    for name in config.systems:
        res = ctx.read_json(system_metrics_path(ctx, name), f"adversarial_score@{name}")
        rows[name] = res["table3"]
        conll[name] = {s: v["conll"]["f1"] for s, v in res["sets"].items() if "conll" in v}
    table = render_table3(rows)
    out = ctx.path("adversarial.metrics")
    with atomic_open(out / "table3.md") as fh:
        fh.write(table)
    plot_sets(conll, out / "conll_f1.png", title=f"CoNLL F1 on {dataset_name(ctx)} ({config.test_split})")
    ctx.tracker.log_artifact(str(out / "table3.md"))
    ctx.tracker.log_artifact(str(out / "conll_f1.png"))
    return table
