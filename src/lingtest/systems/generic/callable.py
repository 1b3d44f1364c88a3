"""``kind: callable``: any Python function as a system under test of any task.

``function: package.module:function`` is imported once and called with a batch (a list) of inputs; it
returns one output per input. With ``io: json`` (for functions that know nothing of lingtest) inputs
are passed in the task's JSON form (:meth:`~lingtest.systems.tasks.Task.encode_input`: a string for
classification, a token list for NER, ``{"id", "sentences"}`` for coreference, ``{"source",
"candidates", "source_context", "target_context"}`` for contrastive scoring) and outputs are read with
the task's validation (``{label: p}``, ``[[start, end, label]]``, ``[[[start, end], ...], ...]``, a
log-probability per candidate). With ``io: objects`` the function gets and returns lingtest's own
objects (a coreference function then also sees the parse). Either way an item the function could not
do is returned as :class:`~lingtest.systems.base.ItemFailure` (or, in JSON form, ``{"error": reason}``):
the rest of the batch is kept and cached, the failure is not. ``options`` are passed to the function
as keyword arguments (part of the cache key, like ``version``).
"""

from __future__ import annotations

import importlib
from typing import Any, ClassVar

from lingtest.errors import ConfigError, InputError
from lingtest.systems.base import ItemFailure, System
from lingtest.systems.tasks import get_task

IO_MODES = ("json", "objects")


def load_target(target: str) -> Any:
    """``package.module:attribute`` (dots after the colon walk attributes)."""
    mod, sep, attr = str(target).partition(":")
    if not sep or not mod or not attr:
        raise ConfigError(f"function must be 'package.module:function', got {target!r}")
    try:
        obj: Any = importlib.import_module(mod)
    except ImportError as exc:
        raise ConfigError(f"cannot import {mod!r} for {target!r}: {exc}") from exc
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ConfigError(f"{mod!r} has no attribute {attr!r} ({target!r})") from None
    if not callable(obj):
        raise ConfigError(f"{target!r} is not callable")
    return obj


def decode_json_output(task: Any, value: Any, where: str) -> Any:
    """A JSON-form output, or an :class:`ItemFailure` for ``{"error": reason}`` or a malformed value."""
    if isinstance(value, dict) and set(value) == {"error"} and isinstance(value["error"], str):
        return ItemFailure(value["error"])
    try:
        return task.decode_output(value, where)
    except InputError as exc:
        return ItemFailure(f"malformed output: {exc}")


class CallableSystem(System[Any, Any]):
    """A Python function ``batch -> outputs`` as a system of ``task``."""

    version: ClassVar[str] = "1"

    def __init__(self, task: str, *, function: str, io: str, version: str | None, options: dict[str, Any],
                 name: str | None = None) -> None:
        if io not in IO_MODES:
            raise ConfigError(f"io must be one of {IO_MODES}, got {io!r}")
        self.task = task  # type: ignore[misc]
        self.function = str(function)
        self.io = io
        self.user_version = version
        self.options = dict(options or {})
        self.name = name or self.function
        self._task = get_task(task)
        self._fn: Any = None

    def config(self) -> dict[str, Any]:
        # the function's name and version stand for its code: bump `version` when it changes
        return {"function": self.function, "io": self.io, "version": self.user_version, "options": self.options}

    def predict(self, inputs: list[Any]) -> list[Any]:
        if self._fn is None:
            self._fn = load_target(self.function)
        batch = [self._task.encode_input(x) for x in inputs] if self.io == "json" else list(inputs)
        outs = list(self._fn(batch, **self.options))
        if len(outs) != len(inputs):
            return outs  # the cache's check names the count mismatch
        if self.io == "objects":
            return outs
        return [o if isinstance(o, ItemFailure) else decode_json_output(self._task, o, f"output[{i}]")
                for i, o in enumerate(outs)]
