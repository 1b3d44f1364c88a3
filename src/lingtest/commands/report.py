"""``lingtest report [RUN ...] [-o FILE]``: one self-contained HTML file (inline CSS and JavaScript,
images as data URIs, no network).

Without RUN: for each technique and corpus in the working tree, its tables and plots, the systems'
results and the test cases of its pipeline results. With RUN (folders ``lingtest run --out`` wrote): a
section per run, and for two runs of the same suite (same sha256) a comparison of the cases whose
verdict flipped. Either way every case opens to its texts as its task shows them (entities, clusters,
labels, candidates with scores) and the lists filter by group and outcome. With ``--compare``/``--exp``
(working tree only) the page opens with the comparison table and plots of ``lingtest compare``.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from lingtest.commands import command_registrar, exit_with

if TYPE_CHECKING:
    import typer

DEFAULT_OUT = Path("reports/report.html")
#: limits of a report of runs (a report of the working tree reads ``report.max_cases`` and ``report.max_chars``)
RUN_MAX_CASES = 200
RUN_MAX_CHARS = 6000


def build_report(root: Path, *, title: str = "lingtest report", compare_revs: list[str] | None = None,
                 exps: list[str] | None = None, systems: str | None = None, metrics: list[str] | None = None,
                 max_cases: int | None = None, max_chars: int | None = None) -> str:
    """The page's HTML for the working tree of ``root``."""
    import tempfile

    from lingtest.config import load_params
    from lingtest.environment import git_commit
    from lingtest.errors import LingtestError
    from lingtest.report_html.gather import data_uri, gather
    from lingtest.report_html.render import render

    cfg = load_params(root / "params.yaml")
    if max_cases is not None:
        cfg.report.max_cases = max_cases
    if max_chars is not None:
        cfg.report.max_chars = max_chars
    sections = gather(cfg, root)
    commit, dirty = git_commit(root)
    subtitle = f"working tree of {root.name} at {commit[:12]}{' (dirty)' if dirty else ''}"
    comparison = None
    plots: dict[str, str] = {}
    if compare_revs or exps:
        from lingtest.commands.compare import compare_command

        buf = io.StringIO()
        with tempfile.TemporaryDirectory(prefix="lingtest-report-") as tmp:
            code = compare_command(list(compare_revs or []), exps=list(exps or []), systems=systems,
                                   metrics=list(metrics or []), fmt="md", plots=Path(tmp), root=root, out=buf)
            if code == 2:
                raise LingtestError("the comparison failed (see above)")
            plots = {p.name: data_uri(p) for p in sorted(Path(tmp).glob("*.png"))}
        comparison = buf.getvalue()
        subtitle += " · comparison of " + ", ".join([*(compare_revs or []), *(exps or [])])
    return render(sections, title=title, subtitle=subtitle, comparison_md=comparison, comparison_plots=plots,
                  empty="No technique has outputs in this working tree yet: run `dvc repro` (or `dvc pull`), or "
                        "give folders of `lingtest run` (lingtest report RUN ...).")


def build_run_report(runs: list[Path], *, title: str = "lingtest report", max_cases: int = RUN_MAX_CASES,
                     max_chars: int = RUN_MAX_CHARS) -> str:
    """The page's HTML for folders written by ``lingtest run``."""
    from lingtest.report_html.render import render
    from lingtest.report_html.runs import run_pages

    sections, comparisons, notes = run_pages(runs, max_cases=max_cases, max_chars=max_chars)
    subtitle = f"{len(runs)} run{'s' if len(runs) != 1 else ''}: " + ", ".join(Path(r).name for r in runs)
    return render(sections, title=title, subtitle=subtitle, comparisons=comparisons, notes=notes)


def report_command(out: Path = DEFAULT_OUT, runs: list[Path] | None = None, **kwargs: Any) -> int:
    """Write the report of the working tree (no ``runs``) or of the ``runs`` to ``out``; the exit status."""
    from lingtest.data.io import atomic_open
    from lingtest.errors import LingtestError
    from lingtest.paths import project_root

    try:
        if runs:
            if kwargs.get("compare_revs") or kwargs.get("exps"):
                raise LingtestError("--compare and --exp compare the working tree's pipeline results; a report of "
                                    "RUN folders compares runs of the same suite by itself")
            limits = {k: v for k, v in kwargs.items() if k in ("max_cases", "max_chars") and v is not None}
            html = build_run_report(list(runs), title=str(kwargs.get("title", "lingtest report")), **limits)
        else:
            html = build_report(project_root(), **kwargs)
    except LingtestError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    with atomic_open(out) as fh:
        fh.write(html)
    print(f"wrote {out} ({len(html.encode('utf-8')) / 1024:.0f} KiB)")
    return 0


def report(
    runs: Annotated[list[Path] | None, typer.Argument(
        metavar="RUN", help="folders written by `lingtest run --out` (none: the working tree's pipeline "
                                 "results)")] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="the HTML file to write")] = DEFAULT_OUT,
    title: Annotated[str, typer.Option(help="page title")] = "lingtest report",
    compare: Annotated[list[str] | None, typer.Option("--compare", help="a git revision to compare (repeatable)")
                       ] = None,
    exp: Annotated[list[str] | None, typer.Option("--exp", help="a DVC experiment to compare (repeatable)")] = None,
    systems: Annotated[str | None, typer.Option(help="compare these systems side by side: a,b")] = None,
    metric: Annotated[list[str] | None, typer.Option("--metric", "-m", help="comparison rows matching this glob")
                      ] = None,
    max_cases: Annotated[int | None, typer.Option(
        "--max-cases", min=1, help="failing cases shown per system (a quarter as many passing ones); default: "
                                   f"report.max_cases, {RUN_MAX_CASES} for runs")] = None,
    max_chars: Annotated[int | None, typer.Option(
        "--max-chars", min=1, help="characters of a text shown per side; default: report.max_chars, "
                                   f"{RUN_MAX_CHARS} for runs")] = None,
) -> None:
    """Write one self-contained HTML report: of the working tree (tables, plots, test cases), or of RUN folders."""
    exit_with(report_command(out, runs=list(runs or []), title=title, compare_revs=list(compare or []),
                             exps=list(exp or []), systems=systems, metrics=list(metric or []),
                             max_cases=max_cases, max_chars=max_chars))


register = command_registrar(globals(), "report", "report")
