"""CREST test-case generation on Ray, partitioned by source.

The local path (:func:`lingtest.crest.stages.generate_all`) generates the sources in lockstep waves
of ``crest.batch_sources``; here each wave is one call on a pool of generator actors (each builds the
parser, proposers and LM ranker once, as the local stage does). A wave holds exactly the sources it
holds locally, so its LM batches and parser calls are the same and the follow-ups are identical (the
LM's probabilities depend on batch composition in their last digits, which is why the partition is
by wave, not by single source). Waves are returned in order, so the suite has the same bytes.

The driver still parses the sources (one batch) and writes the suite; inside an actor the parser runs
without its own worker processes (the actor is the unit of parallelism) and torch uses the actor's
CPUs (``executor.crest.cpus_per_actor``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lingtest.execution import init_ray, pool_size


class CrestWorker:
    """One generator actor: the configured CREST components, built once."""

    def __init__(self, cfg: dict[str, Any], M: int, threads: int) -> None:
        from omegaconf import OmegaConf

        from lingtest.crest.stages import build_generator, build_parser, build_proposers, build_ranker

        conf: Any = OmegaConf.merge(OmegaConf.create(cfg), {"parser": {"workers": 0},
                                                            "crest": {"ranker": {"threads": threads}}})
        self.parser = build_parser(conf)
        self.generator = build_generator(conf, self.parser, build_proposers(conf.crest), build_ranker(conf), M)

    def generate(self, wave: list[Any], select: bool) -> tuple[list[list[Any]], Any]:
        return self.generator.generate_many(wave, select=select)

    def counters(self) -> dict[str, int]:
        return {"parser_calls": self.parser.calls, "parse_memo_hits": self.parser.hits,
                "lm_texts_scored": int(getattr(self.generator.ranker, "texts_scored", 0))}


def generate_on_ray(cfg: Any, sources: Sequence[Any], *, M: int, select: bool, batch_sources: int,
                    options: dict[str, Any], show_progress: bool = True) -> tuple[dict[str, list[Any]], Any,
                                                                                   dict[str, int]]:
    """``generate_all``'s result (follow-ups by source id, merged stats) computed by a pool of
    :class:`CrestWorker` actors, plus the actors' summed parser/LM counters."""
    from ray.util import ActorPool

    from lingtest.config import to_plain
    from lingtest.crest.generate import GenerationStats
    from lingtest.progress import progress

    ray = init_ray(options)
    part = options["crest"]
    cpus, gpus = float(part["cpus_per_actor"]), float(part["gpus_per_actor"])
    n = max(1, int(batch_sources))
    waves = [list(sources[i:i + n]) for i in range(0, len(sources), n)]
    size = max(1, min(pool_size(ray, options, "crest"), len(waves)))
    Worker = ray.remote(num_cpus=cpus, num_gpus=gpus)(CrestWorker)
    plain = to_plain(cfg)
    actors = [Worker.remote(plain, int(M), max(1, int(cpus))) for _ in range(size)]
    pool = ActorPool(actors)
    results = pool.map(lambda a, w: a.generate.remote(w, select), waves)  # in wave order
    if show_progress:
        results = progress(results, f"CREST generate on Ray ({size} actors, {n} sources per step)",
                           total=len(waves))
    out: dict[str, list[Any]] = {}
    stats = GenerationStats()
    for wave, (fus, st) in zip(waves, results, strict=True):
        for s, f in zip(wave, fus, strict=True):
            out[s.id] = f
        stats.merge(st)
    counters: dict[str, int] = {}
    for c in ray.get([a.counters.remote() for a in actors]):
        for k, v in c.items():
            counters[k] = counters.get(k, 0) + int(v)
    for a in actors:
        ray.kill(a)
    return out, stats, counters
