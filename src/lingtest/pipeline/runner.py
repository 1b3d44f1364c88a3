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
from lingtest.paths import project_root
from lingtest.tracking import tracked_run

log = logging.getLogger("lingtest")

StageFn = Callable[..., Any]


def run_stage(stage: str, fn: StageFn, argv: Sequence[str] = ()) -> Any:
    """``argv``: an optional positional item (the ``foreach`` key) and ``key=value`` overrides."""
    item = next((a for a in argv if "=" not in a), None)
    overrides = [a for a in argv if "=" in a]
    root = project_root()
    cfg = load_params(root / "params.yaml", overrides)
    name = f"{stage}@{item}" if item else stage
    tracking = cfg.tracking
    from omegaconf import OmegaConf

    config = OmegaConf.to_container(cfg, resolve=True)
    with tracked_run(name, config, root=root, uri=tracking.get("uri"),  # type: ignore[arg-type]
                     experiment=tracking.experiment,
                     enabled=bool(tracking.enabled)) as tracker:
        start = time.perf_counter()
        kwargs = {"item": item} if "item" in inspect.signature(fn).parameters else {}
        if item is not None and not kwargs:
            raise LingtestError(f"stage {stage} takes no item, got {item!r}")
        result = fn(cfg, tracker, **kwargs)
        tracker.log_metrics({"stage_seconds": time.perf_counter() - start})
    return result


def main(stage: str, fn: StageFn, argv: Sequence[str] | None = None) -> None:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        run_stage(stage, fn, sys.argv[1:] if argv is None else argv)
    except LingtestError as exc:
        print(f"error in stage {stage}: {exc}", file=sys.stderr)
        sys.exit(2)
