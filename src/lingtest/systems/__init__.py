"""Systems under test, grouped by task (:mod:`lingtest.systems.tasks`): one registry keyed by task,
one factory (:func:`lingtest.systems.factory.build_system`). Every task also has the ``predictions``
kind: a saved predictions file (:mod:`lingtest.systems.predictions`).

Each task's systems are registered in its own package (``lingtest.systems.<task>.SYSTEMS``, one line
per system); :data:`SYSTEMS` looks them up by task. A stage that builds systems of a task imports that
task's package (``from lingtest.systems.coref import TASK``), so its import closure, which decides its
DVC dependencies, holds that task's systems and no other task's."""

from __future__ import annotations

import importlib
from collections.abc import Iterator

from lingtest.errors import RegistryError
from lingtest.registry import Registry


class SystemRegistry:
    """Task name -> the :class:`Registry` of that task's system classes."""

    kind = "system under test"

    def task(self, task: str) -> Registry:
        from lingtest.systems.tasks import TASK_NAMES

        if task not in TASK_NAMES:
            raise RegistryError(f"unknown task {task!r}; known: {', '.join(TASK_NAMES)}")
        return importlib.import_module(f"lingtest.systems.{task}").SYSTEMS

    def get(self, task: str, name: str) -> type:
        return self.task(task).get(name)

    def tasks(self) -> list[str]:
        from lingtest.systems.tasks import TASK_NAMES

        return sorted(TASK_NAMES)

    def names(self, task: str | None = None) -> list[str]:
        if task is not None:
            return self.task(task).names()
        return [f"{t}/{n}" for t in self.tasks() for n in self.task(t).names()]

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())


SYSTEMS = SystemRegistry()

__all__ = ["SYSTEMS", "SystemRegistry"]
