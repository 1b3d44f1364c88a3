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
app.add_typer(config_app, name="config")
app.add_typer(data_app, name="data")


def _register_plugins() -> None:
    """Commands contributed by the technique modules (each has ``register(app)``)."""
    import importlib

    for module in ("lingtest.commands.coref_score", "lingtest.commands.ner_score",
                   "lingtest.commands.self_bleu",
                   "lingtest.commands.release", "lingtest.commands.compare", "lingtest.commands.report"):
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


@app.command("registry")
def registry() -> None:
    """List every registered component: tasks, systems by task, expectations, oracles, stages, dataset
    sources, readers, parsers, metrics, resources, perturbations and candidate proposers."""
    from lingtest.registries import all_registries

    for kind, names in all_registries().items():
        typer.echo(f"{kind}: {', '.join(names)}")


_register_plugins()

if __name__ == "__main__":  # pragma: no cover
    app()
