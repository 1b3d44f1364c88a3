"""Generators: a technique that makes its test cases from each system's own predictions (TIN) registers
one, so that a release of its sources runs on any system. Found by name through the
``lingtest.generators`` entry points (``pyproject.toml``), so this layer never names a technique.

A generator has ``generate(sources, system, config, *, seed) -> list[TestCase]`` (``sources``: the
release's records ``{"id", "tokens", "gold"}``; ``system``: a resolved, cached system of the task;
``config``: the composed configuration the release recorded) and ``grade(cases, results, labels,
config) -> dict | None`` (the run graded against gold; ``labels``: how the system's labels map onto
the gold scheme, ``None`` when the user gave none).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from lingtest.data.model import TestCase
from lingtest.registry import Registry


class Generator(Protocol):
    def generate(self, sources: Sequence[dict[str, Any]], system: Any, config: Any, *,
                 seed: int) -> list[TestCase]: ...

    def grade(self, cases: Sequence[TestCase], results: Sequence[Any], labels: Any,
              config: Any) -> dict[str, Any] | None: ...


GENERATORS: Registry = Registry("generator", entry_points="lingtest.generators")
