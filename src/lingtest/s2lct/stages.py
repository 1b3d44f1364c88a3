"""S2LCT stage bodies.

* ``generate_stage`` (``s2lct_generate@<suite>``): seeds (search + combine), expansions (Algorithm 1, fill,
  validation; in chunks of :data:`EXPAND_CHUNK` found sentences, with ``executor=ray`` each chunk a call
  on a pool of generator actors: :func:`lingtest.s2lct.components.expansion_worker`) and the baseline
  mapped to the same capabilities -> ``<paths.s2lct.suites>/<suite>.jsonl``,
  ``<paths.s2lct.baselines>/<suite>.jsonl``, ``<paths.s2lct.metrics>/generation_<suite>.json``;
* ``evaluate_stage`` (``s2lct_evaluate@<system>``): one classifier on its suite and baseline ->
  ``<paths.s2lct.metrics>/systems/<system>.json`` (Tables 3/4 counts per capability) and result records;
* ``diversity_stage`` (``s2lct_diversity@<suite>``): Self-BLEU and production-rule coverage, SEED vs
  SEED+EXP vs baseline (Figure 4) -> ``<paths.s2lct.metrics>/diversity_<suite>.{json,png}``;
* ``report_stage`` (``s2lct_report``): ``<paths.s2lct.metrics>/table_<suite>.md`` over the evaluated systems.

DVC runs them as ``python -m lingtest.pipeline.stage s2lct_<step> [item]``; every knob is in
``conf/s2lct/default.yaml`` (:class:`~lingtest.s2lct.config.S2lctConfig`), the components in
:mod:`lingtest.s2lct.components`.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from lingtest.data.io import read_jsonl, write_jsonl
from lingtest.data.model import Document, TestCase
from lingtest.execution.context import StageContext
from lingtest.s2lct.config import S2lctConfig
from lingtest.s2lct.spec import SuiteSpec

log = logging.getLogger(__name__)

TECHNIQUE = "s2lct"
SUITE_KIND = "testcase"
#: found sentences expanded per step (one proposer and one tagger batch); executor=ray: one call per step
EXPAND_CHUNK = 16


def load_cases(ctx: StageContext, path: Path, suite: str) -> list[TestCase]:
    """The cases of a suite or baseline file that ``s2lct_generate@<suite>`` wrote."""
    return list(read_jsonl(ctx.require(path, f"s2lct_generate@{suite}"), TestCase.from_dict))


def baseline_records(ctx: StageContext, spec: SuiteSpec) -> list[TestCase | Document]:
    """The records of the suite's baseline (a prepared split; the dataset's record kind in
    ``conf/datasets.yaml``: CheckList's suite holds test cases, HateCheck documents)."""
    assert spec.baseline is not None
    bs = spec.baseline
    path = ctx.require(ctx.path("prepared") / bs.dataset / f"{bs.split}.jsonl", f"prepare@{bs.dataset}")
    record = str(ctx.cfg.datasets[bs.dataset].record)
    return list(read_jsonl(path, TestCase.from_dict if record == "testcase" else Document.from_dict))


# ---- stage bodies ------------------------------------------------------------------------------------
def generate_stage(ctx: StageContext, config: S2lctConfig, item: str) -> dict[str, Any]:
    from lingtest.execution.ray_generate import chunked
    from lingtest.s2lct import components  # imported here: only this stage builds the components
    from lingtest.s2lct.expand import ExpansionStats, expansion_cases, expansion_targets
    from lingtest.s2lct.seeds import search_sentences, seed_cases
    from lingtest.s2lct.suite import baseline_cases, capability_counts, in_capability_order, to_test_case

    t0 = time.perf_counter()
    suite = item
    spec = config.suite(suite)
    sc = spec.search
    k = components.knowledge(ctx, config)
    docs = components.read_documents(ctx, "parsed", sc.corpus, sc.splits)
    pool = search_sentences(docs, label_from=sc.label_from, lowercase=sc.lowercase)
    seeds, used = seed_cases(suite, spec, pool, k, seed=config.seed, max_sents=config.seeds.max_sents,
                             max_cases=config.seeds.max_cases, others_per_seed=config.seeds.others_per_seed)
    log.info("S2LCT %s: %d searchable sentences, %d seed cases", suite, len(pool), len(seeds))
    # expansion of the found sentences (each against every predicate of the rules that use it), in chunks:
    # here, or on a pool of generator actors (the same chunks: the same expansions)
    ec = config.expansion
    stats = ExpansionStats()
    expansions: dict[str, list[Any]] = {}
    lm_texts = natural_texts = 0
    if ec.enabled:
        items = expansion_targets(spec, used, suite=suite, seed=config.seed, max_seeds=ec.max_seeds)
        chunks = chunked(items, EXPAND_CHUNK) if items else []
        pairs = components.collocations(config, ((f.sentence.words, f.sentence.tags) for f in pool))
        results, counters = ctx.map(components.expansion_worker, chunks, part="generation", args=(ctx.root, pairs),
                                    desc=f"S2LCT expand {suite} ({len(items)} sentences)")
        lm_texts = int(counters.get("lm_texts_scored", 0))
        natural_texts = int(counters.get("naturalness_texts_scored", 0))
        for got, st in results:
            expansions.update(got)
            stats.merge(st)
    exps = expansion_cases(spec, seeds, expansions)
    gen = in_capability_order(spec, seeds, exps)
    write_jsonl(ctx.path("s2lct.suites") / f"{suite}.jsonl", [to_test_case(g) for g in gen], kind=SUITE_KIND,
                meta={"technique": TECHNIQUE, "suite": suite, "seed": config.seed})
    base: list[TestCase] = []
    if spec.baseline is not None:
        base = baseline_cases(suite, spec, baseline_records(ctx, spec), dataset=spec.baseline.dataset)
    write_jsonl(ctx.path("s2lct.baselines") / f"{suite}.jsonl", base, kind=SUITE_KIND,
                meta={"technique": TECHNIQUE, "suite": suite, "baseline": True})
    metrics = {"suite": suite, "searchable": len(pool), "seed_cases": len(seeds), "exp_cases": len(exps),
               "baseline_cases": len(base), "expansion": stats.to_dict(),
               "capabilities": capability_counts(spec, gen, base), "lm_texts_scored": lm_texts,
               "naturalness_texts_scored": natural_texts,
               "seconds": round(time.perf_counter() - t0, 1)}
    ctx.tracker.log_params({"s2lct.suite": suite, "s2lct.seed": config.seed, "s2lct.max_sents": config.seeds.max_sents,
                            "s2lct.max_seeds": ec.max_seeds, "s2lct.fill": ec.fill.kind})
    ctx.write_metrics(ctx.path("s2lct.metrics") / f"generation_{suite}.json", metrics, f"s2lct.{suite}.")
    return metrics


def evaluate_stage(ctx: StageContext, config: S2lctConfig, item: str) -> dict[str, Any]:
    from lingtest.s2lct.evaluate import capability_metrics, capability_totals
    from lingtest.suite.run import run_suite, write_results
    from lingtest.systems.classification import TASK
    from lingtest.systems.factory import build_system

    suite = config.system_suite(item)
    cases = load_cases(ctx, ctx.path("s2lct.suites") / f"{suite}.jsonl", suite)
    base = load_cases(ctx, ctx.path("s2lct.baselines") / f"{suite}.jsonl", suite)
    system = build_system(ctx.cfg, TASK, item)
    t0 = time.perf_counter()
    run = run_suite(system, [*cases, *base], {"s2lct": config.evaluate.options()})
    seconds = time.perf_counter() - t0
    passed = [r.passed for r in run.results]
    caps = capability_metrics(cases, passed[:len(cases)], base, passed[len(cases):])
    row = {"system": item, "suite": suite, "capabilities": caps, "totals": capability_totals(caps),
           "predict_seconds": round(seconds, 2),
           "validity": reviewed_validity(ctx, ctx.path("s2lct.suites") / f"{suite}.jsonl", cases,
                                         passed[:len(cases)])}
    ctx.tracker.set_tags({"system": item, "suite": suite})
    ctx.write_metrics(ctx.path("s2lct.metrics") / "systems" / f"{item}.json", row, f"s2lct.{item}.")
    write_results(ctx.path("s2lct.results") / f"{item}.jsonl", run.results,
                  meta={"technique": TECHNIQUE, "system": item, "suite": suite})
    return row


def reviewed_validity(ctx: StageContext, path: Path, cases: list[TestCase],
                      passed: list[bool]) -> dict[str, Any] | None:
    """The validity of the suite's expanded sentences from the committed review of exactly this suite file
    (its release version, else its sha256) and the adjusted precision of the system's failures on them
    (:mod:`lingtest.s2lct.validity`); ``None`` when no review exists."""
    from lingtest.s2lct.expansion_review import expansion_sentences
    from lingtest.s2lct.validity import expansion_validity, review_judged
    from lingtest.tracking import release_of, sha256_file, suite_name

    sha = sha256_file(path)
    name = suite_name(TECHNIQUE, path)
    release = release_of(sha, ctx.root / "releases")
    found = review_judged(ctx.root, name, release.get("version") if release.get("name") == name else None, sha)
    if found is None:
        return None
    review, judged = found
    unit_of = {case_id: unit.id for unit in expansion_sentences(cases) for case_id in unit.cases}
    return expansion_validity(cases, passed, unit_of, review, judged)


def diversity_stage(ctx: StageContext, config: S2lctConfig, item: str) -> list[dict[str, Any]]:
    from lingtest.parsing.cache import build_parser
    from lingtest.s2lct.diversity import diversity_groups, diversity_table, memo_trees
    from lingtest.s2lct.report import plot_diversity

    suite = item
    cases = load_cases(ctx, ctx.path("s2lct.suites") / f"{suite}.jsonl", suite)
    base = load_cases(ctx, ctx.path("s2lct.baselines") / f"{suite}.jsonl", suite)
    trees = memo_trees(build_parser(ctx.cfg.parser))
    rows = diversity_table(diversity_groups(cases, base), config.diversity.sizes[suite], config.diversity.trials,
                           config.seed, trees)
    out = ctx.path("s2lct.metrics")
    plot_diversity(rows, out / f"diversity_{suite}.png", title=f"S2LCT diversity ({suite})")
    ctx.write_metrics(out / f"diversity_{suite}.json", {"suite": suite, "rows": rows},
                      artifacts=[out / f"diversity_{suite}.png"])
    for r in rows:
        group = str(r["group"]).replace("+", "_plus_")  # MLflow metric names allow no "+"
        tag = f"s2lct.diversity.{suite}.{group}.{r['size']}."
        ctx.tracker.log_metrics({tag + "self_bleu": float(r["self_bleu"]), tag + "coverage": float(r["coverage"])})
    return rows


def report_stage(ctx: StageContext, config: S2lctConfig) -> dict[str, str]:
    from lingtest.data.io import atomic_open
    from lingtest.s2lct.report import capability_table

    metrics = ctx.path("s2lct.metrics")
    out: dict[str, str] = {}
    for suite, spec in config.suites.items():
        rows = [ctx.read_json(metrics / "systems" / f"{name}.json", f"s2lct_evaluate@{name}")
                for name, s in config.systems.items() if s == suite]
        if not rows:
            continue
        names = {cid: cap.name for cid, cap in spec.capabilities.items()}
        table = capability_table(rows, names, baseline=spec.baseline.dataset if spec.baseline else "baseline")
        with atomic_open(metrics / f"table_{suite}.md") as fh:
            fh.write(table)
        ctx.tracker.log_artifact(str(metrics / f"table_{suite}.md"))
        out[suite] = table
    return out
