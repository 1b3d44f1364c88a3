"""Folders written by ``lingtest run`` (``results.jsonl`` and ``summary.json``): each becomes a
:class:`~lingtest.report_html.gather.Section` (its counts per group, its cases with their texts), and two
runs of the same suite (the same sha256) a :class:`Comparison` of the cases whose verdict flipped."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lingtest.errors import InputError
from lingtest.report_html.cases import CaseView, view_from_run_record
from lingtest.report_html.gather import Counts, Section, passing_limit

PASS_TO_FAIL = "pass->fail"
FAIL_TO_PASS = "fail->pass"


@dataclass
class Run:
    """One ``lingtest run`` folder: its ``summary.json``, the header and records of its ``results.jsonl``,
    and a label that tells it from the other runs of the page."""

    path: Path
    summary: dict[str, Any]
    header: dict[str, Any]
    records: list[dict[str, Any]]
    label: str = ""

    @property
    def suite(self) -> dict[str, Any]:
        value = self.summary.get("suite")
        return dict(value) if isinstance(value, Mapping) else {}

    @property
    def system(self) -> dict[str, Any]:
        value = self.summary.get("system")
        return dict(value) if isinstance(value, Mapping) else {}

    @property
    def sha256(self) -> str:
        return str(self.suite.get("sha256") or self.header.get("suite_sha256") or "")

    @property
    def suite_name(self) -> str:
        name = str(self.suite.get("name") or self.header.get("suite") or "suite")
        version = self.suite.get("version") or self.header.get("suite_version")
        return f"{name}@{version}" if version else name

    @property
    def system_name(self) -> str:
        return str(self.system.get("name") or self.system.get("spec") or self.header.get("system") or "system")


def read_run(folder: str | Path) -> Run:
    """The run in ``folder`` (a folder ``lingtest run --out`` wrote; read by
    :func:`lingtest.harness.results.read_run_folder`)."""
    from lingtest.harness.results import read_run_folder

    path = Path(folder).expanduser()
    if not path.is_dir():
        raise InputError("not a folder: give the folder `lingtest run --out DIR` wrote", path=path)
    header, summary, records = read_run_folder(path)
    return Run(path=path, summary=summary, header=header, records=records, label=path.name)


def label_runs(runs: Sequence[Run]) -> None:
    """Give each run a label: its system's name, with its folder when two runs share a system name."""
    names = [r.system_name for r in runs]
    for r in runs:
        r.label = r.system_name if names.count(r.system_name) == 1 else f"{r.system_name} ({r.path.name})"


def _view(run: Run, record: Mapping[str, Any]) -> CaseView:
    return view_from_run_record(record, task=str(run.suite.get("task") or ""),
                                technique=str(run.suite.get("technique") or ""), system=run.label)


def run_section(run: Run, index: int, *, max_cases: int, max_chars: int) -> Section:
    """The section of one run: what ran, the counts per group and the cases (failing ones first, at most
    ``max_cases`` of them, then a few passing ones)."""
    suite = run.suite
    sec = Section(key=f"run-{index + 1}", title=f"{run.suite_name} — {run.label}",
                  technique=str(suite.get("technique") or ""), corpus=run.suite_name,
                  task=str(suite.get("task") or ""), max_chars=max_chars, max_cases=max_cases)
    sec.facts = {"folder": str(run.path), "suite": run.suite_name, "sha256": run.sha256[:16],
                 "technique": sec.technique or "-", "task": sec.task or "-",
                 "system": str(run.system.get("spec") or run.system_name)}
    if run.system.get("version"):
        sec.facts["system version"] = str(run.system["version"])
    ling = run.summary.get("lingtest")
    if isinstance(ling, Mapping) and ling.get("version"):
        sec.facts["lingtest"] = str(ling["version"]) + (f" ({str(ling.get('commit'))[:12]})" if ling.get("commit")
                                                          else "")
    opts = run.summary.get("run")
    if isinstance(opts, Mapping) and opts.get("limit"):
        sec.facts["sample"] = f"{opts.get('limit')} cases (seed {opts.get('seed')})"
    gold = run.summary.get("gold")
    if isinstance(gold, Mapping):
        if gold.get("graded") is False:
            sec.notes.append(f"not graded against gold: {gold.get('reason', '')}")
        else:
            sec.systems[run.label] = {"gold": dict(gold)}
    counts = sec.counts.setdefault(run.label, Counts())
    failing: list[dict[str, Any]] = []
    passing: list[dict[str, Any]] = []
    for r in run.records:
        passed = bool(r.get("passed"))
        counts.add(passed)
        sec.groups.setdefault(str(r.get("group") or "-"), {}).setdefault(run.label, Counts()).add(passed)
        (passing if passed else failing).append(r)
    keep = passing_limit(max_cases)
    left = (max(0, len(failing) - max_cases), max(0, len(passing) - keep))
    if any(left):
        sec.not_shown[run.label] = left
    sec.cases = [_view(run, r) for r in failing[:max_cases] + passing[:keep]]
    return sec


@dataclass
class Flip:
    """A case whose verdict differs between run ``a`` and run ``b`` (``direction``: ``pass->fail`` or
    ``fail->pass``), with its view in each run."""

    id: str
    group: str
    direction: str
    a: CaseView
    b: CaseView


@dataclass
class Comparison:
    """Two runs of the same suite, case by case: how many kept or flipped their verdict and the flips."""

    key: str
    a: str
    b: str
    suite: str
    task: str
    counts: dict[str, int] = field(default_factory=dict)
    flips: list[Flip] = field(default_factory=list)
    not_shown: int = 0
    max_chars: int = 0


def compare_runs(a: Run, b: Run, index: int, *, max_cases: int, max_chars: int) -> Comparison:
    """The cases of ``a`` and ``b`` (runs of one suite) joined by id; flips in ``b``'s order, at most
    ``max_cases`` of each direction."""
    if a.sha256 != b.sha256:
        raise InputError(f"runs {a.path} and {b.path} are of different suites ({a.sha256[:12]} vs {b.sha256[:12]})")
    by_id = {str(r["id"]): r for r in a.records}
    seen = set()
    cmp = Comparison(key=f"compare-{index + 1}", a=a.label, b=b.label, suite=a.suite_name,
                     task=str(a.suite.get("task") or ""), max_chars=max_chars)
    counts = dict.fromkeys((PASS_TO_FAIL, FAIL_TO_PASS, "both fail", "both pass", "only in A", "only in B"), 0)
    shown = dict.fromkeys((PASS_TO_FAIL, FAIL_TO_PASS), 0)
    for rb in b.records:
        cid = str(rb["id"])
        ra = by_id.get(cid)
        if ra is None:
            counts["only in B"] += 1
            continue
        seen.add(cid)
        pa, pb = bool(ra.get("passed")), bool(rb.get("passed"))
        if pa == pb:
            counts["both pass" if pa else "both fail"] += 1
            continue
        direction = PASS_TO_FAIL if pa else FAIL_TO_PASS
        counts[direction] += 1
        if shown[direction] >= max_cases:
            cmp.not_shown += 1
            continue
        shown[direction] += 1
        cmp.flips.append(Flip(id=cid, group=str(rb.get("group") or ra.get("group") or "-"), direction=direction,
                              a=_view(a, ra), b=_view(b, rb)))
    counts["only in A"] = len(by_id) - len(seen)
    cmp.counts = counts
    return cmp


def run_pages(folders: Sequence[str | Path], *, max_cases: int, max_chars: int
              ) -> tuple[list[Section], list[Comparison], list[str]]:
    """The sections of the runs in ``folders``, the comparisons of each later run of a suite with its
    first run, and notes (runs that share no suite)."""
    runs = [read_run(f) for f in folders]
    label_runs(runs)
    sections = [run_section(r, i, max_cases=max_cases, max_chars=max_chars) for i, r in enumerate(runs)]
    comparisons: list[Comparison] = []
    first: dict[str, Run] = {}
    for r in runs:
        base = first.setdefault(r.sha256, r)
        if base is not r:
            comparisons.append(compare_runs(base, r, len(comparisons), max_cases=max_cases, max_chars=max_chars))
    notes = []
    if len(runs) > 1 and not comparisons:
        notes.append("no two runs are of the same suite (sha256), so there is no comparison: "
                     + "; ".join(f"{r.label}: {r.suite_name} {r.sha256[:12]}" for r in runs))
    return sections, comparisons, notes
