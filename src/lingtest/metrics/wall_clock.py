"""Wall-clock figures kept out of the pipeline's outputs.

A stage's outputs must come out byte for byte the same on every run of the same inputs, so no DVC output
holds a wall-clock figure: the time a stage or a step took goes to the stage's MLflow run (its metrics)
and to the log, never into a metrics file, a table or a model's ``training.json``. A field is a wall-clock
field when ``seconds`` is one of the ``_``-separated words of its name (``seconds``, ``predict_seconds``,
``seconds_per_selected``, ``seconds_by_step``); the whole value under such a key (a number or a nested
mapping of numbers) is wall-clock.

:func:`split_wall_clock` splits a metrics mapping into what a file may hold and the wall-clock part;
:func:`wall_clock_paths` lists the wall-clock fields a stored JSON value still holds (the check behind the
test over the committed metrics).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def is_wall_clock(key: str) -> bool:
    """Whether the field ``key`` holds a wall-clock figure: ``seconds`` is one of its ``_``-separated words."""
    return "seconds" in str(key).lower().split("_")


def split_wall_clock(metrics: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(kept, wall_clock)``: ``metrics`` without its wall-clock fields, at any depth of nested mappings, and
    those fields alone with the same nesting. Lists are kept as they are (no metrics file times list items).
    The input is not changed; key order is kept."""
    kept: dict[str, Any] = {}
    clock: dict[str, Any] = {}
    for key, value in metrics.items():
        if is_wall_clock(key):
            clock[key] = value
        elif isinstance(value, Mapping):
            inner, inner_clock = split_wall_clock(value)
            kept[key] = inner
            if inner_clock:
                clock[key] = inner_clock
        else:
            kept[key] = value
    return kept, clock


def wall_clock_paths(value: Any, prefix: str = "") -> list[str]:
    """The dotted paths (``stats.seconds``, ``rows[0].predict_seconds``) of the wall-clock fields anywhere in
    a JSON value."""
    out: list[str] = []
    if isinstance(value, Mapping):
        for key, inner in value.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            if is_wall_clock(str(key)):
                out.append(path)
            else:
                out.extend(wall_clock_paths(inner, path))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            out.extend(wall_clock_paths(inner, f"{prefix}[{i}]"))
    return out
