"""``build_system``: the one way every stage gets a system under test.

The ``systems`` config group (``conf/systems/default.yaml``) holds, per task, one entry per system:
the keyword options of its class, plus keys of lingtest's own: ``kind`` (the registered class,
default: the entry's name; ``predictions`` reads a saved predictions file), ``batch_size`` (default:
``systems.batch_size`` for the device) and ``workers`` (default 1: forked processes that predict its batches
at once under the local executor, :class:`~lingtest.execution.forked.ForkedRunner`; for systems that compute
in pure Python on one core). Device and batch size are chosen here, once; the result is
always a :class:`~lingtest.systems.cache.CachedSystem` (its prediction cache on when ``systems.cache``).
An option the class does not take is a :class:`~lingtest.errors.ConfigError` naming the key.

Three kinds work for every task, with one implementation each: ``predictions`` (a saved predictions
file), ``callable`` (a Python function ``package.module:function``, batch in, batch out) and ``http``
(a JSON endpoint); see :mod:`lingtest.systems.generic`. ``batch_size`` (the entry's or
``systems.batch_size``) is an integer or ``{cpu: N, cuda: M}``; ``systems.sort_by_length`` sorts the
misses by length before batching. The ``executor`` config group decides where batches run: here
(``local``) or on Ray actors (``ray``; :mod:`lingtest.execution.ray_inference`), the cache staying with
the caller either way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lingtest.config import Composed, to_plain
from lingtest.store import JSONStore
from lingtest.systems.base import System
from lingtest.systems.cache import BatchRunner, CachedSystem
from lingtest.systems.entries import device_batch_size, entry_workers, instantiate, system_entry, with_defaults


def build_system(cfg: Composed, task: str, name: str, *, progress: Any = None) -> CachedSystem:
    """``cfg``: the whole composed config (``systems``, ``resources.device`` and ``executor`` are read)."""
    from lingtest.execution import executor_options
    from lingtest.paths import cache_dir
    from lingtest.resources.device import pick_device

    scfg = to_plain(cfg.get("systems")) or {}
    entry = with_defaults(scfg, system_entry(scfg, task, name))
    ex = executor_options(cfg)
    runner: BatchRunner | None = None
    if ex["name"] == "ray":
        from lingtest.execution.ray_inference import RaySystemRunner, SystemSpec

        ray_runner = RaySystemRunner(SystemSpec(task, name, entry, str(cfg.resources.device)), options=ex)
        system: System[Any, Any] = ray_runner.describe()  # config and version as the actors build it
        device = ray_runner.device
        runner = ray_runner
    else:
        device = pick_device(str(cfg.resources.device))
        system = instantiate(task, name, entry, device)
        workers = entry_workers(entry, f"systems.{task}.{name}.workers")
        if workers > 1:
            from lingtest.execution.forked import ForkedRunner

            runner = ForkedRunner(system, workers)
    where = f"systems batch size for {task}/{name}"
    batch = device_batch_size(entry["batch_size"] if entry.get("batch_size") is not None else scfg["batch_size"],
                              device, where)
    store = None
    if scfg["cache"]:
        where_ = Path(scfg["cache_dir"]).expanduser() if scfg.get("cache_dir") else cache_dir() / "predictions"
        store = JSONStore(where_ / f"{task}.sqlite", table="predictions")
    return CachedSystem(system, store, batch_size=batch, progress=progress, device=device,
                        sort_by_length=bool(scfg.get("sort_by_length", False)), runner=runner)
