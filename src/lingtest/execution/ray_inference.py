"""System inference on Ray: Ray Data ``map_batches`` over a pool of actors.

Each actor builds the system once from its config entry (:class:`SystemSpec`: task, name, entry, device
preference; ``executor.inference.gpus_per_actor: 1`` gives one actor per GPU, else one per CPU slot)
and predicts whole batches: the rows of the dataset are the batches the prediction cache cut (so
length-sorted batching and batch sizes are exactly the local ones), pickled, and each comes back with
its outputs or the exception that stopped it. The driver, which owns the cache, validates and stores
each batch as it arrives (:class:`~lingtest.systems.cache.CachedSystem`), so an interrupted run keeps
what finished and a failing batch stores nothing, as locally.

The cache key holds the system's ``config()`` and ``version`` as an actor builds it
(:meth:`RaySystemRunner.describe`) and the device type of the actors (cuda when they take GPUs), not of
the driver: a head node without a GPU can drive GPU workers.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from lingtest.errors import SystemFailure
from lingtest.execution import init_ray, pool_size
from lingtest.systems.base import System


@dataclass(frozen=True, slots=True)
class SystemSpec:
    """What an actor needs to build a system: the entry of ``systems.<task>.<name>`` and the device
    preference (``resources.device``)."""

    task: str
    name: str
    entry: dict[str, Any]
    device: str

    def build(self, device: str | None = None) -> tuple[System[Any, Any], str]:
        from lingtest.resources.device import pick_device
        from lingtest.systems.entries import instantiate

        dev = device or pick_device(self.device)
        return instantiate(self.task, self.name, self.entry, dev), dev


def describe_system(spec: SystemSpec) -> dict[str, Any]:
    system, dev = spec.build()
    return {"config": system.config(), "version": system.version, "device": dev}


class Described(System[Any, Any]):
    """The driver's view of a system that runs on actors: task, name, config and version only."""

    def __init__(self, spec: SystemSpec, config: dict[str, Any], version: str) -> None:
        self.task = spec.task  # type: ignore[misc]
        self.name = spec.name
        self.version = version  # type: ignore[misc]
        self._config = config

    def config(self) -> dict[str, Any]:
        return self._config

    def predict(self, inputs: list[Any]) -> list[Any]:
        raise SystemFailure(f"system {self.name!r} runs on Ray actors; predict through its CachedSystem")


class BatchPredictor:
    """The Ray Data UDF (one per actor): builds the system once, predicts each row's pickled batch."""

    def __init__(self, spec: SystemSpec) -> None:
        self.system, self.device = spec.build()

    def __call__(self, table: Any) -> Any:
        import pyarrow as pa

        index, out, err = [], [], []
        for i, blob in zip(table.column("index").to_pylist(), table.column("batch").to_pylist(), strict=True):
            index.append(i)
            try:
                out.append(pickle.dumps(self.system.predict(pickle.loads(blob))))
                err.append(b"")
            except Exception as exc:
                out.append(b"")
                try:
                    err.append(pickle.dumps(exc))
                except Exception:
                    err.append(pickle.dumps(SystemFailure(f"{type(exc).__name__}: {exc}")))
        return pa.table({"index": pa.array(index, pa.int64()), "out": pa.array(out, pa.binary()),
                         "err": pa.array(err, pa.binary())})


class RaySystemRunner:
    """A :class:`~lingtest.systems.cache.BatchRunner` that runs batches on a Ray actor pool.
    ``options``: the composed ``executor`` group (``executor=ray``)."""

    def __init__(self, spec: SystemSpec, *, options: dict[str, Any]) -> None:
        self.spec = spec
        self.options = options
        inf = options["inference"]
        self.cpus = float(inf["cpus_per_actor"])
        self.gpus = float(inf["gpus_per_actor"])
        self.device = "cuda" if self.gpus > 0 else "cpu"
        self.ray = init_ray(options)
        self.actors = pool_size(self.ray, options, "inference")
        self.batches_run = 0

    def describe(self) -> Described:
        """The system's config and version as an actor builds it: actors without GPUs build it on the
        CPU, as the driver does here; actors with GPUs are asked (one task with the pool's resources)."""
        if self.gpus == 0:
            system = self.spec.build(device="cpu")[0]
            return Described(self.spec, system.config(), system.version)
        ray = self.ray
        remote = ray.remote(num_cpus=self.cpus, num_gpus=self.gpus)(describe_system)
        d = ray.get(remote.remote(self.spec))
        if self.gpus > 0 and not str(d["device"]).startswith("cuda"):
            raise SystemFailure(f"executor.inference.gpus_per_actor={self.gpus} but the actor picked "
                                f"device {d['device']!r}: set resources.device to auto or cuda")
        return Described(self.spec, d["config"], d["version"])

    def run(self, batches: Sequence[list[Any]]) -> Iterator[tuple[int, list[Any]]]:
        if not batches:
            return
        import sys

        ray = self.ray
        ray.data.DataContext.get_current().enable_progress_bars = sys.stderr.isatty()  # quiet in logs
        rows = [{"index": i, "batch": pickle.dumps(b)} for i, b in enumerate(batches)]
        ds = ray.data.from_items(rows, override_num_blocks=len(rows))
        ds = ds.map_batches(BatchPredictor, fn_constructor_kwargs={"spec": self.spec}, batch_size=1,
                            batch_format="pyarrow", compute=ray.data.ActorPoolStrategy(
                                size=min(self.actors, len(rows))),
                            num_cpus=self.cpus, num_gpus=self.gpus)
        for table in ds.iter_batches(batch_size=None, batch_format="pyarrow"):
            for i, out, err in zip(table.column("index").to_pylist(), table.column("out").to_pylist(),
                                   table.column("err").to_pylist(), strict=True):
                if err:
                    raise pickle.loads(err)
                self.batches_run += 1
                yield int(i), pickle.loads(out)
