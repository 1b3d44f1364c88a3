"""The comparison as data: pure functions from metrics files to rows, columns and deltas.

A metrics file ``metrics/<technique>/<corpus>/systems/<system>.json`` gives rows
``(technique, corpus, system, metric)`` with ``metric`` the dotted path of a numeric leaf
(``sets.clean.conll.f1``; list items by index); other files under ``metrics/`` give rows with system
``-`` and the file's stem as the metric prefix (``generation.seconds``).
"""

from __future__ import annotations

import csv
import fnmatch
import io
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from lingtest.errors import InputError

NONE = "-"


@dataclass(frozen=True, order=True)
class RowKey:
    technique: str
    corpus: str
    system: str
    metric: str

    @property
    def id(self) -> str:
        """``technique/corpus/system:metric``, what ``--metric`` and ``--fail-on-regression`` match."""
        return f"{self.technique}/{self.corpus}/{self.system}:{self.metric}"


@dataclass
class Comparison:
    columns: list[str]
    rows: dict[RowKey, list[float | None]] = field(default_factory=dict)

    def delta(self, key: RowKey, col: int) -> float | None:
        """Column ``col`` minus the first column."""
        vals = self.rows[key]
        if vals[0] is None or vals[col] is None:
            return None
        return float(vals[col]) - float(vals[0])  # type: ignore[arg-type]

    def changed(self, key: RowKey) -> bool:
        vals = self.rows[key]
        return any(v != vals[0] for v in vals[1:])

    def techniques(self) -> list[str]:
        return sorted({k.technique for k in self.rows})


def flatten_numbers(data: Any, prefix: str = "") -> dict[str, float]:
    """Numeric leaves of a JSON value by dotted path (booleans and non-finite numbers are left out)."""
    out: dict[str, float] = {}
    if isinstance(data, Mapping):
        for k, v in data.items():
            out.update(flatten_numbers(v, f"{prefix}{k}."))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out.update(flatten_numbers(v, f"{prefix}{i}."))
    elif isinstance(data, (int, float)) and not isinstance(data, bool) and math.isfinite(float(data)):
        out[prefix[:-1]] = float(data)
    return out


def file_rows(path: str, data: Any) -> dict[RowKey, float]:
    """Rows of one metrics file (``path`` relative to the repository root, POSIX)."""
    parts = list(PurePosixPath(path).parts)
    if parts and parts[0] == "metrics":
        parts = parts[1:]
    stem = PurePosixPath(path).stem
    dirs = parts[:-1]
    if len(dirs) >= 1 and dirs[-1] == "systems":
        technique = dirs[0] if len(dirs) >= 2 else NONE
        corpus = dirs[1] if len(dirs) >= 3 else NONE
        system, prefix = stem, ""
    else:
        technique = dirs[0] if dirs else stem
        corpus = dirs[1] if len(dirs) >= 2 else (stem if len(dirs) == 1 else NONE)
        system = NONE
        prefix = "" if stem in (technique, corpus) else f"{stem}."
    return {RowKey(technique, corpus, system, prefix + k): v for k, v in flatten_numbers(data).items()}


def build(columns: Sequence[str], files_by_column: Sequence[Mapping[str, Any]]) -> Comparison:
    """``files_by_column[i]``: metrics file path -> parsed JSON for column ``i``."""
    per_col = []
    for files in files_by_column:
        rows: dict[RowKey, float] = {}
        for path, data in files.items():
            rows.update(file_rows(path, data))
        per_col.append(rows)
    keys = sorted(set().union(*[set(r) for r in per_col])) if per_col else []
    comp = Comparison(list(columns))
    for k in keys:
        comp.rows[k] = [r.get(k) for r in per_col]
    return comp


def by_systems(comp: Comparison, systems: Sequence[str]) -> Comparison:
    """Pivot: rows without the system, one column per (column, system) for the given systems."""
    multi = len(comp.columns) > 1
    columns = [f"{c}:{s}" if multi else s for c in comp.columns for s in systems]
    out = Comparison(columns)
    merged: dict[RowKey, list[float | None]] = {}
    for key, vals in comp.rows.items():
        if key.system not in systems:
            continue
        base = RowKey(key.technique, key.corpus, NONE, key.metric)
        row = merged.setdefault(base, [None] * len(columns))
        si = list(systems).index(key.system)
        for ci, v in enumerate(vals):
            row[ci * len(systems) + si] = v
    out.rows = dict(sorted(merged.items()))
    return out


def select(comp: Comparison, patterns: Sequence[str] = (), *, only_changed: bool = False) -> Comparison:
    out = Comparison(comp.columns)
    for key, vals in comp.rows.items():
        if patterns and not any(matches(key, p) for p in patterns):
            continue
        if only_changed and not comp.changed(key):
            continue
        out.rows[key] = vals
    return out


def matches(key: RowKey, pattern: str) -> bool:
    """A glob on the row id (``technique/corpus/system:metric``) or on the metric alone."""
    return fnmatch.fnmatchcase(key.id, pattern) or fnmatch.fnmatchcase(key.metric, pattern)


# ---------------------------------------------------------------------------------------------------
# the regression gate


@dataclass(frozen=True)
class Gate:
    pattern: str
    delta: float
    lower_is_better: bool

    @classmethod
    def parse(cls, text: str) -> Gate:
        """``METRIC:DELTA``: a drop of more than DELTA below the first column is a regression;
        ``METRIC:+DELTA``: lower is better, a rise of more than DELTA is."""
        pattern, sep, delta = text.rpartition(":")
        if not sep or not pattern:
            raise InputError(f"--fail-on-regression {text!r}: expected METRIC:DELTA", field="fail_on_regression")
        try:
            value = float(delta)
        except ValueError:
            raise InputError(f"--fail-on-regression {text!r}: DELTA {delta!r} is not a number",
                             field="fail_on_regression") from None
        if value < 0 or not math.isfinite(value):
            raise InputError(f"--fail-on-regression {text!r}: DELTA must be >= 0 (+DELTA: lower is better)",
                             field="fail_on_regression")
        return cls(pattern, value, delta.strip().startswith("+"))


@dataclass(frozen=True)
class Regression:
    key: RowKey
    column: str
    baseline: float
    value: float
    gate: Gate

    def describe(self) -> str:
        sign = "+" if self.gate.lower_is_better else "-"
        return (f"{self.key.id}: {self.baseline:.4g} -> {self.value:.4g} in {self.column} "
                f"({self.value - self.baseline:+.4g}; allowed {sign}{self.gate.delta:g})")


def regressions(comp: Comparison, gates: Iterable[Gate]) -> tuple[list[Regression], list[Gate]]:
    """Regressions of every later column against the first; also the gates that matched no row
    (a typo in a gate must not pass silently)."""
    found: list[Regression] = []
    unmatched: list[Gate] = []
    for gate in gates:
        hit = False
        for key, vals in comp.rows.items():
            if not matches(key, gate.pattern):
                continue
            hit = True
            base = vals[0]
            for ci in range(1, len(vals)):
                v = vals[ci]
                if base is None or v is None:
                    continue
                worse = (v - base > gate.delta) if gate.lower_is_better else (base - v > gate.delta)
                if worse:
                    found.append(Regression(key, comp.columns[ci], base, v, gate))
        if not hit:
            unmatched.append(gate)
    return found, unmatched


# ---------------------------------------------------------------------------------------------------
# output formats


def fmt(v: float | None) -> str:
    if v is None:
        return NONE
    if float(v).is_integer() and abs(v) < 1e15:
        return str(int(v))
    return f"{v:.4f}".rstrip("0").rstrip(".") if abs(v) < 1e6 else f"{v:.4g}"


def _header(comp: Comparison) -> list[str]:
    head = ["technique", "corpus", "system", "metric", *comp.columns]
    if len(comp.columns) > 1:
        head.append(f"Δ {comp.columns[-1]} − {comp.columns[0]}")
    return head


def _cells(comp: Comparison, key: RowKey) -> list[str]:
    vals = comp.rows[key]
    cells = [key.technique, key.corpus, key.system, key.metric, *(fmt(v) for v in vals)]
    if len(comp.columns) > 1:
        d = comp.delta(key, len(vals) - 1)
        cells.append(NONE if d is None else ("0" if d == 0 else f"{d:+.4g}"))
    return cells


def to_markdown(comp: Comparison) -> str:
    head = _header(comp)
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" if i < 4 else "---:" for i in range(len(head))) + "|"]
    lines += ["| " + " | ".join(_cells(comp, k)) + " |" for k in comp.rows]
    return "\n".join(lines) + "\n"


def to_csv(comp: Comparison) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["technique", "corpus", "system", "metric", *comp.columns])
    for k, vals in comp.rows.items():
        w.writerow([k.technique, k.corpus, k.system, k.metric, *("" if v is None else repr(v) for v in vals)])
    return buf.getvalue()


def to_json(comp: Comparison) -> str:
    rows = []
    for k, vals in comp.rows.items():
        rows.append({"technique": k.technique, "corpus": k.corpus, "system": k.system, "metric": k.metric,
                     "values": dict(zip(comp.columns, vals, strict=True)),
                     "delta": {c: comp.delta(k, i) for i, c in enumerate(comp.columns) if i > 0}})
    return json.dumps({"columns": comp.columns, "rows": rows}, indent=2, ensure_ascii=False) + "\n"


def to_rich(comp: Comparison) -> Any:
    from rich.table import Table

    table = Table(show_lines=False)
    for i, h in enumerate(_header(comp)):
        table.add_column(h, justify="right" if i >= 4 else "left", overflow="fold")
    for k in comp.rows:
        cells = _cells(comp, k)
        if len(comp.columns) > 1 and cells[-1] not in ("0", NONE):
            cells[-1] = f"[bold]{cells[-1]}[/bold]"
        table.add_row(*cells)
    return table
