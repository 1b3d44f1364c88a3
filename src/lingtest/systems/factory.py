"""``build_system``: the one way every stage gets a system under test.

The ``systems`` config group (``conf/systems/default.yaml``) holds, per task, one entry per system:
the keyword options of its class, plus two keys of lingtest's own: ``kind`` (the registered class,
default: the entry's name; ``predictions`` reads a saved predictions file) and ``batch_size`` (default:
``systems.batch_size`` for the device). Device and batch size are chosen here, once; the result is
always a :class:`~lingtest.systems.cache.CachedSystem` (its prediction cache on when ``systems.cache``).
An option the class does not take is a :class:`~lingtest.errors.ConfigError` naming the key.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

from lingtest.config import to_plain
from lingtest.errors import ConfigError
from lingtest.store import JSONStore
from lingtest.systems import SYSTEMS
from lingtest.systems.base import System
from lingtest.systems.cache import CachedSystem
from lingtest.systems.predictions import PredictionsFile

OWN_KEYS = ("kind", "batch_size")


def system_entry(systems_cfg: Any, task: str, name: str) -> dict[str, Any]:
    scfg = to_plain(systems_cfg) or {}
    entries = scfg.get(task)
    if not isinstance(entries, dict) or name not in entries:
        known = ", ".join(sorted(entries)) if isinstance(entries, dict) else "(none)"
        raise ConfigError(f"systems.{task}.{name} is not configured; configured {task} systems: {known}")
    return dict(entries[name] or {})


def instantiate(task: str, name: str, entry: dict[str, Any], device: str | None = None) -> System[Any, Any]:
    """The system of one config entry (without cache or batching)."""
    options = {k: v for k, v in entry.items() if k not in OWN_KEYS}
    kind = str(entry.get("kind", name))
    if kind == "predictions":
        cls: Any = PredictionsFile
        options = {"task": task, "name": name, **options}
    else:
        cls = SYSTEMS.get(task, kind)
    params = inspect.signature(cls).parameters
    unknown = [k for k in options if k not in params]
    if unknown:
        allowed = ", ".join(p for p in params if p not in ("task", "name", "self"))
        raise ConfigError(f"systems.{task}.{name}: unknown option(s) {', '.join(unknown)} for {kind!r}; "
                          f"allowed: {allowed}")
    if device is not None and "device" in params and options.get("device") in (None, "auto"):
        options["device"] = device
    system = cls(**options)
    system.name = name
    return system


def build_system(cfg: Any, task: str, name: str, *, progress: Any = None) -> CachedSystem:
    """``cfg``: the whole composed config (``systems`` and ``resources.device`` are read)."""
    from lingtest.paths import cache_dir
    from lingtest.resources.device import pick_device

    scfg = to_plain(cfg.get("systems")) or {}
    entry = system_entry(scfg, task, name)
    device = pick_device(str(cfg.resources.device))
    system = instantiate(task, name, entry, device)
    batch = entry.get("batch_size")
    if batch is None:
        batch = scfg["batch_size"]["cuda" if device.startswith("cuda") else "cpu"]
    if not isinstance(batch, int) or isinstance(batch, bool) or batch < 1:
        raise ConfigError(f"systems batch size for {task}/{name} must be a positive integer, got {batch!r}")
    store = None
    if scfg["cache"]:
        where = Path(scfg["cache_dir"]).expanduser() if scfg.get("cache_dir") else cache_dir() / "predictions"
        store = JSONStore(where / f"{task}.sqlite", table="predictions")
    return CachedSystem(system, store, batch_size=batch, progress=progress, device=device)
