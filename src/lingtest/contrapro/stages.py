"""Stage bodies of the ContraPro attacks; paths from ``cfg.paths.contrapro``, knobs from
``cfg.contrapro`` (:class:`~lingtest.contrapro.config.ContraproConfig`).

* ``generate_stage``: the prepared ContraPro examples with the metadata joined on
  (:func:`lingtest.contrapro.metadata.with_metadata`) -> ``<examples>``; every attack variant
  (:mod:`lingtest.contrapro.configured_attacks`; ``executor=ray``: runs of examples on a pool of
  generator actors) -> ``<attacked>/<attack>/<variant>.jsonl`` and ``<attacked>/summary.json``
  (attacked and skipped counts, skip reasons); every set (clean and attacked) in the ContraCAT release
  layout -> ``<suites>/<attack>/<variant>/{en,de}.txt`` (+ ``index.tsv``; the clean set in
  ``<suites>/clean``); the test suite ``<cases>`` (one ``contrastive`` test case per scored example: a
  seeded sample of ``contrapro.sample`` examples per set, all with ``null``, plus the clean originals of
  every sampled attacked example: :mod:`lingtest.contrapro.sample`) and the review sample ``<review>``.
* ``score_stage``: one contrastive system on the suite through the suite runner ->
  ``<metrics>/<system>.json`` (accuracy per set with its breakdowns, Δ to clean on the same
  examples per set and per attack: :mod:`lingtest.contrapro.grading`) and ``<results>/<system>.jsonl``.
* ``report_stage``: tables and plots over ``contrapro.systems`` in the layout of the paper's
  Figures 4.1/4.3 (accuracy on clean ContraPro and the three attacks, one bar per system; a
  fine-tuned AFA model is one more system).
* ``afa_stage`` / ``finetune_stage``: the antecedent-free augmentation sets (:mod:`lingtest.contrapro.afa`)
  and a model fine-tuned on one of them (hub profile).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lingtest.contrapro.cases import CLEAN, TECHNIQUE, make_cases, set_name
from lingtest.contrapro.config import ContraproConfig
from lingtest.data.io import read_jsonl, write_json, write_jsonl
from lingtest.data.model import ContrastiveExample, TestCase
from lingtest.errors import LingtestError
from lingtest.execution.context import StageContext

EXAMPLE_KIND = "contrastive"
AFA_SETS = ("augmented", "baseline")


# ---- inputs ----------------------------------------------------------------------------------------
def load_examples(ctx: StageContext, config: ContraproConfig) -> tuple[list[ContrastiveExample], int]:
    """The prepared grouped examples of ``contrapro.dataset`` with the ``contrapro.metadata`` JSON
    joined on (``null``: none); the number with metadata."""
    from lingtest.config import to_plain
    from lingtest.contrapro.metadata import with_metadata
    from lingtest.paths import repo_path
    from lingtest.readers.options import configured

    folder = ctx.path("prepared") / config.dataset
    files = sorted(folder.glob("*.jsonl"))
    if not files:  # no split prepared: the one missing-input error, naming the prepare stage
        ctx.require(folder / "*.jsonl", f"prepare@{config.dataset}")
    grouped = [ex for f in files for ex in read_jsonl(f, ContrastiveExample.from_dict)]  # kind: dataset:format
    if not config.metadata:
        return grouped, 0
    readers = to_plain(ctx.cfg.get("readers")) if ctx.cfg.get("readers") is not None else None
    records = list(configured("contrapro_json", readers)(repo_path(config.metadata)))
    if any("ante distance" in ex.meta for ex in grouped):  # the official JSON was prepared: nothing to join
        return grouped, len(grouped)
    return with_metadata(grouped, records)


def load_cases(ctx: StageContext) -> list[TestCase]:
    path = ctx.require(ctx.path("contrapro.cases"), "contrapro_generate")
    return list(read_jsonl(path, TestCase.from_dict, kind="testcase"))


# ---- stage bodies ----------------------------------------------------------------------------------
def generate_stage(ctx: StageContext, config: ContraproConfig) -> dict[str, Any]:
    from lingtest.contrapro import configured_attacks  # imported here: only this stage runs the attacks
    from lingtest.contrapro.attack import merge_outcomes
    from lingtest.contrapro.review import review_pool, write_review
    from lingtest.contrapro.sample import select_for_scoring
    from lingtest.readers.candidate_lines import export_set, set_folder

    c = config
    suites, attacked = ctx.path("contrapro.suites"), ctx.path("contrapro.attacked")
    clean, matched = load_examples(ctx, c)
    write_jsonl(ctx.path("contrapro.examples"), clean, kind=EXAMPLE_KIND,
                meta={"dataset": c.dataset, "with_metadata": matched})
    # every variant over one run of the examples per forked worker here, or one run per generator actor on Ray
    # (the same outcomes once merged); locally each variant shows its own progress bar
    ex = ctx.executor()
    runs = configured_attacks.attack_runs(clean, ex, c.workers)
    results, _ = ctx.map(configured_attacks.attack_worker, runs, part="generation", workers=c.workers,
                         desc=f"ContraPro attacks ({len(clean)} examples)" if ex["name"] == "ray" else None)
    outcomes = merge_outcomes(results)
    configured_attacks.log_outcomes(outcomes)
    sep = c.export.separator
    export_set(suites / CLEAN, clean, sep)
    summary: dict[str, Any] = {"examples": len(clean), "with_metadata": matched, "sets": {}}
    for out in outcomes:
        write_jsonl(attacked / out.attack / f"{out.variant}.jsonl", out.examples, kind=EXAMPLE_KIND,
                    meta={"attack": out.attack, "variant": out.variant})
        export_set(set_folder(suites, out.attack, out.variant), out.examples, sep)
        summary["sets"][set_name(out.attack, out.variant)] = out.summary()
    # written as it is, not by ctx.write_metrics: its skip reasons are no valid MLflow metric names
    write_json(attacked / "summary.json", summary)

    scored_clean, picked = select_for_scoring(clean, outcomes, c.sample, c.seed)
    cases = make_cases(scored_clean) + [case for exs in picked.values() for case in make_cases(exs)]
    write_jsonl(ctx.path("contrapro.cases"), cases, kind="testcase",
                meta={"technique": TECHNIQUE, "sample": c.sample, "seed": c.seed})

    r = c.review
    reviewed = write_review(ctx.path("contrapro.review"), review_pool(outcomes, r.attacks),
                            {e.id: e for e in clean}, n=r.n, seed=r.seed)
    summary.update({"cases": len(cases), "review": reviewed})
    ctx.tracker.log_metrics({"examples": len(clean), "with_metadata": matched, "cases": len(cases), "review": reviewed,
                             **{f"attacked.{k}": v["attacked"] for k, v in summary["sets"].items()}})
    ctx.tracker.log_artifact(str(attacked / "summary.json"))
    return summary


def headline_metrics(result: Mapping[str, Any]) -> dict[str, float]:
    """What the score stage logs: the accuracy of every set and Δ to clean of every attacked set."""
    flat = {f"accuracy.{k}": v["overall"]["accuracy"] for k, v in result["sets"].items()
            if v["overall"]["accuracy"] is not None}
    flat.update({f"delta.{k}": v["delta"] for k, v in result["deltas"].items() if v["delta"] is not None})
    return flat


def score_stage(ctx: StageContext, config: ContraproConfig, item: str) -> dict[str, Any]:
    """System ``item`` on the suite -> ``<metrics>/<item>.json`` and ``<results>/<item>.jsonl``."""
    from lingtest.contrapro.grading import grade
    from lingtest.suite.run import score_system
    from lingtest.systems.contrastive import TASK
    from lingtest.systems.factory import build_system

    cases = load_cases(ctx)
    return score_system(build_system(ctx.cfg, TASK, item), item, cases, technique=TECHNIQUE,
                        grade=lambda outputs: grade(cases, outputs), flatten=headline_metrics,
                        metrics_path=ctx.path("contrapro.metrics") / f"{item}.json",
                        results_path=ctx.path("contrapro.results") / f"{item}.jsonl", tracker=ctx.tracker)


def report_stage(ctx: StageContext, config: ContraproConfig) -> str:
    from lingtest.contrapro.report import plot_attacks, report_markdown
    from lingtest.data.io import atomic_open

    results = {name: ctx.read_json(ctx.path("contrapro.metrics") / f"{name}.json", f"contrapro_score@{name}")
               for name in config.systems}
    text = report_markdown(results)
    out = ctx.path("contrapro.report")
    with atomic_open(out / "report.md") as fh:
        fh.write(text)
    plot_attacks(results, out / "attacks.png", out / "variants.png")
    for f in ("report.md", "attacks.png", "variants.png"):
        ctx.tracker.log_artifact(str(out / f))
    return text


def afa_stage(ctx: StageContext, config: ContraproConfig) -> dict[str, Any]:
    """AFA candidates by the configured coreference system over ContraPro's own windows (see
    :mod:`lingtest.contrapro.afa`) -> ``<afa>/{augmented,baseline}/{en,de}.txt``,
    ``<afa>/selected.jsonl`` and ``<afa>/summary.json``."""
    from lingtest.contrapro import afa
    from lingtest.contrapro.sample import unscored_pool
    from lingtest.systems.coref import TASK as COREF
    from lingtest.systems.factory import build_system

    a = config.afa
    examples_path = ctx.require(ctx.path("contrapro.examples"), "contrapro_generate")
    examples = list(read_jsonl(examples_path, ContrastiveExample.from_dict, kind=EXAMPLE_KIND))
    scored = {case.provenance.seed_id for case in load_cases(ctx)}
    pool = unscored_pool(examples, scored, a.max_examples, config.seed)
    docs = [afa.window_document(ex) for ex in pool]
    clusters = build_system(ctx.cfg, COREF, a.coref_system).predict(docs)
    selected = afa.select(pool, docs, clusters, include_unclustered=a.include_unclustered)
    sep = config.export.separator
    out = ctx.path("contrapro.afa")
    n_aug = afa.write_pairs(out / "augmented", afa.training_pairs(selected, augmented=True, sep=sep))
    n_base = afa.write_pairs(out / "baseline", afa.training_pairs(selected, augmented=False, sep=sep))
    afa.write_selected(out / "selected.jsonl", selected)
    summary = {"pool": len(pool), "excluded_scored": sum(ex.id in scored for ex in examples),
               "coref_system": a.coref_system, "selected": len(selected),
               "selected_by_gold_distance": afa.by_gold_distance(selected),
               "augmented_pairs": n_aug, "baseline_pairs": n_base, "source": "contrapro contexts (offline)"}
    write_json(out / "summary.json", summary)  # not ctx.write_metrics: ">3" is no valid MLflow metric name
    ctx.tracker.log_metrics({k: v for k, v in summary.items() if isinstance(v, int)})
    return summary


def finetune_stage(ctx: StageContext, config: ContraproConfig, item: str) -> dict[str, Any]:
    """Fine-tune ``contrapro.afa.finetune.model`` on the AFA set ``item`` (``augmented`` or
    ``baseline``) -> ``<models>/<item>/`` (model, tokenizer, training.json). Hub profile only."""
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    from lingtest.contrapro.afa import read_pairs
    from lingtest.contrapro.finetune import finetune
    from lingtest.resources.device import pick_device

    f = config.afa.finetune
    if item not in AFA_SETS:
        raise LingtestError(f"contrapro_finetune: unknown AFA set {item!r} (augmented | baseline)")
    pairs = read_pairs(ctx.require(ctx.path("contrapro.afa") / item, "contrapro_afa"))
    opts = f.options()
    model = AutoModelForSeq2SeqLM.from_pretrained(f.model)
    tok = AutoTokenizer.from_pretrained(f.model)
    device = pick_device(str(ctx.cfg.resources.device))  # the shared resources section
    info = finetune(model, tok, pairs, opts, device=device,
                    on_step=lambda step, loss: ctx.tracker.log_metrics({"loss": loss}, step=step))
    out = ctx.path("contrapro.models") / item
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    tok.save_pretrained(str(out))
    info.update({"model": f.model, "set": item, "device": device})
    write_json(out / "training.json", info)
    return info
