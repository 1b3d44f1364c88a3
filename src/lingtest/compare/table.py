"""The comparison as data: pure functions from metrics files to rows, columns and deltas.

A metrics file gives rows ``(technique, corpus, system, metric)``, ``metric`` the dotted path of a
numeric leaf (``sets.clean.conll.f1``; list items by index; integers stay integers):

* ``metrics/<technique>/[<corpus>/]systems/<system>.json``: the system's rows;
* ``metrics/<technique>/<corpus>/[<folder>/...]<stem>.json`` (TIN's ``tin/conll2003/generation/spacy_sm.json``,
  CREST's ablation, S2LCT's training and coverage): when the stem names a system (a file of that name
  lies under some ``systems/`` folder, the file's own ``system`` field says so, or ``--systems`` names
  it), the rows are that system's and the metric is ``<folder>.<key>`` (``generation.mutants.overall.kept``);
  otherwise the system is ``-`` and the metric ``<folder>.<stem>.<key>`` (``generation.seconds``);
* ``metrics/<technique>/<stem>.json``: corpus ``<stem>`` (or system ``<stem>`` when it names one);
  ``metrics/<stem>.json``: technique ``<stem>``.

What a screen shows (:func:`view`): each technique's headline metrics (``compare.headline``: technique ->
fnmatch patterns over the metric, in row order), never timing or diagnostic fields (``compare.hidden``:
fnmatch patterns over one dotted segment of the metric); ``--all`` shows every row. Systems set side by
side (:func:`by_systems`) are checked for having been evaluated on the same thing
(:func:`basis_mismatches`: the suite, dataset, corpus and split a file names, and the counts
``compare.basis`` lists per technique).
"""

from __future__ import annotations

import csv
import fnmatch
import io
import json
import math
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
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
    """Rows by key, one value per column; ``systems``: the systems :func:`by_systems` set side by side
    (the columns are then ``revision:system`` when there are several revisions)."""

    columns: list[str]
    rows: dict[RowKey, list[float | None]] = field(default_factory=dict)
    systems: list[str] = field(default_factory=list)

    @property
    def has_delta(self) -> bool:
        """Whether last-minus-first is a change of one thing: several columns, and not several revisions
        of several systems side by side."""
        return len(self.columns) > 1 and (not self.systems or len(self.columns) == len(self.systems))

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
    """Numeric leaves of a JSON value by dotted path, integers as integers (booleans and non-finite
    numbers are left out)."""
    out: dict[str, float] = {}
    if isinstance(data, Mapping):
        for k, v in data.items():
            out.update(flatten_numbers(v, f"{prefix}{k}."))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out.update(flatten_numbers(v, f"{prefix}{i}."))
    elif isinstance(data, (int, float)) and not isinstance(data, bool) and math.isfinite(float(data)):
        out[prefix[:-1]] = data
    return out


def names_system(path: str, data: Any) -> str | None:
    """The system a metrics file is named after on its own evidence: its stem when the file lies under a
    ``systems/`` folder or carries ``"system": <stem>``."""
    pp = PurePosixPath(path)
    if pp.parent.name == "systems":
        return pp.stem
    if isinstance(data, Mapping) and data.get("system") == pp.stem:
        return pp.stem
    return None


def known_systems(files_by_column: Iterable[Mapping[str, Any]]) -> set[str]:
    """Every system some metrics file of some column is named after (:func:`names_system`)."""
    found: set[str] = set()
    for files in files_by_column:
        for path, data in files.items():
            name = names_system(path, data)
            if name:
                found.add(name)
    return found


def file_key(path: str, data: Any = None, systems: Collection[str] = ()) -> tuple[str, str, str, str]:
    """``(technique, corpus, system, metric prefix)`` of a metrics file (see the module's docstring);
    ``systems``: names known to be systems."""
    pp = PurePosixPath(path)
    parts = list(pp.parts)
    if parts and parts[0] == "metrics":
        parts = parts[1:]
    stem = pp.stem
    dirs = parts[:-1]
    if dirs and dirs[-1] == "systems":
        technique = dirs[0] if len(dirs) >= 2 else NONE
        corpus = dirs[1] if len(dirs) >= 3 else NONE
        return technique, corpus, stem, ""
    is_system = bool(dirs) and (stem in systems or names_system(path, data) is not None)
    technique = dirs[0] if dirs else stem
    if len(dirs) >= 2:
        corpus, folders = dirs[1], dirs[2:]
    elif len(dirs) == 1:
        corpus, folders = (NONE if is_system else stem), []
    else:
        corpus, folders = NONE, []
    if is_system:
        return technique, corpus, stem, "".join(f"{f}." for f in folders)
    names = [*folders, *([] if stem in (technique, corpus) else [stem])]
    return technique, corpus, NONE, "".join(f"{n}." for n in names)


def file_rows(path: str, data: Any, systems: Collection[str] = ()) -> dict[RowKey, float]:
    """Rows of one metrics file (``path`` relative to the repository root, POSIX)."""
    technique, corpus, system, prefix = file_key(path, data, systems)
    return {RowKey(technique, corpus, system, prefix + k): v for k, v in flatten_numbers(data).items()}


def build(columns: Sequence[str], files_by_column: Sequence[Mapping[str, Any]],
          systems: Collection[str] = ()) -> Comparison:
    """``files_by_column[i]``: metrics file path -> parsed JSON for column ``i``; ``systems``: names that
    are systems besides those the files name (:func:`known_systems`)."""
    names = known_systems(files_by_column) | set(systems)
    per_col = []
    for files in files_by_column:
        rows: dict[RowKey, float] = {}
        for path, data in files.items():
            rows.update(file_rows(path, data, names))
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
    out = Comparison(columns, systems=list(systems))
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
    out = Comparison(comp.columns, systems=comp.systems)
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


def missing_systems(comp: Comparison, systems: Sequence[str]) -> list[str]:
    """The systems of ``systems`` no row of ``comp`` belongs to."""
    present = {k.system for k in comp.rows}
    return [s for s in systems if s not in present]


# ---------------------------------------------------------------------------------------------------
# what a screen shows


def is_hidden(metric: str, hidden: Sequence[str]) -> bool:
    """A timing or diagnostic field: some dotted segment of ``metric`` matches a ``hidden`` pattern
    (segment-wise, so that ``time`` hides ``time`` and ``train_time`` but not ``sentiment``)."""
    segments = metric.split(".")
    return any(fnmatch.fnmatchcase(seg, pat) for pat in hidden for seg in segments)


def headline_rank(key: RowKey, headline: Mapping[str, Sequence[str]]) -> int | None:
    """Position of the first of the technique's headline patterns its metric matches (None: not a
    headline metric); 0 for every metric of a technique ``headline`` does not list."""
    if key.technique not in headline:
        return 0
    for i, pattern in enumerate(headline[key.technique] or ()):
        if fnmatch.fnmatchcase(key.metric, pattern):
            return i
    return None


def view(comp: Comparison, *, headline: Mapping[str, Sequence[str]] | None = None, hidden: Sequence[str] = (),
         patterns: Sequence[str] = (), all_rows: bool = False, only_changed: bool = False) -> Comparison:
    """The rows to show. ``all_rows``: every row (that matches ``patterns``, when given); else
    ``patterns`` (globs as in :func:`matches`) or, without them, each technique's ``headline``
    metrics; never a ``hidden`` field. Rows are ordered by technique, corpus and system, then in the
    order of the headline patterns."""
    headline = headline or {}
    out = Comparison(comp.columns, systems=comp.systems)
    ranked: list[tuple[tuple[str, str, str, int, str], RowKey]] = []
    for key in comp.rows:
        if patterns and not any(matches(key, p) for p in patterns):
            continue
        if only_changed and not comp.changed(key):
            continue
        rank = headline_rank(key, headline)
        if not all_rows:
            if is_hidden(key.metric, hidden):
                continue
            if not patterns and rank is None:
                continue
        ranked.append(((key.technique, key.corpus, key.system, rank if rank is not None else 1 << 30, key.metric),
                       key))
    for _, key in sorted(ranked):
        out.rows[key] = comp.rows[key]
    return out


# ---------------------------------------------------------------------------------------------------
# systems side by side: were they evaluated on the same thing?

#: string fields of a metrics file that say what its system was evaluated on
BASIS_FIELDS = ("suite", "dataset", "corpus", "split")


def _basis_value(v: Any) -> str:
    return fmt(v, fixed=False) if isinstance(v, int | float) and not isinstance(v, bool) else str(v)


def basis_mismatches(columns: Sequence[str], files_by_column: Sequence[Mapping[str, Any]], systems: Sequence[str],
                     basis: Mapping[str, Sequence[str]] | None = None) -> list[str]:
    """Where ``systems`` set side by side were evaluated on different things: per technique and corpus,
    the files' :data:`BASIS_FIELDS` and the counts ``basis[technique]`` (fnmatch patterns over the
    metric) that differ between the systems, with each system's value; one line per difference (the
    columns it occurs in named)."""
    basis = basis or {}
    names = known_systems(files_by_column) | set(systems)
    found: dict[str, list[str]] = {}
    for col, files in zip(columns, files_by_column, strict=True):
        per: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
        for path, data in files.items():
            technique, corpus, system, prefix = file_key(path, data, names)
            if system not in systems or not isinstance(data, Mapping):
                continue
            values = per.setdefault((technique, corpus), {}).setdefault(system, {})
            for name in BASIS_FIELDS:
                if isinstance(data.get(name), str):
                    values[name] = data[name]
            patterns = basis.get(technique) or ()
            for k, v in flatten_numbers(data).items():
                if any(fnmatch.fnmatchcase(prefix + k, p) for p in patterns):
                    values[prefix + k] = v
        for (technique, corpus), by_system in sorted(per.items()):
            if len(by_system) < 2:
                continue
            diffs = []
            for name in sorted(set().union(*by_system.values())):
                have = [(s, by_system[s][name]) for s in systems if s in by_system and name in by_system[s]]
                if len(have) > 1 and len({_basis_value(v) for _, v in have}) > 1:
                    diffs.append(f"{name} " + ", ".join(f"{s}={_basis_value(v)}" for s, v in have))
            if diffs:
                where = technique if corpus == NONE else f"{technique}/{corpus}"
                found.setdefault(f"{where}: " + "; ".join(diffs), []).append(col)
    return [f"{text} (in {', '.join(cols)})" for text, cols in found.items()]


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
        change = fmt(self.value - self.baseline, fixed=False)
        return (f"{self.key.id}: {fmt(self.baseline, fixed=False)} -> {fmt(self.value, fixed=False)} in "
                f"{self.column} ({'' if change.startswith('-') else '+'}{change}; allowed "
                f"{sign}{fmt(self.gate.delta, fixed=False)})")


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


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def fmt(v: float | None, *, fixed: bool = True, digits: int = 4) -> str:
    """A value: an integer with thousands separators; a float with ``digits`` decimals (``fixed``) or
    up to ``digits`` decimals without trailing zeros; never in scientific notation."""
    if v is None:
        return NONE
    if _is_int(v):
        return f"{v:,}"
    if not math.isfinite(v):
        return str(v)
    text = f"{v:,.{digits}f}"
    if fixed:
        return text
    text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def fmt_delta(comp: Comparison, key: RowKey, col: int, *, fixed: bool = True) -> str:
    """Column ``col`` minus the first, signed; ``0`` when equal, ``-`` when either is missing."""
    d = comp.delta(key, col)
    if d is None:
        return NONE
    vals = comp.rows[key]
    if _is_int(vals[0]) and _is_int(vals[col]):
        return "0" if d == 0 else f"{int(d):+,}"
    if d == 0:
        return "0"
    text = fmt(d, fixed=fixed)
    return text if text.startswith("-") else f"+{text}"


def _header(comp: Comparison) -> list[str]:
    head = ["technique", "corpus", "system", "metric", *comp.columns]
    if comp.has_delta:
        head.append(f"Δ {comp.columns[-1]} − {comp.columns[0]}")
    return head


def _cells(comp: Comparison, key: RowKey, *, fixed: bool) -> list[str]:
    vals = comp.rows[key]
    cells = [key.technique, key.corpus, key.system, key.metric, *(fmt(v, fixed=fixed) for v in vals)]
    if comp.has_delta:
        cells.append(fmt_delta(comp, key, len(vals) - 1, fixed=fixed))
    return cells


def to_markdown(comp: Comparison) -> str:
    head = _header(comp)
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" if i < 4 else "---:" for i in range(len(head))) + "|"]
    lines += ["| " + " | ".join(_cells(comp, k, fixed=False)) + " |" for k in comp.rows]
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


def fold(text: str, width: int) -> str:
    """``text`` broken into lines of at most ``width`` characters after separators (``.``, ``/``,
    ``_``, ``:``, ``-``, space), never inside a word unless a word alone is longer than ``width``."""
    if width < 1 or len(text) <= width:
        return text
    pieces = re.findall(r"[^./_:\- ]*[./_:\- ]|[^./_:\- ]+$", text) or [text]
    lines: list[str] = []
    line = ""
    for piece in pieces:
        while len(piece) > width:  # a word longer than the column: split it hard
            if line:
                lines.append(line)
                line = ""
            lines.append(piece[:width])
            piece = piece[width:]
        if len(line) + len(piece.rstrip()) > width:
            lines.append(line)
            line = piece
        else:
            line += piece
    if line:
        lines.append(line)
    return "\n".join(ln.rstrip() for ln in lines if ln.strip())


#: column widths of the rich table (characters)
WHERE_WIDTH, SYSTEM_WIDTH, METRIC_WIDTH, VALUE_WIDTH, MAX_VALUE_WIDTH = 19, 17, 26, 9, 16


def _has_systems(comp: Comparison) -> bool:
    return any(k.system != NONE for k in comp.rows)


def _heads(comp: Comparison) -> list[str]:
    return list(comp.columns) + ([f"Δ {comp.columns[-1]} − {comp.columns[0]}"] if comp.has_delta else [])


def _value_widths(comp: Comparison) -> list[int]:
    """Per value column: the longest cell (at least :data:`VALUE_WIDTH`, at most
    :data:`MAX_VALUE_WIDTH`), or a column's name up to 12 characters (the change's header folds)."""
    cells = [_cells(comp, k, fixed=True)[4:] for k in comp.rows]
    names = [*comp.columns, ""]
    return [max(VALUE_WIDTH, min(12, len(names[i])), min(MAX_VALUE_WIDTH, max((len(c[i]) for c in cells), default=0)))
            for i in range(len(_heads(comp)))]


def table_width(comp: Comparison) -> int:
    """The width the rich table of ``comp`` needs (a console at least this wide prints it unwrapped)."""
    widths = [WHERE_WIDTH, *([SYSTEM_WIDTH] if _has_systems(comp) else []), METRIC_WIDTH, *_value_widths(comp)]
    return sum(widths) + 2 * (len(widths) - 1)


def to_rich(comp: Comparison) -> Any:
    """The comparison as a rich table with fixed column widths: ``technique/corpus``, ``system`` (left
    out when no row has one, as after :func:`by_systems`) and ``metric`` (folded at separators), one
    column per revision (and system) and the change from the first to the last; technique and system
    are printed where they change."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    with_system = _has_systems(comp)
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1), show_edge=False, collapse_padding=True)
    table.add_column("technique/corpus", width=WHERE_WIDTH, no_wrap=True, overflow="ellipsis")
    if with_system:
        table.add_column("system", width=SYSTEM_WIDTH, no_wrap=True, overflow="ellipsis")
    table.add_column("metric", width=METRIC_WIDTH, no_wrap=True, overflow="ellipsis")
    for head, width in zip(_heads(comp), _value_widths(comp), strict=True):
        table.add_column(escape(fold(head, width)), width=width, justify="right", no_wrap=True, overflow="ellipsis")
    keys = list(comp.rows)
    last_where = last_system = None
    for i, k in enumerate(keys):
        cells = _cells(comp, k, fixed=True)
        where = k.technique if k.corpus == NONE else f"{k.technique}/{k.corpus}"
        show_where = where != last_where
        show_system = show_where or k.system != last_system
        last_where, last_system = where, k.system
        values = [escape(c) for c in cells[4:]]
        if comp.has_delta and cells[-1] not in ("0", NONE):
            values[-1] = f"[bold]{values[-1]}[/bold]"
        system = [escape(fold(k.system, SYSTEM_WIDTH)) if show_system else ""] if with_system else []
        nxt = keys[i + 1] if i + 1 < len(keys) else None
        table.add_row(escape(fold(where, WHERE_WIDTH)) if show_where else "", *system,
                      escape(fold(k.metric, METRIC_WIDTH)), *values,
                      end_section=nxt is not None and nxt.technique != k.technique)
    return table
