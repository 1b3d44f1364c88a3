"""``lingtest compare [REV ...] [--exp NAME] [--systems a,b]``: metrics across git revisions, DVC
experiments and systems under test.

With no revision the working tree is compared (useful with ``--systems``); ``workspace`` names it
among revisions; experiments alone are compared with ``HEAD``. Rows are
``technique/corpus/system:metric``; ``--metric GLOB`` keeps matching rows,
``--only-changed`` those that differ. Output: a rich table, or ``--format md|csv|json``; ``--plots DIR``
writes one PNG per technique. ``--fail-on-regression METRIC:DELTA`` (repeatable; ``+DELTA`` when lower is
better) exits 1 when a later column is worse than the first by more than DELTA, and 2 when a gate
matches no row. Run from the repository (it reads DVC's metrics of each revision).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from lingtest.commands import command_registrar, exit_with

if TYPE_CHECKING:
    import typer

FORMATS = ("table", "md", "csv", "json")


def compare_command(revs: list[str], *, exps: list[str] | None = None, all_exps: bool = False,
                    systems: str | None = None, metrics: list[str] | None = None, only_changed: bool = False,
                    fmt: str = "table", plots: Path | None = None, gates: list[str] | None = None,
                    root: Path | None = None, out: Any = None) -> int:
    from lingtest.compare import table as T
    from lingtest.compare.collect import WORKSPACE, experiments, read_metrics
    from lingtest.errors import LingtestError
    from lingtest.paths import project_root

    out = out or sys.stdout
    root = root or project_root()
    try:
        if fmt not in FORMATS:
            raise LingtestError(f"--format {fmt!r}: one of {', '.join(FORMATS)}")
        parsed_gates = [T.Gate.parse(g) for g in gates or []]
        columns = list(revs) + list(exps or [])
        if not revs and (exps or all_exps):
            columns.insert(0, "HEAD")  # experiments are compared with their baseline
        if all_exps:
            columns += [e for e in experiments(root) if e not in columns]
        if not columns:
            columns = [WORKSPACE]
        comp = T.build(columns, read_metrics(root, columns))
        if systems:
            names = [s.strip() for s in systems.split(",") if s.strip()]
            comp = T.by_systems(comp, names)
            if not comp.rows:
                raise LingtestError(f"no metrics of systems {', '.join(names)} in {', '.join(columns)}")
        comp = T.select(comp, metrics or [], only_changed=only_changed)
        if fmt == "table":
            from rich.console import Console

            Console(file=out, width=max(100, 30 + 14 * len(comp.columns))).print(T.to_rich(comp))
        else:
            out.write({"md": T.to_markdown, "csv": T.to_csv, "json": T.to_json}[fmt](comp))
        if plots is not None:
            limit = _plot_limit(root)
            for p in __import__("lingtest.compare.plots", fromlist=["plot_all"]).plot_all(comp, plots, limit=limit):
                print(f"wrote {p}", file=sys.stderr)
        found, unmatched = T.regressions(comp, parsed_gates)
        for g in unmatched:
            print(f"error: --fail-on-regression {g.pattern!r} matches no metric", file=sys.stderr)
        for r in found:
            print(f"REGRESSION {r.describe()}", file=sys.stderr)
        if unmatched:
            return 2
        return 1 if found else 0
    except LingtestError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _plot_limit(root: Path) -> int:
    from lingtest.config import load_params

    return int(load_params(root / "params.yaml").compare.plot_metrics)


def compare(
    revs: Annotated[list[str] | None, typer.Argument(help="git revisions or experiment names; 'workspace' is the "
                                                   "working tree")] = None,
    exp: Annotated[list[str] | None, typer.Option("--exp", help="a DVC experiment (repeatable)")] = None,
    all_exps: Annotated[bool, typer.Option("--all-exps", help="every DVC experiment of HEAD")] = False,
    systems: Annotated[str | None, typer.Option(help="compare these systems side by side: a,b")] = None,
    metric: Annotated[list[str] | None, typer.Option("--metric", "-m", help="keep rows matching this glob "
                                                     "(technique/corpus/system:metric, or the metric)")] = None,
    only_changed: Annotated[bool, typer.Option("--only-changed", help="rows that differ between columns")] = False,
    fmt: Annotated[str, typer.Option("--format", "-f", help="table | md | csv | json")] = "table",
    plots: Annotated[Path | None, typer.Option(help="write one PNG per technique into this folder")] = None,
    fail_on_regression: Annotated[list[str] | None, typer.Option(
        "--fail-on-regression", help="METRIC:DELTA (drop beyond DELTA fails) or METRIC:+DELTA (rise fails)")] = None,
) -> None:
    """Compare DVC metrics across git revisions, DVC experiments and systems under test."""
    exit_with(compare_command(list(revs or []), exps=list(exp or []), all_exps=all_exps, systems=systems,
                              metrics=list(metric or []), only_changed=only_changed, fmt=fmt, plots=plots,
                              gates=list(fail_on_regression or [])))


register = command_registrar(globals(), "compare", "compare")
