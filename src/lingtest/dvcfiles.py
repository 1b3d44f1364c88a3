"""Where the pipeline's DVC files are: the root ``dvc.yaml`` (data and parsing stages) and one
``stages/<technique>/dvc.yaml`` per technique, each with its ``dvc.lock`` beside it. Every stage runs
from the repository root (``wdir``), so the paths inside all of them are relative to the root.

A stage of the root file is addressed by its name (``dvc repro parse``); a technique's stage by its
file and name (``dvc repro stages/crest/dvc.yaml:crest_generate``); ``dvc repro -P`` runs them all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lingtest.errors import InputError, LingtestError


def dvc_files(root: Path) -> list[Path]:
    """The root ``dvc.yaml`` and ``stages/*/dvc.yaml`` (those that exist)."""
    return [f for f in [root / "dvc.yaml", *sorted((root / "stages").glob("*/dvc.yaml"))] if f.is_file()]


def _load(path: Path) -> dict[str, Any]:
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise InputError(f"not YAML: {exc}", path=path) from None
    stages = data.get("stages", {}) if isinstance(data, dict) else None
    if not isinstance(stages, dict):
        raise InputError("stages is not a mapping", path=path, field="stages")
    return stages


def stage_files(root: Path) -> dict[str, Path]:
    """Stage name (without ``@item``) -> the DVC file that defines it."""
    out: dict[str, Path] = {}
    for f in dvc_files(root):
        for name in _load(f):
            out[str(name)] = f
    return out


def stage_address(root: Path, stage: str) -> str:
    """What ``dvc repro`` takes for ``stage`` (``name`` or ``name@item``) run from the root."""
    name = stage.split("@", 1)[0]
    files = stage_files(root)
    if name not in files:
        raise LingtestError(f"no DVC stage {name!r} in {', '.join(str(f.relative_to(root)) for f in dvc_files(root))}")
    rel = files[name].relative_to(root)
    return stage if str(rel) == "dvc.yaml" else f"{rel}:{stage}"


def read_locks(root: Path) -> dict[str, Any]:
    """The stages of every ``dvc.lock`` of the pipeline (``name`` or ``name@item`` -> its entry)."""
    out: dict[str, Any] = {}
    for lock in [root / "dvc.lock", *sorted((root / "stages").glob("*/dvc.lock"))]:
        if lock.is_file():
            out.update(_load(lock))
    return out
