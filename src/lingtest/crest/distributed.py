"""CREST test-case generation on Ray, partitioned by source (:mod:`lingtest.execution.ray_generate`).

The local path (:func:`lingtest.crest.components.generate_all`) generates the sources in lockstep waves
of ``crest.batch_sources``; here each wave is one call on a pool of generator actors (each builds the
parser, proposers and LM ranker once, as the local stage does: :class:`CrestWorker`). A wave holds
exactly the sources it holds locally, so its LM batches and parser calls are the same and the follow-ups
are identical (the LM's probabilities depend on batch composition in their last digits, which is why the
partition is by wave, not by single source). Waves are returned in order, so the suite has the same bytes.

The driver still parses the sources (one batch) and writes the suite; inside an actor the parser runs
without its own worker processes (the actor is the unit of parallelism) and torch uses the actor's
CPUs (``executor.crest.cpus_per_actor``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lingtest.config import Composed
from lingtest.execution import pool_options
from lingtest.execution.ray_generate import map_chunks

COUNTERS = ("parser_calls", "parse_memo_hits", "lm_texts_scored", "lm_fit_removed")


class CrestWorker:
    """One generator actor's work: the configured CREST components, built once; a wave -> its follow-ups
    (one list per source) and stats."""

    def __init__(self, cfg: dict[str, Any], M: int, threads: int, select: bool) -> None:
        from omegaconf import OmegaConf

        from lingtest.crest.components import crest_generator, memo_parser
        from lingtest.crest.config import CrestConfig

        conf: Any = OmegaConf.merge(OmegaConf.create(cfg), {"parser": {"workers": 0},
                                                            "resources": {"lm": {"threads": threads}}})
        config = CrestConfig.from_config(conf)
        self.select = select
        self.parser = memo_parser(conf.parser)
        self.generator = crest_generator(config, conf.resources, self.parser, M)

    def __call__(self, wave: list[Any]) -> tuple[list[list[Any]], Any]:
        return self.generator.generate_many(wave, select=self.select)

    def counters(self) -> dict[str, int]:
        return {"parser_calls": self.parser.calls, "parse_memo_hits": self.parser.hits,
                "lm_texts_scored": int(getattr(self.generator.ranker, "texts_scored", 0)),
                "lm_fit_removed": int(getattr(self.generator.ranker, "fits_removed", 0))}


def generate_on_ray(cfg: Composed, sources: Sequence[Any], *, M: int, select: bool, batch_sources: int,
                    options: dict[str, Any], show_progress: bool = True) -> tuple[dict[str, list[Any]], Any,
                                                                                   dict[str, int]]:
    """``generate_all``'s result (follow-ups by source id, merged stats) computed by a pool of
    :class:`CrestWorker` actors (``executor.crest``), plus the actors' summed parser/LM counters."""
    from lingtest.crest.generate import GenerationStats

    n = max(1, int(batch_sources))
    waves = [list(sources[i:i + n]) for i in range(0, len(sources), n)]
    threads = max(1, int(float(pool_options(options, "crest")["cpus_per_actor"])))
    results, summed = map_chunks(CrestWorker, cfg, waves, options=options, part="crest",
                                 args=(int(M), threads, bool(select)),
                                 desc=f"CREST generate on Ray ({n} sources per step)" if show_progress else None)
    out: dict[str, list[Any]] = {}
    stats = GenerationStats()
    for wave, (fus, st) in zip(waves, results, strict=True):
        for s, f in zip(wave, fus, strict=True):
            out[s.id] = f
        stats.merge(st)
    counters = {k: int(summed.get(k, 0)) for k in COUNTERS}
    return out, stats, counters
