"""``lingtest suite info SUITE [--json]`` and ``lingtest run SUITE --system SPEC [--out DIR] [--limit N]
[--seed S] [--batch-size B] [--labels MAP]`` (or ``--export-inputs FILE``): a thin shell over
:mod:`lingtest.harness`.

SUITE is a suite file, a release folder (``releases/<suite>/<version>``), ``<suite>@<version>`` or a
configured suite name;
SPEC is ``package.module:function``, an ``http(s)://`` URL, a predictions file or a configured system
name (:mod:`lingtest.systems.spec`). ``run`` prints a per-group table, writes ``DIR/results.jsonl`` and
``DIR/summary.json`` (default DIR: ``runs/<suite>/<system>``) and exits 0 when the run completes, failing
cases included; 1 when the system failed (a bad output, inputs it could not do: what it answered before
is cached); 2 on bad input. Errors are one line on stderr.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from lingtest.commands import bind_typer, exit_with

if TYPE_CHECKING:
    import typer

EXIT_SYSTEM, EXIT_INPUT = 1, 2
WIDTH = 100


def _console(out: Any) -> Any:
    from rich.console import Console

    console = Console(file=out) if out is not None else Console()
    if console.width > WIDTH:
        console = Console(file=out, width=WIDTH) if out is not None else Console(width=WIDTH)
    return console


def _fail(exc: BaseException) -> int:
    from lingtest.errors import SystemFailure

    print(f"error: {' '.join(str(exc).split())}", file=sys.stderr)
    return EXIT_SYSTEM if isinstance(exc, SystemFailure) else EXIT_INPUT


def _short(value: Any, n: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= n else text[: n - 3] + "..."


def info_command(suite: str, *, as_json: bool = False, out: Any = None) -> int:
    from lingtest.errors import LingtestError
    from lingtest.harness.loading import load_suite

    try:
        info = load_suite(suite).info
    except LingtestError as exc:
        return _fail(exc)
    if as_json:
        print(json.dumps(info.to_dict(), ensure_ascii=False, indent=2), file=out or sys.stdout)
        return 0
    from rich.table import Table

    console = _console(out)
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="bold", no_wrap=True)
    facts.add_column(overflow="fold")
    text = info.text if info.text == "included" else (
        "withheld by its licence; " + ("materialised" if info.materialized else "run `lingtest release materialize`"))
    count = ("sources", f"{info.cases:,} (cases are generated for each system from its own predictions by "
             f"the {info.generator} generator)") if info.kind == "sources" else ("cases", f"{info.cases:,}")
    rows = [("name", info.name), ("version", info.version or "-"), ("sha256", info.sha256), ("path", info.path),
            ("technique", info.technique), ("task", info.task), count, ("text", text),
            ("labels" if info.task != "ner" else "gold labels", ", ".join(info.labels) if info.labels else "-"),
            ("expectations", ", ".join(f"{k} ({v})" for k, v in info.expectations.items())),
            ("input", info.input_form), ("output", info.output_form),
            ("example input", _short(info.example_input))]
    from rich.markup import escape

    for k, v in rows:  # values are data: "[str, ...]" is text, not rich markup
        facts.add_row(k, escape(str(v)))
    console.print(facts)
    if not info.groups:
        return 0
    console.print(f"[bold]groups[/bold] (by {escape(info.group_rule)}):")
    groups = Table()
    groups.add_column("group", overflow="fold", max_width=60)
    groups.add_column("cases", justify="right")
    for g, n in info.groups.items():
        groups.add_row(escape(g), f"{n:,}")
    console.print(groups)
    return 0


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_.")[:80] or "system"


def export_command(suite: str, path: Path, *, limit: int | None = None, seed: int = 0) -> int:
    from lingtest.errors import LingtestError
    from lingtest.harness.loading import load_suite

    try:
        n = load_suite(suite).export_inputs(path, limit=limit, seed=seed)
    except LingtestError as exc:
        return _fail(exc)
    print(f"wrote {n:,} inputs to {path}: fill in each record's output with your model's answer, then "
          f"`lingtest run {suite} --system {path}`")
    return 0


def run_command(suite: str, system: str | None, *, out_dir: Path | None = None, limit: int | None = None,
                seed: int = 0, batch_size: int | None = None, labels: str | None = None,
                export_inputs: Path | None = None, out: Any = None) -> int:
    import os

    from lingtest.errors import InputError, LingtestError
    from lingtest.harness.loading import load_suite

    if export_inputs is not None:
        return export_command(suite, export_inputs, limit=limit, seed=seed)
    if not system:
        return _fail(InputError("give --system SPEC (or --export-inputs FILE to write the inputs a predictions "
                                "file must answer)", field="system"))
    if os.getcwd() not in sys.path:  # `package.module:function` in the current folder, as `python -m` finds it
        sys.path.insert(0, os.getcwd())
    try:
        loaded = load_suite(suite)
        results = loaded.run(system, limit=limit, seed=seed, batch_size=batch_size, labels=labels)
        target = out_dir or Path("runs") / _slug(loaded.info.name) / _slug(str(results.system.get("name")))
        results.save(target)
    except LingtestError as exc:
        return _fail(exc)
    from rich.markup import escape
    from rich.table import Table

    info = loaded.info
    version = f" v{info.version}" if info.version else ""
    table = Table(title=escape(f"{info.name}{version} ({info.task}) · {results.system.get('name')}"),
                  title_justify="left")
    table.add_column("group", overflow="fold", max_width=50)
    table.add_column("cases", justify="right")
    table.add_column("failed", justify="right")
    table.add_column("failure rate", justify="right")
    counts = results.counts()
    for g, c in [*counts.items(), ("overall", {"cases": len(results), "failed": results.failed})]:
        rate = f"{100 * c['failed'] / c['cases']:.1f}%" if c["cases"] else "-"
        style = "bold" if g == "overall" else None
        table.add_row(escape(g), f"{c['cases']:,}", f"{c['failed']:,}", rate, style=style,
                      end_section=g == list(counts)[-1])
    console = _console(out)
    console.print(table)
    if info.kind == "sources":
        used = int(results.run.get("sources", info.cases))
        sample = f" generated from {used:,} of {info.cases:,} sources" + (f" (seed {seed})" if used < info.cases
                                                                           else "")
    else:
        sample = f" (a sample of {len(results)} of {info.cases}, seed {seed})" if len(results) < info.cases else ""
    run = results.run
    console.print(f"{len(results):,} cases{sample}: {results.failed:,} failed; {run.get('predicted', 0):,} "
                  f"inputs predicted, {run.get('from_cache', 0):,} from the cache")
    if results.gold is not None:
        console.print(_gold_line(results.gold), soft_wrap=True, highlight=False)
    console.print(f"wrote {target}/results.jsonl and summary.json", soft_wrap=True, highlight=False)
    return 0


def _gold_line(gold: dict[str, Any]) -> str:
    """One line of a run's grading against gold."""
    if not gold.get("graded"):
        return f"not graded against gold: {gold.get('reason')}"
    summary = gold.get("summary") or {}
    parts = []
    for key, label in (("precision", "issue precision"),
                       ("precision_validity_adjusted", "counting issues on invalid mutants as false"),
                       ("validity", "valid mutants"), ("source_f1", "F1 on the sources"),
                       ("hit_rate", "wrong sources revealed")):
        value = summary.get(key)
        if isinstance(value, dict):
            value = value.get("f1")
        if isinstance(value, int | float):
            parts.append(f"{label} {value:.3f}")
    return "graded against gold: " + (", ".join(parts) or "no issue to grade")


def suite_info(
    suite: Annotated[str, typer.Argument(help="a suite file, a release folder or a configured suite name")],
    as_json: Annotated[bool, typer.Option("--json", help="print the suite's record as JSON")] = False,
) -> None:
    """What a suite is: name, version, sha256, task, labels, the JSON a system reads and writes, groups."""
    exit_with(info_command(suite, as_json=as_json))


def run(
    suite: Annotated[str, typer.Argument(help="a suite file, a release folder or a configured suite name")],
    system: Annotated[str | None, typer.Option("--system", "-s", help="package.module:function, an http(s):// "
                                               "URL, spacy:<package>, hf:<id or folder>, a predictions file or a "
                                               "configured system name")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="results folder (default "
                                             "runs/<suite>/<system>)")] = None,
    limit: Annotated[int | None, typer.Option(help="a random sample of N cases", min=1)] = None,
    seed: Annotated[int, typer.Option(help="the seed of the --limit sample")] = 0,
    batch_size: Annotated[int | None, typer.Option("--batch-size", help="inputs per call (default: the "
                                                   "configured systems.batch_size)", min=1)] = None,
    labels: Annotated[str | None, typer.Option("--labels", help="NER: the system's label scheme (conll, "
                                               "ontonotes, ...) or a YAML/JSON file mapping its labels to gold's, "
                                               "for grading against gold")] = None,
    export_inputs: Annotated[Path | None, typer.Option("--export-inputs", help="write the inputs the suite needs "
                                                       "as a predictions file to fill in, instead of running")
                             ] = None,
) -> None:
    """Run a system on a suite: a per-group table, DIR/results.jsonl and DIR/summary.json."""
    exit_with(run_command(suite, system, out_dir=out, limit=limit, seed=seed, batch_size=batch_size, labels=labels,
                          export_inputs=export_inputs))


def register(app: typer.Typer) -> None:
    """Add ``suite info`` and ``run`` to the ``lingtest`` application."""
    typer = bind_typer(globals())
    suite_app = typer.Typer(help="Inspect test suites (suite files, release folders).", no_args_is_help=True)
    suite_app.command("info")(suite_info)
    app.add_typer(suite_app, name="suite")
    app.command("run")(run)
