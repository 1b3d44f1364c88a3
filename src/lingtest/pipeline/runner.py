"""Runs one DVC stage: loads params.yaml, opens a tracked MLflow run, calls the stage body."""

from __future__ import annotations

import inspect
import logging
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from lingtest.config import Composed, load_params
from lingtest.errors import LingtestError
from lingtest.execution.context import StageContext
from lingtest.paths import expose_to_experiment_copies, project_root
from lingtest.processes import cpu_seconds
from lingtest.tracking import (
    StageSpec,
    Tracker,
    leaf_params,
    stage_spec,
    stage_suites,
    suite_name,
    suites_tags,
    tracked_run,
)

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

    config: dict[str, Any] = OmegaConf.to_container(cfg, resolve=True)  # type: ignore[assignment]
    technique = stage_technique(fn)
    spec = stage_spec(root, name, config)  # what the stage reads: the params keys its DVC file lists
    if spec is None:
        log.warning("stage %s is in no DVC file: its run logs no parameters", name)
    params = leaf_params(config, spec.params, where=f"{spec.file}: stage {name}") if spec else {}
    with tracked_run(name, config, root=root, uri=tracking.get("uri"),
                     experiment=tracking.experiment, enabled=bool(tracking.enabled), technique=technique,
                     tags=run_tags(cfg, technique, item), params=params,
                     deferred=bool(tracking.deferred)) as tracker:
        start, cpu = time.perf_counter(), cpu_seconds()
        result = call_body(fn, StageContext(stage, cfg, tracker, item, root))
        # the CPU seconds the stage used, its worker processes' too: over stage_seconds, the cores it kept busy
        tracker.log_metrics({"stage_seconds": time.perf_counter() - start, "stage_cpu_seconds": cpu_seconds() - cpu})
        tracker.set_tags(run_suite_tags(root, spec, config, technique))
    return result


def call_body(fn: StageFn, ctx: StageContext) -> Any:
    """Call a stage body: ``fn(ctx, [config=...], [item=...])``, ``config`` validated into the type its
    annotation names (a :class:`lingtest.config.Section`) before the body runs."""
    import typing

    params = inspect.signature(fn).parameters
    kwargs: dict[str, Any] = {}
    if "item" in params:
        if ctx.item is None and params["item"].default is inspect.Parameter.empty:
            raise LingtestError(f"stage {ctx.name} needs an item (python -m lingtest.pipeline.stage {ctx.name} ITEM)")
        kwargs["item"] = ctx.item
    elif ctx.item is not None:
        raise LingtestError(f"stage {ctx.name} takes no item, got {ctx.item!r}")
    if "config" in params:
        model = typing.get_type_hints(fn)["config"]
        kwargs["config"] = model.from_config(ctx.cfg)
    if "ctx" not in params:
        raise LingtestError(f"stage body {getattr(fn, '__name__', fn)!r} takes no ctx: a body is "
                            f"def <step>_stage(ctx, [config], [item])")
    return fn(ctx, **kwargs)


def run_body(fn: StageFn, cfg: Composed, tracker: Tracker | None = None, item: str | None = None,
             root: Path | None = None) -> Any:
    """Call a stage body outside DVC and MLflow (tests, notebooks): ``cfg`` a composed config,
    ``tracker`` default a :class:`~lingtest.tracking.NullTracker`."""
    from lingtest.tracking import NullTracker

    name = getattr(fn, "__name__", "stage").removesuffix("_stage")
    ctx = StageContext(name, cfg, tracker if tracker is not None else NullTracker(), item,
                       root if root is not None else project_root())
    return call_body(fn, ctx)


def stage_technique(fn: StageFn) -> str:
    """``lingtest.<technique>.stages`` -> ``<technique>``; the shared glue (``lingtest.pipeline``) is
    ``pipeline``."""
    parts = str(getattr(fn, "__module__", "")).split(".")
    return parts[1] if len(parts) > 2 and parts[0] == "lingtest" else "pipeline"


def run_tags(cfg: Composed, technique: str, item: str | None) -> dict[str, str]:
    """``dvc_item`` for a ``foreach`` stage, ``system`` when the item is one of the technique's
    systems under test, the corpus and the profile (``profile.name``)."""
    tags = {"technique": technique}
    if cfg.get("dataset") is not None:
        tags["dataset"] = str(cfg.dataset)
    profile = cfg.get("profile")
    if profile is not None and hasattr(profile, "get") and profile.get("name") is not None:
        tags["profile"] = str(profile.name)
    if item is not None:
        tags["dvc_item"] = item
        tcfg = cfg.get(technique)
        systems = tcfg.get("systems") if tcfg is not None and hasattr(tcfg, "get") else None
        if systems is not None and item in [str(s) for s in systems]:
            tags["system"] = item
    return tags


def run_suite_tags(root: Path, spec: StageSpec | None, config: dict[str, Any], technique: str) -> dict[str, str]:
    """Name, version (of the release that froze it) and sha256 of the suites the stage wrote or read: those
    among its DVC ``outs`` and ``deps``; for a stage no DVC file defines, its technique's suite
    (``paths.<technique>.suite``)."""
    if spec is not None:
        suites = stage_suites(spec, config, root)
    else:
        section = (config.get("paths") or {}).get(technique)
        rel = section.get("suite") if isinstance(section, dict) else None
        suites = {root / str(rel): suite_name(technique, str(rel))} if rel else {}
    release = config.get("release")
    releases = root / str(release["dir"]) if isinstance(release, dict) and release.get("dir") else None
    return suites_tags(suites, releases)


def main(stage: str, fn: StageFn, argv: Sequence[str] | None = None) -> None:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        run_stage(stage, fn, sys.argv[1:] if argv is None else argv)
    except LingtestError as exc:
        print(f"error in stage {stage}: {exc}", file=sys.stderr)
        sys.exit(2)
