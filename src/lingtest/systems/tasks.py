"""Tasks of systems under test, and how their inputs and outputs travel.

A :class:`Task` knows, for its kind of system, how to hash an input (the prediction cache key), how
to write inputs and outputs as JSON (the prediction cache and predictions files) and how to read them
back with validation, and how to turn a :class:`~lingtest.data.model.TestCase` payload into a system
input. Everything generic (cache, predictions files, the suite runner) goes through it, so a new task
is one module with a protocol and a task object.
"""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from typing import Any, ClassVar

from lingtest.errors import InputError


def content_key(*parts: Any) -> str:
    """sha256 over the canonical JSON of ``parts``."""
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class Task(ABC):
    """How inputs and outputs of one task are keyed, written and read."""

    name: ClassVar[str]

    @abstractmethod
    def key(self, item: Any) -> str:
        """A hash of everything in ``item`` that a system may read."""

    @abstractmethod
    def encode_input(self, item: Any) -> Any:
        """``item`` as JSON (what a predictions file shows as ``input``)."""

    @abstractmethod
    def decode_input(self, data: Any, where: str = "input") -> Any:
        """The inverse of :meth:`encode_input`, validated."""

    @abstractmethod
    def encode_output(self, output: Any) -> Any:
        """An output as JSON."""

    @abstractmethod
    def decode_output(self, data: Any, where: str = "output") -> Any:
        """The inverse of :meth:`encode_output`; raises :class:`InputError` on a malformed value."""

    @abstractmethod
    def from_payload(self, payload: dict[str, Any]) -> Any:
        """The system input held by a test case's ``source`` or ``followup`` payload."""

    def summary(self, output: Any) -> Any:
        """A compact JSON view of an output for result records (default: the encoded output)."""
        return self.encode_output(output)


def bad(where: str, message: str) -> InputError:
    return InputError(message, field=where)


#: the tasks; task ``t``'s protocol and codec live in ``lingtest.systems.<t>.base`` (class ``TASK_CLASS``)
TASK_NAMES: tuple[str, ...] = ("classification", "contrastive", "coref", "ner")
_TASK_CLASSES = {"coref": "CorefTask", "ner": "NERTask", "classification": "ClassificationTask",
                 "contrastive": "ContrastiveTask"}


class _Tasks:
    """The task registry: names from :data:`TASK_NAMES`, classes imported on first use (by name, not
    by a lazy target string, so that a stage's import closure holds only the tasks it imports)."""

    kind = "task"

    def names(self) -> list[str]:
        return sorted(TASK_NAMES)

    def get(self, name: str) -> type[Task]:
        import importlib

        if name not in _TASK_CLASSES:
            from lingtest.errors import RegistryError

            raise RegistryError(f"unknown task {name!r}; known: {', '.join(TASK_NAMES)}")
        return getattr(importlib.import_module(f"lingtest.systems.{name}.base"), _TASK_CLASSES[name])

    def __contains__(self, name: object) -> bool:
        return name in _TASK_CLASSES


TASKS = _Tasks()


def get_task(name: str) -> Task:
    return TASKS.get(name)()
