"""What the report shows of the working tree's pipeline outputs: per technique and corpus, the tables,
plots, per-system metrics, the counts of every system's per-case results (overall and per group) and the
cases shown (the failing ones first, then a few passing ones, each joined with its suite case).
Locations come from ``cfg.paths.<technique>`` (``metrics``, ``results``, and the cases of ``suite``,
``cases`` or the ``*.jsonl`` of ``suites``), so every technique that follows the shape appears without
code here. :class:`Section` is also what a ``lingtest run`` folder becomes
(:mod:`lingtest.report_html.runs`)."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lingtest.config import Composed
from lingtest.errors import InputError
from lingtest.report_html.cases import CaseView, view_from_pipeline


@dataclass
class Counts:
    """Cases run and cases failed."""

    cases: int = 0
    failed: int = 0

    def add(self, passed: bool) -> None:
        self.cases += 1
        self.failed += int(not passed)


@dataclass
class Section:
    """One block of the page: a technique's outputs on one corpus, or one run of a suite.

    ``counts``: system -> its counts over every per-case result (not only the cases shown); ``groups``:
    group -> system -> counts; ``cases``: the cases shown; ``not_shown``: system -> (failing, passing)
    cases left out by the limits; ``no_results``: system -> why it has metrics but no per-case results
    here; ``notes``: what else the reader should know (a missing suite, missing results)."""

    key: str
    title: str
    technique: str
    corpus: str
    task: str = ""
    facts: dict[str, str] = field(default_factory=dict)
    tables: dict[str, str] = field(default_factory=dict)        # file name -> markdown
    plots: dict[str, str] = field(default_factory=dict)         # file name -> data URI
    systems: dict[str, dict[str, Any]] = field(default_factory=dict)  # system -> metrics JSON
    counts: dict[str, Counts] = field(default_factory=dict)
    groups: dict[str, dict[str, Counts]] = field(default_factory=dict)
    cases: list[CaseView] = field(default_factory=list)
    not_shown: dict[str, tuple[int, int]] = field(default_factory=dict)
    no_results: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    max_chars: int = 0
    max_cases: int = 0


def passing_limit(max_cases: int) -> int:
    """How many passing cases are shown per system beside at most ``max_cases`` failing ones."""
    return max(1, max_cases // 4)


def data_uri(path: Path) -> str:
    """A PNG file as a ``data:`` URI."""
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON ({exc.msg})", path=path, line=exc.lineno) from None


def _read_records(path: Path) -> list[dict[str, Any]]:
    from lingtest.data.io import read_jsonl

    return list(read_jsonl(path, lambda d: d))


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def section_task(technique: str, cases: dict[str, dict[str, Any]]) -> str:
    """The task of a technique's cases: the technique's own, else that of its first case ("" unknown)."""
    from lingtest.data.model import TestCase
    from lingtest.harness.derive import TECHNIQUE_TASKS, case_task

    if technique in TECHNIQUE_TASKS:
        return TECHNIQUE_TASKS[technique]
    for raw in cases.values():
        try:
            return case_task(TestCase.from_dict(raw)) or ""
        except (KeyError, TypeError, ValueError):
            continue
    return ""


class _SuiteCases:
    """A technique's suite cases by id, decoded on first use, with each one's group."""

    def __init__(self, raw: dict[str, dict[str, Any]]) -> None:
        self.raw = raw
        self._decoded: dict[str, Any] = {}

    def get(self, case_id: str) -> Any:
        from lingtest.data.model import TestCase

        if case_id not in self._decoded:
            d = self.raw.get(case_id)
            try:
                self._decoded[case_id] = TestCase.from_dict(d) if d is not None else None
            except (KeyError, TypeError, ValueError):
                self._decoded[case_id] = None
        return self._decoded[case_id]

    def group(self, case_id: str) -> str:
        from lingtest.harness.derive import group_of

        case = self.get(case_id)
        return group_of(case) if case is not None else "-"


def gather_section(technique: str, paths: Any, root: Path, *, max_cases: int, max_chars: int) -> Section | None:
    """One technique's section (None when it has no outputs in the working tree)."""
    metrics_dir = root / str(paths.get("metrics", "")) if paths.get("metrics") else None
    results_dir = root / str(paths.get("results", "")) if paths.get("results") else None
    suite_files = [root / str(paths.get(k)) for k in ("suite", "cases") if str(paths.get(k) or "").endswith(".jsonl")]
    if paths.get("suites") and (root / str(paths.get("suites"))).is_dir():
        suite_files += sorted((root / str(paths.get("suites"))).glob("*.jsonl"))
    corpus = metrics_dir.name if metrics_dir else (suite_files[0].stem if suite_files else "-")
    sec = Section(key=f"{technique}-{corpus}", title=f"{technique} — {corpus}", technique=technique, corpus=corpus,
                  max_chars=max_chars, max_cases=max_cases)
    if metrics_dir and metrics_dir.is_dir():
        for p in sorted(metrics_dir.glob("*.md")):
            sec.tables[p.name] = p.read_text(encoding="utf-8")
        for p in sorted(metrics_dir.glob("*.png")):
            sec.plots[p.name] = data_uri(p)
        for p in sorted((metrics_dir / "systems").glob("*.json")):
            sec.systems[p.stem] = _read_json(p)
    raw: dict[str, dict[str, Any]] = {}
    present = [p for p in suite_files if p.is_file()]
    for suite_path in present:
        raw.update({str(c["id"]): c for c in _read_records(suite_path) if isinstance(c, dict) and "id" in c})
    suite = _SuiteCases(raw)
    sec.task = section_task(technique, raw)
    if sec.task:
        sec.facts["task"] = sec.task
    if present:
        sec.facts["suite"] = ", ".join(_rel(p, root) for p in present)
    result_files = sorted(results_dir.glob("*.jsonl")) if results_dir and results_dir.is_dir() else []
    if result_files and not present:
        missing = ", ".join(_rel(p, root) for p in suite_files) or "none configured"
        sec.notes.append(f"the suite ({missing}) is not in this working tree: the cases' texts cannot be shown")
    for p in result_files:
        _add_results(sec, p, suite, root, max_cases=max_cases, suite_missing=not present)
    for system in list(sec.counts):  # a technique that keeps a system's metrics beside its tables (TIN, ContraPro)
        flat_file = metrics_dir / f"{system}.json" if metrics_dir else None
        if system not in sec.systems and flat_file is not None and flat_file.is_file():
            sec.systems[system] = _read_json(flat_file)
    for system in sec.systems:
        if system not in sec.counts:
            where = _rel(results_dir / f"{system}.jsonl", root) if results_dir else "paths.<technique>.results"
            sec.no_results[system] = f"no per-case results in this working tree ({where} is absent)"
    if results_dir is not None and not result_files and (sec.tables or sec.plots or sec.systems):
        sec.notes.append(f"no per-case results in this working tree ({_rel(results_dir, root)} is absent or empty): "
                         "the tables and metrics above come from metrics files; `dvc pull` or `dvc repro` "
                         "brings the results")
    if not (sec.tables or sec.plots or sec.systems or sec.counts):
        return None
    return sec


def _add_results(sec: Section, path: Path, suite: _SuiteCases, root: Path, *, max_cases: int,
                 suite_missing: bool) -> None:
    records = _read_records(path)
    system = path.stem
    counts = sec.counts.setdefault(system, Counts())
    failing: list[dict[str, Any]] = []
    passing: list[dict[str, Any]] = []
    for r in records:
        cid = str(r.get("case_id", ""))
        passed = bool(r.get("passed", True))
        counts.add(passed)
        sec.groups.setdefault(suite.group(cid), {}).setdefault(system, Counts()).add(passed)
        (passing if passed else failing).append(r)
    shown = failing[:max_cases] + passing[:passing_limit(max_cases)]
    left = (len(failing) - min(len(failing), max_cases), len(passing) - min(len(passing), passing_limit(max_cases)))
    if any(left):
        sec.not_shown[system] = left
    for r in shown:
        cid = str(r.get("case_id", ""))
        case = suite.get(cid)
        why = ("the suite is not in this working tree" if suite_missing
               else f"case {cid} is not in the suite (the results in {_rel(path, root)} are older than the suite?)")
        sec.cases.append(view_from_pipeline({**r, "system": str(r.get("system") or system)}, case, task=sec.task,
                                            technique=sec.technique, group=suite.group(cid), missing_case=why))


def gather(cfg: Composed, root: Path) -> list[Section]:
    """Every technique in ``cfg.paths`` with outputs, in config order."""
    out = []
    for technique, paths in cfg.paths.items():
        if not hasattr(paths, "get") or not (paths.get("metrics") or paths.get("results")):
            continue
        sec = gather_section(str(technique), paths, root, max_cases=int(cfg.report.max_cases),
                             max_chars=int(cfg.report.max_chars))
        if sec is not None:
            out.append(sec)
    return out
