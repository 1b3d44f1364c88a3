"""CREST stage bodies: ``generate`` (sources -> follow-ups -> suite), ``evaluate`` (one system or
all configured ones -> ``metrics/crest/<system>.json``) and ``ablation`` (M x selection ->
``metrics/crest/ablation.{json,md,png}``).

DVC entry points: ``stages/crest_generate.py``, ``stages/crest_evaluate.py [system]``,
``stages/crest_ablation.py``. All knobs are in ``conf/crest/default.yaml`` (``cfg.crest``); the
parser comes from the ``parser`` group, the causal LM from ``resources.lm``, systems from
``systems``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lingtest.crest import ORACLES
from lingtest.crest.candidates import get_proposer
from lingtest.crest.candidates.rank import LMRanker
from lingtest.crest.evaluate import evaluate_system, summarize
from lingtest.crest.generate import FollowUp, GenerationStats, Generator, MemoParser, Source
from lingtest.crest.report import ablation_markdown, plot_ablation, table1_markdown
from lingtest.crest.sources import load_documents, sample_sources, sentence_sources
from lingtest.crest.suite import build_suite, load_generated, write_sources, write_suite
from lingtest.data.io import atomic_open, write_json
from lingtest.errors import MissingResourceError
from lingtest.paths import cache_dir, project_root
from lingtest.config import to_plain
from lingtest.progress import progress

log = logging.getLogger(__name__)


def _get(cfg: Any, key: str, default: Any = None) -> Any:
    try:
        v = cfg.get(key, default)
    except AttributeError:
        return default
    return default if v is None else v


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
                    left_window=rc.get("left_window"), shared_prefix=bool(rc.get("shared_prefix", True)))


def build_generator(cfg: Any, parser: Any, proposers: Sequence[Any], ranker: Any, M: int) -> Generator:
    c = cfg.crest
    return Generator(parser, proposers, ranker, M=int(M), order=str(c.order),
                     parse_chunk=int(c.parse_chunk), relations=list(c.relations),
                     copula_complements=list(c.copula_complements))


def build_system(cfg: Any, name: str) -> Any:
    from lingtest.systems import get_system

    systems_cfg = to_plain(cfg.get("systems")) or {}
    options = dict(systems_cfg.get(name) or {}) if isinstance(systems_cfg, dict) else {}
    system = get_system(name, **options)
    if cfg.crest.get("cache_predictions", False):
        from lingtest.systems.coref.base import CachedSystem

        system = CachedSystem(system, cache_dir() / "predictions" / "crest")
    return system


def build_oracle(ccfg: Any) -> Any:
    oc = dict(to_plain(ccfg.oracle))
    return ORACLES.get(oc.pop("name", "blanc"))(**oc)


# ---- library-level drivers --------------------------------------------------------------------
def prepare_sources(docs: Sequence[Any], ccfg: Any, parser: Any) -> list[Source]:
    """Sentence sources, sampled, parsed in one batch (clusters untouched)."""
    from lingtest.parsing.base import merge_parse

    pool = sentence_sources(docs, min_mentions=int(ccfg.min_mentions), min_tokens=int(ccfg.min_tokens),
                            max_tokens=int(ccfg.max_tokens))
    n = ccfg.get("N")
    picked = sample_sources(pool, None if n is None else int(n), int(ccfg.seed))
    parsed = parser.parse([d.sentences[0].words for d in picked])
    for d, p in zip(picked, parsed):
        d.sentences[0] = merge_parse(d.sentences[0], p)
    return [Source.from_document(d) for d in picked]


def generate_all(sources: Sequence[Source], generator: Generator, select: bool = True,
                 show_progress: bool = True, batch_sources: int = 1) -> tuple[dict[str, list[FollowUp]], GenerationStats]:
    """Follow-ups of every source, ``batch_sources`` sources at a time in lockstep
    (:meth:`Generator.generate_many`: their LM ranking and parsing are batched together)."""
    stats = GenerationStats()
    out: dict[str, list[FollowUp]] = {}
    n = max(1, int(batch_sources))
    waves = [list(sources[i:i + n]) for i in range(0, len(sources), n)]
    it = progress(waves, f"CREST generate ({n} sources per step)") if show_progress else waves
    for wave in it:
        fus, st = generator.generate_many(wave, select=select)
        for s, f in zip(wave, fus):
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


def _root_path(p: str) -> Path:
    path = Path(p)
    return path if path.is_absolute() else project_root() / path


# ---- stage bodies -------------------------------------------------------------------------------
def generate(cfg: Any, tracker: Any) -> dict[str, Any]:
    """Sources from the prepared test split -> parsed -> follow-ups (Algorithms 1-3) ->
    ``outputs.generated`` (every follow-up up to max(crest.M, crest.ablation.M), with parses) and the released
    suite ``outputs.suite`` (selected follow-ups within crest.M)."""
    c = cfg.crest
    inp = _root_path(c.input)
    if not inp.exists():
        raise MissingResourceError(f"{inp} not found: run the prepare stage for {c.corpus} first (dvc repro)")
    t0 = time.perf_counter()
    parser = build_parser(cfg)
    sources = prepare_sources(load_documents(inp), c, parser)
    m_gen = max([int(c.M), *[int(m) for m in c.ablation.M]])
    gen = build_generator(cfg, parser, build_proposers(c), build_ranker(cfg), m_gen)
    followups, stats = generate_all(sources, gen, select=bool(c.select),
                                     batch_sources=int(c.get("batch_sources", 1)))
    seconds = time.perf_counter() - t0
    n_gen = write_suite(_root_path(c.outputs.generated), build_suite(sources, followups, only_selected=False,
                                                                      full=True),
                        meta={"corpus": c.corpus, "seed": int(c.seed), "M": m_gen, "full": True})
    write_sources(_root_path(c.outputs.sources), sources, meta={"corpus": c.corpus, "seed": int(c.seed)})
    suite = build_suite(sources, followups, only_selected=bool(c.select), M=int(c.M))
    write_suite(_root_path(c.outputs.suite), suite, meta={"corpus": c.corpus, "seed": int(c.seed),
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
        "parser_calls": parser.calls, "parse_memo_hits": parser.hits,
        "lm_texts_scored": getattr(gen.ranker, "texts_scored", 0),
        "candidate_survival": survival(stats), "stats": stats.to_dict(),
    }
    out_dir = _root_path(c.outputs.metrics_dir)
    write_json(out_dir / "generation.json", metrics)
    tracker.log_params({"crest.N": c.N, "crest.M": c.M, "crest.seed": c.seed,
                        "crest.proposers": ",".join(c.proposers.enabled), "crest.ranker": bool(c.ranker.enabled)})
    tracker.log_metrics(_flat_metrics("crest.", {k: v for k, v in metrics.items() if k != "stats"}))
    tracker.log_artifact(str(out_dir / "generation.json"))
    log.info("CREST: %d sources, %d generated, %d selected in %.1fs", len(sources), len(within), n_sel, seconds)
    return metrics


def _generation_seconds_per_selected(c: Any) -> float | None:
    """Generation seconds per selected follow-up, from the generate stage's metrics."""
    import json

    p = _root_path(c.outputs.metrics_dir) / "generation.json"
    if not p.exists():
        return None
    return json.loads(p.read_text(encoding="utf-8")).get("seconds_per_selected")


def evaluate(cfg: Any, tracker: Any, item: str | None = None) -> dict[str, dict[str, Any]]:
    """Run each system (``item`` or ``crest.systems``) on the generated pairs; write
    ``metrics/crest/<system>.json`` and ``metrics/crest/table1.md``."""
    c = cfg.crest
    sources, followups = load_generated(_root_path(c.outputs.generated), _root_path(c.outputs.sources))
    m = int(c.M)
    followups = {k: [f for f in v if f.order < m] for k, v in followups.items()}  # the file holds up to max(ablation M)
    n_generated = sum(len(v) for v in followups.values())
    oracle = build_oracle(c)
    names = [item] if item else list(c.systems)
    out_dir = _root_path(c.outputs.metrics_dir)
    rows: dict[str, dict[str, Any]] = {}
    gen_s = _generation_seconds_per_selected(c)
    for name in names:
        system = build_system(cfg, name)
        res = evaluate_system(system, sources, followups, oracle, batch_size=int(c.batch_size),
                              only_selected=bool(c.select))
        row = {"system": name, **summarize(res, int(c.M), bool(c.select), gen_s),
               "predict_seconds": round(res.predict_seconds, 2)}
        row["generated"] = n_generated  # before selection (only selected pairs were predicted)
        write_json(out_dir / f"{name}.json", row)
        tracker.log_metrics(_flat_metrics(f"crest.{name}.", row))
        tracker.log_artifact(str(out_dir / f"{name}.json"))
        rows[name] = row
    with atomic_open(out_dir / ("table1.md" if not item else f"table1.{item}.md")) as fh:
        fh.write(table1_markdown(list(rows.values())))
    return rows


def ablation(cfg: Any, tracker: Any) -> list[dict[str, Any]]:
    """Table 3: every (M, selection) of ``crest.ablation`` from one set of predictions."""
    c = cfg.crest
    a = c.ablation
    sources, followups = load_generated(_root_path(c.outputs.generated), _root_path(c.outputs.sources))
    system = build_system(cfg, str(a.system))
    res = evaluate_system(system, sources, followups, build_oracle(c), batch_size=int(c.batch_size),
                          only_selected=False)
    rows = [summarize(res, int(m), bool(sel)) for sel in a.select for m in a.M]
    out_dir = _root_path(c.outputs.metrics_dir)
    write_json(out_dir / "ablation.json", {"system": str(a.system), "rows": rows})
    with atomic_open(out_dir / "ablation.md") as fh:
        fh.write(ablation_markdown(rows, str(a.system)))
    plot_ablation(rows, out_dir / "ablation.png", title=f"CREST ablation ({a.system})")
    for r in rows:
        tag = f"crest.ablation.M{r['M']}.{'sel' if r['select'] else 'nosel'}."
        tracker.log_metrics({tag + k: float(r[k]) for k in ("tests", "issues", "hits", "precision")})
    for f in ("ablation.json", "ablation.md", "ablation.png"):
        tracker.log_artifact(str(out_dir / f))
    return rows
