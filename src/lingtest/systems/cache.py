"""The one wrapper every stage puts around a system under test: batching and a prediction cache.

The cache key is the task's content hash of the input plus the system's name, config, version and
device type (cpu/cuda), so
a prediction is reused only for exactly the same system on exactly the same input. Within one call
each distinct input is predicted once; misses go to the system ``batch_size`` at a time and each batch
is validated (one output per input, every output well-formed) and stored before the next starts: an
interrupted run keeps what it finished, and a failing batch stores nothing.

Misses are sorted by length (the length of the input's JSON form, ties in input order) before they are
cut into batches when ``sort_by_length`` is on, so that a batch holds inputs of similar length and a
padded model wastes little; outputs go back to their inputs by key, so the order never shows.

A system may answer :class:`~lingtest.systems.base.ItemFailure` for one input (a remote service's
per-item error): the batch's other outputs are stored, the failure never is, the remaining batches
still run, and the call ends with :class:`~lingtest.systems.base.PartialFailure` naming the failed
inputs (a re-run predicts only those).

Where batches run is the ``runner``'s business (:mod:`lingtest.execution`): in this process by
default, or on a Ray cluster; the runner returns each batch's outputs and this wrapper, which owns the
cache, validates and stores them as they arrive.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

from lingtest.errors import InputError, SystemFailure
from lingtest.store import JSONStore
from lingtest.systems.base import ItemFailure, PartialFailure, System, check_batch
from lingtest.systems.tasks import Task, content_key, get_task


class BatchRunner(Protocol):
    """Runs batches of inputs through a system: yields ``(batch index, outputs)`` as batches finish
    (any order); an exception of a batch ends the run with that exception."""

    def run(self, batches: Sequence[list[Any]]) -> Iterator[tuple[int, list[Any]]]: ...


class InProcess:
    """The default runner: every batch through ``system.predict`` in this process, in order."""

    def __init__(self, system: System[Any, Any]) -> None:
        self.system = system

    def run(self, batches: Sequence[list[Any]]) -> Iterator[tuple[int, list[Any]]]:
        for i, batch in enumerate(batches):
            yield i, self.system.predict(batch)


def input_length(task: Task, item: Any) -> int:
    """The length batches are sorted by: characters of the input's JSON form (tokens, sentence breaks
    and candidates all count; cheap next to any model)."""
    return len(json.dumps(task.encode_input(item), ensure_ascii=False))


class CachedSystem(System[Any, Any]):
    """``system`` with batching and (when ``store`` is given) a persistent prediction cache."""

    def __init__(self, system: System[Any, Any], store: JSONStore | None, batch_size: int = 64,
                 progress: Callable[[int], None] | None = None, device: str = "cpu",
                 sort_by_length: bool = False, runner: BatchRunner | None = None) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.system = system
        self.task = system.task  # type: ignore[misc]
        self.version = system.version  # type: ignore[misc]
        self.name = system.name
        self.store = store
        self.batch_size = batch_size
        self.progress = progress
        self.sort_by_length = sort_by_length
        self.runner: BatchRunner = runner if runner is not None else InProcess(system)
        self._task: Task = get_task(system.task)
        # the device is part of the key: neural systems can differ in the last digits on CUDA
        self._salt = content_key("prediction", system.task, system.name, system.config(), system.version,
                                 device.split(":")[0])
        self.hits = 0
        self.misses = 0
        self.failed = 0

    def config(self) -> dict[str, Any]:
        return self.system.config()

    def key(self, item: Any) -> str:
        return content_key(self._salt, self._task.key(item))

    def batches(self, pending: list[tuple[str, Any]]) -> list[list[tuple[str, Any]]]:
        """``pending`` (key, input) pairs cut into batches, length-sorted first when asked."""
        if self.sort_by_length:
            lengths = [input_length(self._task, x) for _, x in pending]
            order = sorted(range(len(pending)), key=lambda i: (lengths[i], i))
            pending = [pending[i] for i in order]
        return [pending[i:i + self.batch_size] for i in range(0, len(pending), self.batch_size)]

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
        batches = self.batches(list(todo.items()))
        failures: dict[str, str] = {}
        for b, outs in self.runner.run([[x for _, x in batch] for batch in batches]):
            batch = batches[b]
            check_batch(self.system, batch, outs)
            new = {}
            for (k, _), out in zip(batch, outs, strict=True):
                if isinstance(out, ItemFailure):
                    failures[k] = out.reason
                    continue
                try:  # fresh outputs take the same round trip as cached ones: cold == warm by construction
                    enc = self._task.encode_output(out)
                    results[k] = self._task.decode_output(enc)
                except (InputError, TypeError, ValueError, AttributeError) as exc:
                    raise SystemFailure(f"system {self.name!r} returned a malformed {self.task} output: {exc}") from exc
                new[k] = enc
            if self.store is not None and new:
                self.store.put_many(new)
            self.misses += len(new)
            self.failed += len(batch) - len(new)
            if self.progress is not None:
                self.progress(len(batch))
        if failures:
            outputs = [results[k] if k in results else ItemFailure(failures[k]) for k in keys]
            by_index = {i: failures[k] for i, k in enumerate(keys) if k in failures}
            first = next(iter(failures.values()))
            raise PartialFailure(f"system {self.name!r} failed on {len(failures)} of {len(todo)} input(s) "
                                 f"predicted (the others are cached; a re-run predicts only these); "
                                 f"first: {first}", outputs=outputs, failures=by_index,
                                 failed_inputs=[todo[k] for k in failures])
        return [results[k] for k in keys]
