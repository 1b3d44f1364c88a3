"""Test-case generation on Ray, partitioned by source: the part every technique shares.

A technique's local loop cuts its sources into ordered chunks whose results do not depend on one
another (CREST: lockstep waves of ``crest.batch_sources``; TIN: waves of ``tin.batch_sources``; S2LCT:
the expansion's chunks of found sentences; ContraPro: runs of examples, each attacked on its own).
:func:`map_chunks` runs each chunk as one call on a pool of :class:`ChunkWorker` actors and returns the
results in chunk order, so the driver merges them exactly as the local loop does and the suite has the
same bytes. A chunk holds what it holds locally, so model batches (whose floats can depend on their
composition in the last digits) are the same.

Each actor builds its components once with a *builder*: a top-level function or class (or its
``"module:function"`` path) called as ``builder(cfg, *args)`` with the composed config as plain dicts,
returning the *work*, a callable ``chunk -> result``, optionally with ``counters() -> dict[str, int]``
(parser calls, LM texts scored, ...; summed over the actors). Ray sends functions and classes by
reference, so the builder runs the technique's own component factories inside the actor.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from lingtest.errors import ConfigError
from lingtest.execution import init_ray, pool_options, pool_size

T = TypeVar("T")
#: ``builder(cfg, *args) -> work``; ``work(chunk) -> result``
Builder = Callable[..., Callable[[list[Any]], Any]]


def chunked(items: Sequence[T], size: int | None) -> list[list[T]]:
    """Consecutive chunks of ``size`` items (``None``: one chunk of all); an empty sequence is one empty
    chunk, so the work runs once, as a local loop over one batch would."""
    if size is None:
        return [list(items)]
    if int(size) < 1:
        raise ConfigError(f"a chunk size must be >= 1 or null, got {size}")
    n = int(size)
    return [list(items[i:i + n]) for i in range(0, len(items), n)] or [[]]


def split_evenly(items: Sequence[T], parts: int) -> list[list[T]]:
    """``items`` as at most ``parts`` consecutive chunks whose sizes differ by one at most (at least one
    chunk, empty for an empty sequence)."""
    k = max(1, min(int(parts), len(items)))
    q, r = divmod(len(items), k)
    bounds = [i * q + min(i, r) for i in range(k + 1)]
    return [list(items[bounds[i]:bounds[i + 1]]) for i in range(k)]


def resolve_builder(builder: str | Builder) -> Builder:
    """A builder given as a callable, or as ``"package.module:function"``."""
    if callable(builder):
        return builder
    mod, sep, name = str(builder).partition(":")
    if not sep or not mod or not name:
        raise ConfigError(f"a worker builder must be 'package.module:function', got {builder!r}")
    try:
        obj = getattr(importlib.import_module(mod), name)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"cannot import the worker builder {builder!r}: {exc}") from exc
    if not callable(obj):
        raise ConfigError(f"the worker builder {builder!r} is not callable")
    return obj  # type: ignore[no-any-return]


class ChunkWorker:
    """One generator actor: the technique's work, built once from the config; one call per chunk."""

    def __init__(self, builder: str | Builder, cfg: Any, args: Sequence[Any]) -> None:
        self.work = resolve_builder(builder)(cfg, *args)

    def run(self, chunk: list[Any]) -> Any:
        return self.work(chunk)

    def counters(self) -> dict[str, int]:
        get = getattr(self.work, "counters", None)
        return {str(k): int(v) for k, v in get().items()} if get is not None else {}


def pool_actors(options: dict[str, Any], part: str) -> int:
    """The actors a :func:`map_chunks` pool of ``executor.<part>`` gets (Ray initialised), before capping
    at the number of chunks: for callers that cut one chunk per actor."""
    return pool_size(init_ray(options), options, part)


def map_chunks(builder: str | Builder, cfg: Any, chunks: Sequence[list[Any]], *, options: dict[str, Any],
               part: str, args: Sequence[Any] = (), desc: str | None = None) -> tuple[list[Any], dict[str, int]]:
    """``[work(chunk) for chunk in chunks]`` on a pool of :class:`ChunkWorker` actors (``executor.<part>``:
    actors, CPUs and GPUs per actor; never more actors than chunks), in chunk order, plus the actors'
    summed ``counters()``. ``cfg`` travels as plain dicts; ``desc``: a progress bar. No chunks: no actors."""
    if not chunks:
        return [], {}
    from ray.util import ActorPool

    from lingtest.config import to_plain
    from lingtest.progress import progress

    ray = init_ray(options)
    block = pool_options(options, part)
    size = max(1, min(pool_size(ray, options, part), len(chunks)))
    Worker = ray.remote(num_cpus=float(block["cpus_per_actor"]), num_gpus=float(block["gpus_per_actor"]))(ChunkWorker)
    plain = to_plain(cfg)
    actors = [Worker.remote(builder, plain, tuple(args)) for _ in range(size)]
    try:
        it: Any = ActorPool(actors).map(lambda a, c: a.run.remote(c), list(chunks))  # in chunk order
        if desc is not None:
            it = progress(it, f"{desc} ({size} actors, {len(chunks)} chunks)", total=len(chunks))
        results = list(it)
        counters: dict[str, int] = {}
        for c in ray.get([a.counters.remote() for a in actors]):
            for k, v in c.items():
                counters[k] = counters.get(k, 0) + int(v)
    finally:
        for a in actors:
            ray.kill(a)
    return results, counters


def as_config(cfg: Any) -> Any:
    """The config as an OmegaConf node: a builder gets plain dicts on an actor and the composed config when
    the local loop calls it."""
    from omegaconf import OmegaConf

    return cfg if OmegaConf.is_config(cfg) else OmegaConf.create(cfg)
