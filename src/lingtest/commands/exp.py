"""``lingtest exp show [--all] [--md]``: DVC's experiments as one readable table.

One row per commit and experiment that ``dvc exp show --json`` lists (the workspace, the baseline
commit, its experiments; a queued or failed experiment says so after its name). The columns are the
``params.yaml`` leaves whose values differ between those rows, then each technique's headline metrics,
named as ``lingtest compare`` names them (``technique/corpus/system:metric``,
:mod:`lingtest.compare.table`): those whose metric matches one of the technique's fnmatch patterns in
``compare.headline`` (a technique it does not list: all its metrics; ``[]``: none), never one that
``compare.hidden`` hides; ``--all``: every metric.

The rich table fits a 100-column screen (the terminal's width when narrower; 100 when the output is
redirected): long headers wrap at their dots, long values end in ``…``, and columns that do not fit go
into a further table under the first, each starting with the experiment. ``--md`` prints one markdown
table with full names and values. Run it from the repository (it runs ``dvc exp show --json``).
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from lingtest.commands import bind_typer, exit_with

if TYPE_CHECKING:
    import typer

    from lingtest.compare.table import RowKey

WIDTH = 100          # the screen the table fits
NAME_WIDTH = 24      # the experiment column
VALUE_WIDTH = 14     # the widest value column (longer values end in an ellipsis)
MISSING = "-"


@dataclass(frozen=True)
class ExpRow:
    """One commit or experiment of ``dvc exp show``: its label (experiment name, branch, short sha or
    ``workspace``, with the executor's state when not done), its parameters (flattened leaves) and
    metrics (metrics file -> parsed content)."""

    label: str
    rev: str
    params: dict[str, str] = field(default_factory=dict)
    metrics: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Column:
    """A column: its full name (a parameter key or a metric row id) and what each row shows."""

    name: str
    kind: str  # "param" | "metric"
    cells: tuple[str, ...]


@dataclass(frozen=True)
class ExpTable:
    labels: tuple[str, ...]
    columns: tuple[Column, ...]


# ---------------------------------------------------------------------------------------------------
# the payload of `dvc exp show --json`


def read_payload(root: Path) -> list[dict[str, Any]]:
    """What ``dvc exp show --json`` prints in ``root`` (parsed)."""
    from lingtest.errors import LingtestError

    env = {**os.environ, "DVC_NO_ANALYTICS": "1"}
    try:
        done = subprocess.run([sys.executable, "-m", "dvc", "exp", "show", "--json"], cwd=root, env=env,
                              capture_output=True, text=True, check=False)
    except OSError as exc:
        raise LingtestError(f"dvc exp show: {exc}") from None
    if done.returncode != 0:
        raise LingtestError(f"dvc exp show --json failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    try:
        payload = json.loads(done.stdout)
    except json.JSONDecodeError as exc:
        raise LingtestError(f"dvc exp show --json printed no JSON: {exc}") from None
    if not isinstance(payload, list):
        raise LingtestError("dvc exp show --json printed no list of revisions")
    return payload


def _flat_params(params: Mapping[str, Any]) -> dict[str, str]:
    """``{file: {"data": {...}}}`` -> flattened leaves; keys of files other than ``params.yaml`` start with
    the file name (``other.yaml:key``)."""
    from lingtest.tracking import flatten

    out: dict[str, str] = {}
    for file, content in params.items():
        data = content.get("data") if isinstance(content, Mapping) else None
        if not isinstance(data, Mapping):
            continue
        prefix = "" if Path(str(file)).name == "params.yaml" else f"{file}:"
        out.update(flatten(data, prefix))
    return out


def _metric_files(metrics: Mapping[str, Any]) -> dict[str, Any]:
    return {str(path): content["data"] for path, content in metrics.items()
            if isinstance(content, Mapping) and "data" in content}


def _row(state: Mapping[str, Any], *, executor: Mapping[str, Any] | None = None, name: str | None = None) -> ExpRow:
    rev = str(state.get("rev") or "")
    label = str(name or state.get("name") or (rev if rev == "workspace" else rev[:7]))
    status = str((executor or {}).get("state") or "")
    if state.get("error"):
        status = "error"
    if status and status != "success":
        label = f"{label} ({status})"
    data = state.get("data") or {}
    return ExpRow(label=label, rev="" if rev == "workspace" else rev[:7],
                  params=_flat_params(data.get("params") or {}), metrics=_metric_files(data.get("metrics") or {}))


def exp_rows(payload: Sequence[Mapping[str, Any]]) -> list[ExpRow]:
    """The rows of a ``dvc exp show --json`` payload in its order: each listed revision, then its
    experiments (the newest state of each)."""
    rows: list[ExpRow] = []
    for state in payload:
        rows.append(_row(state))
        for exp in state.get("experiments") or []:
            revs = exp.get("revs") or []
            if revs:
                rows.append(_row(revs[0], executor=exp.get("executor"), name=exp.get("name")))
    return rows


# ---------------------------------------------------------------------------------------------------
# the columns


def natural_key(text: str) -> list[Any]:
    """Sort key that orders the numbers inside ``text`` by value (``x_2`` before ``x_10``)."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def differing_params(rows: Sequence[ExpRow]) -> list[str]:
    """Parameter keys whose value is not the same in every row (absent counts as a value), in natural order."""
    keys = sorted(set().union(*(r.params for r in rows)), key=natural_key) if rows else []
    return [k for k in keys if len({r.params.get(k) for r in rows}) > 1]


def headline_patterns(cfg: Any) -> dict[str, list[str]]:
    """``compare.headline`` of a composed config: technique -> fnmatch patterns over its metric keys.
    ConfigError when the config has none."""
    from lingtest.config import to_plain
    from lingtest.errors import ConfigError

    compare = cfg.get("compare") if hasattr(cfg, "get") else None
    headline = compare.get("headline") if compare is not None and hasattr(compare, "get") else None
    if headline is None:
        raise ConfigError("compare.headline is not in the config (params.yaml): add technique -> metric patterns "
                          "to conf/release/default.yaml, or show every metric with --all")
    plain = to_plain(headline)
    if not isinstance(plain, Mapping) or not all(isinstance(v, list) for v in plain.values()):
        raise ConfigError("compare.headline must map each technique to a list of metric patterns")
    return {str(k): [str(p) for p in v] for k, v in plain.items()}


def hidden_patterns(cfg: Any) -> list[str]:
    """``compare.hidden`` of a composed config (timing and diagnostic fields; none when absent)."""
    from lingtest.config import to_plain

    compare = cfg.get("compare") if hasattr(cfg, "get") else None
    hidden = to_plain(compare.get("hidden")) if compare is not None and hasattr(compare, "get") else None
    return [str(p) for p in hidden] if isinstance(hidden, list) else []


def is_hidden(metric: str, hidden: Sequence[str]) -> bool:
    """Some dotted segment of ``metric`` matches a ``hidden`` pattern (``time`` hides ``a.time``, not
    ``sentiment``)."""
    return any(fnmatch.fnmatchcase(seg, pat) for pat in hidden for seg in metric.split("."))


def metric_columns(keys: Sequence[RowKey], headline: Mapping[str, Sequence[str]] | None,
                   hidden: Sequence[str] = ()) -> list[RowKey]:
    """The metrics to show. ``headline`` None: all of them. Else each technique's headline metrics
    (those whose metric matches one of its patterns; a technique ``headline`` does not list: all its
    metrics; ``[]``: none), never a ``hidden`` one; techniques in ``headline``'s order (the others after
    them), then by corpus and system, then in the order of the patterns."""
    if headline is None:
        return sorted(keys)
    order = {t: i for i, t in enumerate(headline)}
    ranked: list[tuple[tuple[int, str, str, str, int, str], RowKey]] = []
    for key in keys:
        if is_hidden(key.metric, hidden):
            continue
        patterns = headline.get(key.technique)
        if patterns is None:
            rank = 0
        else:
            rank = next((i for i, p in enumerate(patterns) if fnmatch.fnmatchcase(key.metric, p)), -1)
            if rank < 0:
                continue
        ranked.append(((order.get(key.technique, len(order)), key.technique, key.corpus, key.system, rank,
                        key.metric), key))
    return [key for _, key in sorted(ranked)]


def format_number(value: float | None) -> str:
    """Integers as integers, other numbers with 4 significant digits; ``-`` for none."""
    if value is None:
        return MISSING
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.4g}"


def build_table(rows: Sequence[ExpRow], headline: Mapping[str, Sequence[str]] | None,
                hidden: Sequence[str] = ()) -> ExpTable:
    """Differing parameters, then the metrics :func:`metric_columns` picks (``headline`` None: every
    metric), named and read as ``lingtest compare`` does (:func:`lingtest.compare.table.build`)."""
    from lingtest.compare.table import build

    columns = [Column(k, "param", tuple(r.params.get(k, MISSING) for r in rows)) for k in differing_params(rows)]
    comp = build([r.label for r in rows], [r.metrics for r in rows])
    for key in metric_columns(list(comp.rows), headline, hidden):
        columns.append(Column(key.id, "metric", tuple(format_number(v) for v in comp.rows[key])))
    return ExpTable(tuple(r.label for r in rows), tuple(columns))


# ---------------------------------------------------------------------------------------------------
# output


def short_name(column: Column) -> str:
    """A metric's id without the ``-`` parts (``crest/ontogum/-:x`` -> ``crest/ontogum:x``); a parameter's
    key as it is."""
    if column.kind != "metric":
        return column.name
    where, metric = column.name.split(":", 1)
    return ":".join(["/".join(p for p in where.split("/") if p != "-"), metric])


def fold(label: str, width: int) -> str:
    """``label`` on lines of at most ``width`` characters, broken after ``.``, ``/`` or ``:`` (a part longer
    than the width is cut)."""
    parts: list[str] = []
    current = ""
    for ch in label:
        current += ch
        if ch in "./:":
            parts.append(current)
            current = ""
    if current:
        parts.append(current)
    lines: list[str] = []
    line = ""
    for part in parts:
        if line and len(line) + len(part) > width:
            lines.append(line)
            line = ""
        line += part
        while len(line) > width:
            lines.append(line[:width])
            line = line[width:]
    if line:
        lines.append(line)
    return "\n".join(lines)


def _value_width(column: Column) -> int:
    longest_part = max(len(p) for p in fold(short_name(column), VALUE_WIDTH).splitlines())
    return max(4, min(VALUE_WIDTH, max([len(c) for c in column.cells] + [longest_part])))


def panels(table: ExpTable, width: int) -> list[list[int]]:
    """Column indexes of each table to print so that each fits ``width`` characters: a column costs its
    width and 3 characters (padding and rule); the experiment column starts every table."""
    name_width = min(NAME_WIDTH, max([len("experiment")] + [len(x) for x in table.labels]))
    budget = width - 1 - (name_width + 3)
    out: list[list[int]] = [[]]
    used = 0
    for i, column in enumerate(table.columns):
        cost = _value_width(column) + 3
        if out[-1] and used + cost > budget:
            out.append([])
            used = 0
        out[-1].append(i)
        used += cost
    return out if out[0] else []


def to_rich(table: ExpTable, width: int = WIDTH) -> list[Any]:
    """rich Tables, each at most ``width`` characters wide (:func:`panels`)."""
    from rich import box
    from rich.table import Table

    name_width = min(NAME_WIDTH, max([len("experiment")] + [len(x) for x in table.labels]))
    groups = panels(table, width) or [[]]
    out = []
    for n, group in enumerate(groups):
        t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                  title=f"(continued {n + 1}/{len(groups)})" if n else None)
        t.add_column("experiment", width=name_width, no_wrap=True, overflow="ellipsis")
        for i in group:
            col = table.columns[i]
            w = _value_width(col)
            t.add_column(fold(short_name(col), w), width=w, no_wrap=True, overflow="ellipsis",
                         justify="right" if col.kind == "metric" else "left",
                         style="cyan" if col.kind == "metric" else None)
        for r, label in enumerate(table.labels):
            t.add_row(label, *(table.columns[i].cells[r] for i in group))
        out.append(t)
    return out


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(table: ExpTable) -> str:
    """One markdown table: the experiment, then every column with its full name and values."""
    header = ["experiment", *(c.name for c in table.columns)]
    lines = ["| " + " | ".join(_md_cell(h) for h in header) + " |",
             "|" + "|".join("---" if i == 0 else "---:" if c.kind == "metric" else "---"
                            for i, c in enumerate([Column("", "name", ()), *table.columns])) + "|"]
    for r, label in enumerate(table.labels):
        lines.append("| " + " | ".join(_md_cell(x) for x in [label, *(c.cells[r] for c in table.columns)]) + " |")
    return "\n".join(lines) + "\n"


def screen_width(out: Any) -> int:
    """:data:`WIDTH`, or the terminal's width when ``out`` is a narrower terminal."""
    import shutil

    isatty = getattr(out, "isatty", None)
    if callable(isatty) and isatty():
        return min(WIDTH, shutil.get_terminal_size((WIDTH, 24)).columns)
    return WIDTH


def exp_show_command(*, all_metrics: bool = False, md: bool = False, root: Path | None = None, out: Any = None,
                     payload: Sequence[Mapping[str, Any]] | None = None, cfg: Any = None) -> int:
    """Print the experiments table; ``payload``: a ``dvc exp show --json`` payload (default: run DVC in
    ``root``); ``cfg``: the config whose ``compare.headline`` picks the metrics (default:
    ``root/params.yaml``). Returns the exit status (2 on bad input)."""
    from lingtest.errors import LingtestError
    from lingtest.paths import project_root

    out = out or sys.stdout
    try:
        root = root or project_root()
        headline, hidden = None, []
        if not all_metrics:
            if cfg is None:
                from lingtest.config import load_params

                cfg = load_params(root / "params.yaml")
            headline, hidden = headline_patterns(cfg), hidden_patterns(cfg)
        rows = exp_rows(payload if payload is not None else read_payload(root))
        table = build_table(rows, headline, hidden)
        if md:
            out.write(to_markdown(table))
            return 0
        from rich.console import Console

        width = screen_width(out)
        console = Console(file=out, width=width)
        for t in to_rich(table, width):
            console.print(t)
        if not table.columns:
            console.print("no parameter differs between these rows and no metric was chosen")
        return 0
    except LingtestError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def exp_show(
    all_metrics: Annotated[bool, typer.Option("--all", help="every metric, not only the headline metrics")] = False,
    md: Annotated[bool, typer.Option("--md", help="one markdown table")] = False,
) -> None:
    """DVC experiments side by side: the parameters that differ and the headline metrics."""
    exit_with(exp_show_command(all_metrics=all_metrics, md=md))


def register(app: typer.Typer) -> None:
    """Add ``exp show`` to the ``lingtest`` application."""
    typer_module = bind_typer(globals())
    exp_app = typer_module.Typer(help="DVC experiments: their parameters and headline metrics.",
                                 no_args_is_help=True)
    exp_app.command("show")(exp_show)
    app.add_typer(exp_app, name="exp")


__all__ = ["ExpRow", "ExpTable", "build_table", "differing_params", "exp_rows", "exp_show_command",
           "headline_patterns", "metric_columns", "register", "to_markdown", "to_rich"]
