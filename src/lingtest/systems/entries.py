"""System entries of the ``systems`` config group and the system each one describes.

An entry holds the keyword options of its class plus keys of lingtest's own (:data:`OWN_KEYS`):
``kind`` (the registered class, default: the entry's name; or one of the :data:`GENERIC_KINDS` every
task takes), ``batch_size`` and ``workers`` (processes that predict its batches at once).
:func:`instantiate` builds the bare system of an entry (no cache, no batching);
:func:`lingtest.systems.factory.build_system` adds device, batching, cache and executor. Pure: nothing
here imports an executor.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from lingtest.config import to_plain
from lingtest.errors import ConfigError
from lingtest.registry import check_options
from lingtest.systems import SYSTEMS
from lingtest.systems.base import System

OWN_KEYS = ("kind", "batch_size", "workers")
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


def entry_workers(entry: Mapping[str, Any], where: str) -> int:
    """The entry's ``workers`` (absent or null: 1), a positive integer."""
    value = entry.get("workers")
    if value is None:
        return 1
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ConfigError(f"{where} must be a positive integer, got {value!r}")
    return value


def system_entry(systems_cfg: Mapping[str, Any], task: str, name: str) -> dict[str, Any]:
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
    check_options(cls, options, f"systems.{task}.{name} (kind {kind!r})")
    params = inspect.signature(cls).parameters
    if device is not None and "device" in params and options.get("device") in (None, "auto"):
        options["device"] = device
    system = cls(**options)
    system.name = name
    return system
