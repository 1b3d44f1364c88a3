"""The one wrapper every stage puts around a system under test: batching and a prediction cache.

The cache key is the task's content hash of the input plus the system's name, config, version and
device type (cpu/cuda), so
a prediction is reused only for exactly the same system on exactly the same input. Within one call
each distinct input is predicted once; misses go to the system ``batch_size`` at a time and each batch
is validated (one output per input, every output well-formed) and stored before the next starts: an
interrupted run keeps what it finished, and a failing batch stores nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lingtest.errors import InputError, SystemFailure
from lingtest.store import JSONStore
from lingtest.systems.base import System, check_batch
from lingtest.systems.tasks import Task, content_key, get_task


class CachedSystem(System[Any, Any]):
    """``system`` with batching and (when ``store`` is given) a persistent prediction cache."""

    def __init__(self, system: System[Any, Any], store: JSONStore | None, batch_size: int = 64,
                 progress: Callable[[int], None] | None = None, device: str = "cpu") -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.system = system
        self.task = system.task  # type: ignore[misc]
        self.version = system.version  # type: ignore[misc]
        self.name = system.name
        self.store = store
        self.batch_size = batch_size
        self.progress = progress
        self._task: Task = get_task(system.task)
        # the device is part of the key: neural systems can differ in the last digits on CUDA
        self._salt = content_key("prediction", system.task, system.name, system.config(), system.version,
                                 device.split(":")[0])
        self.hits = 0
        self.misses = 0

    def config(self) -> dict[str, Any]:
        return self.system.config()

    def key(self, item: Any) -> str:
        return content_key(self._salt, self._task.key(item))

    def predict(self, inputs: list[Any]) -> list[Any]:
        keys = [self.key(x) for x in inputs]
        encoded: dict[str, Any] = self.store.get_many(keys) if self.store is not None else {}
        results: dict[str, Any] = {}
        for k, v in encoded.items():
            try:
                results[k] = self._task.decode_output(v)
                self.hits += 1
            except InputError:
                pass  # damaged entry: predicted again below
        todo: dict[str, Any] = {}
        for k, x in zip(keys, inputs, strict=True):
            if k not in results and k not in todo:
                todo[k] = x
        pending = list(todo.items())
        for i in range(0, len(pending), self.batch_size):
            batch = pending[i:i + self.batch_size]
            items = [x for _, x in batch]
            outs = self.system.predict(items)
            check_batch(self.system, items, outs)
            new = {}
            for (k, _), out in zip(batch, outs, strict=True):
                try:  # fresh outputs take the same round trip as cached ones: cold == warm by construction
                    enc = self._task.encode_output(out)
                    results[k] = self._task.decode_output(enc)
                except (InputError, TypeError, ValueError, AttributeError) as exc:
                    raise SystemFailure(f"system {self.name!r} returned a malformed {self.task} output: {exc}") from exc
                new[k] = enc
            if self.store is not None:
                self.store.put_many(new)
            self.misses += len(batch)
            if self.progress is not None:
                self.progress(len(batch))
        return [results[k] for k in keys]
