"""The baseline stages: ``generate_stage`` (one baseline: CREST's sources -> its follow-ups -> records and
generation counts), ``evaluate_stage`` (one baseline, every system of ``crest.systems``, through CREST's
evaluation) and ``report_stage`` (Table 1 of CREST against the baselines, with Figure 4(B)'s validity and
Figure 5(A)'s issue types).

DVC runs them as ``python -m lingtest.pipeline.stage crest_baseline_<step> [baseline]``. Knobs in
``conf/crest/baselines.yaml`` (``cfg.crest_baselines``); the sources, M, oracle and systems are CREST's
(``cfg.crest``). Outputs under ``paths.crest.baselines`` (``<baseline>/sources.jsonl``,
``<baseline>/generated.jsonl``), ``paths.crest.baselines_metrics`` (``<baseline>/generation.json``,
``<baseline>/evaluation.json``), ``paths.crest.baselines_report`` (``table1.{md,json}``) and
``paths.crest.baselines_results`` (``<baseline>/<system>.jsonl``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lingtest.crest.baselines import BASELINES
from lingtest.crest.baselines.base import BaselineGenerator, Generated, Parts
from lingtest.crest.baselines.config import BaselinesConfig
from lingtest.crest.baselines.edits import Perturbation, followup_validity
from lingtest.crest.baselines.records import followup_words, make_case
from lingtest.crest.config import CrestConfig
from lingtest.crest.evaluate import EvalResult, evaluate_system, select_cases, summarize
from lingtest.crest.generate import Source
from lingtest.crest.grading import ERROR_TYPES
from lingtest.data.model import TestCase
from lingtest.execution.context import StageContext

log = logging.getLogger(__name__)

#: how CREST itself is named among the approaches of the comparison
CREST = "crest"


# ---- generation -----------------------------------------------------------------------------------
def build_generator(config: BaselinesConfig, baseline: str, parts: Parts) -> BaselineGenerator:
    """The generator ``baseline`` names (:data:`~lingtest.crest.baselines.BASELINES`) from its options."""
    cls: Any = BASELINES.get(baseline)
    generator: BaselineGenerator = cls.from_config(config.options(baseline), parts)
    return generator


def generate_followups(generator: BaselineGenerator, sources: Sequence[Source], M: int, seed: int,
                       batch_sources: int) -> Generated:
    """The generator's follow-ups of every source, ``batch_sources`` sources at a time."""
    out = Generated([])
    n = max(1, int(batch_sources))
    for i in range(0, len(sources), n):
        wave = list(sources[i:i + n])
        got = generator.generate(wave, M, seed)
        if len(got.followups) != len(wave):
            raise ValueError(f"baseline {generator.name} returned follow-ups of {len(got.followups)} sources "
                             f"for {len(wave)}")
        out.merge(got)
    return out


def build_cases(baseline: str, sources: Sequence[Source], followups: Sequence[Sequence[Perturbation]],
                parser: Any) -> list[TestCase]:
    """CREST's records of the follow-ups (every follow-up parsed in one request; parses a baseline already
    asked for come from the parser's memo)."""
    plan = [(s, k, p) for s, ps in zip(sources, followups, strict=True) for k, p in enumerate(ps)]
    parsed = parser.parse([followup_words(s, p)[0] for s, _, p in plan]) if plan else []
    return [make_case(baseline, s, k, p, fs) for (s, k, p), fs in zip(plan, parsed, strict=True)]


def run_baseline_generate(crest: CrestConfig, config: BaselinesConfig, baseline: str, parts: Parts, *,
                          out_dir: Path, metrics_path: Path, input_path: Path | None = None,
                          sources: Sequence[Source] | None = None) -> dict[str, Any]:
    """Baseline ``baseline`` on CREST's sources: drawn from ``input_path`` (the prepared split) exactly as
    ``crest_generate`` draws them (same corpus, split, N, seed and filters; parsed by the configured parser),
    or ``sources`` as given. Writes ``out_dir/sources.jsonl``, ``out_dir/generated.jsonl`` (CREST's records,
    parsed) and ``metrics_path`` (the generation counts); returns the counts.

    Counts: ``generated`` (# Gen: follow-ups, at most M per source), ``selected`` (# Sel: the same, a baseline
    has no selection step), ``seconds`` (wall time from the start, model loads and parsing included, as
    CREST's), ``seconds_per_selected`` (per follow-up), ``followup_parse_seconds`` (parsing the follow-ups for
    the records), and the generator's ``proposed``/``kept``/``dropped`` counts. ``metrics_path`` gets them
    without the wall-clock ones (:mod:`lingtest.metrics.wall_clock`); the returned counts have them."""
    from lingtest.crest.suite import write_sources, write_suite
    from lingtest.data.io import write_json
    from lingtest.metrics.wall_clock import split_wall_clock

    t0 = time.perf_counter()
    if sources is None:
        if input_path is None:
            raise ValueError("give the prepared split (input_path) or the sources")
        from lingtest.crest.components import prepare_sources
        from lingtest.crest.sources import load_documents

        sources = prepare_sources(load_documents(input_path), crest, parts.parser)
    M = config.M if config.M is not None else crest.M
    generator = build_generator(config, baseline, parts)
    got = generate_followups(generator, sources, M, config.seed, config.batch_sources)
    t_parse = time.perf_counter()
    cases = build_cases(baseline, sources, got.followups, parts.parser)
    parse_seconds = time.perf_counter() - t_parse
    seconds = time.perf_counter() - t0
    out_dir.mkdir(parents=True, exist_ok=True)
    meta = {"corpus": crest.corpus, "seed": config.seed, "M": M, "baseline": baseline}
    write_sources(out_dir / "sources.jsonl", sources, meta=meta)
    write_suite(out_dir / "generated.jsonl", cases, meta={**meta, "full": True})
    n = len(cases)
    metrics = {
        "baseline": baseline, "corpus": crest.corpus, "sources": len(sources), "M": M,
        "generated": n, "selected": n, "seconds": round(seconds, 2),
        "seconds_per_selected": round(seconds / n, 4) if n else None,
        "followup_parse_seconds": round(parse_seconds, 2),
        "sources_with_followups": sum(bool(f) for f in got.followups),
        **got.counts(),
    }
    write_json(metrics_path, split_wall_clock(metrics)[0])
    log.info("baseline %s: %d sources, %d follow-ups in %.1fs", baseline, len(sources), n, seconds)
    return metrics


# ---- evaluation -----------------------------------------------------------------------------------
def evaluate_followups(system: Any, sources: Sequence[Source], cases: Sequence[TestCase],
                       oracle: Mapping[str, Any] | None = None) -> EvalResult:
    """CREST's :func:`~lingtest.crest.evaluate.evaluate_system` on baseline records; a case of several edits
    gets its validity over all of them (:func:`~lingtest.crest.baselines.edits.followup_validity`; CREST's
    check reads one edit)."""
    res = evaluate_system(system, sources, cases, oracle)
    for pair, case in zip(res.pairs, cases, strict=True):
        if "edits" in case.meta:
            pair.invalid_reasons = list(followup_validity(case).reasons)
    return res


def run_baseline_evaluate(crest: CrestConfig, baseline: str, system: Any, sources: Sequence[Source],
                          cases: Sequence[TestCase], seconds_per_selected: float | None = None,
                          M: int | None = None) -> tuple[dict[str, Any], EvalResult]:
    """One system on one baseline's records within ``M`` (None: ``crest.M``): the row of CREST's summary
    (:func:`~lingtest.crest.evaluate.summarize`) with ``approach`` and ``system``, and the result."""
    m = crest.M if M is None else M
    used = select_cases(cases, m, crest.select)
    res = evaluate_followups(system, sources, used, crest.oracle_options())
    row = {"approach": baseline, "system": system.name,
           **summarize(res, m, crest.select, seconds_per_selected=seconds_per_selected),
           "predict_seconds": round(res.predict_seconds, 2)}
    return row, res


# ---- the comparison -------------------------------------------------------------------------------
def comparison_rows(crest_rows: Mapping[str, Mapping[str, Any]], crest_generation: Mapping[str, Any],
                    baseline_rows: Mapping[str, Mapping[str, Mapping[str, Any]]],
                    baseline_generation: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Table 1's rows, per system then approach (the baselines in the given order, CREST last as in the
    paper): ``crest_rows`` system -> CREST's evaluate metrics (``<crest.metrics>/systems/<system>.json``),
    ``baseline_rows`` baseline -> system -> a baseline's; the generation times (``seconds_per_selected``)
    from the generation counts. Each row keeps its summary (# Gen, # Sel, # Issues, hits, TP, FP, precision,
    ``validity`` with its counts and reasons: Figure 4(B), ``issue_types``: Figure 5(A)) under ``approach``
    and ``system``."""
    systems = list(crest_rows) or sorted({s for rows in baseline_rows.values() for s in rows})
    out = []
    for system in systems:
        for approach, rows in [*baseline_rows.items(), (CREST, crest_rows)]:
            row = rows.get(system)
            if row is None:
                continue
            gen = crest_generation if approach == CREST else baseline_generation.get(approach, {})
            r = {**row, "approach": approach, "system": system}
            if gen.get("seconds_per_selected") is not None:
                r["seconds_per_selected"] = gen["seconds_per_selected"]
            out.append(r)
    return out


def validity_markdown(rows: Sequence[Mapping[str, Any]]) -> str:
    """Figure 4(B) as a table: follow-ups that keep / do not keep their source's gold, per approach."""
    lines = ["| Approach | # Tests | # Preserved | # Changed | Preserved (%) |", "|---|---|---|---|---|"]
    for r in rows:
        total, valid = int(r.get("validity_total", 0)), int(r.get("validity_valid", 0))
        share = f"{100 * valid / total:.2f}" if total else ""
        lines.append(f"| {r['approach']} | {total} | {valid} | {total - valid} | {share} |")
    return "\n".join(lines) + "\n"


def issue_types_markdown(rows: Sequence[Mapping[str, Any]]) -> str:
    """Figure 5(A) as a table: issues of each error class, per approach (an issue may have several)."""
    head = "| Approach | " + " | ".join(ERROR_TYPES) + " |"
    lines = [head, "|---" * (len(ERROR_TYPES) + 1) + "|"]
    for r in rows:
        types = r.get("issue_types") or {}
        lines.append(f"| {r['approach']} | " + " | ".join(str(int(types.get(t, 0))) for t in ERROR_TYPES) + " |")
    return "\n".join(lines) + "\n"


def comparison_markdown(rows: Sequence[Mapping[str, Any]]) -> str:
    """Per system: Table 1 (CREST's own table layout, one row per approach), Figure 4(B) and Figure 5(A)."""
    from lingtest.crest.report import table1_markdown

    parts = []
    for system in dict.fromkeys(str(r["system"]) for r in rows):
        mine = [r for r in rows if r["system"] == system]
        table = table1_markdown([{**r, "system": r["approach"]} for r in mine]).replace("| System |",
                                                                                         "| Approach |", 1)
        parts.append(f"## {system}\n\nTable 1: CREST and the baselines on the same sources.\n\n{table}\n"
                     f"Figure 4(B): follow-ups that preserve their source's coreference.\n\n"
                     f"{validity_markdown(mine)}\nFigure 5(A): issue types.\n\n{issue_types_markdown(mine)}")
    return "\n".join(parts)


# ---- stage bodies ---------------------------------------------------------------------------------
def _dir(ctx: StageContext, key: str, baseline: str) -> Path:
    return ctx.path(f"crest.{key}") / baseline


def fills_path(ctx: StageContext) -> Path:
    """Where ``crest_baseline_fills`` writes the fill table (:mod:`~lingtest.crest.baselines.fills`)."""
    return ctx.path("crest.baselines") / "fills.jsonl"


def fills_stage(ctx: StageContext, config: BaselinesConfig) -> dict[str, Any]:
    """The fill-in proposals of every baseline of ``crest_baselines.baselines`` that substitutes words, for
    CREST's sources, computed once -> ``<paths.crest.baselines>/fills.jsonl`` (a
    :class:`~lingtest.crest.baselines.fills.FillTable`) and ``<paths.crest.baselines_metrics>/fills.json``
    (its counts)."""
    from lingtest.crest.baselines.fills import FillTable, compute_fills, substitutes_words, substituting
    from lingtest.crest.baselines.parts import StageParts
    from lingtest.crest.components import prepare_sources
    from lingtest.crest.sources import load_documents
    from lingtest.crest.stages import input_path

    t0 = time.perf_counter()
    crest = CrestConfig.from_config(ctx.cfg)
    parts = StageParts(ctx.cfg, config)
    try:
        sources = prepare_sources(load_documents(input_path(ctx, crest)), crest, parts.parser)
        # only the baselines that substitute words are built (CAT's embedder is not loaded here)
        generators = substituting(build_generator(config, b, parts) for b in config.baselines
                                  if substitutes_words(BASELINES.get(b)))
        # no baseline substitutes words: an empty table (no LM is loaded)
        table = (compute_fills(parts.fill, sources, generators, config.batch_sources) if generators
                 else FillTable({}, 0))
    finally:
        parts.close()
    positions = table.write(fills_path(ctx), meta={"corpus": crest.corpus,
                                                   "baselines": [g.name for g in generators]})
    metrics = {"corpus": crest.corpus, "baselines": [g.name for g in generators], "sources": len(sources),
               "positions": positions, "fills": sum(len(v) for v in table.rows.values()), "k": table.k,
               "seconds": round(time.perf_counter() - t0, 2)}
    ctx.write_metrics(ctx.path("crest.baselines_metrics") / "fills.json", metrics, "crest_baselines.fills.")
    log.info("baseline fills: %d positions of %d sources in %.1fs", positions, len(sources), metrics["seconds"])
    return metrics


def generate_stage(ctx: StageContext, config: BaselinesConfig, item: str) -> dict[str, Any]:
    """Baseline ``item`` on CREST's sources -> ``<paths.crest.baselines>/<item>/{sources,generated}.jsonl`` and
    ``<paths.crest.baselines_metrics>/<item>/generation.json``. A baseline that substitutes words reads its
    fills from ``crest_baseline_fills``'s table (:func:`fills_path`)."""
    from lingtest.crest.baselines.parts import StageParts
    from lingtest.crest.stages import input_path

    if item not in config.baselines:
        from lingtest.errors import ConfigError

        raise ConfigError(f"baseline {item!r} is not in crest_baselines.baselines {config.baselines}")
    crest = CrestConfig.from_config(ctx.cfg)
    from lingtest.crest.baselines.fills import substitutes_words

    table = None
    if substitutes_words(BASELINES.get(item)):
        table = ctx.require(fills_path(ctx), "crest_baseline_fills")
    parts = StageParts(ctx.cfg, config, fill_table=table)
    try:
        metrics = run_baseline_generate(crest, config, item, parts, out_dir=_dir(ctx, "baselines", item),
                                        metrics_path=_dir(ctx, "baselines_metrics", item) / "generation.json",
                                        input_path=input_path(ctx, crest))
    finally:
        parts.close()
    # crest_baselines.M itself is logged with the config (null means crest.M): the value used is its own param
    ctx.tracker.log_params({"crest_baselines.baseline": item, "crest_baselines.M_used": metrics["M"]})
    ctx.tracker.log_metrics({f"crest_baselines.{item}.{k}": float(metrics[k])
                             for k in ("generated", "seconds", "seconds_per_selected") if metrics.get(k) is not None})
    return metrics


def evaluate_stage(ctx: StageContext, config: BaselinesConfig, item: str) -> dict[str, Any]:
    """Every system of ``crest.systems`` on baseline ``item``'s records -> ``<paths.crest.baselines_metrics>/
    <item>/evaluation.json`` (``{"baseline", "systems": {system: row}}``) and ``<paths.crest.baselines_results>/
    <item>/<system>.jsonl``."""
    from lingtest.crest.suite import load_cases, load_sources
    from lingtest.suite.run import write_results
    from lingtest.systems.coref import TASK
    from lingtest.systems.factory import build_system

    crest = CrestConfig.from_config(ctx.cfg)
    data = _dir(ctx, "baselines", item)
    producer = f"crest_baseline_generate@{item}"
    cases = load_cases(ctx.require(data / "generated.jsonl", producer))
    sources = load_sources(ctx.require(data / "sources.jsonl", producer))
    ctx.require(_dir(ctx, "baselines_metrics", item) / "generation.json", producer)
    rows = {}
    for name in crest.systems:
        system = build_system(ctx.cfg, TASK, name)
        row, res = run_baseline_evaluate(crest, item, system, sources, cases, M=config.M)
        write_results(_dir(ctx, "baselines_results", item) / f"{name}.jsonl", res.results,
                      meta={"technique": "crest", "baseline": item, "system": name, "corpus": crest.corpus})
        rows[name] = row
    out = {"baseline": item, "systems": rows}
    ctx.write_metrics(_dir(ctx, "baselines_metrics", item) / "evaluation.json", out, f"crest_baselines.{item}.")
    return out


def report_stage(ctx: StageContext, config: BaselinesConfig) -> str:
    """CREST (``<paths.crest.metrics>``) against every baseline of ``crest_baselines.baselines`` on every system
    of ``crest.systems`` -> ``<paths.crest.baselines_report>/table1.{md,json}``."""
    from lingtest.crest.stages import system_metrics_path
    from lingtest.data.io import atomic_open, write_json
    from lingtest.metrics.wall_clock import split_wall_clock

    crest = CrestConfig.from_config(ctx.cfg)
    crest_gen = ctx.read_json(ctx.path("crest.metrics") / "generation.json", "crest_generate")
    crest_rows = {s: ctx.read_json(system_metrics_path(ctx, s), f"crest_evaluate@{s}") for s in crest.systems}
    base_rows: dict[str, dict[str, Any]] = {}
    base_gen: dict[str, Any] = {}
    for b in config.baselines:
        d = _dir(ctx, "baselines_metrics", b)
        base_gen[b] = ctx.read_json(d / "generation.json", f"crest_baseline_generate@{b}")
        evaluated = ctx.read_json(d / "evaluation.json", f"crest_baseline_evaluate@{b}")["systems"]
        missing = [s for s in crest.systems if s not in evaluated]
        if missing:
            from lingtest.errors import MissingResourceError

            raise MissingResourceError(f"baseline {b} was not evaluated on {missing}: run crest_baseline_evaluate@{b}")
        base_rows[b] = {s: evaluated[s] for s in crest.systems}
    rows = comparison_rows(crest_rows, crest_gen, base_rows, base_gen)
    out = ctx.path("crest.baselines_report")
    write_json(out / "table1.json", {"rows": [split_wall_clock(r)[0] for r in rows]})
    table = comparison_markdown(rows)
    with atomic_open(out / "table1.md") as fh:
        fh.write(table)
    ctx.tracker.log_artifact(str(out / "table1.md"))
    return table
