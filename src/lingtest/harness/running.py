"""Run a system on a suite's cases: the configuration, the system (:mod:`lingtest.systems.spec`), the
output checks (:mod:`.outputs`), the run options, a progress bar, and the one runner
(:func:`lingtest.suite.run.run_suite`)."""

from __future__ import annotations

import copy
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
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
              progress: bool | None = None, suite: Any = None, labels: Any = None) -> Results:
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
    from types import SimpleNamespace

    from lingtest.harness.export import check_predictions_cover

    check_predictions_cover(suite if suite is not None else SimpleNamespace(info=info, cases=cases), system,
                            cases=cases, config=cfg())
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
                        "predicted": cached.misses, "from_cache": cached.hits},
                   gold=grade_fixed(info, cases, run.results, labels, cached, cfg))


def grade_fixed(info: SuiteInfo, cases: Sequence[TestCase], results: Sequence[Any], labels: Any, cached: Any,
                cfg: Any) -> dict[str, Any] | None:
    """A fixed suite of a technique that registers a generator (TIN) graded against its gold like a
    generated one: ``labels`` given, or the scheme the system declares (``None`` for other suites)."""
    from lingtest.harness.generators import GENERATORS

    if info.technique not in GENERATORS:
        return None
    if labels is None:
        labels = getattr(getattr(cached, "system", None), "label_scheme", None)
    return GENERATORS.get(info.technique).grade(cases, list(results), labels, cfg())


def sample_sources(sources: Sequence[dict[str, Any]], limit: int | None, seed: int) -> list[dict[str, Any]]:
    """``limit`` sources drawn with ``seed``, in release order (all when ``limit`` is ``None``)."""
    import random

    if limit is None or limit >= len(sources):
        return list(sources)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InputError(f"limit must be a positive integer, got {limit!r}", field="limit")
    return [sources[i] for i in sorted(random.Random(seed).sample(range(len(sources)), limit))]


def generation_config(recorded: Mapping[str, Any] | None, current: Any, name: str) -> Any:
    """The configuration a release of sources generates with: the one it recorded, where a key that
    lingtest has gained since (a new option of a transformation, say) takes the current configuration's
    value, with a warning naming the keys; without a recorded configuration, the current one. (A key the
    release left out on purpose, such as a transformation switched off with ``~``, also comes back from
    the current configuration when that has it: the warning names it.)"""
    import warnings

    from omegaconf import OmegaConf

    if not recorded:
        return current
    base = OmegaConf.to_container(current, resolve=True)
    assert isinstance(base, dict)
    added = sorted(set(_leaves(base)) - set(_leaves(dict(recorded))))
    merged = OmegaConf.merge(OmegaConf.create(base), OmegaConf.create(dict(recorded)))
    if added:
        shown = ", ".join(added[:8]) + (f" and {len(added) - 8} more" if len(added) > 8 else "")
        warnings.warn(f"release {name} records no value for {shown}: the current configuration's is used",
                      stacklevel=3)
    return merged


def _leaves(d: Mapping[Any, Any], prefix: str = "") -> list[str]:
    out = []
    for k, v in d.items():
        key = f"{prefix}{k}"
        out += _leaves(v, key + ".") if isinstance(v, Mapping) and v else [key]
    return out


def run_sources(suite: Any, system: Any, *, limit: int | None = None, seed: int = 0,
                options: Mapping[str, Any] | None = None, batch_size: int | None = None, config: Any = None,
                progress: bool | None = None, labels: Any = None) -> Results:
    """Run ``system`` on a release of sources (``Suite.run`` of a suite whose ``info.kind`` is
    ``sources``): the registered generator makes the cases from the system's own predictions with the
    configuration the release recorded, the one runner checks them, and the generator grades the run
    against gold. The system is resolved, checked and cached once for both steps."""
    import dataclasses
    from collections import Counter

    from lingtest.harness.derive import expectation_name, group_of
    from lingtest.harness.generators import GENERATORS
    from lingtest.harness.outputs import CheckedRunner, CheckedSystem, OutputCheck, owners_of
    from lingtest.suite.run import run_suite
    from lingtest.systems.spec import resolve_system
    from lingtest.systems.tasks import get_task

    info: SuiteInfo = suite.info
    if not info.materialized:
        raise InputError(f"the release withholds its source text (the licence of its corpus): `lingtest release "
                         f"materialize {Path(info.path).parent.parent}` fills it in from your copy", path=info.path)
    if not info.generator:
        raise InputError("the release of sources names no generator", path=info.path, field="release.generator")
    generator = GENERATORS.get(str(info.generator))
    sources = sample_sources(suite.sources or [], limit, seed)
    cfg = configuration(config)
    from lingtest.harness.export import check_predictions_cover

    check_predictions_cover(suite, system, config=cfg)  # a predictions file cannot answer generated cases
    recorded = generation_config(suite.config, cfg, info.name)
    task = get_task(info.task)
    owners: dict[str, list[tuple[str, str]]] = {}
    for s in sources:
        owners.setdefault(task.key(task.from_payload({"tokens": s["tokens"]})), []).append((str(s["id"]), "source"))
    check = OutputCheck(task, owners, None)
    with Bar(f"{info.name}: generating and predicting", progress) as bar:
        resolved = resolve_system(system, info.task, cfg, batch_size=batch_size, progress=bar)
        cached = resolved.system
        cached.runner = CheckedRunner(cached.runner, check, cached.name)
        checked = CheckedSystem(cached, check, before=bar.set_total)
        cases = generator.generate(sources, cached, recorded, seed=seed)
        for key, found in owners_of(cases, task, _needs).items():
            check.owners.setdefault(key, found)
        opts = run_options(cases, options, lambda: recorded)
        run = run_suite(checked, cases, opts) if cases else None
    results = list(run.results) if run is not None else []
    if labels is None:  # a built-in system declares the scheme of its labels
        labels = getattr(getattr(cached, "system", None), "label_scheme", None)
    groups = [group_of(c) for c in cases]
    counts = Counter(groups)
    ran = dataclasses.replace(info, cases=len(cases), groups={g: counts[g] for g in dict.fromkeys(groups)},
                              expectations=dict(Counter(expectation_name(c.expected) for c in cases).most_common()))
    return Results(info=ran, system=resolved.describe(), cases=cases, results=results,
                   inputs=case_inputs(cases, task), groups=groups,
                   run={"limit": limit, "seed": seed, "sources": len(sources), "cases": len(cases), "options": opts
                        if cases else dict(options or {}), "predicted": cached.misses, "from_cache": cached.hits},
                   gold=generator.grade(cases, results, labels, recorded))
