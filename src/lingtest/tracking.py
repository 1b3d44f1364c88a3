"""Experiment tracking: every stage run logs its resolved config (flattened), metrics and key
artifacts to MLflow, tagged with the git commit, the DVC stage and the resolved environment
(:func:`lingtest.environment.describe`: package versions, CPU/GPU, torch threads; ``env.*`` tags).

The default store is embedded and local: SQLite at ``<project>/mlruns/mlflow.db`` with artifacts
under ``<project>/mlruns/artifacts`` (git-ignored). ``MLFLOW_TRACKING_URI`` (or ``tracking.uri`` in
the config) points it elsewhere, e.g. at a server. ``<project>`` is the main workspace also when a
stage runs in a DVC experiment's temporary copy (:func:`store_root`), and a copied or moved store
writes its artifacts where it now is (:func:`relocate_store`). Each technique has its own MLflow
experiment (``lingtest/crest``, ...); runs are tagged with the git commit, the DVC stage and
experiment name, the system under test and the suite's sha256 and release (:func:`suite_tags`).

Nothing leaves the machine unasked: a run switches MLflow's and the other libraries' telemetry off
(:mod:`lingtest.telemetry`), and hub look-ups too when ``profile.network`` is false.

No run stays RUNNING after its process is gone: a run ends FINISHED, FAILED (the stage raised or the
process exits with the run open) or KILLED (SIGTERM or SIGINT: the run is ended, then the signal takes
its usual course). A run records its process (``lingtest.host``, ``lingtest.pid``,
``lingtest.proc_start``; :mod:`lingtest.processes`), so that a run whose process died without a word
(SIGKILL, power loss) is marked KILLED by the next run on the same host and store.
"""

from __future__ import annotations

import atexit
import json
import logging
import math
import os
import re
import signal
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, Protocol

from lingtest.environment import as_tags, describe, git_commit, torch_runtime
from lingtest.processes import TAG_HOST, TAG_PID, TAG_PROC_START, ProcessId, process_alive, this_process
from lingtest.telemetry import network_allowed, quiet_libraries

__all__ = ["MlflowTracker", "NullTracker", "Tracker", "default_tracking_uri", "dvc_tags", "experiment_name",
           "flatten", "git_commit", "mark_stale_runs_killed", "numeric_metrics", "relocate_store", "store_root",
           "suite_tags", "tracked_run"]

log = logging.getLogger("lingtest")

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


_METRIC_NAME = re.compile(r"[^\w\-. :/]")


def numeric_metrics(metrics: Mapping[str, Any], prefix: str = "") -> dict[str, float]:
    """Flatten nested metric dicts and keep finite numbers only (booleans become 0/1); characters MLflow
    does not take in a metric name (``>``, ``,``, ...) become ``_``."""
    out: dict[str, float] = {}
    for k, v in metrics.items():
        key = _METRIC_NAME.sub("_", f"{prefix}{k}")
        if isinstance(v, Mapping):
            out.update(numeric_metrics(v, key + "."))
        elif isinstance(v, bool):
            out[key] = float(v)
        elif isinstance(v, (int, float)) and math.isfinite(float(v)):
            out[key] = float(v)
    return out


def default_tracking_uri(root: Path) -> str:
    return f"sqlite:///{(store_root(root) / 'mlruns' / 'mlflow.db').resolve()}"


def store_root(root: Path) -> Path:
    """The checkout whose ``mlruns/`` holds the runs: the main workspace
    (:func:`lingtest.paths.main_workspace`), also when a stage runs in a DVC experiment's temporary copy
    (``dvc exp run --queue``/``--temp``), so that no run is logged into a copy and lost with it."""
    from lingtest.paths import main_workspace

    return main_workspace(root)


def experiment_name(base: str, technique: str | None) -> str:
    """One MLflow experiment per technique: ``lingtest/adversarial``; ``base`` alone without one."""
    return f"{base}/{technique}" if technique else base


def relocate_store(db: Path) -> int:
    """Make a copied or moved embedded store write where it now lives: MLflow records absolute
    artifact locations, so a store copied elsewhere would keep writing artifacts into the original
    checkout. Locations ``file://.../mlruns/artifacts...`` of another folder are rewritten to this
    store's ``artifacts`` folder (experiments and their runs); returns how many experiments moved."""
    import sqlite3

    if not db.is_file():
        return 0
    here = (db.parent / "artifacts").resolve().as_uri()
    marker = "/mlruns/artifacts"
    con = sqlite3.connect(str(db), timeout=30)
    try:
        try:
            rows = con.execute("SELECT experiment_id, artifact_location FROM experiments").fetchall()
        except sqlite3.OperationalError:  # not an MLflow store yet
            return 0
        moved = 0
        with con:
            for exp_id, location in rows:
                loc = str(location or "")
                cut = loc.find(marker)
                if not loc.startswith("file://") or cut < 0:
                    continue
                old = loc[:cut + len(marker)]
                if old == here:
                    continue
                con.execute("UPDATE experiments SET artifact_location = ? WHERE experiment_id = ?",
                            (here + loc[len(old):], exp_id))
                con.execute("UPDATE runs SET artifact_uri = ? || substr(artifact_uri, ?) "
                            "WHERE experiment_id = ? AND artifact_uri LIKE ?",
                            (here, len(old) + 1, exp_id, old + "%"))
                moved += 1
    finally:
        con.close()
    if moved:
        log.info("the MLflow store %s was moved: %d experiment(s) now keep their artifacts in %s", db, moved, here)
    return moved


def suite_tags(suite: Path | None, releases: Path | None) -> dict[str, str]:
    """``suite.sha256`` of the suite a stage wrote or read and, when a release under ``releases``
    froze exactly that suite, ``suite.release`` (``<suite>@v<version>``)."""
    import hashlib

    if suite is None or not suite.is_file():
        return {}
    h = hashlib.sha256()
    with open(suite, "rb") as fh:
        while block := fh.read(1 << 20):
            h.update(block)
    sha = h.hexdigest()
    tags = {"suite.sha256": sha, "suite.path": str(suite)}
    if releases is not None and releases.is_dir():
        for prov in sorted(releases.glob("*/*/provenance.json")):
            try:
                data = json.loads(prov.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                continue
            if data.get("suite", {}).get("sha256") == sha:
                tags["suite.release"] = str(data.get("release", {}).get("tag", prov.parent.name))
    return tags


def dvc_tags() -> dict[str, str]:
    """The DVC experiment a stage runs in (``dvc exp run`` sets these variables)."""
    out = {}
    for var, tag in (("DVC_EXP_NAME", "dvc_exp_name"), ("DVC_EXP_BASELINE_REV", "dvc_exp_baseline")):
        if os.environ.get(var):
            out[tag] = os.environ[var]
    return out




# ---------------------------------------------------------------------------------------------------
# the process behind a run (lingtest.processes): runs whose process is gone, runs told to stop

TAG_ENDED_BY = "lingtest.ended_by"


def stale_run_ids(runs: list[Any], host: str, alive: Callable[[int, str], bool]) -> list[str]:
    """Ids of the RUNNING runs among ``runs`` (MLflow ``Run`` objects) that were started by a process
    on ``host`` that no longer runs. Runs of other hosts, or without a recorded process, are left
    alone: whether they still run cannot be told from here."""
    out: list[str] = []
    for run in runs:
        tags = run.data.tags
        if run.info.status != "RUNNING" or tags.get(TAG_HOST) != host:
            continue
        try:
            pid = int(tags.get(TAG_PID, ""))
        except ValueError:
            continue
        if not alive(pid, tags.get(TAG_PROC_START, "")):
            out.append(run.info.run_id)
    return out


def mark_stale_runs_killed(client: Any, me: ProcessId, alive: Callable[[int, str], bool] = process_alive
                           ) -> list[str]:
    """Mark KILLED every RUNNING run of the store behind ``client`` (all experiments) whose process on
    this host is gone; returns their ids."""
    from mlflow.entities import ViewType

    killed: list[str] = []
    for exp in client.search_experiments(view_type=ViewType.ALL):
        runs = client.search_runs([exp.experiment_id], filter_string="attributes.status = 'RUNNING'",
                                  run_view_type=ViewType.ALL, max_results=1000)
        for run_id in stale_run_ids(list(runs), me.host, alive):
            client.set_tag(run_id, TAG_ENDED_BY, f"stale: its process was gone when process {me.pid} "
                                                 f"on {me.host} started a run")
            client.set_terminated(run_id, status="KILLED")
            killed.append(run_id)
    if killed:
        log.warning("marked %d stale MLflow run(s) KILLED (their processes are gone): %s", len(killed),
                    ", ".join(killed))
    return killed


class RunGuard:
    """Ends an MLflow run when its process is told to stop: SIGTERM and SIGINT end it KILLED and then
    take their previous course (the default handler's death by signal, KeyboardInterrupt, or the
    handler that was installed); a process that exits with the run still open ends it FAILED. Handlers
    are installed only from the main thread and restored on exit."""

    SIGNALS = (signal.SIGTERM, signal.SIGINT)

    def __init__(self, end: Callable[[str, str], None]) -> None:
        self._end = end  # end(status, reason)
        self.ended: str | None = None
        self._previous: dict[int, Any] = {}

    def end(self, status: str, reason: str, *, quiet: bool = True) -> None:
        """End the run once (later calls do nothing); ``quiet``: log a failure to reach the store
        instead of raising (a signal or the exit must take its course anyway)."""
        if self.ended is not None:
            return
        self.ended = status
        try:
            self._end(status, reason)
        except Exception:
            if not quiet:
                raise
            log.exception("could not end the MLflow run as %s", status)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        name = signal.Signals(signum).name
        self.end("KILLED", f"signal {name}")
        previous = self._previous.get(signum, signal.SIG_DFL)
        self.uninstall()
        if callable(previous):
            previous(signum, frame)
        elif previous == signal.SIG_DFL:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)

    def _at_exit(self) -> None:
        self.end("FAILED", "the process exited with the run open")

    def install(self) -> None:
        atexit.register(self._at_exit)
        if sys.platform == "win32":
            return
        import threading

        if threading.current_thread() is not threading.main_thread():
            return
        for sig in self.SIGNALS:
            previous = signal.getsignal(sig)
            if previous in (signal.SIG_IGN, None):
                continue  # ignored (e.g. SIGINT of a background job) or set outside Python: leave it
            self._previous[sig] = previous
            signal.signal(sig, self._on_signal)

    def uninstall(self) -> None:
        atexit.unregister(self._at_exit)
        for sig, previous in self._previous.items():
            if signal.getsignal(sig) == self._on_signal:
                signal.signal(sig, previous)
        self._previous = {}


def end_status(exc: BaseException | None) -> str:
    """MLflow run status for a stage body that ended with ``exc`` (None: normally)."""
    if exc is None:
        return "FINISHED"
    if isinstance(exc, KeyboardInterrupt):
        return "KILLED"
    if isinstance(exc, SystemExit) and exc.code in (None, 0):
        return "FINISHED"
    return "FAILED"


# ---------------------------------------------------------------------------------------------------


@contextmanager
def tracked_run(stage: str, config: Mapping[str, Any], *, root: Path, uri: str | None = None,
                experiment: str = "lingtest", enabled: bool = True, technique: str | None = None,
                tags: Mapping[str, Any] | None = None) -> Iterator[Tracker]:
    """Open an MLflow run for one stage execution; logs the flattened config and tags it with the
    stage, the git commit, the DVC experiment, ``tags`` and the environment. The run goes to the
    experiment ``<experiment>/<technique>`` (one per technique) of the main workspace's store
    (:func:`store_root`). Telemetry is off while it is open (and hub requests when
    ``config['profile']['network']`` is not true)."""
    if not enabled:
        null = NullTracker()
        null.log_params(config)
        null.set_tags({**dvc_tags(), **dict(tags or {}), **as_tags(describe(root, load_torch=False))})
        yield null
        return
    with quiet_libraries(offline=not network_allowed(config)):
        os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
        import mlflow
        from mlflow.tracking import MlflowClient

        logging.getLogger("mlflow").setLevel(logging.WARNING)
        logging.getLogger("alembic").setLevel(logging.WARNING)
        tracking_uri = uri or os.environ.get("MLFLOW_TRACKING_URI") or default_tracking_uri(root)
        if tracking_uri.startswith("sqlite:///"):
            db = Path(tracking_uri[len("sqlite:///"):])
            db.parent.mkdir(parents=True, exist_ok=True)
            relocate_store(db)
        mlflow.set_tracking_uri(tracking_uri)
        client = MlflowClient(tracking_uri=tracking_uri)
        me = this_process()
        mark_stale_runs_killed(client, me)
        experiment = experiment_name(experiment, technique)
        if mlflow.get_experiment_by_name(experiment) is None:
            artifact_location = None
            if tracking_uri.startswith("sqlite:///"):
                artifact_location = (Path(tracking_uri[len("sqlite:///"):]).parent / "artifacts").resolve().as_uri()
            mlflow.create_experiment(experiment, artifact_location=artifact_location)
        mlflow.set_experiment(experiment)
        env = describe(root, load_torch=False)
        commit, dirty = env["git"]["commit"], env["git"]["dirty"]
        run = mlflow.start_run(run_name=stage, tags=me.tags())  # the process is on record from the start
        run_id = run.info.run_id

        def end(status: str, reason: str) -> None:
            if reason:
                client.set_tag(run_id, TAG_ENDED_BY, reason)
            active = mlflow.active_run()
            if active is not None and active.info.run_id == run_id:
                mlflow.end_run(status=status)  # also takes it off MLflow's stack of active runs
            else:
                client.set_terminated(run_id, status=status)

        guard = RunGuard(end)
        guard.install()
        tracker = MlflowTracker(mlflow)
        failure: BaseException | None = None
        try:
            tracker.set_tags({"git_commit": commit, "git_dirty": dirty, "dvc_stage": stage,
                              "mlflow.source.git.commit": commit, **dvc_tags(), **dict(tags or {}),
                              **as_tags(env)})
            tracker.log_params(config)
            yield tracker
        except BaseException as exc:
            failure = exc
            raise
        finally:
            guard.uninstall()
            try:
                if "torch" in sys.modules and guard.ended is None:  # the stage loaded torch
                    tracker.set_tags(as_tags({"torch": torch_runtime(load=False)}))
            finally:
                status = end_status(failure)
                reason = "" if status == "FINISHED" else f"the stage raised {type(failure).__name__}"
                guard.end(status, reason, quiet=False)
