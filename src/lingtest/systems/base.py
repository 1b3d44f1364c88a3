"""What every system under test is, whatever its task.

A system belongs to one task (:mod:`lingtest.systems.tasks`): it takes a batch of that task's inputs
and returns one output per input, in order. ``config()`` holds the options that change its output and
``version`` the version of its code or model; both are part of the prediction cache key, so a cached
prediction is only ever reused for the same system, options, version and input.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from lingtest.errors import SystemFailure

In = TypeVar("In")
Out = TypeVar("Out")


class System(ABC, Generic[In, Out]):
    """A system under test: ``predict(inputs) -> outputs`` (same length, same order)."""

    #: the task name (a key of :data:`lingtest.systems.tasks.TASKS`)
    task: ClassVar[str]
    #: bump when the code or model changes what the system predicts (invalidates cached predictions)
    version: ClassVar[str] = "1"
    name: str = "system"

    @abstractmethod
    def predict(self, inputs: list[In]) -> list[Out]:
        """One output per input, in input order."""

    def config(self) -> dict[str, Any]:
        """Options that change the output (part of the prediction cache key)."""
        return {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, config={self.config()!r})"


@dataclass(frozen=True, slots=True)
class ItemFailure:
    """What a system returns in place of the one output it could not produce (a remote service's
    per-item error, a timeout after every retry, a malformed answer for that item). The cache stores the
    other outputs of the batch and never this; :class:`PartialFailure` reports it at the end."""

    reason: str


class PartialFailure(SystemFailure):
    """Some inputs failed (``failures``: input index -> reason); every other output was validated and
    cached, so a re-run predicts only the failed ones. ``outputs`` is aligned with the inputs and holds
    an :class:`ItemFailure` where an input failed. ``failed_inputs`` (the distinct failed inputs, when the
    raiser has them) are named in the message: their count and the first few, shortened."""

    def __init__(self, message: str, *, outputs: list[Any], failures: dict[int, str],
                 failed_inputs: Sequence[Any] = ()) -> None:
        if failed_inputs:
            message = f"{message}; {_name_inputs(failed_inputs)}"
        super().__init__(message)
        self.outputs = outputs
        self.failures = failures


def _shorten(value: Any, width: int = 60) -> str:
    """``value`` on one line in at most ``width`` characters: a string as itself, a list or mapping as
    JSON, anything else as its ``repr``; an ellipsis marks a cut."""
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, default=repr)
        except (TypeError, ValueError):
            text = repr(value)
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "\u2026"


def _name_inputs(inputs: Sequence[Any], shown: int = 3, width: int = 60) -> str:
    """``failed inputs (N): 'first', 'second', 'third' and N-3 more``: the count of ``inputs`` and the
    first ``shown`` of them, each :func:`_shorten`-ed to ``width`` characters."""
    named = ", ".join(repr(_shorten(x, width)) for x in inputs[:shown])
    more = f" and {len(inputs) - shown} more" if len(inputs) > shown else ""
    return f"failed inputs ({len(inputs)}): {named}{more}"


def check_batch(system: System[Any, Any], inputs: Sequence[Any], outputs: Sequence[Any]) -> None:
    """A system must return exactly one output per input."""
    if len(outputs) != len(inputs):
        raise SystemFailure(f"system {system.name!r} returned {len(outputs)} predictions for {len(inputs)} inputs")
