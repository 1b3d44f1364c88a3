"""What every stage body receives: a :class:`StageContext`.

A stage body is ``def step_stage(ctx: StageContext, config: TechniqueConfig[, item: str])``: the runner
(:mod:`lingtest.pipeline.runner`) composes the configuration, validates the technique's typed section
once (``config``, a :class:`lingtest.config.Section`), opens the tracked run and calls the body. The
context gives the body everything that is the same in every technique:

- ``ctx.path("crest.suite")``: a configured path (``conf/paths``) as an absolute path;
- ``ctx.require(path, "crest_generate")``: the path, or one error that names the stage writing it
  and the command that runs it;
- ``ctx.write_metrics(path, metrics, prefix)``: the metrics file (wall-clock fields left out: they go
  to the run only), its numbers logged to the run and the file attached to it;
- ``ctx.map(builder, chunks, ...)``: ``[work(chunk) for chunk in chunks]`` here, or on a pool of Ray
  actors when ``executor=ray``, with the same results in the same order.

A stage that runs a system under test builds it with :func:`lingtest.systems.factory.build_system`
(``build_system(ctx.cfg, TASK, item)``: device, batching, prediction cache, executor), imported in its own
body, so that only the stages that run systems depend on the systems' code. Nothing here knows a
technique.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lingtest.config import Composed
from lingtest.errors import MissingResourceError
from lingtest.tracking import NullTracker, Tracker, numeric_metrics


@dataclass
class StageContext:
    """``name``: the DVC stage (``crest_evaluate``); ``item``: its ``foreach`` item, if any; ``cfg``: the
    whole composed configuration (for components that take their own section); ``tracker``: the
    stage's MLflow run; ``root``: the repository root."""

    name: str
    cfg: Composed
    tracker: Tracker = field(default_factory=NullTracker)
    item: str | None = None
    root: Path = field(default_factory=Path.cwd)

    @property
    def stage(self) -> str:
        """``name@item`` (or ``name``), as DVC calls it."""
        return f"{self.name}@{self.item}" if self.item else self.name

    # ---- paths ---------------------------------------------------------------------------------------
    def path(self, key: str) -> Path:
        """``paths.<key>`` (dotted, e.g. ``crest.suite`` or ``prepared``), absolute under the root."""
        node: Any = self.cfg.paths
        for part in key.split("."):
            node = node.get(part) if hasattr(node, "get") else None
            if node is None:
                from lingtest.errors import ConfigError

                raise ConfigError(f"paths.{key} is not configured (conf/paths)")
        p = Path(str(node)).expanduser()
        return p if p.is_absolute() else self.root / p

    def require(self, path: Path, producer: str) -> Path:
        """``path`` if it exists, else a :class:`MissingResourceError` naming ``producer`` (the stage
        that writes it, ``name`` or ``name@item``) and the command that runs it."""
        if Path(path).exists():
            return Path(path)
        raise MissingResourceError(missing_message(path, producer, self.root))

    def read_json(self, path: Path, producer: str) -> Any:
        return json.loads(self.require(path, producer).read_text(encoding="utf-8"))

    # ---- results -------------------------------------------------------------------------------------
    def write_metrics(self, path: Path, metrics: Mapping[str, Any], prefix: str = "",
                      artifacts: Sequence[Path] = ()) -> Path:
        """Write ``metrics`` (JSON) without its wall-clock fields, log all its numbers (the wall-clock ones
        too) to the run under ``prefix`` and attach the file (and ``artifacts``). The file is an output of the
        stage and comes out the same on every run (:mod:`lingtest.metrics.wall_clock`)."""
        from lingtest.data.io import write_json
        from lingtest.metrics.wall_clock import split_wall_clock

        kept, _ = split_wall_clock(metrics)
        write_json(path, kept)
        self.tracker.log_metrics(numeric_metrics(metrics, prefix))
        for p in (path, *artifacts):
            self.tracker.log_artifact(str(p))
        return path

    # ---- where the work runs -------------------------------------------------------------------------
    def executor(self) -> dict[str, Any]:
        from lingtest.execution import executor_options

        return executor_options(self.cfg)

    def map(self, builder: str | Callable[..., Callable[[list[Any]], Any]], chunks: Sequence[list[Any]], *,
            part: str = "generation", args: Sequence[Any] = (), desc: str | None = None, workers: int = 1,
            ) -> tuple[list[Any], dict[str, int]]:
        """``[work(chunk) for chunk in chunks]`` where ``work = builder(cfg, *args)`` is built once: here
        (``executor=local``) or on each of a pool of Ray actors (``executor=ray``,
        :func:`lingtest.execution.ray_generate.map_chunks`), results in chunk order either way, with the
        workers' summed ``counters()`` (when a worker has them). Here, ``workers`` > 1 computes the chunks in
        that many forked processes that inherit ``work`` (:func:`lingtest.execution.forked.fork_map`; for work
        in pure Python or spaCy, not torch)."""
        ex = self.executor()
        if ex["name"] == "ray":
            from lingtest.execution.ray_generate import map_chunks

            return map_chunks(builder, self.cfg, chunks, options=ex, part=part, args=args,
                              desc=f"{desc} on Ray" if desc else None)
        from lingtest.execution.ray_generate import resolve_builder
        from lingtest.progress import progress

        work = resolve_builder(builder)(self.cfg, *args)
        if workers > 1:
            from lingtest.execution.forked import apply_chunk, fork_map, fork_results

            done = fork_map(apply_chunk, chunks, work, workers=workers)
            pairs = fork_results(progress(done, desc, total=len(chunks)) if desc else done, len(chunks))
            summed: dict[str, int] = {}
            for _, added in pairs:
                for k, v in (added or {}).items():
                    summed[k] = summed.get(k, 0) + v
            return [r for r, _ in pairs], summed
        it: Any = progress(chunks, desc, total=len(chunks)) if desc else chunks
        results = [work(c) for c in it]
        counters = getattr(work, "counters", None)
        return results, (dict(counters()) if callable(counters) else {})


def missing_message(path: Path, producer: str, root: Path) -> str:
    """The one form of "an input is missing": what, which stage writes it, how to run that stage."""
    try:
        from lingtest.dvcfiles import stage_address

        address = stage_address(root, producer)
    except Exception:  # no DVC files here (a library use): the stage's name is all there is
        address = producer
    try:
        shown = Path(path).resolve().relative_to(root.resolve())
    except ValueError:
        shown = Path(path)
    return f"{shown} not found: it is written by stage {producer}; run `dvc repro {address}` first"
