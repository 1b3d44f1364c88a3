"""``lingtest compare RUN_A RUN_B``: two runs of ``lingtest run`` case by case; ``lingtest compare [REV ...]
[--exp NAME] [--systems a,b]``: pipeline metrics across git revisions, DVC experiments and systems.

Two run folders (each with ``results.jsonl`` and ``summary.json``): per group (in suite order) and overall,
the cases both ran (by id), failure rates, pass→fail and fail→pass counts, the exact McNemar p-value
(Holm-adjusted across groups) and a seeded paired bootstrap interval of the failure-rate difference
(``--seed``, ``--resamples``); ``--show-flips N`` lists N flipped cases of each direction with their texts
and both predictions (table default 5; JSON default all). Runs of different suites or suite versions are
refused (exit 2) unless ``--force``. ``--fail-on-regression`` exits 1 when B fails significantly more
cases than A overall (exact McNemar p < ``--alpha``) or in some group (Holm-adjusted p < ``--alpha``).

Revisions: with no revision the working tree is compared (useful with ``--systems``); ``workspace`` names
it among revisions; experiments alone are compared with ``HEAD``. Rows are
``technique/corpus/system:metric``. By default each technique's headline metrics
(``compare.headline``) without timing or diagnostic fields (``compare.hidden``); ``--metric GLOB`` picks
other rows, ``--all`` shows every row, ``--only-changed`` those that differ. ``--systems a,b`` sets systems
side by side, and refuses (exit 2, unless ``--force``) systems evaluated on different suites, datasets or
case counts (``compare.basis``). Output: a rich table (100 columns wide when not printing to a terminal),
or ``--format md|csv|json``; ``--plots DIR`` writes one PNG per technique with one panel per metric family.
``--fail-on-regression METRIC:DELTA`` (repeatable; ``+DELTA`` when lower is better; checked on every row,
shown or not) exits 1 when a later column is worse than the first by more than DELTA, and 2 when a gate
matches no row. Run from the repository (it reads DVC's metrics of each revision).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from lingtest.commands import bind_typer, exit_with

if TYPE_CHECKING:
    import typer

FORMATS = ("table", "md", "csv", "json")
WIDTH = 100
#: what ``--fail-on-regression`` holds when given without a METRIC:DELTA value (comparing two runs)
FLAG = ""


def _console(out: Any, width: int = WIDTH) -> Any:
    """A rich console on ``out``: the terminal's width on a terminal, else ``width`` columns."""
    from rich.console import Console

    tty = bool(getattr(out, "isatty", lambda: False)())
    return Console(file=out) if tty else Console(file=out, width=width, color_system=None, force_terminal=False)


def compare_settings(root: Path) -> dict[str, Any]:
    """The ``compare`` block of ``root/params.yaml`` as plain data (``plot_metrics``, ``headline``,
    ``hidden``, ``basis``; absent keys default to 12 and empty)."""
    from lingtest.config import load_params, to_plain

    path = root / "params.yaml"
    block: dict[str, Any] = {}
    if path.is_file():
        params = load_params(path)
        if "compare" in params:
            block = dict(to_plain(params.compare) or {})
    return {"plot_metrics": int(block.get("plot_metrics", 12)), "headline": dict(block.get("headline") or {}),
            "hidden": list(block.get("hidden") or []), "basis": dict(block.get("basis") or {})}


def runs_command(run_a: Path, run_b: Path, *, fmt: str = "table", force: bool = False, seed: int = 0,
                 resamples: int = 10_000, show_flips: int | None = None, alpha: float = 0.05,
                 fail_on_regression: bool = False, out: Any = None) -> int:
    """Compare two run folders case by case; 0, 1 (a significant regression with ``fail_on_regression``),
    2 (bad input, different suites without ``force``)."""
    import json

    from lingtest.compare import paired as P
    from lingtest.errors import LingtestError

    out = out or sys.stdout
    try:
        if fmt not in ("table", "json"):
            raise LingtestError(f"--format {fmt!r}: comparing two runs, one of table, json")
        if not 0 < alpha < 1:
            raise LingtestError(f"--alpha {alpha}: a level in (0, 1)")
        if resamples < 1:
            raise LingtestError(f"--resamples {resamples}: at least 1")
        comp = P.compare_runs(P.load_run(run_a), P.load_run(run_b), resamples=resamples, seed=seed, force=force)
    except LingtestError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if fmt == "json":
        out.write(json.dumps(comp.to_dict(flips=show_flips, alpha=alpha), indent=2, ensure_ascii=False) + "\n")
    else:
        P.render(comp, _console(out), alpha=alpha, show_flips=5 if show_flips is None else show_flips)
    if comp.mismatch:
        print(f"warning: {comp.mismatch} (compared anyway: --force)", file=sys.stderr)
    regressed = comp.regressions(alpha) if fail_on_regression else []
    for g in regressed:
        which = "overall" if g.group == P.OVERALL else f"in group {g.group}"
        p = (f"exact McNemar {P.p_phrase(g.p_value)}" if g.p_holm is None
             else f"Holm-adjusted {P.p_phrase(g.p_holm)}, unadjusted {P.p_phrase(g.p_value)}")
        print(f"REGRESSION {which}: B fails {g.pass_to_fail:,} cases A passed and passes {g.fail_to_pass:,} A "
              f"failed (failure rate {P.pct(g.rate_a)}% -> {P.pct(g.rate_b)}%; {p}; alpha {alpha:g})",
              file=sys.stderr)
    return 1 if fail_on_regression and regressed else 0


def compare_command(revs: list[str], *, exps: list[str] | None = None, all_exps: bool = False,
                    systems: str | None = None, metrics: list[str] | None = None, only_changed: bool = False,
                    fmt: str = "table", plots: Path | None = None, gates: list[str] | None = None,
                    root: Path | None = None, out: Any = None, all_rows: bool = False, force: bool = False,
                    seed: int = 0, resamples: int = 10_000, show_flips: int | None = None,
                    alpha: float = 0.05) -> int:
    from lingtest.compare.paired import is_run_dir

    gates = list(gates or [])
    runs = [r for r in revs if is_run_dir(r)]
    if runs:
        if len(revs) != 2 or len(runs) != 2 or exps or all_exps or systems:
            print("error: give two run folders of `lingtest run` (each with results.jsonl and summary.json) and "
                  f"nothing else to compare runs; got {', '.join(revs)}", file=sys.stderr)
            return 2
        if any(g != FLAG for g in gates):
            print("error: --fail-on-regression takes no METRIC:DELTA when comparing two runs", file=sys.stderr)
            return 2
        return runs_command(Path(revs[0]), Path(revs[1]), fmt=fmt, force=force, seed=seed, resamples=resamples,
                            show_flips=show_flips, alpha=alpha, fail_on_regression=bool(gates), out=out)
    return revisions_command(revs, exps=exps, all_exps=all_exps, systems=systems, metrics=metrics,
                             only_changed=only_changed, fmt=fmt, plots=plots, gates=gates, root=root, out=out,
                             all_rows=all_rows, force=force)


def revisions_command(revs: list[str], *, exps: list[str] | None = None, all_exps: bool = False,
                      systems: str | None = None, metrics: list[str] | None = None, only_changed: bool = False,
                      fmt: str = "table", plots: Path | None = None, gates: list[str] | None = None,
                      root: Path | None = None, out: Any = None, all_rows: bool = False,
                      force: bool = False) -> int:
    """Metrics across revisions and experiments (and systems); 0, 1 (a gate failed), 2 (bad input)."""
    from lingtest.compare import table as T
    from lingtest.compare.collect import WORKSPACE, experiments, read_metrics
    from lingtest.errors import LingtestError
    from lingtest.paths import project_root

    out = out or sys.stdout
    root = root or project_root()
    try:
        if fmt not in FORMATS:
            raise LingtestError(f"--format {fmt!r}: one of {', '.join(FORMATS)}")
        if FLAG in (gates or []):
            raise LingtestError("--fail-on-regression needs METRIC:DELTA when comparing revisions")
        parsed_gates = [T.Gate.parse(g) for g in gates or []]
        settings = compare_settings(root)
        columns = list(revs) + list(exps or [])
        if not revs and (exps or all_exps):
            columns.insert(0, "HEAD")  # experiments are compared with their baseline
        if all_exps:
            columns += [e for e in experiments(root) if e not in columns]
        if not columns:
            columns = [WORKSPACE]
        files = read_metrics(root, columns)
        names = [s.strip() for s in (systems or "").split(",") if s.strip()]
        comp = T.build(columns, files, systems=names)
        if names:
            missing = T.missing_systems(comp, names)
            if missing:
                raise LingtestError(f"no metrics of system(s) {', '.join(missing)} in {', '.join(columns)}")
            mismatches = T.basis_mismatches(columns, files, names, settings["basis"])
            if mismatches and not force:
                raise LingtestError("the systems were evaluated on different suites or case counts, so their "
                                    "metrics do not compare (--force shows them anyway):\n  "
                                    + "\n  ".join(mismatches))
            comp = T.by_systems(comp, names)
        else:
            mismatches = []
        comp = T.select(comp, metrics or [])
        shown = T.view(comp, headline=settings["headline"], hidden=settings["hidden"], patterns=metrics or [],
                       all_rows=all_rows, only_changed=only_changed)
        note = _note(len(shown.rows), len(comp.rows), all_rows=all_rows, picked=bool(metrics),
                     only_changed=only_changed)
        if fmt == "table":
            console = _console(out, max(WIDTH, T.table_width(shown)))
            console.print(T.to_rich(shown))
            console.print(note, highlight=False, markup=False)
            for m in mismatches:
                console.print(f"warning: different bases: {m}", highlight=False, markup=False)
        else:
            out.write({"md": T.to_markdown, "csv": T.to_csv, "json": T.to_json}[fmt](shown))
            print(note, file=sys.stderr)
            for m in mismatches:
                print(f"warning: different bases: {m}", file=sys.stderr)
        if plots is not None:
            from lingtest.compare.plots import plot_all

            for p in plot_all(shown, plots, limit=settings["plot_metrics"]):
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


def _note(shown: int, total: int, *, all_rows: bool, picked: bool, only_changed: bool) -> str:
    what = ("every metric" if all_rows else "--metric's rows" if picked else "headline metrics")
    if not all_rows:
        what += ", no timing or diagnostics"
    changed = ", changed only" if only_changed else ""
    more = "" if all_rows else " (--all: every row)"
    return f"{shown:,} of {total:,} rows: {what}{changed}{more}"


def compare(
    revs: Annotated[list[str] | None, typer.Argument(help="two run folders of `lingtest run`, or git revisions or "
                                                   "experiment names ('workspace' is the working tree)")] = None,
    exp: Annotated[list[str] | None, typer.Option("--exp", help="a DVC experiment (repeatable)")] = None,
    all_exps: Annotated[bool, typer.Option("--all-exps", help="every DVC experiment of HEAD")] = False,
    systems: Annotated[str | None, typer.Option(help="compare these systems side by side: a,b")] = None,
    metric: Annotated[list[str] | None, typer.Option("--metric", "-m", help="keep rows matching this glob "
                                                     "(technique/corpus/system:metric, or the metric)")] = None,
    all_rows: Annotated[bool, typer.Option("--all", help="every metric, timing and diagnostic fields "
                                           "included (default: headline metrics)")] = False,
    only_changed: Annotated[bool, typer.Option("--only-changed", help="rows that differ between columns")] = False,
    fmt: Annotated[str, typer.Option("--format", "-f", help="table | md | csv | json (runs: table | json)")
                   ] = "table",
    plots: Annotated[Path | None, typer.Option(help="write one PNG per technique into this folder")] = None,
    fail_on_regression: Annotated[list[str] | None, typer.Option(
        "--fail-on-regression", help="revisions: METRIC:DELTA (drop beyond DELTA fails) or METRIC:+DELTA (rise "
        "fails), repeatable; two runs: no value, exit 1 when B fails significantly more cases")] = None,
    force: Annotated[bool, typer.Option("--force", help="compare runs of different suites, or systems "
                                        "evaluated on different suites")] = False,
    seed: Annotated[int, typer.Option(help="runs: the bootstrap's seed")] = 0,
    resamples: Annotated[int, typer.Option(help="runs: bootstrap resamples", min=1)] = 10_000,
    show_flips: Annotated[int | None, typer.Option("--show-flips", help="runs: flipped cases listed per "
                                                   "direction (table default 5, JSON default all)", min=0)] = None,
    alpha: Annotated[float, typer.Option(help="runs: significance level of --fail-on-regression")] = 0.05,
) -> None:
    """Compare two runs case by case, or DVC metrics across git revisions, experiments and systems."""
    exit_with(compare_command(list(revs or []), exps=list(exp or []), all_exps=all_exps, systems=systems,
                              metrics=list(metric or []), only_changed=only_changed, fmt=fmt, plots=plots,
                              gates=list(fail_on_regression or []), all_rows=all_rows, force=force, seed=seed,
                              resamples=resamples, show_flips=show_flips, alpha=alpha))


def flag_form(args: list[str]) -> list[str]:
    """Command-line arguments with an empty value after each ``--fail-on-regression`` that has no
    ``METRIC:DELTA`` after it (the flag form used when comparing two runs)."""
    out: list[str] = []
    for i, arg in enumerate(args):
        out.append(arg)
        if arg == "--fail-on-regression":
            nxt = args[i + 1] if i + 1 < len(args) else None
            if nxt is None or nxt.startswith("-") or ":" not in nxt:
                out.append(FLAG)
    return out


def register(app: typer.Typer) -> None:
    """Add ``compare`` to the ``lingtest`` application (its ``--fail-on-regression`` also works as a flag)."""
    bind_typer(globals())
    from typer.core import TyperCommand

    class CompareCommand(TyperCommand):
        def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
            return super().parse_args(ctx, flag_form(list(args)))

    app.command("compare", cls=CompareCommand)(compare)
