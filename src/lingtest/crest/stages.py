"""CREST stage bodies: ``generate_stage`` (sources -> follow-ups -> suite), ``evaluate_stage`` (one
system -> ``<paths.crest.metrics>/<system>.json`` and its result records), ``ablation_stage`` (M x
selection for one system -> ``ablation/<system>.{json,md,png}``) and ``report_stage`` (Table 1 over
the evaluated systems).

DVC runs them as ``python -m lingtest.pipeline.stage crest_<step> [system]``. All knobs are in
``conf/crest/default.yaml`` (``cfg.crest``), output paths in ``conf/paths`` (``cfg.paths.crest``); the
parser comes from the ``parser`` group, the causal LM from ``resources.lm``, systems from ``systems``.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from lingtest.crest.components import (
    crest_generator,
    generate_all,
    memo_parser,
    prepare_sources,
    survival,
)
from lingtest.crest.config import CrestConfig
from lingtest.crest.sources import load_documents
from lingtest.crest.suite import build_suite, write_sources, write_suite
from lingtest.data.io import write_json
from lingtest.execution.context import StageContext

log = logging.getLogger(__name__)


TECHNIQUE = "crest"


def input_path(ctx: StageContext, config: CrestConfig) -> Path:
    """The prepared split the sources are drawn from."""
    return ctx.require(ctx.path("prepared") / config.corpus / f"{config.split}.jsonl", f"prepare@{config.corpus}")


def system_metrics_path(ctx: StageContext, system: str) -> Path:
    return ctx.path("crest.metrics") / "systems" / f"{system}.json"


# ---- stage bodies -------------------------------------------------------------------------------
def generate_stage(ctx: StageContext, config: CrestConfig) -> dict[str, Any]:
    """Sources from the prepared test split -> parsed -> follow-ups (Algorithms 1-3) ->
    ``paths.crest.generated`` (every follow-up up to max(crest.M, crest.ablation.M), with parses) and the
    released suite ``paths.crest.suite`` (selected follow-ups within crest.M)."""
    c = config
    inp = input_path(ctx, c)
    t0 = time.perf_counter()
    parser = memo_parser(ctx.cfg.parser)
    sources = prepare_sources(load_documents(inp), c, parser)
    m_gen = c.M_generated
    ex = ctx.executor()
    if ex["name"] == "ray":  # the same waves of sources on a pool of generator actors (same follow-ups)
        from lingtest.crest.distributed import generate_on_ray

        followups, stats, counters = generate_on_ray(ctx.cfg, sources, M=m_gen, select=c.select,
                                                     batch_sources=c.batch_sources, options=ex)
        counters["parser_calls"] += parser.calls
        counters["parse_memo_hits"] += parser.hits
    else:
        gen = crest_generator(c, ctx.cfg.resources, parser, m_gen)
        followups, stats = generate_all(sources, gen, select=c.select, batch_sources=c.batch_sources)
        counters = {"parser_calls": parser.calls, "parse_memo_hits": parser.hits,
                    "lm_texts_scored": getattr(gen.ranker, "texts_scored", 0),
                    "lm_fit_removed": getattr(gen.ranker, "fits_removed", 0)}
    seconds = time.perf_counter() - t0
    n_gen = write_suite(ctx.path("crest.generated"), build_suite(sources, followups, only_selected=False, full=True),
                        meta={"corpus": c.corpus, "seed": c.seed, "M": m_gen, "full": True})
    write_sources(ctx.path("crest.sources"), sources, meta={"corpus": c.corpus, "seed": c.seed})
    suite = build_suite(sources, followups, only_selected=c.select, M=c.M)
    write_suite(ctx.path("crest.suite"), suite, meta={"corpus": c.corpus, "seed": c.seed, "M": c.M})
    within = [f for fs in followups.values() for f in fs if f.order < c.M]
    n_sel = sum(f.selected for f in within)
    n_sel_all = sum(f.selected for fs in followups.values() for f in fs)
    metrics = {
        "corpus": c.corpus, "sources": len(sources), "generated": len(within), "selected": n_sel,
        "suite_size": len(suite), "generated_all": n_gen, "M_generated": m_gen,
        "seconds": round(seconds, 2),
        "selected_all": n_sel_all,
        # wall time of the whole generation (load, parse, propose, rank, check, select) per selected
        # follow-up generated (up to M_generated per source)
        "seconds_per_selected": round(seconds / n_sel_all, 4) if n_sel_all else None,
        **counters,
        "candidate_survival": survival(stats), "stats": stats.to_dict(),
    }
    ctx.tracker.log_params({"crest.N": c.N, "crest.M": c.M, "crest.seed": c.seed,
                            "crest.proposers": ",".join(c.proposers.enabled), "crest.ranker": c.ranker.enabled})
    ctx.write_metrics(ctx.path("crest.metrics") / "generation.json", metrics, "crest.")
    log.info("CREST: %d sources, %d generated, %d selected in %.1fs", len(sources), len(within), n_sel, seconds)
    return metrics


def evaluate_stage(ctx: StageContext, config: CrestConfig, item: str) -> dict[str, Any]:
    """Run system ``item`` on the generated cases within crest.M (selected ones when crest.select);
    write ``<paths.crest.metrics>/<item>.json`` and the result records ``<paths.crest.results>/<item>.jsonl``."""
    from lingtest.crest.evaluate import evaluate_system, select_cases, summarize
    from lingtest.crest.suite import load_cases, load_sources
    from lingtest.suite.run import write_results
    from lingtest.systems.coref import TASK
    from lingtest.systems.factory import build_system

    c = config
    generated = ctx.require(ctx.path("crest.generated"), "crest_generate")
    cases = select_cases(load_cases(generated), c.M)  # the file holds up to max(ablation M)
    used = select_cases(cases, c.M, c.select)
    system = build_system(ctx.cfg, TASK, item)
    res = evaluate_system(system, load_sources(ctx.path("crest.sources")), used, c.oracle_options())
    row = {"system": item, **summarize(res, c.M, c.select), "predict_seconds": round(res.predict_seconds, 2)}
    row["generated"] = len(cases)  # before selection (only selected pairs were predicted)
    write_results(ctx.path("crest.results") / f"{item}.jsonl", res.results,
                  meta={"technique": TECHNIQUE, "system": item, "corpus": c.corpus})
    ctx.tracker.set_tags({"system": item, "corpus": c.corpus})
    ctx.write_metrics(system_metrics_path(ctx, item), row, f"crest.{item}.")
    return row


def report_stage(ctx: StageContext, config: CrestConfig) -> str:
    """Table 1 over every evaluated system (``crest.systems``) -> ``<paths.crest.metrics>/table1.md``. The
    paper's time column (generation seconds per selected follow-up) is not in it: wall-clock figures are not
    outputs (:mod:`lingtest.metrics.wall_clock`); the ``crest_generate`` run records it
    (``crest.seconds_per_selected``) and ``bench/bench_profile.py`` reports it."""
    from lingtest.crest.report import table1_markdown
    from lingtest.data.io import atomic_open

    rows = [ctx.read_json(system_metrics_path(ctx, name), f"crest_evaluate@{name}") for name in config.systems]
    table = table1_markdown(rows)
    out = ctx.path("crest.metrics") / "table1.md"
    with atomic_open(out) as fh:
        fh.write(table)
    ctx.tracker.log_artifact(str(out))
    return table


def ablation_stage(ctx: StageContext, config: CrestConfig, item: str) -> list[dict[str, Any]]:
    """Table 3 for system ``item``: every (M, selection) of ``crest.ablation`` from one set of predictions,
    written to ``<paths.crest.metrics>/ablation/<item>.{json,md,png}``."""
    from lingtest.crest.evaluate import evaluate_system, summarize
    from lingtest.crest.report import ablation_markdown, plot_ablation
    from lingtest.crest.suite import load_cases, load_sources
    from lingtest.data.io import atomic_open
    from lingtest.systems.coref import TASK
    from lingtest.systems.factory import build_system

    a = config.ablation
    generated = ctx.require(ctx.path("crest.generated"), "crest_generate")
    system = build_system(ctx.cfg, TASK, item)
    res = evaluate_system(system, load_sources(ctx.path("crest.sources")), load_cases(generated),
                          config.oracle_options())
    rows = [summarize(res, m, sel) for sel in a.select for m in a.M]
    out_dir = ctx.path("crest.metrics") / "ablation"
    out_dir.mkdir(parents=True, exist_ok=True)
    files = [out_dir / f"{item}.{ext}" for ext in ("json", "md", "png")]
    write_json(files[0], {"system": item, "rows": rows})
    with atomic_open(files[1]) as fh:
        fh.write(ablation_markdown(rows, item))
    plot_ablation(rows, files[2], title=f"CREST ablation ({item})")
    for r in rows:
        tag = f"crest.ablation.{item}.M{r['M']}.{'sel' if r['select'] else 'nosel'}."
        ctx.tracker.log_metrics({tag + k: float(r[k]) for k in ("tests", "issues", "hits", "precision", "validity",
                                                                "precision_validity_adjusted") if r.get(k) is not None})
    for f in files:
        ctx.tracker.log_artifact(str(f))
    return rows
