"""Experiment tracking: every stage run logs its resolved config (flattened), metrics and key
artifacts to MLflow, tagged with the git commit and the DVC stage.

The default store is embedded and local: SQLite at ``<project>/mlruns/mlflow.db`` with artifacts
under ``<project>/mlruns/artifacts`` (git-ignored). ``MLFLOW_TRACKING_URI`` (or ``tracking.uri`` in
the config) points it elsewhere, e.g. at a server.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

MAX_PARAM_LEN = 6000  # MLflow's limit on a parameter value


class Tracker(Protocol):
    def log_params(self, params: Mapping[str, Any]) -> None: ...
    def log_metrics(self, metrics: Mapping[str, float], step: int | None = None) -> None: ...
    def log_artifact(self, path: str | Path) -> None: ...
    def set_tags(self, tags: Mapping[str, Any]) -> None: ...


class NullTracker:
    """Records what would be logged, in memory (tests, ``tracking.enabled: false``)."""

    def __init__(self) -> None:
        self.params: dict[str, Any] = {}
        self.metrics: dict[str, float] = {}
        self.artifacts: list[str] = []
        self.tags: dict[str, Any] = {}

    def log_params(self, params: Mapping[str, Any]) -> None:
        self.params.update(flatten(params))

    def log_metrics(self, metrics: Mapping[str, float], step: int | None = None) -> None:
        self.metrics.update(numeric_metrics(metrics))

    def log_artifact(self, path: str | Path) -> None:
        self.artifacts.append(str(path))

    def set_tags(self, tags: Mapping[str, Any]) -> None:
        self.tags.update({k: str(v) for k, v in tags.items()})


class MlflowTracker:
    """Logs to the active MLflow run."""

    def __init__(self, mlflow_module: Any) -> None:
        self._mlflow = mlflow_module

    def log_params(self, params: Mapping[str, Any]) -> None:
        flat = flatten(params)
        items = list(flat.items())
        for i in range(0, len(items), 100):  # MLflow's batch limit
            self._mlflow.log_params(dict(items[i : i + 100]))

    def log_metrics(self, metrics: Mapping[str, float], step: int | None = None) -> None:
        clean = numeric_metrics(metrics)
        if clean:
            self._mlflow.log_metrics(clean, step=step)

    def log_artifact(self, path: str | Path) -> None:
        p = Path(path)
        if p.is_dir():
            self._mlflow.log_artifacts(str(p), artifact_path=p.name)
        elif p.exists():
            self._mlflow.log_artifact(str(p))

    def set_tags(self, tags: Mapping[str, Any]) -> None:
        self._mlflow.set_tags({k: str(v) for k, v in tags.items()})


def flatten(d: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    """``{"a": {"b": 1}, "c": [1, 2]}`` -> ``{"a.b": "1", "c": "[1, 2]"}`` (values as strings,
    truncated to MLflow's limit)."""
    out: dict[str, str] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping):
            if v:
                out.update(flatten(v, key + "."))
            else:
                out[key] = "{}"
        else:
            s = json.dumps(v, sort_keys=True, default=str) if isinstance(v, (list, tuple)) else str(v)
            out[key] = s[:MAX_PARAM_LEN]
    return out


def numeric_metrics(metrics: Mapping[str, Any], prefix: str = "") -> dict[str, float]:
    """Flatten nested metric dicts and keep finite numbers only (booleans become 0/1)."""
    out: dict[str, float] = {}
    for k, v in metrics.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out.update(numeric_metrics(v, key + "."))
        elif isinstance(v, bool):
            out[key] = float(v)
        elif isinstance(v, (int, float)) and math.isfinite(float(v)):
            out[key] = float(v)
    return out


def git_commit(cwd: str | Path | None = None) -> tuple[str, bool]:
    """(HEAD commit, working tree dirty?) or ("unknown", False) outside git."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = bool(subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=cwd,
                                    capture_output=True, text=True, check=True).stdout.strip())
        return head, dirty
    except (OSError, subprocess.CalledProcessError):
        return "unknown", False


def default_tracking_uri(root: Path) -> str:
    return f"sqlite:///{(root / 'mlruns' / 'mlflow.db').resolve()}"


@contextmanager
def tracked_run(stage: str, config: Mapping[str, Any], *, root: Path, uri: str | None = None,
                experiment: str = "lingtest", enabled: bool = True) -> Iterator[Tracker]:
    """Open an MLflow run for one stage execution; logs the flattened config and tags."""
    if not enabled:
        tracker = NullTracker()
        tracker.log_params(config)
        yield tracker
        return
    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
    import logging

    import mlflow

    logging.getLogger("mlflow").setLevel(logging.WARNING)
    logging.getLogger("alembic").setLevel(logging.WARNING)
    tracking_uri = uri or os.environ.get("MLFLOW_TRACKING_URI") or default_tracking_uri(root)
    if tracking_uri.startswith("sqlite:///"):
        Path(tracking_uri[len("sqlite:///"):]).parent.mkdir(parents=True, exist_ok=True)
    mlflow.set_tracking_uri(tracking_uri)
    if mlflow.get_experiment_by_name(experiment) is None:
        artifact_location = None
        if tracking_uri.startswith("sqlite:///"):
            artifact_location = (root / "mlruns" / "artifacts").resolve().as_uri()
        mlflow.create_experiment(experiment, artifact_location=artifact_location)
    mlflow.set_experiment(experiment)
    commit, dirty = git_commit(root)
    # start_run's context manager marks the run FAILED when the stage raises
    with mlflow.start_run(run_name=stage):
        tracker = MlflowTracker(mlflow)
        tracker.set_tags({"git_commit": commit, "git_dirty": dirty, "dvc_stage": stage,
                          "mlflow.source.git.commit": commit})
        tracker.log_params(config)
        yield tracker
