"""The ``lingtest`` command. Heavy libraries are imported inside commands, so ``lingtest
coref-score`` starts fast."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(help="lingtest: test NLP systems without labelled test sets.", no_args_is_help=True,
                  pretty_exceptions_enable=False, add_completion=False)
config_app = typer.Typer(help="Compose and inspect the Hydra configuration.", no_args_is_help=True)
data_app = typer.Typer(help="Datasets: list, download and prepare outside DVC.", no_args_is_help=True)
pipeline_app = typer.Typer(help="The DVC pipeline: its stages and their code dependencies.", no_args_is_help=True)
app.add_typer(config_app, name="config")
app.add_typer(data_app, name="data")
app.add_typer(pipeline_app, name="pipeline")


def _register_plugins() -> None:
    """Commands contributed by the technique modules (each has ``register(app)``)."""
    import importlib

    for module in ("lingtest.commands.coref_score", "lingtest.commands.ner_score",
                   "lingtest.commands.self_bleu", "lingtest.commands.registry",
                   "lingtest.commands.release", "lingtest.commands.compare", "lingtest.commands.report",
                   "lingtest.commands.suite", "lingtest.commands.exp", "lingtest.commands.review",
                   "lingtest.commands.runs"):
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if not exc.name or not module.startswith(exc.name):
                raise
            continue
        mod.register(app)


@config_app.command("compose")
def config_compose(
    overrides: Annotated[list[str] | None, typer.Argument(help="Hydra overrides, e.g. crest.M=30")] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="default: params.yaml")] = None,
) -> None:
    """Write params.yaml from conf/ exactly as `dvc exp run -S ...` would."""
    from lingtest.config import write_params

    path = write_params(output, overrides or [])
    typer.echo(f"wrote {path}")


@config_app.command("show")
def config_show(overrides: Annotated[list[str] | None, typer.Argument()] = None) -> None:
    """Print the composed configuration."""
    from lingtest.config import compose_yaml

    typer.echo(compose_yaml(overrides or []))


@pipeline_app.command("deps")
def pipeline_deps(
    check: Annotated[bool, typer.Option("--check", help="only report stale files (exit 1 if any)")] = False,
) -> None:
    """Write the `src/` dependencies of every stage in dvc.yaml and stages/*/dvc.yaml from the import
    closure of its body (run it after changing imports, as `lingtest config compose` after editing conf/)."""
    from lingtest.paths import project_root
    from lingtest.pipeline.deps import stale_files

    root = project_root()
    stale = stale_files(root, write=not check)
    for f in stale:
        typer.echo(f"{'stale' if check else 'wrote'} {f.relative_to(root)}")
    if not stale:
        typer.echo("code dependencies are current")
    elif check:
        raise typer.Exit(1)


@pipeline_app.command("stages")
def pipeline_stages() -> None:
    """Every stage and the command that runs it alone (``@ITEM``: one of a ``foreach`` stage's items)."""
    import yaml

    from lingtest.dvcfiles import stage_files
    from lingtest.paths import project_root

    root = project_root()
    rows = []
    for name, f in stage_files(root).items():
        stage = (yaml.safe_load(f.read_text(encoding="utf-8"))["stages"] or {})[name]
        target = f"{name}@ITEM" if "foreach" in stage else name
        rel = str(f.relative_to(root))
        rows.append((name, f"dvc repro {target if rel == 'dvc.yaml' else f'{rel}:{target}'}"))
    width = max(len(n) for n, _ in rows)
    for name, command in rows:
        typer.echo(f"{name:<{width}}  {command}")


@data_app.command("list")
def data_list() -> None:
    """List the configured datasets with their format and mirror folder."""
    from rich.console import Console
    from rich.table import Table

    from lingtest.config import compose
    from lingtest.pipeline.datasets import DatasetSpec

    cfg = compose()
    table = Table("dataset", "task", "format", "record", "mirror", "canonical source", "splits")
    for name in cfg.datasets:
        spec = DatasetSpec.from_config(name, cfg)
        src = spec.source.url or spec.source.name or spec.source.package or "-"
        table.add_row(name, spec.task, spec.format, spec.record, spec.mirror or "-", src, ", ".join(spec.splits))
    Console().print(table)


@data_app.command("prepare")
def data_prepare(
    dataset: str,
    out: Annotated[Path, typer.Option(help="output folder")] = Path("data/prepared"),
    network: Annotated[bool, typer.Option(help="try the canonical source first")] = False,
    mirror: Annotated[Path | None, typer.Option(help="mirror root (default ../shared/data)")] = None,
) -> None:
    """Download (or take from the mirror) and prepare one dataset without DVC or MLflow."""
    from lingtest.config import compose, to_plain
    from lingtest.paths import mirror_root, project_root
    from lingtest.pipeline.datasets import DatasetSpec, download, prepare
    from lingtest.progress import progress

    cfg = compose()
    spec = DatasetSpec.from_config(dataset, cfg)
    m = mirror_root(mirror)
    manifest = download(spec, network=network, mirror=m, raw_dir=project_root() / "data" / "raw")
    counts = prepare(manifest, out / dataset, m, to_plain(cfg.readers), progress=lambda it, d: progress(it, d))
    for split, n in counts.items():
        typer.echo(f"{dataset}/{split}: {n} records -> {out / dataset / (split + '.jsonl')}")


_register_plugins()

if __name__ == "__main__":  # pragma: no cover
    app()
