"""``lingtest registry``: every registry of the package and its entries. ``tests/core/test_registries.py``
checks every entry listed here (it imports, implements its protocol, builds from its config)."""

from __future__ import annotations

import importlib
from typing import Any

#: registry title -> (module, attribute) of the registry object, imported only when asked for
REGISTRIES: dict[str, tuple[str, str]] = {
    "task": ("lingtest.systems.tasks", "TASKS"),
    "system under test": ("lingtest.systems", "SYSTEMS"),
    "expectation": ("lingtest.suite.expectations", "EXPECTATIONS"),
    "oracle": ("lingtest.suite.oracles", "ORACLES"),
    "stage": ("lingtest.pipeline.stage", "STAGES"),
    "dataset source": ("lingtest.pipeline.datasets", "SOURCES"),
    "reader": ("lingtest.readers", "READERS"),
    "parser": ("lingtest.parsing", "PARSERS"),
    "metric": ("lingtest.metrics", "METRICS"),
    "sentence embedder": ("lingtest.resources", "EMBEDDERS"),
    "language-model scorer": ("lingtest.resources", "LM_SCORERS"),
    "perturbation": ("lingtest.adversarial.perturbations", "PERTURBATIONS"),
    "candidate proposer": ("lingtest.resources.candidates", "PROPOSERS"),
    "fill proposer": ("lingtest.resources.fill", "FILL_PROPOSERS"),
    "s2lct fill proposer": ("lingtest.s2lct.components", "FILL_PROPOSERS"),
    "tin transformation": ("lingtest.tin.transformations", "TRANSFORMATIONS"),
    "crest baseline": ("lingtest.crest.baselines", "BASELINES"),
}


def registry(title: str) -> Any:
    mod, attr = REGISTRIES[title]
    return getattr(importlib.import_module(mod), attr)


def all_registries() -> dict[str, list[str]]:
    """Registry title -> entry names (systems as ``task/name``)."""
    return {title: list(registry(title).names()) for title in REGISTRIES}


def registry_command() -> None:
    """List every registered component: tasks, systems by task, expectations, oracles, stages, dataset
    sources, readers, parsers, metrics, resources, perturbations, candidate proposers, transformations."""
    for kind, names in all_registries().items():
        print(f"{kind}: {', '.join(names)}")


def register(app: Any) -> None:
    """Add ``registry`` to the ``lingtest`` application."""
    app.command("registry")(registry_command)
