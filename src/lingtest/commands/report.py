"""``lingtest report [--out FILE] [--compare REV ...] [--exp NAME] [--systems a,b]``: one
self-contained HTML file (inline CSS, images as data URIs, no network) with, for each technique and
corpus in the working tree, its tables and plots, the systems' results and the failing test cases
(source vs follow-up with the changed words marked, both predictions), filterable by system,
transformation and capability. With ``--compare``/``--exp`` it opens with the comparison table and
plots of ``lingtest compare``. ``mlflow ui`` and ``dvc exp show`` are unaffected.
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


def build_report(root: Path, *, title: str = "lingtest report", compare_revs: list[str] | None = None,
                 exps: list[str] | None = None, systems: str | None = None,
                 metrics: list[str] | None = None) -> str:
    """The page's HTML for the working tree of ``root``."""
    import tempfile

    from lingtest.config import load_params
    from lingtest.environment import git_commit
    from lingtest.errors import LingtestError
    from lingtest.report_html.gather import _data_uri, gather
    from lingtest.report_html.render import render

    cfg = load_params(root / "params.yaml")
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
            plots = {p.name: _data_uri(p) for p in sorted(Path(tmp).glob("*.png"))}
        comparison = buf.getvalue()
        subtitle += " · comparison of " + ", ".join([*(compare_revs or []), *(exps or [])])
    return render(sections, title=title, subtitle=subtitle, comparison_md=comparison, comparison_plots=plots)


def report_command(out: Path = DEFAULT_OUT, **kwargs: Any) -> int:
    from lingtest.data.io import atomic_open
    from lingtest.errors import LingtestError
    from lingtest.paths import project_root

    try:
        html = build_report(project_root(), **kwargs)
    except LingtestError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    with atomic_open(out) as fh:
        fh.write(html)
    print(f"wrote {out} ({len(html.encode('utf-8')) / 1024:.0f} KiB)")
    return 0


def report(
    out: Annotated[Path, typer.Option("--out", "-o", help="the HTML file to write")] = DEFAULT_OUT,
    title: Annotated[str, typer.Option(help="page title")] = "lingtest report",
    compare: Annotated[list[str] | None, typer.Option("--compare", help="a git revision to compare (repeatable)")
                       ] = None,
    exp: Annotated[list[str] | None, typer.Option("--exp", help="a DVC experiment to compare (repeatable)")] = None,
    systems: Annotated[str | None, typer.Option(help="compare these systems side by side: a,b")] = None,
    metric: Annotated[list[str] | None, typer.Option("--metric", "-m", help="comparison rows matching this glob")
                      ] = None,
) -> None:
    """Write one self-contained HTML report of the working tree (tables, plots, failing cases)."""
    exit_with(report_command(out, title=title, compare_revs=list(compare or []), exps=list(exp or []),
                             systems=systems, metrics=list(metric or [])))


register = command_registrar(globals(), "report", "report")
