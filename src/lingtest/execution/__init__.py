"""Where the heavy work runs: the ``executor`` config group (``conf/executor/``).

- ``executor=local`` (the default): everything in the stage's own process, as it always did
  (:class:`lingtest.systems.cache.InProcess` for system inference, each technique's own loop for test-case
  generation). Ray is never imported.
- ``executor=ray``: system inference as Ray Data ``map_batches`` over a pool of actors, each building
  the system once (:mod:`.ray_inference`; the prediction cache stays with the driver, which validates
  and stores each batch as it arrives), and test-case generation partitioned by source, each partition a
  call on a pool of generator actors (:mod:`.ray_generate`; CREST: :mod:`lingtest.crest.distributed`). Results are
  identical to the local executor: the same batches (generation: the same chunks of sources the local
  loop cuts) are computed by the same code, only elsewhere.

:func:`init_ray` connects to a cluster (``executor.address``, else ``$RAY_ADDRESS``) or starts a local
one, with Ray's usage statistics off unless the user set ``RAY_USAGE_STATS_ENABLED``. The group's keys
are checked: an unknown key, or an actor pool block (:data:`POOLS`) with a key missing or unknown, is a
:class:`~lingtest.errors.ConfigError`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from lingtest.config import Composed
from lingtest.errors import ConfigError, MissingResourceError

EXECUTORS = ("local", "ray")
#: the actor pools of ``executor=ray``: system inference, CREST generation, the other techniques' generation
POOLS = ("inference", "crest", "generation")
POOL_KEYS = ("actors", "cpus_per_actor", "gpus_per_actor")
KEYS = ("name", "address", "num_cpus", *POOLS)


def executor_options(cfg: Composed | Mapping[str, Any]) -> dict[str, Any]:
    """The composed ``executor`` group as a plain dict (a partial config without it: local)."""
    from lingtest.config import to_plain

    ex = to_plain(cfg.get("executor")) if hasattr(cfg, "get") else None
    ex = dict(ex or {"name": "local"})
    if ex.get("name") not in EXECUTORS:
        raise ConfigError(f"executor.name must be one of {EXECUTORS}, got {ex.get('name')!r}")
    unknown = sorted(set(ex) - set(KEYS))
    if unknown:
        raise ConfigError(f"executor: unknown key(s) {unknown}; known: {list(KEYS)}")
    return ex


def pool_options(options: dict[str, Any], key: str) -> dict[str, Any]:
    """The actor pool block ``executor.<key>`` (one of :data:`POOLS`), with exactly :data:`POOL_KEYS`."""
    if key not in POOLS:
        raise ValueError(f"no executor pool {key!r}; pools: {POOLS}")
    part = options.get(key)
    if not isinstance(part, dict):
        raise ConfigError(f"executor.{key} is not set: it needs {list(POOL_KEYS)} (conf/executor/ray.yaml)")
    missing, unknown = sorted(set(POOL_KEYS) - set(part)), sorted(set(part) - set(POOL_KEYS))
    if missing or unknown:
        raise ConfigError(f"executor.{key}: missing {missing}, unknown {unknown}; its keys are {list(POOL_KEYS)}")
    return part


def import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise MissingResourceError("executor=ray needs Ray: pip install 'ray[data]'") from exc
    return ray


def init_ray(options: dict[str, Any]) -> Any:
    """Ray, initialised: an existing connection is kept; else ``options['address']`` (or
    ``$RAY_ADDRESS``) is joined, or a local cluster with ``options['num_cpus']`` CPUs is started."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # nothing leaves the machine unasked
    ray = import_ray()
    if not ray.is_initialized():
        address = options.get("address") or os.environ.get("RAY_ADDRESS") or None
        kwargs: dict[str, Any] = {"address": address, "include_dashboard": False, "log_to_driver": True,
                                  "configure_logging": False}
        if address is None and options.get("num_cpus") is not None:
            kwargs["num_cpus"] = int(options["num_cpus"])
        ray.init(**kwargs)
    return ray


def pool_size(ray: Any, options: dict[str, Any], key: str) -> int:
    """Actors in a pool: ``options[key]['actors']`` when set, else as many as the cluster's GPUs (actors
    that take GPUs) or CPU slots hold, at least one."""
    part = pool_options(options, key)
    if part["actors"] is not None:
        n = int(part["actors"])
        if n < 1:
            raise ConfigError(f"executor.{key}.actors must be >= 1 or null, got {n}")
        return n
    res = ray.cluster_resources()
    gpus, cpus = float(part["gpus_per_actor"] or 0), float(part["cpus_per_actor"] or 1)
    if gpus > 0:
        return max(1, int(res.get("GPU", 0) // gpus))
    return max(1, int(res.get("CPU", 1) // cpus))
