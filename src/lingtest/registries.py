"""Every registry of the package, in one place: ``lingtest registry`` lists from here and
``tests/core/test_registries.py`` checks every entry (it imports, implements its protocol, builds
from its config)."""

from __future__ import annotations

from typing import Any

#: registry title -> ``module:attribute`` of the registry object
REGISTRIES: dict[str, str] = {
    "task": "lingtest.systems.tasks:TASKS",
    "system under test": "lingtest.systems:SYSTEMS",
    "expectation": "lingtest.suite.expectations:EXPECTATIONS",
    "oracle": "lingtest.suite.oracles:ORACLES",
    "stage": "lingtest.pipeline.stage:STAGES",
    "dataset source": "lingtest.pipeline.datasets:SOURCES",
    "reader": "lingtest.readers:READERS",
    "parser": "lingtest.parsing:PARSERS",
    "metric": "lingtest.metrics:METRICS",
    "sentence embedder": "lingtest.resources:EMBEDDERS",
    "language-model scorer": "lingtest.resources:LM_SCORERS",
    "perturbation": "lingtest.adversarial.perturbations:PERTURBATIONS",
    "candidate proposer": "lingtest.resources.candidates:PROPOSERS",
    "fill proposer": "lingtest.resources.fill:FILL_PROPOSERS",
    "tin transformation": "lingtest.tin.transformations:TRANSFORMATIONS",
}


def registry(title: str) -> Any:
    import importlib

    mod, _, attr = REGISTRIES[title].partition(":")
    return getattr(importlib.import_module(mod), attr)


def all_registries() -> dict[str, list[str]]:
    """Registry title -> entry names (systems as ``task/name``)."""
    return {title: list(registry(title).names()) for title in REGISTRIES}
