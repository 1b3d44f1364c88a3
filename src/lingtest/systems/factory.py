"""``build_system``: the one way every stage gets a system under test.

The ``systems`` config group (``conf/systems/default.yaml``) holds, per task, one entry per system:
the keyword options of its class, plus two keys of lingtest's own: ``kind`` (the registered class,
default: the entry's name; ``predictions`` reads a saved predictions file) and ``batch_size`` (default:
``systems.batch_size`` for the device). Device and batch size are chosen here, once; the result is
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

import inspect
from pathlib import Path
from typing import Any

from lingtest.config import to_plain
from lingtest.errors import ConfigError
from lingtest.store import JSONStore
from lingtest.systems import SYSTEMS
from lingtest.systems.base import System
from lingtest.systems.cache import CachedSystem

OWN_KEYS = ("kind", "batch_size")
#: kinds every task takes (kind -> class), not registered per task
GENERIC_KINDS = {"predictions": "lingtest.systems.predictions:PredictionsFile",
                 "callable": "lingtest.systems.generic.callable:CallableSystem",
                 "http": "lingtest.systems.generic.http:HTTPSystem"}


def generic_class(kind: str) -> Any:
    import importlib

    mod, _, attr = GENERIC_KINDS[kind].partition(":")
    return getattr(importlib.import_module(mod), attr)


def device_batch_size(value: Any, device: str, where: str) -> int:
    """A batch size given as an integer or by device type (``{cpu: N, cuda: M}``)."""
    if isinstance(value, dict):
        kind = "cuda" if device.startswith(("cuda", "mps")) else "cpu"
        if kind not in value:
            raise ConfigError(f"{where}: no batch size for device {kind!r} in {value!r}")
        value = value[kind]
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ConfigError(f"{where} must be a positive integer, got {value!r}")
    return value


def system_entry(systems_cfg: Any, task: str, name: str) -> dict[str, Any]:
    scfg = to_plain(systems_cfg) or {}
    entries = scfg.get(task)
    if not isinstance(entries, dict) or name not in entries:
        known = ", ".join(sorted(entries)) if isinstance(entries, dict) else "(none)"
        raise ConfigError(f"systems.{task}.{name} is not configured; configured {task} systems: {known}")
    return dict(entries[name] or {})


def with_defaults(systems_cfg: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
    """A ``kind: http``/``callable`` entry over ``systems.generic.<kind>`` (the entry wins)."""
    kind = entry.get("kind")
    defaults = (systems_cfg.get("generic") or {}).get(kind) if kind in GENERIC_KINDS else None
    return {**defaults, **entry} if defaults else entry


def instantiate(task: str, name: str, entry: dict[str, Any], device: str | None = None) -> System[Any, Any]:
    """The system of one config entry (without cache or batching); a generic kind's entry already
    holds its ``systems.generic`` options (:func:`with_defaults`)."""
    options = {k: v for k, v in entry.items() if k not in OWN_KEYS}
    kind = str(entry.get("kind", name))
    if kind in GENERIC_KINDS:  # one implementation for every task
        cls: Any = generic_class(kind)
        options = {"task": task, "name": name, **options}
    else:
        cls = SYSTEMS.get(task, kind)
    params = inspect.signature(cls).parameters
    unknown = [k for k in options if k not in params]
    if unknown:
        allowed = ", ".join(p for p in params if p not in ("task", "name", "self"))
        raise ConfigError(f"systems.{task}.{name}: unknown option(s) {', '.join(unknown)} for {kind!r}; "
                          f"allowed: {allowed}")
    missing = [k for k, p in params.items() if p.default is inspect.Parameter.empty and k not in options
               and p.kind in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    if missing:  # constructors take required keyword-only options: the values live in conf/ only
        raise ConfigError(f"systems.{task}.{name}: option(s) {', '.join(missing)} not given for {kind!r}")
    if device is not None and "device" in params and options.get("device") in (None, "auto"):
        options["device"] = device
    system = cls(**options)
    system.name = name
    return system


def build_system(cfg: Any, task: str, name: str, *, progress: Any = None) -> CachedSystem:
    """``cfg``: the whole composed config (``systems``, ``resources.device`` and ``executor`` are read)."""
    from lingtest.execution import executor_options
    from lingtest.paths import cache_dir
    from lingtest.resources.device import pick_device

    scfg = to_plain(cfg.get("systems")) or {}
    entry = with_defaults(scfg, system_entry(scfg, task, name))
    ex = executor_options(cfg)
    runner = None
    if ex["name"] == "ray":
        from lingtest.execution.ray_inference import RaySystemRunner, SystemSpec

        ray_runner = RaySystemRunner(SystemSpec(task, name, entry, str(cfg.resources.device)), options=ex)
        system: System[Any, Any] = ray_runner.describe()  # config and version as the actors build it
        device = ray_runner.device
        runner = ray_runner
    else:
        device = pick_device(str(cfg.resources.device))
        system = instantiate(task, name, entry, device)
    where = f"systems batch size for {task}/{name}"
    batch = device_batch_size(entry["batch_size"] if entry.get("batch_size") is not None else scfg["batch_size"],
                              device, where)
    store = None
    if scfg["cache"]:
        where_ = Path(scfg["cache_dir"]).expanduser() if scfg.get("cache_dir") else cache_dir() / "predictions"
        store = JSONStore(where_ / f"{task}.sqlite", table="predictions")
    return CachedSystem(system, store, batch_size=batch, progress=progress, device=device,
                        sort_by_length=bool(scfg.get("sort_by_length", False)), runner=runner)
