"""Experiment tracking: every stage run logs the leaf parameters it reads, its metrics and key artifacts
to MLflow, tagged with the git commit, the DVC stage, the system under test, the suite it wrote or read
and the profile.

The parameters of a run are those of its DVC stage: the ``params`` keys its ``dvc.yaml`` entry lists
(``${item}`` and the other interpolations resolved as DVC resolves them, :func:`stage_spec`), each
flattened to its leaves (``tin.filters.weight_min=0.6``, :func:`leaf_params`): tens per run, the ones
that decide its outputs. The resolved environment (:func:`lingtest.environment.describe`: package
versions, CPU/GPU, torch threads) is one JSON artifact, ``environment.json``, not tags.

The default store is embedded and local: SQLite at ``<project>/mlruns/mlflow.db`` with artifacts
under ``<project>/mlruns/artifacts`` (git-ignored). ``MLFLOW_TRACKING_URI`` (or ``tracking.uri`` in
the config) points it elsewhere, e.g. at a server. ``<project>`` is the main workspace also when a
stage runs in a DVC experiment's temporary copy (:func:`store_root`), and a copied or moved store
writes its artifacts where it now is (:func:`relocate_store`). Each technique has its own MLflow
experiment (``lingtest/crest``, ...); runs are tagged with the git commit, the DVC stage and
experiment name, the system under test and the suite's name, version and sha256 (:func:`suite_tags`).

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
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import FrameType
from typing import Any, Protocol

from lingtest.environment import describe, git_commit, torch_runtime
from lingtest.errors import ConfigError
from lingtest.journal import TAG_ENDED_BY, JournalRun, SyncResult, experiment_id, journal_dir, sync_journal
from lingtest.processes import TAG_HOST, TAG_PID, TAG_PROC_START, ProcessId, process_alive, this_process
from lingtest.telemetry import network_allowed, quiet_libraries

__all__ = ["ENVIRONMENT_ARTIFACT", "JournalTracker", "MlflowTracker", "NullTracker", "StageSpec", "Tracker",
           "default_tracking_uri", "dvc_tags", "experiment_name", "flatten", "git_commit", "interpolate",
           "leaf_params", "mark_stale_runs_killed", "mlflow_client", "numeric_metrics", "relocate_store",
           "resolve_tracking_uri", "stage_spec", "stage_suites", "store_root", "suite_files", "suite_tags",
           "suites_tags", "sync_runs", "tracked_run"]

log = logging.getLogger("lingtest")

MAX_PARAM_LEN = 6000  # MLflow's limit on a parameter value
#: the run artifact that holds :func:`lingtest.environment.describe`'s dict
ENVIRONMENT_ARTIFACT = "environment.json"


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
        self.documents: dict[str, Any] = {}  # artifact file name -> the JSON-able value logged as it

    def log_params(self, params: Mapping[str, Any]) -> None:
        self.params.update(flatten(params))

    def log_metrics(self, metrics: Mapping[str, float], step: int | None = None) -> None:
        self.metrics.update(numeric_metrics(metrics))

    def log_artifact(self, path: str | Path) -> None:
        self.artifacts.append(str(path))

    def set_tags(self, tags: Mapping[str, Any]) -> None:
        self.tags.update({k: str(v) for k, v in tags.items()})

    def log_dict(self, data: Mapping[str, Any], artifact_file: str) -> None:
        self.documents[artifact_file] = json.loads(json.dumps(data, default=str))


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

    def log_dict(self, data: Mapping[str, Any], artifact_file: str) -> None:
        """``data`` as the JSON artifact ``artifact_file`` (logged again: replaced)."""
        self._mlflow.log_dict(json.loads(json.dumps(data, default=str)), artifact_file)


class JournalTracker:
    """Logs to a run of the journal (:mod:`lingtest.journal`), imported into MLflow later."""

    def __init__(self, run: JournalRun) -> None:
        self.run = run

    def log_params(self, params: Mapping[str, Any]) -> None:
        self.run.log_params(flatten(params))

    def log_metrics(self, metrics: Mapping[str, float], step: int | None = None) -> None:
        self.run.log_metrics(numeric_metrics(metrics), step=step)

    def log_artifact(self, path: str | Path) -> None:
        self.run.log_artifact(path)

    def set_tags(self, tags: Mapping[str, Any]) -> None:
        self.run.set_tags(tags)

    def log_dict(self, data: Mapping[str, Any], artifact_file: str) -> None:
        self.run.log_dict(data, artifact_file)


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


def sha256_file(path: Path) -> str:
    """The sha256 of a file's bytes (hex)."""
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def release_of(sha: str, releases: Path | None) -> dict[str, str]:
    """The release under ``releases`` (``<suite>/<version>/provenance.json``) that froze the suite file
    whose sha256 is ``sha`` (its ``suite.sha256``, or ``suite.file_sha256`` where the release holds a
    file made from it): ``{"name", "version", "tag"}``, the last in path order when several did; empty
    when none did."""
    found: dict[str, str] = {}
    if releases is None or not releases.is_dir():
        return found
    for prov in sorted(releases.glob("*/*/provenance.json")):
        try:
            data = json.loads(prov.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue
        suite = data.get("suite") or {}
        if sha not in (suite.get("sha256"), suite.get("file_sha256")):
            continue
        release = data.get("release") or {}
        name = str(suite.get("name") or release.get("name") or prov.parent.parent.name)
        version = str(release.get("version") or prov.parent.name)
        found = {"name": name, "version": version, "tag": str(release.get("tag") or f"{name}@v{version}")}
    return found


def suite_tags(suite: Path | None, releases: Path | None, name: str | None = None) -> dict[str, str]:
    """``suite.sha256`` and ``suite.path`` of the suite file a stage wrote or read, ``suite.name`` (``name``)
    and, when a release under ``releases`` froze exactly that file, the release's ``suite.name``,
    ``suite.version`` and ``suite.release`` (``<suite>@v<version>``). Empty when the file is missing."""
    if suite is None or not suite.is_file():
        return {}
    sha = sha256_file(suite)
    tags = {"suite.sha256": sha, "suite.path": str(suite)}
    if name:
        tags["suite.name"] = name
    release = release_of(sha, releases)
    if release:
        tags.update({"suite.name": release["name"], "suite.version": release["version"],
                     "suite.release": release["tag"]})
    return tags


def suites_tags(suites: Mapping[Path, str], releases: Path | None) -> dict[str, str]:
    """Tags of the suites a stage wrote or read (file -> suite name): one suite's :func:`suite_tags`;
    with several, ``suites`` (their names) and each one's tags under ``suite.<name>.``."""
    if len(suites) == 1:
        ((path, name),) = suites.items()
        return suite_tags(path, releases, name)
    out: dict[str, str] = {}
    for path, name in suites.items():
        tags = suite_tags(path, releases, name)
        out.update({f"suite.{name}.{k.removeprefix('suite.')}": v for k, v in tags.items() if k != "suite.name"})
    named = [n for p, n in suites.items() if p.is_file()]
    if named:
        out["suites"] = ", ".join(named)
    return out


# ---------------------------------------------------------------------------------------------------
# what a stage reads: its DVC definition (params keys, deps, outs) resolved for one run

_INTERPOLATION = re.compile(r"\$\{\s*([^{}]+?)\s*\}")


@dataclass(frozen=True)
class StageSpec:
    """One run of a DVC stage as its DVC file defines it, every ``${...}`` resolved: ``name``
    (``stage`` or ``stage@item``), the ``file`` that defines it, the ``params.yaml`` keys it lists and
    its ``deps`` and ``outs`` paths (POSIX, relative to the project root; absolute outside it)."""

    name: str
    file: Path
    params: tuple[str, ...]
    deps: tuple[str, ...]
    outs: tuple[str, ...]


def lookup(data: Mapping[str, Any], dotted: str) -> Any:
    """The value at ``a.b.0.c`` (or ``a.b[0].c``) in nested mappings and lists; KeyError when absent."""
    value: Any = data
    for part in dotted.replace("[", ".").replace("]", "").split("."):
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, (list, tuple)) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            raise KeyError(dotted)
    return value


def _as_text(value: Any) -> str:
    """A value put into a text, as DVC writes it (booleans lower case)."""
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def interpolate(text: str, context: Mapping[str, Any], *, where: str) -> Any:
    """``text`` with every ``${a.b}`` replaced by its value in ``context``, as DVC interpolates a DVC
    file: a text that is one ``${...}`` alone is the value itself (a list, a mapping), otherwise the
    values are written into the text. ConfigError naming ``where`` for a name ``context`` lacks."""

    def value(expr: str) -> Any:
        try:
            return lookup(context, expr)
        except KeyError:
            raise ConfigError(f"{where}: ${{{expr}}} names no config key") from None

    whole = _INTERPOLATION.fullmatch(text.strip())
    if whole:
        return value(whole.group(1))
    return _INTERPOLATION.sub(lambda m: _as_text(value(m.group(1))), text)


def foreach_binding(foreach: Any, config: Mapping[str, Any], item: str | None, *, where: str) -> dict[str, Any]:
    """``key`` and ``item`` of one run of a ``foreach`` stage, as DVC binds them: over a mapping the run's
    ``item`` argument is the key and ``item`` its value; over a list ``item`` is the element. An item the
    ``foreach`` does not list (a stage run by hand for another system) is bound as given, with a warning."""
    values = interpolate(foreach, config, where=where) if isinstance(foreach, str) else foreach
    if item is None:
        raise ConfigError(f"{where}: a foreach stage runs for one item: name it (stage@item)")
    if isinstance(values, Mapping):
        if item in values:
            return {"key": item, "item": values[item]}
    elif isinstance(values, (list, tuple)):
        for v in values:
            if _as_text(v) == item:
                return {"key": item, "item": v}
    else:
        raise ConfigError(f"{where}: foreach is neither a list nor a mapping")
    log.warning("%s: %r is not one of its foreach items (%s): its parameters are those of the stage for %r",
                where, item, ", ".join(map(_as_text, values)), item)
    return {"key": item, "item": item}


def _key_text(value: Any, where: str) -> str:
    if isinstance(value, (Mapping, list, tuple)):
        raise ConfigError(f"{where}: a params key interpolates to a {type(value).__name__}, not a name")
    return _as_text(value)


def _param_keys(entries: Any, context: Mapping[str, Any], config: Mapping[str, Any], where: str) -> list[str]:
    """The ``params.yaml`` keys a ``params`` list names (keys of other parameter files are not the
    config: left out; a bare ``params.yaml:`` means all of it)."""
    keys: list[str] = []
    for entry in entries or []:
        if isinstance(entry, str):
            keys.append(_key_text(interpolate(entry, context, where=where), where))
        elif isinstance(entry, Mapping):
            for file, names in entry.items():
                if PurePosixPath(str(file)).name != "params.yaml":
                    continue
                if names is None:
                    keys.extend(str(k) for k in config)
                else:
                    keys.extend(_key_text(interpolate(str(n), context, where=where), where) for n in names)
        else:
            raise ConfigError(f"{where}: params entry {entry!r} is neither a key nor a file")
    return list(dict.fromkeys(keys))


def _stage_paths(entries: Any, context: Mapping[str, Any], base: Path, root: Path, where: str) -> list[str]:
    """Paths of a ``deps`` or ``outs`` list (an entry is a path or ``{path: options}``), relative to
    ``root`` (``base``: the stage's working directory)."""
    out: list[str] = []
    for entry in entries or []:
        raw = next(iter(entry)) if isinstance(entry, Mapping) and entry else entry
        text = _as_text(interpolate(str(raw), context, where=where))
        full = Path(os.path.normpath(base / text))
        try:
            out.append(full.relative_to(Path(os.path.normpath(root))).as_posix())
        except ValueError:
            out.append(full.as_posix())
    return out


def stage_spec(root: Path, stage: str, config: Mapping[str, Any]) -> StageSpec | None:
    """The definition of ``stage`` (``name`` or ``name@item``) in the DVC files of ``root``
    (:mod:`lingtest.dvcfiles`), interpolated with ``config`` (the resolved config the run reads, as
    plain dicts) and, for a ``foreach`` stage, the item's ``key`` and ``item``; None when no DVC file
    defines the stage."""
    import yaml

    from lingtest.dvcfiles import stage_files

    base_name, _, item = stage.partition("@")
    files = stage_files(root)
    if base_name not in files:
        return None
    path = files[base_name]
    where = f"{path}: stage {base_name}"
    definition = (yaml.safe_load(path.read_text(encoding="utf-8")) or {})["stages"][base_name]
    if not isinstance(definition, Mapping):
        raise ConfigError(f"{where}: not a mapping")
    context: dict[str, Any] = dict(config)
    body: Any = definition
    if "foreach" in definition:
        context.update(foreach_binding(definition["foreach"], config, item or None, where=where))
        body = definition.get("do") or {}
    if not isinstance(body, Mapping):
        raise ConfigError(f"{where}: do is not a mapping")
    workdir = path.parent / str(body.get("wdir") or ".")
    return StageSpec(name=stage, file=path,
                     params=tuple(_param_keys(body.get("params"), context, config, where)),
                     deps=tuple(_stage_paths(body.get("deps"), context, workdir, root, where)),
                     outs=tuple(_stage_paths(body.get("outs"), context, workdir, root, where)))


def leaf_params(config: Mapping[str, Any], keys: Iterable[str], *, where: str = "params") -> dict[str, str]:
    """The leaf values under ``keys`` of ``config``, flattened (:func:`flatten`): ``tin.filters`` ->
    ``{"tin.filters.weight_min": "0.6", ...}``; a list is one leaf (JSON). ConfigError for a key the config
    lacks (DVC refuses such a stage too)."""
    out: dict[str, str] = {}
    for key in keys:
        try:
            value = lookup(config, key)
        except KeyError:
            raise ConfigError(f"{where}: params key {key!r} is not in the config") from None
        if isinstance(value, Mapping) and value:
            out.update(flatten(value, key + "."))
        else:
            out.update(flatten({key: value}))
    return out


def suite_name(technique: str, path: str | Path) -> str:
    """``<technique>-<stem>``, or the technique alone when the stem is it (the naming of
    :func:`lingtest.release.suites.suite_name`)."""
    stem = PurePosixPath(str(path)).stem
    return technique if stem == technique else f"{technique}-{stem}"


def suite_files(config: Mapping[str, Any], root: Path) -> dict[str, str]:
    """Every suite file the config names (path relative to ``root`` -> suite name), as
    :func:`lingtest.release.suites.configured_suites` finds them: ``paths.<technique>.suite`` and
    ``.cases`` (JSONL), the ``*.jsonl`` in ``paths.<technique>.suites``, and the sources file of each
    technique whose release is its sources (``release.sources.<technique>.file``, named ``.name``)."""
    out: dict[str, str] = {}
    for technique, value in (config.get("paths") or {}).items():
        if not isinstance(value, Mapping):
            continue
        for field in ("suite", "cases"):
            rel = value.get(field)
            if rel and str(rel).endswith(".jsonl"):
                out[os.path.normpath(str(rel))] = suite_name(str(technique), str(rel))
        folder = value.get("suites")
        if folder and (root / str(folder)).is_dir():
            for p in sorted((root / str(folder)).glob("*.jsonl")):  # a folder outside root keeps its own path
                key = p.relative_to(root).as_posix() if p.is_relative_to(root) else p.as_posix()
                out[key] = suite_name(str(technique), p)
    for technique, entry in ((config.get("release") or {}).get("sources") or {}).items():
        if isinstance(entry, Mapping) and entry.get("file"):
            out[os.path.normpath(str(entry["file"]))] = str(entry.get("name") or technique)
    return out


def stage_suites(spec: StageSpec, config: Mapping[str, Any], root: Path) -> dict[Path, str]:
    """The suite files (under ``root``) that a stage writes (``outs``) or reads (``deps``: a suite file, or
    a folder holding suites) -> their names; those it writes first."""
    named = suite_files(config, root)
    out: dict[Path, str] = {}
    for entry in (*spec.outs, *spec.deps):
        for rel, name in named.items():
            if rel == entry or rel.startswith(entry.rstrip("/") + "/"):
                out.setdefault(root / rel, name)
    return out


def dvc_tags() -> dict[str, str]:
    """The DVC experiment a stage runs in (``dvc exp run`` sets these variables)."""
    out = {}
    for var, tag in (("DVC_EXP_NAME", "dvc_exp_name"), ("DVC_EXP_BASELINE_REV", "dvc_exp_baseline")):
        if os.environ.get(var):
            out[tag] = os.environ[var]
    return out




# ---------------------------------------------------------------------------------------------------
# the process behind a run (lingtest.processes): runs whose process is gone, runs told to stop


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


def base_tags(stage: str, env: Mapping[str, Any]) -> dict[str, Any]:
    """The tags every run carries: the git commit (and whether the working tree was dirty) of ``env``
    (:func:`lingtest.environment.describe`), the DVC stage and the DVC experiment."""
    commit, dirty = env["git"]["commit"], env["git"]["dirty"]
    return {"git_commit": commit, "git_dirty": dirty, "dvc_stage": stage, "mlflow.source.git.commit": commit,
            **dvc_tags()}


def final_environment(env: Mapping[str, Any]) -> dict[str, Any] | None:
    """``env`` with torch's runtime when the stage loaded torch (its threads, GPUs), else None."""
    if "torch" not in sys.modules:
        return None
    return {**env, "torch": torch_runtime(load=False)}


def resolve_tracking_uri(root: Path, uri: str | None = None) -> str:
    """The store a run goes to: ``uri``, else ``$MLFLOW_TRACKING_URI``, else the embedded store of
    :func:`default_tracking_uri`."""
    return uri or os.environ.get("MLFLOW_TRACKING_URI") or default_tracking_uri(root)


def _artifact_location(tracking_uri: str) -> str | None:
    """Where an embedded SQLite store keeps a new experiment's artifacts: ``artifacts/`` beside it."""
    if tracking_uri.startswith("sqlite:///"):
        return (Path(tracking_uri[len("sqlite:///"):]).parent / "artifacts").resolve().as_uri()
    return None


def mlflow_client(tracking_uri: str) -> Any:
    """An MLflow client of ``tracking_uri`` (an embedded store is created, or relocated when it was
    copied or moved: :func:`relocate_store`), with MLflow's and alembic's chatter at warnings."""
    import mlflow  # noqa: F401 - sets up MLflow's logging before the client
    from mlflow.tracking import MlflowClient

    logging.getLogger("mlflow").setLevel(logging.WARNING)
    logging.getLogger("alembic").setLevel(logging.WARNING)
    if tracking_uri.startswith("sqlite:///"):
        db = Path(tracking_uri[len("sqlite:///"):])
        db.parent.mkdir(parents=True, exist_ok=True)
        relocate_store(db)
    return MlflowClient(tracking_uri=tracking_uri)


def sync_runs(root: Path) -> SyncResult:
    """Import the runs that stages wrote to the journal of ``root``'s store (``tracking.deferred``)
    into MLflow: :func:`lingtest.journal.sync_journal`. Telemetry stays off."""
    with quiet_libraries(offline=True):
        return sync_journal(journal_dir(store_root(root)), mlflow_client)


@contextmanager
def tracked_run(stage: str, config: Mapping[str, Any], *, root: Path, uri: str | None = None,
                experiment: str = "lingtest", enabled: bool = True, technique: str | None = None,
                tags: Mapping[str, Any] | None = None, params: Mapping[str, Any] | None = None,
                deferred: bool = False) -> Iterator[Tracker]:
    """Open an MLflow run for one stage execution; logs ``params`` flattened (the stage's leaf parameters,
    :func:`leaf_params`; default: all of ``config``), tags it with the stage, the git commit, the DVC
    experiment and ``tags``, and writes the environment to the artifact ``environment.json`` (again at
    the end, with torch's runtime, when the stage loaded torch). The run goes to the experiment
    ``<experiment>/<technique>`` (one per technique) of the main workspace's store (:func:`store_root`).
    Telemetry is off while it is open (and hub requests when ``config['profile']['network']`` is not
    true). ``deferred``: the run is written to the store's journal (:mod:`lingtest.journal`) and
    imported into MLflow by :func:`sync_runs`, so that the stage does not import MLflow at all."""
    logged = config if params is None else params
    if not enabled:
        env = describe(root, load_torch=False)
        null = NullTracker()
        null.log_params(logged)
        null.set_tags({**base_tags(stage, env), **dict(tags or {})})
        null.log_dict(env, ENVIRONMENT_ARTIFACT)
        try:
            yield null
        finally:
            final = final_environment(env)
            if final is not None:
                null.log_dict(final, ENVIRONMENT_ARTIFACT)
        return
    with quiet_libraries(offline=not network_allowed(config)):
        tracking_uri = resolve_tracking_uri(root, uri)
        experiment = experiment_name(experiment, technique)
        if deferred:
            journal = JournalRun(journal_dir(store_root(root)), run_name=stage, experiment=experiment,
                                 tracking_uri=tracking_uri, artifact_location=_artifact_location(tracking_uri),
                                 process=this_process())
            journal.set_tags(_source_tags())
            tracker: MlflowTracker | JournalTracker = JournalTracker(journal)
            end: Callable[[str, str], None] = journal.end
        else:
            tracker, end = _open_mlflow_run(stage, experiment, tracking_uri)
        env = describe(root, load_torch=False)
        guard = RunGuard(end)
        guard.install()
        failure: BaseException | None = None
        try:
            tracker.set_tags({**base_tags(stage, env), **dict(tags or {})})
            tracker.log_params(logged)
            tracker.log_dict(env, ENVIRONMENT_ARTIFACT)
            yield tracker
        except BaseException as exc:
            failure = exc
            raise
        finally:
            guard.uninstall()
            try:
                final = final_environment(env) if guard.ended is None else None  # the stage loaded torch
                if final is not None:
                    tracker.log_dict(final, ENVIRONMENT_ARTIFACT)
            finally:
                status = end_status(failure)
                reason = "" if status == "FINISHED" else f"the stage raised {type(failure).__name__}"
                guard.end(status, reason, quiet=False)


def _source_tags() -> dict[str, str]:
    """The tags MLflow's default run context gives a live run: the user and the program."""
    import getpass

    try:
        user = getpass.getuser()
    except (ImportError, KeyError, OSError):
        user = "unknown"
    return {"mlflow.user": user, "mlflow.source.name": sys.argv[0] if sys.argv and sys.argv[0] else "<console>",
            "mlflow.source.type": "LOCAL"}


def _open_mlflow_run(stage: str, experiment: str, tracking_uri: str
                     ) -> tuple[MlflowTracker, Callable[[str, str], None]]:
    """Start a live MLflow run (marking KILLED the store's runs whose process is gone first); returns
    its tracker and the function that ends it with a status and a reason."""
    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
    client = mlflow_client(tracking_uri)
    import mlflow

    mlflow.set_tracking_uri(tracking_uri)
    me = this_process()
    mark_stale_runs_killed(client, me)
    mlflow.set_experiment(experiment_id=experiment_id(client, experiment, _artifact_location(tracking_uri)))
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

    return MlflowTracker(mlflow), end
