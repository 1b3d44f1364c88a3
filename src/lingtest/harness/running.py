"""Run a system on a suite's cases: the configuration, the system (:mod:`lingtest.systems.spec`), the
output checks (:mod:`.outputs`), the run options, a progress bar, and the one runner
(:func:`lingtest.suite.run.run_suite`)."""

from __future__ import annotations

import copy
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from lingtest.config import Composed
from lingtest.data.model import TestCase
from lingtest.errors import ConfigError, InputError
from lingtest.harness.info import SuiteInfo
from lingtest.harness.results import Results

#: run options the expectations read: expectation -> (option key, where the configuration keeps it)
RUN_OPTIONS: dict[str, tuple[str, str]] = {"s2lct-label": ("s2lct", "s2lct.evaluate"),
                                           "oracle": ("oracle", "crest.oracle"),
                                           "same-coreference": ("oracle", "crest.oracle")}


def configuration(config: Any = None) -> Composed:
    """``config`` when it is a composed configuration, else :func:`lingtest.config.compose` with
    ``config`` as overrides (``None``: none)."""
    from omegaconf import DictConfig

    if isinstance(config, DictConfig):
        return config
    if config is not None and (isinstance(config, str) or not isinstance(config, Sequence)):
        raise ConfigError(f"config must be a composed configuration or a list of overrides, got {config!r}")
    from lingtest.config import compose
    from lingtest.paths import project_root

    root = project_root()
    if not (root / "conf").is_dir():
        raise ConfigError(f"lingtest's configuration (conf/) is not found from {root}: run from the lingtest "
                          "checkout, or pass a composed configuration")
    return compose(list(config or []))


def run_options(cases: Sequence[TestCase], options: Mapping[str, Any] | None, cfg: Any) -> dict[str, Any]:
    """``options``, plus the configured value of each run option an expectation of ``cases`` reads and
    ``options`` does not give (``cfg``: a callable returning the composed configuration)."""
    from omegaconf import OmegaConf

    from lingtest.config import to_plain
    from lingtest.harness.derive import expectation_name

    out = dict(options or {})
    wanted = {RUN_OPTIONS[n] for n in {expectation_name(c.expected) for c in cases} if n in RUN_OPTIONS}
    for key, path in sorted(wanted):
        if key in out:
            continue
        value = OmegaConf.select(cfg(), path)
        if value is None:
            raise ConfigError(f"run option {key!r} is needed by the suite's expectations and not configured "
                              f"({path}): pass options={{{key!r}: ...}}")
        out[key] = to_plain(value)
    return out


class Bar:
    """A progress bar driven by callbacks: ``set_total(n)``, then ``bar(k)`` per batch of ``k`` inputs
    (rich, transient, on stderr; nothing when ``enabled`` is false)."""

    def __init__(self, description: str, enabled: bool | None = None) -> None:
        if enabled is None:
            enabled = sys.stderr.isatty() and not os.environ.get("CI") and not os.environ.get("LINGTEST_NO_PROGRESS")
        self.enabled = enabled
        self.description = description
        self._progress: Any = None
        self._task: Any = None

    def __enter__(self) -> Bar:
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                      TimeElapsedColumn(), transient=True, console=Console(stderr=True))
            self._progress.start()
            self._task = self._progress.add_task(self.description, total=None)
        return self

    def set_total(self, n: int) -> None:
        if self._progress is not None:
            self._progress.update(self._task, total=n, completed=0)

    def __call__(self, n: int) -> None:
        if self._progress is not None:
            self._progress.advance(self._task, n)

    def __exit__(self, *exc: Any) -> None:
        if self._progress is not None:
            self._progress.stop()


def _needs(case: TestCase) -> tuple[str, ...]:
    from lingtest.suite.expectations import parse_expectation

    try:
        return tuple(parse_expectation(case.expected, where=f"{case.id}.expected").needs)
    except InputError:
        return ("source",)  # the runner names the problem with the case


def case_inputs(cases: Sequence[TestCase], task: Any) -> list[dict[str, Any]]:
    """Each case's inputs in the task's JSON form, by side."""
    out = []
    for c in cases:
        sides = {}
        for side in _needs(c):
            payload = getattr(c, side)
            try:
                sides[side] = task.encode_input(task.from_payload(payload)) if isinstance(payload, dict) else None
            except (InputError, KeyError, TypeError, ValueError):
                sides[side] = None
        out.append(sides)
    return out


def run_cases(info: SuiteInfo, cases: list[TestCase], system: Any, *, limit: int | None = None, seed: int = 0,
              options: Mapping[str, Any] | None = None, batch_size: int | None = None, config: Any = None,
              progress: bool | None = None) -> Results:
    """Run ``system`` on ``cases`` of the suite ``info`` (see ``Suite.run`` in :mod:`lingtest.harness.loading`)."""
    from lingtest.harness.derive import group_of
    from lingtest.harness.outputs import CheckedRunner, CheckedSystem, OutputCheck, owners_of
    from lingtest.suite.run import run_suite
    from lingtest.systems.cache import CachedSystem
    from lingtest.systems.spec import resolve_system
    from lingtest.systems.tasks import get_task

    composed: list[Composed] = []

    def cfg() -> Composed:
        if not composed:
            composed.append(configuration(config))
        return composed[0]

    opts = run_options(cases, options, cfg)
    task = get_task(info.task)
    check = OutputCheck(task, owners_of(cases, task, _needs), info.labels if info.task == "classification" else None)
    with Bar(f"{info.name}: predicting", progress) as bar:
        if isinstance(system, CachedSystem):
            resolved = resolve_system(system, info.task, cfg())
            resolved.system = copy.copy(system)  # the checks go on a copy; the caller's object is left alone
            resolved.system.progress = bar
        else:
            resolved = resolve_system(system, info.task, cfg(), batch_size=batch_size, progress=bar)
        cached = resolved.system
        cached.runner = CheckedRunner(cached.runner, check, cached.name)
        run = run_suite(CheckedSystem(cached, check, before=bar.set_total), cases, opts)
    return Results(info=info, system=resolved.describe(), cases=cases, results=run.results,
                   inputs=case_inputs(cases, task), groups=[group_of(c) for c in cases],
                   run={"limit": limit, "seed": seed, "cases": len(cases), "options": opts,
                        "predicted": cached.misses, "from_cache": cached.hits})
