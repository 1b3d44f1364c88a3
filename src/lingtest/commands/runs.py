"""``lingtest runs sync``: import the stage runs of the journal into MLflow.

With ``tracking.deferred: true`` (the default) a stage writes its run to ``mlruns/journal/`` instead of
opening an MLflow run (:mod:`lingtest.journal`); this command imports every ended run into the MLflow
store (``mlruns/mlflow.db``, or the store ``tracking.uri`` / ``$MLFLOW_TRACKING_URI`` named when the
stage ran) with its own times, parameters, metrics, tags, artifacts and status. Runs still going are
left for the next sync; runs whose process died are imported KILLED. Run it before ``mlflow ui``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from lingtest.commands import bind_typer, exit_with

if TYPE_CHECKING:
    import typer


def runs_sync(
    root: Annotated[Path | None, typer.Option("--root", help="the checkout (default: this one)")] = None,
) -> None:
    """Import the runs that stages wrote to mlruns/journal/ into MLflow."""
    from lingtest.paths import project_root
    from lingtest.tracking import sync_runs

    result = sync_runs((root or project_root()).resolve())
    typer.echo(result.summary())
    for path, error in result.unreadable.items():
        typer.echo(f"unreadable: {path}: {error}", err=True)
    exit_with(1 if result.unreadable else 0)


def register(app: typer.Typer) -> None:
    """Add the ``runs`` group (``sync``) to ``lingtest``."""
    typer = bind_typer(globals())
    runs_app = typer.Typer(no_args_is_help=True, help="The stages' MLflow runs.")
    runs_app.command("sync")(runs_sync)
    app.add_typer(runs_app, name="runs")
