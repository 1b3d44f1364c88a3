"""The results of one system on one suite: per case, per group, as tables and as files.

``save(dir)`` writes ``dir/results.jsonl`` (lingtest's schema header, ``kind: suite-results``, then one
line per case: ``id``, ``group``, ``expectation``, ``inputs`` (by side, in the task's JSON form),
``expected``, ``prediction`` (by side), ``passed``, ``details``) and ``dir/summary.json`` (the suite's
name, version and sha256; the system's spec, name, version and config; the lingtest version and git
commit; the run's sample and options; ``cases`` and ``failed`` per group and overall; ``gold``: the
technique's grading against gold, where the suite has gold).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lingtest.data.model import TestCase
from lingtest.harness.info import SuiteInfo
from lingtest.suite.run import CaseResult

RESULTS_KIND = "suite-results"
RESULTS_FILE = "results.jsonl"
SUMMARY_FILE = "summary.json"
OVERALL = "overall"
COLUMNS = ("id", "group", "expectation", "inputs", "expected", "prediction", "passed", "details")


def lingtest_identity() -> dict[str, Any]:
    """lingtest's installed version and, when it runs from a git checkout, the commit (``None`` else)."""
    from lingtest.environment import git_commit, package_versions

    version = package_versions(["lingtest"])["lingtest"]
    package = Path(__file__).resolve().parents[1]
    commit: str | None = None
    dirty: bool | None = None
    checkout = package.parent.parent
    if package.parent.name == "src" and (checkout / "pyproject.toml").is_file():
        got, is_dirty = git_commit(checkout)
        if got != "unknown":
            commit, dirty = got, is_dirty
    return {"version": version, "commit": commit, "dirty": dirty}


@dataclass
class Results:
    """One result per case (in the order the cases ran), with the suite and system they belong to."""

    info: SuiteInfo
    system: dict[str, Any]
    cases: list[TestCase]
    results: list[CaseResult]
    inputs: list[dict[str, Any]]
    groups: list[str]
    run: dict[str, Any] = field(default_factory=dict)
    #: a technique's grading of the run against gold, where its suite has gold (TIN: issue precision,
    #: source F1); written into ``summary.json`` as ``gold``
    gold: dict[str, Any] | None = None

    def __len__(self) -> int:
        return len(self.results)

    def __repr__(self) -> str:
        return (f"<Results {self.system.get('name')} on {self.info.name}: {len(self)} cases, "
                f"{self.failed} failed>")

    @property
    def failed(self) -> int:
        return sum(not r.passed for r in self.results)

    def records(self) -> list[dict[str, Any]]:
        """One plain dict per case (the lines of ``results.jsonl``)."""
        out = []
        for case, res, inputs, group in zip(self.cases, self.results, self.inputs, self.groups, strict=True):
            out.append({"id": case.id, "group": group, "expectation": res.expectation, "inputs": inputs,
                        "expected": case.expected, "prediction": res.predictions, "passed": res.passed,
                        "details": res.details})
        return out

    def counts(self) -> dict[str, dict[str, int]]:
        """``{group: {"cases": n, "failed": k}}`` in the suite's group order."""
        order = [g for g in self.info.groups if g in set(self.groups)]
        order += [g for g in dict.fromkeys(self.groups) if g not in order]
        out = {g: {"cases": 0, "failed": 0} for g in order}
        for group, res in zip(self.groups, self.results, strict=True):
            out[group]["cases"] += 1
            out[group]["failed"] += int(not res.passed)
        return out

    def summary(self) -> Any:
        """A pandas DataFrame: one row per group (``group``, ``cases``, ``failed``, ``failure_rate``) and
        an ``overall`` row last."""
        import pandas as pd

        rows = [{"group": g, **c} for g, c in self.counts().items()]
        rows.append({"group": OVERALL, "cases": len(self), "failed": self.failed})
        df = pd.DataFrame(rows, columns=["group", "cases", "failed"])
        df["failure_rate"] = (df["failed"] / df["cases"]).where(df["cases"] > 0)
        return df

    def to_pandas(self) -> Any:
        """A pandas DataFrame with one row per case: ``id``, ``group``, ``expectation``, ``inputs``,
        ``expected``, ``prediction``, ``passed``, ``details``."""
        import pandas as pd

        return pd.DataFrame(self.records(), columns=list(COLUMNS))

    def failures(self) -> Any:
        """The failing cases: the rows of :meth:`to_pandas` that did not pass."""
        df = self.to_pandas()
        return df[~df["passed"]].reset_index(drop=True)

    def summary_dict(self) -> dict[str, Any]:
        """What ``summary.json`` holds."""
        info = self.info
        return {
            "suite": {"name": info.name, "version": info.version, "sha256": info.sha256, "technique": info.technique,
                      "task": info.task, "cases": info.cases, "group_rule": info.group_rule},
            "system": self.system,
            "lingtest": lingtest_identity(),
            "run": self.run,
            "groups": self.counts(),
            OVERALL: {"cases": len(self), "failed": self.failed},
            **({"gold": self.gold} if self.gold is not None else {}),
        }

    def save(self, directory: str | Path) -> Path:
        """Write ``results.jsonl`` and ``summary.json`` into ``directory`` (created); returns it."""
        from lingtest.data.io import write_json, write_jsonl

        out = Path(directory).expanduser()
        out.mkdir(parents=True, exist_ok=True)
        meta = {"suite": self.info.name, "suite_version": self.info.version, "suite_sha256": self.info.sha256,
                "system": self.system.get("spec")}
        write_jsonl(out / RESULTS_FILE, self.records(), kind=RESULTS_KIND, meta=meta)
        write_json(out / SUMMARY_FILE, self.summary_dict())
        return out


def is_run_folder(path: str | Path) -> bool:
    """A folder :meth:`Results.save` (``lingtest run --out``) wrote: it holds ``results.jsonl`` and
    ``summary.json``."""
    p = Path(path)
    return p.is_dir() and (p / RESULTS_FILE).is_file() and (p / SUMMARY_FILE).is_file()


def read_run_folder(folder: str | Path) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """(the ``results.jsonl`` header, ``summary.json``, the result records) of a run folder, checked:
    every record an object with a string ``id`` and ``group`` and a boolean ``passed``, no id twice;
    an error names the file, the line and the field."""
    import json

    from lingtest.data.io import read_header, read_jsonl
    from lingtest.errors import InputError

    path = Path(folder).expanduser()
    if not is_run_folder(path):
        raise InputError(f"not a folder of `lingtest run` (it needs {RESULTS_FILE} and {SUMMARY_FILE})", path=path)
    results, summary_path = path / RESULTS_FILE, path / SUMMARY_FILE
    header = read_header(results)
    if header.get("kind") != RESULTS_KIND:
        raise InputError(f"expected records of kind {RESULTS_KIND!r}, found {header.get('kind')!r}", path=results,
                         line=1, field="kind")
    try:
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON ({exc.msg})", path=summary_path, line=exc.lineno) from None
    if not isinstance(summary, dict):
        raise InputError("expected a JSON object", path=summary_path)
    seen: set[str] = set()

    def record(rec: Any) -> dict[str, Any]:
        if not isinstance(rec, dict):
            raise InputError("expected a JSON object")
        for name, kind in (("id", str), ("group", str), ("passed", bool)):
            if name not in rec:
                raise InputError("missing required field", field=name)
            if not isinstance(rec[name], kind):
                raise InputError(f"expected {kind.__name__}, got {type(rec[name]).__name__}", field=name)
        if rec["id"] in seen:
            raise InputError(f"case {rec['id']!r} appears twice", field="id")
        seen.add(rec["id"])
        return rec

    records = list(read_jsonl(results, record))
    return header, summary, records
