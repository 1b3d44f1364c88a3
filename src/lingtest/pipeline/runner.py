"""Runs one DVC stage: loads params.yaml, opens a tracked MLflow run, calls the stage body."""

from __future__ import annotations

import inspect
import logging
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from lingtest.config import load_params
from lingtest.errors import LingtestError
from lingtest.paths import expose_to_experiment_copies, project_root
from lingtest.tracking import suite_tags, tracked_run

log = logging.getLogger("lingtest")

StageFn = Callable[..., Any]


def run_stage(stage: str, fn: StageFn, argv: Sequence[str] = ()) -> Any:
    """``argv``: an optional positional item (the ``foreach`` key) and ``key=value`` overrides."""
    item = next((a for a in argv if "=" not in a), None)
    overrides = [a for a in argv if "=" in a]
    root = project_root()
    cfg = load_params(root / "params.yaml", overrides)
    inputs = (cfg.get("pipeline") or {}).get("inputs") or {}
    expose_to_experiment_copies(root, [str(v) for v in inputs.values()])  # for later queued experiments
    name = f"{stage}@{item}" if item else stage
    tracking = cfg.tracking
    from omegaconf import OmegaConf

    config = OmegaConf.to_container(cfg, resolve=True)
    technique = stage_technique(fn)
    with tracked_run(name, config, root=root, uri=tracking.get("uri"),  # type: ignore[arg-type]
                     experiment=tracking.experiment, enabled=bool(tracking.enabled), technique=technique,
                     tags=run_tags(cfg, technique, item)) as tracker:
        start = time.perf_counter()
        kwargs = {"item": item} if "item" in inspect.signature(fn).parameters else {}
        if item is not None and not kwargs:
            raise LingtestError(f"stage {stage} takes no item, got {item!r}")
        result = fn(cfg, tracker, **kwargs)
        tracker.log_metrics({"stage_seconds": time.perf_counter() - start})
        paths = (cfg.get("paths") or {}).get(technique)
        if paths is not None and hasattr(paths, "get") and paths.get("suite"):
            release = cfg.get("release")
            tracker.set_tags(suite_tags(root / str(paths.suite),
                                        root / str(release.dir) if release is not None else None))
    return result


def stage_technique(fn: StageFn) -> str:
    """``lingtest.<technique>.stages`` -> ``<technique>``; the shared glue (``lingtest.pipeline``) is
    ``pipeline``."""
    parts = str(getattr(fn, "__module__", "")).split(".")
    return parts[1] if len(parts) > 2 and parts[0] == "lingtest" else "pipeline"


def run_tags(cfg: Any, technique: str, item: str | None) -> dict[str, str]:
    """``dvc_item`` for a ``foreach`` stage, ``system`` when the item is one of the technique's
    systems under test, and the corpus."""
    tags = {"technique": technique}
    if cfg.get("dataset") is not None:
        tags["dataset"] = str(cfg.dataset)
    if item is not None:
        tags["dvc_item"] = item
        tcfg = cfg.get(technique)
        systems = tcfg.get("systems") if tcfg is not None and hasattr(tcfg, "get") else None
        if systems is not None and item in [str(s) for s in systems]:
            tags["system"] = item
    return tags


def main(stage: str, fn: StageFn, argv: Sequence[str] | None = None) -> None:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        run_stage(stage, fn, sys.argv[1:] if argv is None else argv)
    except LingtestError as exc:
        print(f"error in stage {stage}: {exc}", file=sys.stderr)
        sys.exit(2)
