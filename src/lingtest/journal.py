"""Stage runs written to a journal on disk and imported into MLflow afterwards.

Opening an MLflow run costs a stage process about two seconds before it does anything (importing
MLflow, opening its SQLAlchemy store), more than many stages' own work. With ``tracking.deferred``
(the default), a stage writes its run to a small JSON record instead: ``<store>/mlruns/journal/<id>.json``
(:class:`JournalRun`), rewritten atomically at every logging call, with copies of the files it logs as
artifacts beside it (``<id>/``). :func:`sync_journal` (``lingtest runs sync``) then imports every
finished record into the MLflow store the record names, with the run's own start and end times,
tags, parameters, metric history, artifacts and status, and deletes the record. The runs in MLflow
are the ones a live run would have written; only their arrival is later.

A record whose process is still running is left for a later sync; one whose process on this host is
gone without ending it (SIGKILL, power loss) is imported KILLED, its metrics up to the last logging
call kept. One sync at a time imports (a lock file); an import cut short is undone and repeated by
the next sync, so no run is imported twice.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import shutil
import socket
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lingtest.errors import InputError
from lingtest.processes import ProcessId, process_alive

__all__ = ["JOURNAL_VERSION", "JournalRun", "SyncResult", "experiment_id", "journal_dir", "pending_records",
           "read_record", "sync_journal"]

log = logging.getLogger("lingtest")

JOURNAL_VERSION = 1
TAG_ENDED_BY = "lingtest.ended_by"
_STATUSES = ("RUNNING", "FINISHED", "FAILED", "KILLED")
_PARAMS_PER_BATCH = 100   # MLflow's limits on one log_batch
_METRICS_PER_BATCH = 1000


def journal_dir(store: Path) -> Path:
    """The journal of the run store under ``store`` (the checkout whose ``mlruns/`` holds the runs)."""
    return store / "mlruns" / "journal"


def _now_ms() -> int:
    return int(time.time() * 1000)


def _write_json(path: Path, data: Mapping[str, Any]) -> None:
    """Write ``data`` to ``path`` atomically: a reader sees the old record or the new one, never half."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, default=str), encoding="utf-8")
    os.replace(tmp, path)


class JournalRun:
    """One run written to the journal (:class:`lingtest.tracking.JournalTracker` logs through it).
    Every call rewrites the record, so what was logged before a crash is kept."""

    def __init__(self, directory: Path, *, run_name: str, experiment: str, tracking_uri: str,
                 artifact_location: str | None, process: ProcessId) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.id = uuid.uuid4().hex
        self.path = directory / f"{self.id}.json"
        self.files = directory / self.id
        self.record: dict[str, Any] = {
            "version": JOURNAL_VERSION, "id": self.id, "tracking_uri": tracking_uri, "experiment": experiment,
            "artifact_location": artifact_location, "run_name": run_name, "start_time": _now_ms(),
            "end_time": None, "status": "RUNNING",
            "process": {"host": process.host, "pid": process.pid, "start": process.start},
            "tags": process.tags(), "params": {}, "metrics": [], "documents": {}, "artifacts": [],
        }
        self._write()

    def _write(self) -> None:
        _write_json(self.path, self.record)

    def log_params(self, params: Mapping[str, str]) -> None:
        """Parameters as MLflow keeps them: flat, values strings (:func:`lingtest.tracking.flatten`)."""
        self.record["params"].update(params)
        self._write()

    def log_metrics(self, metrics: Mapping[str, float], step: int | None = None) -> None:
        """Finite numbers under names MLflow takes (:func:`lingtest.tracking.numeric_metrics`)."""
        if metrics:
            now = _now_ms()
            self.record["metrics"].extend([k, float(v), now, step or 0] for k, v in metrics.items())
            self._write()

    def log_artifact(self, path: str | Path) -> None:
        """Copy ``path`` (a file, or a folder logged under its name) now, as MLflow would."""
        p = Path(path)
        if not p.exists():
            return
        n = len(self.record["artifacts"])
        dest = self.files / str(n) / p.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        if p.is_dir():
            shutil.copytree(p, dest)
        else:
            shutil.copy2(p, dest)
        self.record["artifacts"].append({"file": f"{n}/{p.name}", "dir": p.is_dir()})
        self._write()

    def set_tags(self, tags: Mapping[str, Any]) -> None:
        self.record["tags"].update({k: str(v) for k, v in tags.items()})
        self._write()

    def log_dict(self, data: Mapping[str, Any], artifact_file: str) -> None:
        """``data`` as the JSON artifact ``artifact_file`` (logged again: replaced)."""
        self.record["documents"][artifact_file] = json.loads(json.dumps(data, default=str))
        self._write()

    def end(self, status: str, reason: str = "") -> None:
        if reason:
            self.record["tags"][TAG_ENDED_BY] = reason
        self.record["status"] = status
        self.record["end_time"] = _now_ms()
        self._write()


def read_record(path: Path) -> dict[str, Any]:
    """A journal record, checked: an :class:`InputError` naming the file and the field at fault."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"not a readable journal record ({exc})", path=path) from None
    if not isinstance(data, dict):
        raise InputError("a journal record is a JSON object", path=path)
    if data.get("version") != JOURNAL_VERSION:
        raise InputError(f"journal version {data.get('version')!r}, this lingtest reads {JOURNAL_VERSION}",
                         path=path, field="version")
    checks: dict[str, Callable[[Any], bool]] = {
        "id": lambda v: isinstance(v, str) and v == path.stem,
        "tracking_uri": lambda v: isinstance(v, str) and bool(v),
        "experiment": lambda v: isinstance(v, str) and bool(v),
        "artifact_location": lambda v: v is None or isinstance(v, str),
        "run_name": lambda v: isinstance(v, str),
        "start_time": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "end_time": lambda v: v is None or (isinstance(v, int) and not isinstance(v, bool)),
        "status": lambda v: v in _STATUSES,
        "process": lambda v: isinstance(v, dict) and isinstance(v.get("host"), str)
        and isinstance(v.get("pid"), int) and isinstance(v.get("start"), str),
        "tags": lambda v: isinstance(v, dict) and all(isinstance(x, str) for x in v.values()),
        "params": lambda v: isinstance(v, dict) and all(isinstance(x, str) for x in v.values()),
        "metrics": lambda v: isinstance(v, list) and all(
            isinstance(m, list) and len(m) == 4 and isinstance(m[0], str)
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in m[1:]) for m in v),
        "documents": lambda v: isinstance(v, dict),
        "artifacts": lambda v: isinstance(v, list) and all(
            isinstance(a, dict) and isinstance(a.get("file"), str) and isinstance(a.get("dir"), bool) for a in v),
        "mlflow_run_id": lambda v: v is None or isinstance(v, str),
    }
    for key, ok in checks.items():
        if key == "mlflow_run_id" and key not in data:
            continue
        if key not in data:
            raise InputError("missing", path=path, field=key)
        if not ok(data[key]):
            raise InputError(f"invalid value {str(data[key])[:80]!r}", path=path, field=key)
    return data


def pending_records(directory: Path) -> list[Path]:
    """The journal's record files, oldest name first (the sync orders them by start time)."""
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.glob("*.json") if not p.name.startswith("."))


@dataclass
class SyncResult:
    """What a sync did: runs imported (MLflow run ids), records left because their process still runs
    (or runs on another host), records imported KILLED because their process was gone, and records
    that could not be read (left in place, with the error)."""

    imported: list[str] = field(default_factory=list)
    running: list[str] = field(default_factory=list)
    killed: list[str] = field(default_factory=list)
    unreadable: dict[str, str] = field(default_factory=dict)

    def summary(self) -> str:
        parts = [f"{len(self.imported)} run(s) imported"]
        if self.killed:
            parts.append(f"{len(self.killed)} of them KILLED (process gone)")
        if self.running:
            parts.append(f"{len(self.running)} still running")
        if self.unreadable:
            parts.append(f"{len(self.unreadable)} unreadable record(s) left in place")
        return ", ".join(parts)


@contextmanager
def _sync_lock(directory: Path) -> Iterator[None]:
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".sync.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _finished(record: dict[str, Any], path: Path, host: str,
              alive: Callable[[int, str], bool]) -> bool | None:
    """Whether ``record`` can be imported: True when it ended; when it is RUNNING, False if its process
    still runs (or runs elsewhere: whether it does cannot be told from here), else it is ended KILLED
    here (at its last write) and None is returned. A process that ended its run between the first
    read and the check wrote its end before it exited: the record is read again before it is ended
    KILLED."""
    if record["status"] != "RUNNING":
        return True
    proc = record["process"]
    if proc["host"] != host or alive(proc["pid"], proc["start"]):
        return False
    final = read_record(path)
    if final["status"] != "RUNNING":
        record.clear()
        record.update(final)
        return True
    record["status"] = "KILLED"
    record["end_time"] = int(path.stat().st_mtime * 1000)
    record["tags"][TAG_ENDED_BY] = (f"stale: its process ({proc['pid']} on {proc['host']}) was gone when "
                                    f"the journal was synced")
    return None


def sync_journal(directory: Path, client_for: Callable[[str], Any], *,
                 alive: Callable[[int, str], bool] = process_alive) -> SyncResult:
    """Import the journal's ended runs into MLflow (see the module docstring); ``client_for(uri)``
    makes the MLflow client of a tracking URI (:func:`lingtest.tracking.mlflow_client`)."""
    result = SyncResult()
    if not pending_records(directory):
        return result
    host = socket.gethostname()
    clients: dict[str, Any] = {}
    with _sync_lock(directory):
        records = []
        for path in pending_records(directory):
            try:
                records.append((path, read_record(path)))
            except InputError as exc:
                result.unreadable[str(path)] = str(exc)
                log.warning("%s", exc)
        for path, record in sorted(records, key=lambda pr: (pr[1]["start_time"], pr[0].name)):
            state = _finished(record, path, host, alive)
            if state is False:
                result.running.append(record["id"])
                continue
            uri = record["tracking_uri"]
            if uri not in clients:
                clients[uri] = client_for(uri)
            run_id = _import(clients[uri], record, path)
            if state is None:
                result.killed.append(run_id)
            result.imported.append(run_id)
            shutil.rmtree(path.with_suffix(""), ignore_errors=True)
            path.unlink()
    if result.imported:
        log.info("journal %s: %s", directory, result.summary())
    return result


def experiment_id(client: Any, name: str, artifact_location: str | None) -> str:
    """The id of the MLflow experiment ``name``, created (with ``artifact_location``) when it is missing."""
    exp = client.get_experiment_by_name(name)
    if exp is not None:
        return str(exp.experiment_id)
    return str(client.create_experiment(name, artifact_location=artifact_location))


def _import(client: Any, record: dict[str, Any], path: Path) -> str:
    """One record into MLflow; returns the run id. A run left by an earlier import that was cut short
    (its id is in the record) is deleted first."""
    from mlflow.entities import Metric, Param

    if record.get("mlflow_run_id"):
        try:
            client.delete_run(record["mlflow_run_id"])
        except Exception:  # noqa: BLE001 - already gone: nothing to undo
            log.debug("could not delete the partial run %s", record["mlflow_run_id"])
    exp_id = experiment_id(client, record["experiment"], record["artifact_location"])
    tags = {**record["tags"], "mlflow.runName": record["run_name"]}
    run = client.create_run(exp_id, start_time=record["start_time"], tags=tags, run_name=record["run_name"])
    run_id = run.info.run_id
    _write_json(path, {**record, "mlflow_run_id": run_id})  # so that a cut-short import is undone
    params = [Param(k, v) for k, v in record["params"].items()]
    for i in range(0, len(params), _PARAMS_PER_BATCH):
        client.log_batch(run_id, params=params[i:i + _PARAMS_PER_BATCH])
    metrics = [Metric(k, float(v), int(ts), int(step)) for k, v, ts, step in record["metrics"]]
    for i in range(0, len(metrics), _METRICS_PER_BATCH):
        client.log_batch(run_id, metrics=metrics[i:i + _METRICS_PER_BATCH])
    for name, data in record["documents"].items():
        client.log_dict(run_id, data, name)
    files = path.with_suffix("")
    for art in record["artifacts"]:
        local = files / art["file"]
        if art["dir"]:
            client.log_artifacts(run_id, str(local), artifact_path=local.name)
        else:
            client.log_artifact(run_id, str(local))
    client.set_terminated(run_id, status=record["status"], end_time=record["end_time"])
    return str(run_id)
