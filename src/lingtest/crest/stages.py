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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lingtest.config import to_plain
from lingtest.crest.generate import FollowUp, GenerationStats, Generator, MemoParser, Source
from lingtest.crest.sources import load_documents, sample_sources, sentence_sources
from lingtest.crest.suite import build_suite, write_sources, write_suite
from lingtest.data.io import write_json
from lingtest.errors import MissingResourceError
from lingtest.paths import configured_paths, repo_path
from lingtest.progress import progress
from lingtest.resources.candidates import get_proposer
from lingtest.resources.candidates.rank import LMRanker

log = logging.getLogger(__name__)


# ---- component factories (also used by bench/bench_crest.py) ------------------------------------
def build_parser(cfg: Any) -> MemoParser:
    """The configured parser (``cfg.parser``, default spaCy), behind the shared on-disk parse cache
    when ``cache`` is on, and always behind an in-memory memo."""
    from lingtest.parsing.cache import build_parser as build_cached_parser

    return MemoParser(build_cached_parser(to_plain(cfg.get("parser")) or {"name": "spacy"}))


def build_proposers(ccfg: Any) -> list[Any]:
    pc = ccfg.proposers
    return [get_proposer(name, **dict(to_plain(pc.get(name)) or {})) for name in pc.enabled]


def build_ranker(cfg: Any, scorer: Any = None) -> LMRanker | None:
    rc = cfg.crest.ranker
    if not rc.enabled:
        return None
    from lingtest.resources.lm import resolve_threads

    threads = resolve_threads(rc.get("threads"))
    if threads is not None:
        import torch

        torch.set_num_threads(threads)
        log.info("CREST ranker: %d torch thread(s) (crest.ranker.threads=%s)", threads, rc.get("threads"))
    if scorer is None:
        from omegaconf import OmegaConf

        from lingtest.resources.lm import scorer_from_config

        res = cfg.resources
        if rc.get("dtype"):  # the ranker's own compute precision (e.g. bfloat16 on a CPU)
            res = OmegaConf.merge(res, {"lm": {"dtype": str(rc.dtype)}})
        scorer = scorer_from_config(res)
    return LMRanker(scorer, threshold=float(rc.threshold), include_original=bool(rc.include_original),
                    filter_sources=list(rc.filter_sources), window=rc.get("window"),
                    left_window=rc.get("left_window"), shared_prefix=bool(rc.shared_prefix))


def build_generator(cfg: Any, parser: Any, proposers: Sequence[Any], ranker: Any, M: int) -> Generator:
    c = cfg.crest
    return Generator(parser, proposers, ranker, M=int(M), order=str(c.order),
                     parse_chunk=int(c.parse_chunk), relations=list(c.relations),
                     copula_complements=list(c.copula_complements))


# ---- library-level drivers --------------------------------------------------------------------
def prepare_sources(docs: Sequence[Any], ccfg: Any, parser: Any) -> list[Source]:
    """Sentence sources, sampled, parsed in one batch (clusters untouched)."""
    from lingtest.parsing.base import merge_parse

    pool = sentence_sources(docs, min_mentions=int(ccfg.min_mentions), min_tokens=int(ccfg.min_tokens),
                            max_tokens=int(ccfg.max_tokens))
    n = ccfg.get("N")
    picked = sample_sources(pool, None if n is None else int(n), int(ccfg.seed))
    parsed = parser.parse([d.sentences[0].words for d in picked])
    for d, p in zip(picked, parsed, strict=True):
        d.sentences[0] = merge_parse(d.sentences[0], p)
    return [Source.from_document(d) for d in picked]


def generate_all(sources: Sequence[Source], generator: Generator, select: bool = True,
                 show_progress: bool = True,
                 batch_sources: int = 1) -> tuple[dict[str, list[FollowUp]], GenerationStats]:
    """Follow-ups of every source, ``batch_sources`` sources at a time in lockstep
    (:meth:`Generator.generate_many`: their LM ranking and parsing are batched together)."""
    stats = GenerationStats()
    out: dict[str, list[FollowUp]] = {}
    n = max(1, int(batch_sources))
    waves = [list(sources[i:i + n]) for i in range(0, len(sources), n)]
    it = progress(waves, f"CREST generate ({n} sources per step)") if show_progress else waves
    for wave in it:
        fus, st = generator.generate_many(wave, select=select)
        for s, f in zip(wave, fus, strict=True):
            out[s.id] = f
        stats.merge(st)
    return out, stats


def survival(stats: GenerationStats) -> dict[str, dict[str, int]]:
    """Per candidate source: proposed -> after LM filter -> constituent check -> selection."""
    names = sorted(set(stats.proposed) | set(stats.ranked) | set(stats.constituent_ok))
    return {n: {"proposed": stats.proposed.get(n, 0), "ranked": stats.ranked.get(n, 0),
                "constituent_ok": stats.constituent_ok.get(n, 0), "selected": stats.selected.get(n, 0)}
            for n in names}


def _flat_metrics(prefix: str, d: dict[str, Any]) -> dict[str, float]:
    out: dict[str, float] = {}
    for k, v in d.items():
        if isinstance(v, bool):
            out[f"{prefix}{k}"] = float(v)
        elif isinstance(v, (int, float)):
            out[f"{prefix}{k}"] = float(v)
        elif isinstance(v, dict):
            out.update(_flat_metrics(f"{prefix}{k}.", v))
    return out



def crest_paths(cfg: Any) -> dict[str, Path]:
    """``cfg.paths.crest`` (sources, generated, suite, metrics, results) as absolute paths."""
    return configured_paths(cfg.paths.crest)


def input_path(cfg: Any) -> Path:
    c = cfg.crest
    return repo_path(str(cfg.paths.prepared)) / str(c.corpus) / f"{c.split}.jsonl"


# ---- stage bodies -------------------------------------------------------------------------------
def generate_stage(cfg: Any, tracker: Any) -> dict[str, Any]:
    """Sources from the prepared test split -> parsed -> follow-ups (Algorithms 1-3) ->
    ``paths.crest.generated`` (every follow-up up to max(crest.M, crest.ablation.M), with parses) and the
    released suite ``paths.crest.suite`` (selected follow-ups within crest.M)."""
    c = cfg.crest
    paths = crest_paths(cfg)
    inp = input_path(cfg)
    if not inp.exists():
        raise MissingResourceError(f"{inp} not found: run the prepare stage for {c.corpus} first (dvc repro)")
    t0 = time.perf_counter()
    parser = build_parser(cfg)
    sources = prepare_sources(load_documents(inp), c, parser)
    m_gen = max([int(c.M), *[int(m) for m in c.ablation.M]])
    from lingtest.execution import executor_options

    ex = executor_options(cfg)
    if ex["name"] == "ray":  # the same waves of sources on a pool of generator actors (same follow-ups)
        from lingtest.execution.ray_crest import generate_on_ray

        followups, stats, counters = generate_on_ray(cfg, sources, M=m_gen, select=bool(c.select),
                                                     batch_sources=int(c.batch_sources), options=ex)
        counters["parser_calls"] += parser.calls
        counters["parse_memo_hits"] += parser.hits
    else:
        gen = build_generator(cfg, parser, build_proposers(c), build_ranker(cfg), m_gen)
        followups, stats = generate_all(sources, gen, select=bool(c.select),
                                         batch_sources=int(c.batch_sources))
        counters = {"parser_calls": parser.calls, "parse_memo_hits": parser.hits,
                    "lm_texts_scored": getattr(gen.ranker, "texts_scored", 0)}
    seconds = time.perf_counter() - t0
    n_gen = write_suite(paths["generated"], build_suite(sources, followups, only_selected=False,
                                                                      full=True),
                        meta={"corpus": c.corpus, "seed": int(c.seed), "M": m_gen, "full": True})
    write_sources(paths["sources"], sources, meta={"corpus": c.corpus, "seed": int(c.seed)})
    suite = build_suite(sources, followups, only_selected=bool(c.select), M=int(c.M))
    write_suite(paths["suite"], suite, meta={"corpus": c.corpus, "seed": int(c.seed),
                                                           "M": int(c.M)})
    within = [f for fs in followups.values() for f in fs if f.order < int(c.M)]
    n_sel = sum(f.selected for f in within)
    n_sel_all = sum(f.selected for fs in followups.values() for f in fs)
    metrics = {
        "corpus": str(c.corpus), "sources": len(sources), "generated": len(within), "selected": n_sel,
        "suite_size": len(suite), "generated_all": n_gen, "M_generated": m_gen,
        "seconds": round(seconds, 2),
        "selected_all": n_sel_all,
        # wall time of the whole generation (load, parse, propose, rank, check, select) per selected
        # follow-up generated (up to M_generated per source)
        "seconds_per_selected": round(seconds / n_sel_all, 4) if n_sel_all else None,
        **counters,
        "candidate_survival": survival(stats), "stats": stats.to_dict(),
    }
    out_dir = paths["metrics"]
    write_json(out_dir / "generation.json", metrics)
    tracker.log_params({"crest.N": c.N, "crest.M": c.M, "crest.seed": c.seed,
                        "crest.proposers": ",".join(c.proposers.enabled), "crest.ranker": bool(c.ranker.enabled)})
    tracker.log_metrics(_flat_metrics("crest.", {k: v for k, v in metrics.items() if k != "stats"}))
    tracker.log_artifact(str(out_dir / "generation.json"))
    log.info("CREST: %d sources, %d generated, %d selected in %.1fs", len(sources), len(within), n_sel, seconds)
    return metrics




def _system_metrics_path(cfg: Any, system: str) -> Path:
    return crest_paths(cfg)["metrics"] / "systems" / f"{system}.json"


def evaluate_stage(cfg: Any, tracker: Any, item: str) -> dict[str, Any]:
    """Run system ``item`` on the generated cases within crest.M (selected ones when crest.select);
    write ``<paths.crest.metrics>/<item>.json`` and the result records ``<paths.crest.results>/<item>.jsonl``."""
    from lingtest.crest.evaluate import evaluate_system, select_cases, summarize
    from lingtest.crest.suite import load_cases, load_sources
    from lingtest.suite.run import write_results
    from lingtest.systems.coref import TASK
    from lingtest.systems.factory import build_system

    c = cfg.crest
    paths = crest_paths(cfg)
    m = int(c.M)
    cases = select_cases(load_cases(paths["generated"]), m)  # the file holds up to max(ablation M)
    used = select_cases(cases, m, bool(c.select))
    system = build_system(cfg, TASK, item)
    res = evaluate_system(system, load_sources(paths["sources"]), used, to_plain(c.oracle))
    row = {"system": item, **summarize(res, m, bool(c.select)), "predict_seconds": round(res.predict_seconds, 2)}
    row["generated"] = len(cases)  # before selection (only selected pairs were predicted)
    write_json(_system_metrics_path(cfg, item), row)
    write_results(paths["results"] / f"{item}.jsonl", res.results,
                  meta={"technique": "crest", "system": item, "corpus": str(c.corpus)})
    tracker.set_tags({"system": item, "corpus": str(c.corpus)})
    tracker.log_metrics(_flat_metrics(f"crest.{item}.", row))
    tracker.log_artifact(str(_system_metrics_path(cfg, item)))
    return row


def report_stage(cfg: Any, tracker: Any) -> str:
    """Table 1 over every evaluated system (``crest.systems``), with the generation time per selected
    follow-up from the generate stage -> ``<paths.crest.metrics>/table1.md``."""
    import json

    from lingtest.crest.report import table1_markdown
    from lingtest.data.io import atomic_open

    paths = crest_paths(cfg)
    gen = json.loads((paths["metrics"] / "generation.json").read_text(encoding="utf-8"))
    rows = []
    for name in cfg.crest.systems:
        p = _system_metrics_path(cfg, str(name))
        if not p.exists():
            raise MissingResourceError(f"{p} not found: run crest_evaluate@{name} first (dvc repro)")
        row = json.loads(p.read_text(encoding="utf-8"))
        if gen.get("seconds_per_selected") is not None:
            row["seconds_per_selected"] = gen["seconds_per_selected"]
        rows.append(row)
    table = table1_markdown(rows)
    with atomic_open(paths["metrics"] / "table1.md") as fh:
        fh.write(table)
    tracker.log_artifact(str(paths["metrics"] / "table1.md"))
    return table


def ablation_stage(cfg: Any, tracker: Any, item: str) -> list[dict[str, Any]]:
    """Table 3 for system ``item``: every (M, selection) of ``crest.ablation`` from one set of predictions,
    written to ``<paths.crest.metrics>/ablation/<item>.{json,md,png}``."""
    from lingtest.crest.evaluate import evaluate_system, summarize
    from lingtest.crest.report import ablation_markdown, plot_ablation
    from lingtest.crest.suite import load_cases, load_sources
    from lingtest.data.io import atomic_open
    from lingtest.systems.coref import TASK
    from lingtest.systems.factory import build_system

    c = cfg.crest
    a = c.ablation
    paths = crest_paths(cfg)
    system = build_system(cfg, TASK, item)
    res = evaluate_system(system, load_sources(paths["sources"]), load_cases(paths["generated"]), to_plain(c.oracle))
    rows = [summarize(res, int(m), bool(sel)) for sel in a.select for m in a.M]
    out_dir = paths["metrics"] / "ablation"
    out_dir.mkdir(parents=True, exist_ok=True)
    files = [out_dir / f"{item}.{ext}" for ext in ("json", "md", "png")]
    write_json(files[0], {"system": item, "rows": rows})
    with atomic_open(files[1]) as fh:
        fh.write(ablation_markdown(rows, item))
    plot_ablation(rows, files[2], title=f"CREST ablation ({item})")
    for r in rows:
        tag = f"crest.ablation.{item}.M{r['M']}.{'sel' if r['select'] else 'nosel'}."
        tracker.log_metrics({tag + k: float(r[k]) for k in ("tests", "issues", "hits", "precision")})
    for f in files:
        tracker.log_artifact(str(f))
    return rows
