"""CREST's components built from the configuration (``cfg.crest``, ``cfg.parser``, ``cfg.resources``)
and the drivers that run them over many sources: the local stage (:mod:`lingtest.crest.stages`), the
Ray actors (:mod:`lingtest.crest.distributed`) and the benchmarks (``bench/bench_crest.py``) build
the same parser, proposers, LM ranker and generator from here."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from lingtest.crest.config import CrestConfig
from lingtest.crest.generate import FollowUp, GenerationStats, Generator, MemoParser, Source
from lingtest.crest.sources import sample_sources, sentence_sources
from lingtest.progress import progress
from lingtest.resources.candidates import get_proposer, needs_scorer
from lingtest.resources.candidates.rank import LMRanker
from lingtest.resources.naturalness import NaturalnessBound
from lingtest.resources.scores import ScoreGrid

log = logging.getLogger(__name__)


# ---- components from config ---------------------------------------------------------------------
def memo_parser(parser: Any) -> MemoParser:
    """The configured parser (``parser``: the composed ``parser`` section, built by
    :func:`lingtest.parsing.cache.build_parser`) behind an in-memory memo of the sentences seen."""
    from lingtest.parsing.cache import build_parser

    return MemoParser(build_parser(parser))


def build_proposers(config: CrestConfig, resources: Any, scorer: Any = None) -> list[Any]:
    """The enabled candidate proposers, in precedence order, each from its own options; those that score
    round on the grid of ``resources.score_decimals`` (``resources``: the composed ``resources`` section); those
    that run the causal LM (``lm_next``) get ``scorer`` (None: :func:`lm_scorer`)."""
    pc = config.proposers
    grid = ScoreGrid.from_config(resources)
    if scorer is None and any(needs_scorer(name) for name in pc.enabled):
        scorer = lm_scorer(config, resources)
    return [get_proposer(name, grid, scorer, **pc.options(name)) for name in pc.enabled]


def lm_scorer(config: CrestConfig, resources: Any) -> Any:
    """The causal LM of ``resources.lm`` at the ranker's compute precision (``crest.ranker.dtype``, when set),
    with ``resources.lm.threads`` torch threads: the one scorer the ranker, the ``lm_next`` proposer and the
    naturalness bound share."""
    from omegaconf import OmegaConf

    from lingtest.resources.lm import scorer_from_config

    rc = config.ranker
    res = resources
    if rc.dtype:  # the ranker's own compute precision (e.g. bfloat16 on a CPU)
        res = OmegaConf.merge(res, {"lm": {"dtype": str(rc.dtype)}})
    return scorer_from_config(res)


def build_ranker(config: CrestConfig, resources: Any, scorer: Any = None) -> LMRanker | None:
    """The LM ranker of ``crest.ranker`` (None when disabled) over ``scorer`` (None: :func:`lm_scorer`), deciding
    on the grid of ``resources.score_decimals`` (``resources``: the composed ``resources`` section)."""
    rc = config.ranker
    if not rc.enabled:
        return None
    if scorer is None:
        scorer = lm_scorer(config, resources)
    return LMRanker(scorer, grid=ScoreGrid.from_config(resources), threshold=rc.threshold,
                    include_original=rc.include_original, filter_sources=list(rc.filter_sources), window=rc.window,
                    left_window=rc.left_window, shared_prefix=rc.shared_prefix, min_fit=rc.min_fit,
                    fit_sources=list(rc.fit_sources))


def build_naturalness(config: CrestConfig, resources: Any, scorer: Any = None) -> NaturalnessBound | None:
    """The naturalness bound of ``crest.naturalness`` (None when disabled) over ``scorer`` (None:
    :func:`lm_scorer`)."""
    nc = config.naturalness
    if not nc.enabled:
        return None
    if scorer is None:
        scorer = lm_scorer(config, resources)
    return NaturalnessBound(scorer, epsilon=nc.epsilon, weight_min=nc.weight_min, weight_mean=nc.weight_mean,
                            grid=ScoreGrid.from_config(resources), packed=nc.packed)


def build_generator(config: CrestConfig, parser: Any, proposers: Sequence[Any], ranker: Any, M: int,
                    naturalness: NaturalnessBound | None = None) -> Generator:
    """The generator of ``config`` from its parts (:func:`crest_generator` builds them as the stage does)."""
    return Generator(parser, proposers, ranker, naturalness=naturalness, M=int(M), order=config.order,
                     parse_chunk=config.parse_chunk, relations=list(config.relations),
                     copula_complements=list(config.copula_complements))


def crest_generator(config: CrestConfig, resources: Any, parser: Any, M: int) -> Generator:
    """The generator the ``crest_generate`` stage runs: its ranker, ``lm_next`` proposer and naturalness bound
    share one causal-LM scorer (:func:`lm_scorer`, loaded only when one of them is on)."""
    uses_lm = (config.ranker.enabled or config.naturalness.enabled
               or any(needs_scorer(name) for name in config.proposers.enabled))
    scorer = lm_scorer(config, resources) if uses_lm else None
    ranker = build_ranker(config, resources, scorer)
    return build_generator(config, parser, build_proposers(config, resources, scorer), ranker, M,
                           naturalness=build_naturalness(config, resources, scorer))


# ---- drivers over many sources -----------------------------------------------------------------
def prepare_sources(docs: Sequence[Any], config: CrestConfig, parser: Any) -> list[Source]:
    """Sentence sources, sampled, parsed in one batch (clusters untouched)."""
    from lingtest.parsing.base import merge_parse

    pool = sentence_sources(docs, min_mentions=config.min_mentions, min_tokens=config.min_tokens,
                            max_tokens=config.max_tokens)
    picked = sample_sources(pool, config.N, config.seed)
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
    """Per candidate source: proposed -> after the LM ranker (threshold, fit) -> constituent check (within M) ->
    refused by the naturalness bound -> selection."""
    names = sorted(set(stats.proposed) | set(stats.ranked) | set(stats.constituent_ok))
    return {n: {"proposed": stats.proposed.get(n, 0), "ranked": stats.ranked.get(n, 0),
                "constituent_ok": stats.constituent_ok.get(n, 0), "natural_removed": stats.natural_removed.get(n, 0),
                "selected": stats.selected.get(n, 0)}
            for n in names}
