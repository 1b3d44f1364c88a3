"""``lingtest review SUITE [--sample N] [--seed S] [--by-group] [--reviewer NAME] [--redo]`` (in the terminal),
``... --html OUT`` (a local HTML form), ``... --labels FILE`` (record judgements made elsewhere) and
``lingtest review [SUITE] --summary [--json]``: a thin shell over :mod:`lingtest.review`. ``--unit`` judges
other units than the suite's cases, those a technique registers (:mod:`lingtest.review.units`): ``--unit
expansion``, the distinct expanded sentences of an S2LCT suite against their seed sentences.

SUITE is anything :func:`lingtest.load_suite` takes (``crest-ontogum@1.1.0``, a release folder, a suite
file, a configured suite name). Judgements are recorded in ``reviews/<suite>@<version or sha16>/labels.jsonl``
(``reviews/<suite>-expansion-sentences@<version or sha16>/`` for ``--unit expansion``) under the project root.
Exit status: 0 done (quitting a review included), 2 on bad input; errors are one line on stderr.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from lingtest.commands import command_registrar, exit_with

if TYPE_CHECKING:
    import typer

EXIT_INPUT = 2
WIDTH = 100
DEFAULT_SAMPLE = 100


def _fail(exc: BaseException) -> int:
    print(f"error: {' '.join(str(exc).split())}", file=sys.stderr)
    return EXIT_INPUT


def _console(out: Any) -> Any:
    from rich.console import Console

    console = Console(file=out) if out is not None else Console()
    if console.width > WIDTH or not console.is_terminal:  # a file or a pipe gets the full width
        console = Console(file=out, width=WIDTH) if out is not None else Console(width=WIDTH)
    return console


def _rate(p: dict[str, Any] | None, stacked: bool = False) -> str:
    """A rate cell: the rate, its interval, k/n (``stacked``: the interval on a line of its own)."""
    if p is None:
        return "-"
    return (f"{100 * p['rate']:.1f}%{chr(10) if stacked else ' '}[{100 * p['low']:.1f}, {100 * p['high']:.1f}]\n"
            f"{p['k']}/{p['n']}")


def _relevance(r: dict[str, Any] | None) -> str:
    if r is None:
        return "-"
    interval = f" [{r['low']:.2f}, {r['high']:.2f}]" if r.get("low") is not None else ""
    return f"{r['mean']:.2f}{interval}\nn={r['n']}"


def print_rates(summary: dict[str, Any], console: Any) -> None:
    """One suite's rates as a table: overall, then each group with enough judged cases."""
    from rich.markup import escape
    from rich.table import Table

    from lingtest.review.labels import review_name
    from lingtest.review.units import label_column, noun

    unit = str(summary.get("unit") or "case")
    label = review_name(str(summary["suite"]), summary["version"], str(summary["sha256"]), unit)
    overall = summary["overall"]
    if not overall["judgements"]:
        console.print(f"{escape(label)}: no judgements yet")
        return
    who = ", ".join(summary["reviewers"])
    where = Path(str(summary["labels"]))
    if where.is_relative_to(Path.cwd()):
        where = where.relative_to(Path.cwd())
    what = escape(noun(unit, several=True))
    console.print(f"[bold]{escape(label)}[/bold]: {overall['cases']} {what} judged ({overall['judgements']} "
                  f"judgements by {escape(who)}); rates with 95% Wilson intervals; labels: {escape(str(where))}",
                  soft_wrap=True)
    table = Table()
    table.add_column("group", overflow="fold", min_width=7, max_width=28)
    table.add_column("cases", justify="right")
    for name in ("well-formed", label_column(unit, summary.get("task")), "both"):
        table.add_column(name, justify="right", no_wrap=True)
    if summary.get("capabilities"):
        table.add_column("relevance (1-5)", justify="right", no_wrap=True)
    rows = [("overall", overall), *summary["groups"].items()]
    stacked = bool(summary.get("capabilities"))  # a fourth column: the intervals go below the rates, to fit
    for k, (group, r) in enumerate(rows):
        cells = [escape(group), str(r["cases"]), *(_rate(r[k], stacked) for k in ("well_formed", "label_correct",
                                                                                   "both"))]
        if summary.get("capabilities"):
            cells.append(_relevance(r["relevance"]))
        table.add_row(*cells, style="bold" if k == 0 else None, end_section=k == 0)
    console.print(table)


def summary_command(suite: str | None, *, as_json: bool = False, root: Path | None = None, out: Any = None,
                    unit: str = "case") -> int:
    """Print the review rates of ``suite`` (its review by ``unit``; ``None``: of every review)."""
    from lingtest.errors import LingtestError
    from lingtest.review.stats import review_rates, reviewed_folders

    try:
        summaries = [review_rates(suite, root=root, unit=unit)] if suite else [review_rates(f, root=root)
                                                                              for f in reviewed_folders(root)]
    except LingtestError as exc:
        return _fail(exc)
    stream = out or sys.stdout
    if as_json:
        print(json.dumps(summaries[0] if suite else summaries, ensure_ascii=False, indent=2), file=stream)
        return 0
    console = _console(out)
    if not summaries:
        console.print("no reviews yet: `lingtest review SUITE` judges a sample of its cases")
    for s in summaries:
        print_rates(s, console)
    return 0


def review_command(suite: str | None, *, sample: int = DEFAULT_SAMPLE, seed: int = 0, by_group: bool = False,
                   labels: Path | None = None, html: Path | None = None, reviewer: str | None = None,
                   redo: bool = False, summary: bool = False, as_json: bool = False, root: Path | None = None,
                   unit: str = "case", ask: Callable[[str], str] = input, out: Any = None) -> int:
    """The command (see the module doc); ``ask``: the terminal flow's input function; the exit status."""
    from lingtest.errors import InputError, LingtestError

    if summary:
        return summary_command(suite, as_json=as_json, root=root, out=out, unit=unit)
    try:
        if as_json:
            raise InputError("--json prints the --summary", field="json")
        if not suite:
            raise InputError("give the SUITE to review (or --summary for the rates)", field="suite")
        if labels is not None and html is not None:
            raise InputError("--labels records judgements, --html writes a page to make them: give one", field="labels")
        from lingtest.review.labels import default_reviewer
        from lingtest.review.session import open_review, sample_spec

        review = open_review(suite, root=root, unit=unit)
        who = reviewer or default_reviewer(root)
        if labels is not None:
            return _record_file(review, labels, who, out, sample_spec(sample, seed, by_group))
        cases = review.sample(sample, seed, by_group=by_group)
        spec = sample_spec(sample, seed, by_group)
        items = review.items(cases)
        if html is not None:
            return _write_page(review, items, spec, suite, html, who)
        return _interactive(review, items, spec, who, redo=redo, ask=ask, out=out)
    except LingtestError as exc:
        return _fail(exc)


def _record_file(review: Any, labels: Path, who: str, out: Any, spec: dict[str, Any]) -> int:
    """Record a labels file; the sample it was judged on is its header's (a page's download), else the one
    ``--sample``/``--seed``/``--by-group`` name."""
    from lingtest.review.labels import read_judgements
    from lingtest.review.units import noun

    header, judgements = read_judgements(labels, key=review.key, groups=review.groups, reviewer=who)
    sample = (header or {}).get("sample")
    n = review.record(judgements, sample if isinstance(sample, dict) else spec)
    reviewers = sorted({j.reviewer for j in judgements})
    what = noun(review.key.unit, several=True)
    print(f"recorded {n} judgements of {len({j.id for j in judgements})} {what} by {', '.join(reviewers)} in "
          f"{review.path}", file=out or sys.stdout)
    return 0


def _write_page(review: Any, items: list[Any], spec: dict[str, Any], suite: str, html: Path, who: str) -> int:
    from lingtest.data.io import atomic_open
    from lingtest.review.page import review_page
    from lingtest.review.units import noun

    unit = f" --unit {review.key.unit}" if review.key.unit != "case" else ""
    command = f"lingtest review {shlex.quote(suite)}{unit} --labels {review.key.folder_name}-labels.jsonl"
    page = review_page(items, key=review.key, sample=spec, command=command, reviewer=who)
    with atomic_open(html) as fh:
        fh.write(page)
    what = noun(review.key.unit, several=True)
    print(f"wrote {html} ({len(items)} {what}): answer in a browser, press Download labels, then `{command}`")
    return 0


def _interactive(review: Any, items: list[Any], spec: dict[str, Any], who: str, *, redo: bool,
                 ask: Callable[[str], str], out: Any) -> int:
    from lingtest.review.labels import latest
    from lingtest.review.terminal import review_loop
    from lingtest.review.units import noun

    console = _console(out)
    before = {j.id for j in latest(review.judgements()) if j.reviewer == who}
    todo = items if redo else [i for i in items if i.id not in before]
    done = len(items) - len(todo)
    what = noun(review.key.unit, several=True)
    console.print(f"reviewing {len(todo)} of {len(items)} sampled {what} of {review.key.folder_name} as {who}"
                  + (f" ({done} judged before; --redo judges them again)" if done else "")
                  + f"; labels: {review.path}", soft_wrap=True, highlight=False)
    outcome = review_loop(todo, save=lambda j: review.record([j], spec), reviewer=who, ask=ask, console=console)
    if outcome.judged:
        console.print(f"recorded {outcome.judged} judgements in {review.path}", soft_wrap=True, highlight=False)
    return 0


def review(
    suite: Annotated[str | None, typer.Argument(metavar="SUITE", help="a release (crest-ontogum@1.1.0), a "
                                                "release folder, a suite file or a configured suite name")] = None,
    sample: Annotated[int, typer.Option("--sample", "-n", min=1, help="how many cases to sample")] = DEFAULT_SAMPLE,
    seed: Annotated[int, typer.Option(help="the sample's seed (the same seed gives the same cases)")] = 0,
    by_group: Annotated[bool, typer.Option("--by-group", help="stratify the sample by group (proportional)")
                        ] = False,
    labels: Annotated[Path | None, typer.Option("--labels", help="record the judgements of this JSONL file "
                                                "(made elsewhere, or downloaded from the --html page)")] = None,
    html: Annotated[Path | None, typer.Option("--html", help="write the sample as a local HTML form instead")
                    ] = None,
    reviewer: Annotated[str | None, typer.Option(help="who judges (default: git user.name, else $USER)")] = None,
    redo: Annotated[bool, typer.Option("--redo", help="show cases you judged before again")] = False,
    summary: Annotated[bool, typer.Option("--summary", help="print the rates with 95% Wilson intervals (without "
                                          "SUITE: of every reviewed suite)")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="--summary as JSON")] = False,
    unit: Annotated[str, typer.Option("--unit", help="what is judged: case (the suite's test cases) or a unit a "
                                      "technique registers (entry points lingtest.review_units), such as expansion: "
                                      "the distinct expanded sentences of an S2LCT suite, each against its seed "
                                      "sentence (labels in reviews/<suite>-expansion-sentences@...)")] = "case",
) -> None:
    """Judge a seeded sample of a suite's cases by hand (well-formed? label or relation correct? capability
    relevant?), or print the rates of what was judged."""
    exit_with(review_command(suite, sample=sample, seed=seed, by_group=by_group, labels=labels, html=html,
                             reviewer=reviewer, redo=redo, summary=summary, as_json=as_json, unit=unit))


register = command_registrar(globals(), "review", "review")
