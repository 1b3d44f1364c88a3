"""TIN stage bodies (``python -m lingtest.pipeline.stage tin_<step> [system]``):

* ``phrase_index_stage`` - the offline phrase index: minimal NPs of the parsed corpora
  (``tin.phrase_index.corpora``) embedded with the packaged MiniLM -> ``paths.tin.phrase_index``;
* ``sources_stage`` - a seeded sample of ``tin.corpus`` (prepared CoNLL-2003 test with gold, or a
  file of ``tin.unlabelled``), parsed -> ``paths.tin.sources``;
* ``generate_stage`` (per system) - N(s), the four transformations, both filters (counted), in waves of
  ``tin.batch_sources`` sources (``executor=ray``: each wave a call on a pool of generator actors) ->
  ``<paths.tin.generated>/<system>.jsonl`` (test cases) and ``<metrics>/generation/<system>.json``;
* ``suite_stage`` - the released suite ``paths.tin.suite``: every system's cases, in ``tin.systems``
  order;
* ``evaluate_stage`` (per system) - MR checks through the suite runner, issues, grading ->
  ``<metrics>/<system>.json``, result records and ``<paths.tin.issues>/<system>.jsonl``;
* ``repair_stage`` (per system) - Algorithm 1 on every issue, Table 6 counts and F1 before/after ->
  ``<metrics>/repair/<system>.json``;
* ``baseline_stage`` (per system of ``tin.baseline.systems``) - the word-substitution attack graded
  the same way -> ``<metrics>/baseline/<system>.json``;
* ``report_stage`` - Tables 3, 4 and 6 (Markdown, README layout) and a plot.

The ``train_ner`` stage's body is :func:`lingtest.tin.train_ner.train_ner_stage` (kept apart, so that editing
these stages never retrains the model). All knobs are in ``conf/tin/default.yaml`` (``cfg.tin``,
:class:`~lingtest.tin.config.TinConfig`), paths in ``cfg.paths.tin``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lingtest.data.io import read_jsonl, write_jsonl
from lingtest.data.model import Document
from lingtest.errors import ConfigError
from lingtest.execution.context import StageContext
from lingtest.resources.scores import ScoreGrid
from lingtest.tin.components import Parts, filter_config, label_mapper, transformation_labels
from lingtest.tin.config import TinConfig

log = logging.getLogger(__name__)
ISSUE_KIND = "tin-issue"


# ---- glue shared by the bodies ------------------------------------------------------------------------
def _sources(ctx: StageContext, system: Any) -> tuple[list[Any], list[Any]]:
    """Stored source documents and their :class:`TinSource` records with the system's N(s)."""
    from lingtest.tin.flow import tin_sources
    from lingtest.tin.sources import load_sources

    docs = load_sources(ctx.require(ctx.path("tin.sources"), "tin_sources"))
    preds = system.predict([d.sentences[0].words for d in docs]) if docs else []
    return docs, tin_sources(docs, preds)


def _write_system_row(ctx: StageContext, config: TinConfig, item: str, row: dict[str, Any], path: Path,
                      prefix: str) -> None:
    """A per-system stage's end: its metrics file (logged and attached) and the run's system/corpus tags."""
    ctx.tracker.set_tags({"system": item, "corpus": config.corpus})
    ctx.write_metrics(path, row, prefix)


def _generation_path(ctx: StageContext, system: str) -> Path:
    return ctx.path("tin.metrics") / "generation" / f"{system}.json"


def _metrics_path(ctx: StageContext, system: str) -> Path:
    return ctx.path("tin.metrics") / f"{system}.json"


def _repair_path(ctx: StageContext, system: str) -> Path:
    return ctx.path("tin.metrics") / "repair" / f"{system}.json"


def _baseline_path(ctx: StageContext, system: str) -> Path:
    return ctx.path("tin.metrics") / "baseline" / f"{system}.json"


# ---- phrase index -----------------------------------------------------------------------------------
def phrase_index_stage(ctx: StageContext, config: TinConfig) -> dict[str, Any]:
    from lingtest.resources.embeddings import embedder_from_config
    from lingtest.tin.phrases import EmbeddingPhraseIndex, collect_phrases

    pc = config.phrase_index
    t0 = time.perf_counter()
    sentences = []
    read: dict[str, int] = {}
    for c in pc.corpora:
        path = ctx.require(ctx.path("parsed") / c.dataset / f"{c.split}.jsonl", f"parse@{c.dataset}")
        sents = [s for d in list(read_jsonl(path, Document.from_dict)) for s in d.sentences]
        if pc.max_sentences is not None:
            sents = sents[: pc.max_sentences]
        read[f"{c.dataset}/{c.split}"] = len(sents)
        sentences.extend(sents)
    phrases = collect_phrases(sentences, max_words=pc.max_words, min_count=pc.min_count)
    index = EmbeddingPhraseIndex.build(phrases, embedder_from_config(ctx.cfg.resources))
    index.save(ctx.path("tin.phrase_index"))
    metrics = {"sentences": read, "phrases": len(index), "seconds": round(time.perf_counter() - t0, 2)}
    ctx.tracker.log_metrics({"tin.phrase_index.phrases": float(len(index))})
    log.info("TIN phrase index: %d phrases from %d sentences", len(index), len(sentences))
    return metrics


# ---- sources ----------------------------------------------------------------------------------------
def sources_stage(ctx: StageContext, config: TinConfig) -> dict[str, Any]:
    from lingtest.paths import repo_path
    from lingtest.tin.sources import labelled_pool, parse_sources, sample, unlabelled_pool, write_sources

    c = config
    lim = {"min_tokens": c.min_tokens, "max_tokens": c.max_tokens}
    if c.labelled:
        path = ctx.require(ctx.path("prepared") / c.corpus / f"{c.split}.jsonl", f"prepare@{c.corpus}")
        pool = labelled_pool(list(read_jsonl(path, Document.from_dict)), **lim)
    else:
        pool = unlabelled_pool(repo_path(c.unlabelled[c.corpus]), **lim)
    picked = sample(pool, c.N, c.seed)
    docs = parse_sources(picked, Parts(ctx, c).parser)
    n = write_sources(ctx.path("tin.sources"), docs,
                      meta={"corpus": c.corpus, "split": c.split, "seed": c.seed, "labelled": c.labelled})
    metrics = {"pool": len(pool), "sources": n, "labelled": c.labelled}
    ctx.tracker.log_metrics({"tin.sources": float(n), "tin.pool": float(len(pool))})
    return metrics


# ---- generation ---------------------------------------------------------------------------------------
def generation_worker(cfg: Any, item: str, root: Path) -> Callable[[list[Any]], Any]:
    """TIN's generator for system ``item`` with its components built once (:class:`Parts`): a wave of
    :class:`~lingtest.tin.mutant.TinSource` -> :class:`~lingtest.tin.flow.Generated`. The ``ctx.map``
    builder of the generate stage: the local loop runs it, and so does every Ray generator actor
    (:mod:`lingtest.execution.ray_generate`). ``cfg``: the whole composed config as ``ctx.map`` hands it to
    every builder (plain dicts on an actor), hence ``Any``; ``root``: the stage's project root (its paths)."""
    from lingtest.execution.ray_generate import as_config
    from lingtest.tin.flow import generate_cases

    ctx = StageContext("tin_generate", as_config(cfg), item=item, root=root)
    config = TinConfig.from_config(ctx.cfg)
    parts = Parts(ctx, config)
    transformations = parts.transformations()
    filters = filter_config(config, item, parts.score_grid)
    packed = config.filters.packed

    def work(sources: list[Any]) -> Any:
        return generate_cases(sources, transformations, embedder=parts.embedder, lm=parts.lm, config=filters,
                              system=item, packed=packed)

    return work


def generate_stage(ctx: StageContext, config: TinConfig, item: str) -> dict[str, Any]:
    """Waves of ``tin.batch_sources`` sources (a wave's transformations and filters batch its sources together:
    LM and embedder batches, whose floats can depend on their composition in the last digits, so waves, not
    single sources, are where generation is split, locally and on Ray alike: the same mutants in order)."""
    from lingtest.execution.ray_generate import chunked
    from lingtest.systems.factory import build_system
    from lingtest.systems.ner import TASK
    from lingtest.tin.flow import merge_generated
    from lingtest.tin.suite import TECHNIQUE

    t0 = time.perf_counter()
    on_ray = ctx.executor()["name"] == "ray"
    system = build_system(ctx.cfg, TASK, item)
    _, sources = _sources(ctx, system)
    names = list(config.transformations)
    # a config error is raised here, before any actor starts
    filter_config(config, item, ScoreGrid.from_config(ctx.cfg.resources))
    results, _ = ctx.map(generation_worker, chunked(sources, config.batch_sources), part="generation",
                         args=(item, ctx.root), desc=f"TIN generate {item}" if on_ray else None)
    gen = merge_generated(results)
    write_jsonl(ctx.path("tin.generated") / f"{item}.jsonl", gen.cases, kind="testcase",
                meta={"technique": TECHNIQUE, "corpus": config.corpus, "system": item, "seed": config.seed})
    seconds = round(time.perf_counter() - t0, 2)
    counts = gen.counts_dict(names)
    metrics: dict[str, Any] = {"system": item, "corpus": config.corpus, "sources": len(sources),
                               "mutants": counts, "seconds": seconds, "seconds_by_step": gen.seconds}
    _write_system_row(ctx, config, item, metrics, _generation_path(ctx, item), f"tin.{item}.generation.")
    log.info("TIN %s: %d cases kept of %d mutants in %.1f s", item, len(gen.cases),
             counts["overall"]["generated"], seconds)
    return metrics


def suite_stage(ctx: StageContext, config: TinConfig) -> dict[str, Any]:
    """Every system's cases, systems in ``tin.systems`` order (bytes follow from the inputs)."""
    from lingtest.data.model import TestCase
    from lingtest.tin.suite import TECHNIQUE

    cases = []
    per: dict[str, int] = {}
    for name in config.systems:
        f = ctx.require(ctx.path("tin.generated") / f"{name}.jsonl", f"tin_generate@{name}")
        got = list(read_jsonl(f, TestCase.from_dict, kind="testcase"))
        per[name] = len(got)
        cases.extend(got)
    suite = ctx.path("tin.suite")
    n = write_jsonl(suite, cases, kind="testcase",
                    meta={"technique": TECHNIQUE, "corpus": config.corpus, "seed": config.seed,
                          "systems": list(config.systems)})
    ctx.tracker.log_metrics({"tin.suite.cases": float(n)})
    ctx.tracker.log_artifact(str(suite))
    return {"cases": n, "per_system": per}


# ---- evaluation ---------------------------------------------------------------------------------------
def evaluate_stage(ctx: StageContext, config: TinConfig, item: str) -> dict[str, Any]:
    from lingtest.data.model import TestCase
    from lingtest.suite.run import write_results
    from lingtest.systems.factory import build_system
    from lingtest.systems.ner import TASK
    from lingtest.tin.flow import check_cases, issue_record, source_f1, source_wrong_map

    t0 = time.perf_counter()
    generated = f"tin_generate@{item}"
    gen = ctx.read_json(_generation_path(ctx, item), generated)
    cases = list(read_jsonl(ctx.require(ctx.path("tin.generated") / f"{item}.jsonl", generated),
                            TestCase.from_dict, kind="testcase"))
    system = build_system(ctx.cfg, TASK, item)
    _, sources = _sources(ctx, system)
    lmap = label_mapper(ctx.cfg.systems.ner_label_maps, system) if config.labelled else None
    checked = check_cases(cases, system, sources, lmap)
    by_id = {c.id: c for c in cases}
    write_results(ctx.path("tin.results") / f"{item}.jsonl", checked.results,
                  meta={"technique": "tin", "system": item, "corpus": config.corpus})
    write_jsonl(ctx.path("tin.issues") / f"{item}.jsonl",
                [issue_record(i, by_id[i.case_id]) for i in checked.issues],
                kind=ISSUE_KIND, meta={"system": item, "corpus": config.corpus})
    seconds = time.perf_counter() - t0
    n_checked = len(cases)
    row: dict[str, Any] = {
        "system": item, "corpus": config.corpus, "labelled": lmap is not None,
        "sources": len(sources), "mutants": gen["mutants"], "issues": checked.summary,
        "checked_mutants": n_checked,
        # the run only (not the file): this stage's time per checked mutant; the generation's is in its own run
        "seconds": round(seconds, 2),
        "seconds_per_checked_mutant": round(seconds / n_checked, 4) if n_checked else None,
    }
    if lmap is not None:
        row["wrong_sources"] = sum(source_wrong_map(sources, lmap).values())
        row["source_f1"] = source_f1(sources, lmap).to_dict()
    _write_system_row(ctx, config, item, row, _metrics_path(ctx, item), f"tin.{item}.")
    return row


# ---- repair -------------------------------------------------------------------------------------------
def repair_stage(ctx: StageContext, config: TinConfig, item: str) -> dict[str, Any]:
    from lingtest.systems.factory import build_system
    from lingtest.systems.ner import TASK
    from lingtest.tin.flow import issue_from_record
    from lingtest.tin.issues import grade_run, repair_counts, repair_issues

    t0 = time.perf_counter()
    issues = list(read_jsonl(ctx.require(ctx.path("tin.issues") / f"{item}.jsonl", f"tin_evaluate@{item}"),
                             issue_from_record, kind=ISSUE_KIND))
    system = build_system(ctx.cfg, TASK, item)
    _, sources = _sources(ctx, system)
    parts = Parts(ctx, config)
    reps = repair_issues(issues, system=system, proposer=parts.fill, embedder=parts.embedder, config=config.relabel)
    row: dict[str, Any] = {"system": item, "corpus": config.corpus, "issues": len(issues),
                           **repair_counts(issues, reps)}
    if config.labelled:
        lmap = label_mapper(ctx.cfg.systems.ner_label_maps, system)
        grade = grade_run(issues, reps, {s.id: (s.tokens, s.entities, s.gold or []) for s in sources}, lmap)
        d = grade.to_dict()
        row["repair"] = d["repair"]
        row["f1"] = d["f1"]
    row["seconds"] = round(time.perf_counter() - t0, 2)
    _write_system_row(ctx, config, item, row, _repair_path(ctx, item), f"tin.{item}.repair.")
    return row


# ---- baseline -----------------------------------------------------------------------------------------
def baseline_stage(ctx: StageContext, config: TinConfig, item: str) -> dict[str, Any]:
    from lingtest.systems.factory import build_system
    from lingtest.systems.ner import TASK
    from lingtest.tin.flow import attack_cases

    t0 = time.perf_counter()
    system = build_system(ctx.cfg, TASK, item)
    _, sources = _sources(ctx, system)
    lmap = label_mapper(ctx.cfg.systems.ner_label_maps, system) if config.labelled else None
    cases, summary = attack_cases(sources, system=system, proposer=Parts(ctx, config).fill, config=config.baseline,
                                  label_map=lmap)
    row = {"system": item, "corpus": config.corpus, **summary, "seconds": round(time.perf_counter() - t0, 2)}
    _write_system_row(ctx, config, item, row, _baseline_path(ctx, item), f"tin.{item}.baseline.")
    return row


# ---- report -------------------------------------------------------------------------------------------
def report_stage(ctx: StageContext, config: TinConfig) -> dict[str, str]:
    from lingtest.data.io import atomic_open
    from lingtest.tin.report import plot_issues, table3_markdown, table4_markdown, table6_markdown

    columns = transformation_labels(config)
    metrics_dir = ctx.path("tin.metrics")
    names = list(config.systems)
    rows = [ctx.read_json(_metrics_path(ctx, n), f"tin_evaluate@{n}") for n in names]
    repairs = [ctx.read_json(_repair_path(ctx, n), f"tin_repair@{n}") for n in names]
    baselines = {n: ctx.read_json(_baseline_path(ctx, n), f"tin_baseline@{n}") for n in config.baseline.systems}
    unknown = sorted(set(baselines) - set(names))
    if unknown:
        raise ConfigError(f"tin.baseline.systems {unknown} are not in tin.systems")
    tables = {"table3.md": table3_markdown(rows, columns),
              "table4.md": table4_markdown({r["system"]: r for r in rows}, baselines, columns),
              "table6.md": table6_markdown(repairs)}
    for fname, text in tables.items():
        with atomic_open(metrics_dir / fname) as fh:
            fh.write(text)
        ctx.tracker.log_artifact(str(metrics_dir / fname))
    plot_issues(rows, metrics_dir / "issues.png", columns)
    ctx.tracker.log_artifact(str(metrics_dir / "issues.png"))
    return tables
