"""Where the time of a ``dvc repro`` goes: between stages and inside them.

Between stages (:func:`read_runs`, :func:`split_sessions`, :func:`stage_table`, :func:`technique_totals`): every
stage opens one MLflow run (:mod:`lingtest.tracking`) whose start and end times bound the stage body, and whose
tags name the DVC stage and the process (``lingtest.proc_start``: clock ticks since boot). The runs of one
``dvc repro`` in start order give, per stage, the wall seconds inside the run and the gap since the previous stage
ended; with the machine's boot time the gap splits into DVC's share (previous run ended -> this process started:
the previous process exiting, DVC hashing and locking) and the process start-up (process started -> run opened:
interpreter, imports, config, the tracking store).

Inside a stage (:func:`attribute`): samples of the main thread's call stack (py-spy's raw output,
:func:`pyspy_samples`) or a cProfile call graph spread over call paths (:func:`pstats_samples`) are put in
categories by :data:`CATEGORY_RULES`. A frame matching a rule decides the category of all the time below it; the
outermost deciding frame on a stack wins, except that a category of higher :data:`CATEGORY_PRECEDENCE` anywhere
on the stack beats it (a model loaded lazily inside a parser or a system's ``predict`` is model loading). Time no
rule claims is ``other``; samples without a Python frame (the interpreter starting or exiting) are
``interpreter``.
"""

from __future__ import annotations

import re
import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from lingtest.environment import cpu_simd_flags
from lingtest.errors import InputError
from lingtest.processes import CLOCK_TICKS

__all__ = ["CATEGORY_PRECEDENCE", "CATEGORY_RULES", "CLOCK_TICKS", "INTERPRETER", "OTHER", "Breakdown", "Frame", "Rule",
           "RunRecord", "StageRow", "attribute", "boot_time", "categorize", "cpu_simd_flags", "frame_from_path",
           "module_of_path", "parse_pyspy_line", "pstats_samples", "pyspy_samples", "read_runs",
           "read_time_report", "repro_log_stages", "rules_table", "split_sessions", "stage_table",
           "stage_techniques", "technique_totals"]

OTHER = "other"
#: samples with no Python frame on the main thread: the interpreter starting or exiting (native code only)
INTERPRETER = "interpreter"


# ---------------------------------------------------------------- run records


@dataclass(frozen=True)
class RunRecord:
    """One MLflow run of a stage: ``stage`` is its ``dvc_stage`` tag (else the run name), times in seconds
    since the epoch (``end`` None while it runs), ``tags`` the run's tags, ``metrics`` the latest value of
    each of its metrics (the wall-clock figures a stage times are there, not in its output files)."""

    stage: str
    status: str
    start: float
    end: float | None
    tags: Mapping[str, str] = field(default_factory=dict)
    metrics: Mapping[str, float] = field(default_factory=dict)


_FILE_STORE_STATUS = {1: "RUNNING", 2: "SCHEDULED", 3: "FINISHED", 4: "FAILED", 5: "KILLED"}


def read_runs(store: str | Path) -> list[RunRecord]:
    """The runs of an MLflow store, oldest first: ``store`` an embedded SQLite store (``mlflow.db``, or the
    ``mlruns/`` folder holding it, opened read-only) or a file store folder (``<experiment>/<run>/meta.yaml``).
    Deleted runs are left out."""
    p = Path(store)
    db = p / "mlflow.db" if p.is_dir() else p
    if db.is_file():
        return _sqlite_runs(db)
    if p.is_dir():
        return _file_store_runs(p)
    raise InputError("no MLflow store (neither mlflow.db nor a file store folder)", path=p)


def _sqlite_runs(db: Path) -> list[RunRecord]:
    try:
        con = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise InputError(f"cannot open the MLflow store: {exc}", path=db) from None
    try:
        rows = con.execute("SELECT run_uuid, name, status, start_time, end_time FROM runs "
                           "WHERE lifecycle_stage IS NULL OR lifecycle_stage != 'deleted'").fetchall()
        tags: dict[str, dict[str, str]] = defaultdict(dict)
        for run, key, value in con.execute("SELECT run_uuid, key, value FROM tags"):
            tags[run][key] = value
        metrics = _sqlite_metrics(con)
    except sqlite3.Error as exc:
        raise InputError(f"not an MLflow store: {exc}", path=db) from None
    finally:
        con.close()
    out = [_record(name, status, start, end, tags.get(run, {}), metrics.get(run, {}))
           for run, name, status, start, end in rows if start is not None]
    return sorted(out, key=lambda r: r.start)


def _sqlite_metrics(con: sqlite3.Connection) -> dict[str, dict[str, float]]:
    """run -> metric -> latest value (a store without MLflow's ``latest_metrics`` table has none)."""
    metrics: dict[str, dict[str, float]] = defaultdict(dict)
    try:
        rows = con.execute("SELECT run_uuid, key, value FROM latest_metrics").fetchall()
    except sqlite3.OperationalError:
        return metrics
    for run, key, value in rows:
        if value is not None:
            metrics[run][key] = float(value)
    return metrics


def _file_store_runs(root: Path) -> list[RunRecord]:
    import yaml

    out = []
    for meta in sorted(root.glob("*/*/meta.yaml")):
        data = yaml.safe_load(meta.read_text(encoding="utf-8")) or {}
        if not isinstance(data, dict) or "start_time" not in data or data.get("lifecycle_stage") == "deleted":
            continue
        tag_dir = meta.parent / "tags"
        tags = {f.name: f.read_text(encoding="utf-8").strip() for f in tag_dir.iterdir()} if tag_dir.is_dir() else {}
        status = data.get("status")
        status = _FILE_STORE_STATUS.get(status, str(status)) if isinstance(status, int) else str(status)
        out.append(_record(data.get("run_name") or data.get("name") or "", status, data.get("start_time"),
                           data.get("end_time"), tags, _file_store_metrics(meta.parent / "metrics")))
    return sorted(out, key=lambda r: r.start)


def _file_store_metrics(folder: Path) -> dict[str, float]:
    """The last value of each metric of a file-store run (``metrics/<key>``: lines ``timestamp value step``;
    nested keys are folders)."""
    out: dict[str, float] = {}
    if not folder.is_dir():
        return out
    for f in sorted(p for p in folder.rglob("*") if p.is_file()):
        lines = f.read_text(encoding="utf-8").splitlines()
        try:
            out[f.relative_to(folder).as_posix()] = float(lines[-1].split()[1])
        except (ValueError, IndexError):  # an empty or damaged metric file: no value
            continue
    return out


def _record(name: str, status: str, start_ms: Any, end_ms: Any, tags: Mapping[str, str],
            metrics: Mapping[str, float] | None = None) -> RunRecord:
    stage = tags.get("dvc_stage") or tags.get("mlflow.runName") or name or "?"
    return RunRecord(stage, str(status), float(start_ms) / 1000, float(end_ms) / 1000 if end_ms else None,
                     dict(tags), dict(metrics or {}))


def split_sessions(runs: Sequence[RunRecord], max_gap_s: float = 300.0) -> list[list[RunRecord]]:
    """The runs grouped into ``dvc repro`` invocations: a new one starts where a stage repeats (DVC runs a
    stage once per invocation) or where more than ``max_gap_s`` passed since the previous run ended."""
    sessions: list[list[RunRecord]] = []
    seen: set[str] = set()
    last_end: float | None = None
    for run in sorted(runs, key=lambda r: r.start):
        gap = run.start - last_end if last_end is not None else 0.0
        if not sessions or run.stage in seen or gap > max_gap_s:
            sessions.append([])
            seen = set()
        sessions[-1].append(run)
        seen.add(run.stage)
        end = run.end if run.end is not None else run.start
        last_end = end if last_end is None else max(last_end, end)
    return sessions


@dataclass(frozen=True)
class StageRow:
    """One stage of a ``dvc repro``: seconds inside its tracked run and the gap since the previous stage ended
    (None for the first), the gap split into DVC's share and the process start-up when the process start is
    known (None otherwise)."""

    stage: str
    technique: str
    status: str
    start: float
    end: float | None
    wall_s: float | None
    gap_before_s: float | None
    dvc_s: float | None
    startup_s: float | None
    timed: Mapping[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"stage": self.stage, "technique": self.technique, "status": self.status,
               "start": _iso(self.start), "end": _iso(self.end), "wall_s": _round(self.wall_s),
               "gap_before_s": _round(self.gap_before_s), "dvc_s": _round(self.dvc_s),
               "startup_s": _round(self.startup_s)}
        if self.timed:
            out["timed"] = {k: _round(v) for k, v in sorted(self.timed.items())}
        if self.cores_busy is not None:
            out["cores_busy"] = round(self.cores_busy, 2)
        return out

    @property
    def cores_busy(self) -> float | None:
        """The stage's CPU seconds (``stage_cpu_seconds``) over its body's wall seconds (``stage_seconds``);
        None when the run logged no CPU seconds."""
        cpu, body = self.timed.get("stage_cpu_seconds"), self.timed.get("stage_seconds")
        return cpu / body if cpu is not None and body else None


def timed_metrics(metrics: Mapping[str, float]) -> dict[str, float]:
    """The wall-clock figures among a run's metrics (a dotted name with a wall-clock word in one of its parts,
    :func:`lingtest.metrics.wall_clock.is_wall_clock`): ``crest.seconds``,
    ``tin.x.generation.seconds_by_step.token``."""
    from lingtest.metrics.wall_clock import is_wall_clock

    return {k: v for k, v in metrics.items() if any(is_wall_clock(part) for part in k.split("."))}


def _iso(t: float | None) -> str | None:
    return None if t is None else datetime.fromtimestamp(t, UTC).isoformat(timespec="milliseconds")


def _round(x: float | None, nd: int = 3) -> float | None:
    return None if x is None else round(x, nd)


def boot_time() -> float | None:
    """When this machine booted, in seconds since the epoch (now minus ``/proc/uptime``); None off Linux."""
    import time

    try:
        up = float(Path("/proc/uptime").read_text(encoding="ascii").split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return time.time() - up


def _process_start(run: RunRecord, boot: float | None, host: str | None) -> float | None:
    ticks = run.tags.get("lingtest.proc_start", "")
    if boot is None or not ticks.isdigit() or (host is not None and run.tags.get("lingtest.host") not in (host,)):
        return None
    return boot + int(ticks) / CLOCK_TICKS


def stage_table(session: Sequence[RunRecord], techniques: Mapping[str, str] | None = None, *,
                boot: float | None = None, host: str | None = None, slack_s: float = 1.0) -> list[StageRow]:
    """Per stage of one ``dvc repro`` (its runs in start order): wall seconds, gap before, and, when ``boot``
    (the boot time of the machine that ran it, :func:`boot_time`) is given and a run's ``lingtest.host`` tag is
    ``host`` (any host when None), the gap split at the process start. A split that does not fit (the process
    would start before the previous stage ended or after its own run opened, by more than ``slack_s``: records
    from an earlier boot) is left out. ``techniques``: stage name without ``@item`` -> technique (default: the
    run's ``technique`` tag)."""
    rows = []
    prev_end: float | None = None
    for run in sorted(session, key=lambda r: r.start):
        base = run.stage.split("@", 1)[0]
        technique = (techniques or {}).get(base) or run.tags.get("technique") or "unknown"
        gap = run.start - prev_end if prev_end is not None else None
        proc = _process_start(run, boot, host)
        dvc_s = startup = None
        fits = proc is not None and -slack_s <= run.start - proc <= 3600
        if proc is not None and fits and (prev_end is None or proc >= prev_end - slack_s):
            startup = max(0.0, run.start - proc)
            dvc_s = max(0.0, proc - prev_end) if prev_end is not None else None
        wall = run.end - run.start if run.end is not None else None
        rows.append(StageRow(run.stage, technique, run.status, run.start, run.end, wall, gap, dvc_s, startup,
                             timed_metrics(run.metrics)))
        prev_end = run.end if run.end is not None else prev_end
    return rows


def technique_totals(rows: Sequence[StageRow]) -> dict[str, dict[str, Any]]:
    """Per technique (and ``"all"``): stages, seconds inside them, seconds in the gaps before them (and their
    DVC and start-up shares where known), and the sum."""
    out: dict[str, dict[str, Any]] = {}
    for key, group in [*_group(rows).items(), ("all", list(rows))]:
        wall = sum(r.wall_s or 0.0 for r in group)
        gap = sum(r.gap_before_s or 0.0 for r in group)
        out[key] = {"stages": len(group), "wall_s": round(wall, 3), "gap_s": round(gap, 3),
                    "dvc_s": _sum_known([r.dvc_s for r in group]),
                    "startup_s": _sum_known([r.startup_s for r in group]), "total_s": round(wall + gap, 3)}
    return out


def cpu_use(rows: Sequence[StageRow], cores: int) -> dict[str, Any] | None:
    """How busy the stages kept a machine of ``cores`` CPUs, from the CPU seconds each stage logged
    (``stage_cpu_seconds`` over its body's ``stage_seconds``; None when no stage logged them): the
    totals, the cores kept busy overall, the body seconds of stages by cores kept busy (under 1.25, 1.25 to
    1.75, 1.75 and more), the core seconds left idle inside the stages (``cores`` x body - CPU), and so the
    most wall seconds any overlap of stages could save (idle core seconds over ``cores``: every idle core
    filled with other stages' work, nothing slowed by sharing)."""
    timed = [r for r in rows if r.cores_busy is not None]
    if not timed:
        return None
    body = sum(r.timed["stage_seconds"] for r in timed)
    cpu = sum(r.timed["stage_cpu_seconds"] for r in timed)
    bands = {"under_1.25": 0.0, "1.25_to_1.75": 0.0, "1.75_and_over": 0.0}
    for r in timed:
        busy = r.cores_busy or 0.0
        bands["under_1.25" if busy < 1.25 else "1.25_to_1.75" if busy < 1.75 else "1.75_and_over"] += \
            r.timed["stage_seconds"]
    return {"stages": len(timed), "cores": cores, "body_s": round(body, 3), "cpu_s": round(cpu, 3),
            "cores_busy": round(cpu / body, 2), "body_s_by_cores_busy": {k: round(v, 3) for k, v in bands.items()},
            "idle_core_s": round(max(0.0, cores * body - cpu), 3),
            "most_saved_by_overlap_s": round(max(0.0, cores * body - cpu) / cores, 3)}


def _group(rows: Sequence[StageRow]) -> dict[str, list[StageRow]]:
    groups: dict[str, list[StageRow]] = defaultdict(list)
    for r in rows:
        groups[r.technique].append(r)
    return dict(sorted(groups.items()))


def _sum_known(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return round(sum(known), 3) if known else None


def stage_techniques(workspace: Path) -> dict[str, str]:
    """Stage name (without ``@item``) -> technique: ``stages/<technique>/dvc.yaml`` defines a technique's
    stages, the root ``dvc.yaml`` the shared data stages (``pipeline``)."""
    from lingtest.dvcfiles import stage_files

    out = {}
    for name, path in stage_files(workspace).items():
        out[name] = path.parent.name if path.parent.parent.name == "stages" else "pipeline"
    return out


_RUNNING = re.compile(r"^Running stage '([^']+)'")
_SKIPPED = re.compile(r"^Stage '([^']+)' didn't change, skipping")
_ELAPSED = re.compile(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):(\d+(?:\.\d+)?)")
_EXIT = re.compile(r"^\s*Exit status: (\d+)")


def repro_log_stages(text: str) -> dict[str, list[str]]:
    """The stages a ``dvc repro`` log says it ran (``Running stage 'X'``, in order) and skipped."""
    ran, skipped = [], []
    for line in text.splitlines():
        if m := _RUNNING.match(line):
            ran.append(m.group(1))
        elif m := _SKIPPED.match(line):
            skipped.append(m.group(1))
    return {"ran": ran, "skipped": skipped}


def read_time_report(text: str) -> dict[str, float | int] | None:
    """Wall seconds and exit status from GNU ``/usr/bin/time -v`` output at the end of a log; None without it."""
    m = _ELAPSED.search(text)
    if m is None:
        return None
    hours, minutes, seconds = int(m.group(1) or 0), int(m.group(2)), float(m.group(3))
    out: dict[str, float | int] = {"wall_s": hours * 3600 + minutes * 60 + seconds}
    for line in text.splitlines():
        if e := _EXIT.match(line):
            out["exit_status"] = int(e.group(1))
    return out


# ---------------------------------------------------------------- categories inside a stage


@dataclass(frozen=True)
class Frame:
    """One frame of a call stack: the dotted module its code lives in and the function (``Class.method``
    where the profiler knows the class; cProfile gives the bare name)."""

    module: str
    function: str

    @property
    def key(self) -> str:
        return f"{self.module}:{self.function}"


@dataclass(frozen=True)
class Rule:
    """Frames of a module matching ``module`` (a shell pattern on the dotted name) whose function matches
    ``function`` belong to ``category``. A bare function name (cProfile's) is matched against the pattern's part
    after its last dot."""

    category: str
    module: str
    function: str = "*"
    why: str = ""

    def matches(self, frame: Frame) -> bool:
        if not fnmatchcase(frame.module, self.module):
            return False
        if fnmatchcase(frame.function, self.function):
            return True
        return "." not in frame.function and fnmatchcase(frame.function, self.function.rsplit(".", 1)[-1])


#: categories that beat an outer category on the same stack (higher wins); the rest are 0
CATEGORY_PRECEDENCE: Mapping[str, int] = {"model_load": 1}

#: the one table that sorts a stage's time; the first rule of the highest precedence that matches a frame decides it
CATEGORY_RULES: tuple[Rule, ...] = (
    # model loading: weights, tokenizers and pipelines read into memory (wins wherever it is on the stack)
    Rule("model_load", "transformers*", "*from_pretrained", "Hugging Face models and tokenizers"),
    Rule("model_load", "sentence_transformers*", "SentenceTransformer.__init__", "sentence embedders"),
    Rule("model_load", "spacy", "load", "spacy.load"),
    Rule("model_load", "spacy.util", "load_model*", "spaCy pipelines by name or path"),
    Rule("model_load", "torch.serialization", "load", "torch.load"),
    Rule("model_load", "safetensors*", "load*", "safetensors weights"),
    Rule("model_load", "gguf*", "*", "GGUF files"),
    Rule("model_load", "stanza*", "Pipeline.__init__", "stanza pipelines"),
    Rule("model_load", "lingtest.resources.*", "*.__init__", "resource scorers and embedders load in __init__"),
    Rule("model_load", "lingtest.resources.*", "*from_config", "resources built from the config"),
    Rule("model_load", "lingtest.resources.*", "load*", "resource loaders (WordNet, checkpoints, ...)"),
    Rule("model_load", "lingtest.resources.*", "ensure_*", "resources installed on first use"),
    Rule("model_load", "lingtest.resources.models", "*", "the offline LM's conversion and paths"),
    Rule("model_load", "lingtest.parsing*", "load_*", "spaCy models of the parsers"),
    Rule("model_load", "lingtest.parsing*", "*Parser.__init__", "parsers load their model when built"),
    Rule("model_load", "lingtest.parsing*", "build_parser", "the configured parser"),
    Rule("model_load", "lingtest.parsing*", "get_parser", "parser registry"),
    Rule("model_load", "lingtest.systems.*", "load_*", "system checkpoints"),
    Rule("model_load", "lingtest.systems.*", "*._load*", "systems that load lazily"),
    # parsing: running a parser over text
    Rule("parsing", "spacy.language", "Language.__call__", "spaCy on one text"),
    Rule("parsing", "spacy.language", "Language.pipe", "spaCy on a stream"),
    Rule("parsing", "stanza*", "Pipeline.__call__", "stanza"),
    Rule("parsing", "lingtest.parsing*", "*", "lingtest's parsers, their cache and tree conversion"),
    # LM scoring: language-model log-probabilities and masked-LM proposals
    Rule("lm_scoring", "lingtest.resources.lm", "*", "CausalLMScorer / MaskedLMScorer"),
    Rule("lm_scoring", "lingtest.resources.lm_head", "*", "the LM head's log-softmax"),
    Rule("lm_scoring", "lingtest.resources.lm_packing", "*", "packed scoring batches"),
    Rule("lm_scoring", "lingtest.resources.fill", "*.propose*", "masked-LM fill proposals"),
    Rule("lm_scoring", "lingtest.resources.candidates.masked_lm", "*", "masked-LM candidates"),
    # embeddings: sentence and span vectors
    Rule("embedding", "lingtest.resources.embeddings", "*", "sentence-transformer encoding and similarity"),
    Rule("embedding", "lingtest.resources.candidates.vectors", "*", "word-vector neighbours"),
    # system inference: the systems under test
    Rule("inference", "lingtest.systems.*", "*predict*", "a system's predict and its batch helpers"),
    # I/O: reading and writing data
    Rule("io", "lingtest.readers*", "*", "dataset readers"),
    Rule("io", "lingtest.data.io", "*", "JSONL/JSON reads and writes"),
    Rule("io", "lingtest.store", "*", "SQLite caches"),
    Rule("io", "json", "load*", "json"),
    Rule("io", "json", "dump*", "json"),
    Rule("io", "pyarrow*", "*", "Arrow/Parquet"),
    Rule("io", "pandas.io*", "*", "pandas readers and writers"),
    Rule("io", "shutil", "copy*", "file copies"),
    # tracking: MLflow and the environment record
    Rule("tracking", "mlflow*", "*", "MLflow client and store"),
    Rule("tracking", "lingtest.tracking", "*", "the stage's MLflow run"),
    Rule("tracking", "lingtest.environment", "*", "package versions, git state"),
    # config: composing and validating params
    Rule("config", "lingtest.config", "*", "params.yaml and its validation"),
    Rule("config", "omegaconf*", "*", "OmegaConf"),
    # shutdown: the interpreter's exit (worker pools joined, finalizers)
    Rule("shutdown", "threading", "_shutdown", "non-daemon threads and process pools joined at exit"),
    Rule("shutdown", "weakref", "finalize._exitfunc", "finalizers run at exit"),
    Rule("shutdown", "atexit*", "*", "atexit handlers"),
    # imports: modules imported at the top level (imports inside another category stay there)
    Rule("imports", "importlib._bootstrap", "_find_and_load", "module import"),
    Rule("imports", "importlib", "import_module", "module import by name"),
)


def rules_table(rules: Sequence[Rule] = CATEGORY_RULES,
                precedence: Mapping[str, int] = CATEGORY_PRECEDENCE) -> list[dict[str, Any]]:
    """The rules as JSON-able rows, in the order they are tried."""
    return [{"category": r.category, "module": r.module, "function": r.function, "why": r.why,
             "precedence": precedence.get(r.category, 0)} for r in rules]


class _Matcher:
    """Memoised frame -> (category, precedence) under a rule table."""

    def __init__(self, rules: Sequence[Rule], precedence: Mapping[str, int]) -> None:
        self.rules = sorted(rules, key=lambda r: -precedence.get(r.category, 0))  # stable: table order kept
        self.precedence = precedence
        self.memo: dict[Frame, tuple[str, int] | None] = {}

    def __call__(self, frame: Frame) -> tuple[str, int] | None:
        if frame not in self.memo:
            rule = next((r for r in self.rules if r.matches(frame)), None)
            self.memo[frame] = None if rule is None else (rule.category, self.precedence.get(rule.category, 0))
        return self.memo[frame]


def categorize(stack: Sequence[Frame], rules: Sequence[Rule] = CATEGORY_RULES,
               precedence: Mapping[str, int] = CATEGORY_PRECEDENCE) -> tuple[str, Frame | None]:
    """The category of a stack (outermost frame first) and the frame that decided it (None: ``other``)."""
    return _decide(stack, _Matcher(rules, precedence))[:2]


def _decide(stack: Sequence[Frame], match: _Matcher) -> tuple[str, Frame | None, str | None]:
    """(category, deciding frame, innermost category on the stack)."""
    best: tuple[str, int] | None = None
    decider: Frame | None = None
    inner: str | None = None
    for frame in stack:
        got = match(frame)
        if got is None:
            continue
        inner = got[0]
        if best is None or got[1] > best[1]:
            best, decider = got, frame
    return (best[0] if best else OTHER), decider, inner


@dataclass
class Breakdown:
    """Seconds per category; ``top``: category -> deciding frame (``module:function``) -> seconds (for
    ``other``, the innermost lingtest frame); ``nested``: category -> innermost category on the same stacks ->
    seconds (e.g. LM scoring inside a system's ``predict``). :meth:`as_dict` gives each category's seconds, share,
    its ``top_n`` deciding frames as ``[frame, seconds]`` pairs, slowest first, and the other categories nested
    in it."""

    seconds: dict[str, float] = field(default_factory=dict)
    top: dict[str, dict[str, float]] = field(default_factory=dict)
    nested: dict[str, dict[str, float]] = field(default_factory=dict)

    @property
    def total(self) -> float:
        return sum(self.seconds.values())

    def as_dict(self, top_n: int = 8) -> dict[str, Any]:
        total = self.total or 1.0
        order = sorted(self.seconds, key=lambda c: -self.seconds[c])
        return {
            "total_s": round(self.total, 3),
            "categories": {c: {"seconds": round(self.seconds[c], 3), "share": round(self.seconds[c] / total, 4),
                               "top": [[k, round(v, 3)] for k, v in
                                       sorted(self.top.get(c, {}).items(), key=lambda kv: -kv[1])[:top_n]],
                               "nested": {k: round(v, 3) for k, v in
                                          sorted(self.nested.get(c, {}).items(), key=lambda kv: -kv[1])
                                          if k != c}}
                           for c in order},
        }


def attribute(samples: Iterable[tuple[Sequence[Frame], float]], rules: Sequence[Rule] = CATEGORY_RULES,
              precedence: Mapping[str, int] = CATEGORY_PRECEDENCE) -> Breakdown:
    """Sum weighted stacks (outermost frame first, seconds) into categories (module docstring)."""
    match = _Matcher(rules, precedence)
    seconds: dict[str, float] = defaultdict(float)
    top: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    nested: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for stack, secs in samples:
        if secs <= 0:
            continue
        if not stack:
            seconds[INTERPRETER] += secs
            top[INTERPRETER]["(no Python frame)"] += secs
            nested[INTERPRETER][INTERPRETER] += secs
            continue
        category, decider, inner = _decide(stack, match)
        seconds[category] += secs
        if decider is None:
            decider = next((f for f in reversed(stack) if f.module.startswith("lingtest.")), None)
        top[category][decider.key if decider else "(no lingtest frame)"] += secs
        nested[category][inner or OTHER] += secs
    return Breakdown(dict(seconds), {k: dict(v) for k, v in top.items()}, {k: dict(v) for k, v in nested.items()})


# ---------------------------------------------------------------- profiler outputs


_PACKAGE_ROOTS = ("site-packages", "dist-packages", "src")
_STDLIB = re.compile(r"/lib/python\d+\.\d+/")


def module_of_path(path: str) -> str:
    """The dotted module of a source file as profilers print it: ``<frozen importlib._bootstrap>`` ->
    ``importlib._bootstrap``; ``.../site-packages/spacy/language.py`` -> ``spacy.language``; a path relative to
    ``sys.path`` (py-spy's) -> its dots; ``__init__`` dropped."""
    if path.startswith("<frozen ") and path.endswith(">"):
        return path[len("<frozen "):-1]
    if path.startswith("<"):
        return path
    parts = path.replace("\\", "/").split("/")
    cut = max((i for i, p in enumerate(parts) if p in _PACKAGE_ROOTS), default=-1)
    if cut < 0 and (m := _STDLIB.search(path.replace("\\", "/"))):
        parts = path.replace("\\", "/")[m.end():].split("/")
    else:
        parts = parts[cut + 1:]
    parts = [p for p in parts if p]
    if not parts:
        return path
    parts[-1] = re.sub(r"\.(py|pyx|pyi)$", "", parts[-1])
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def frame_from_path(path: str, function: str) -> Frame:
    return Frame(module_of_path(path), function)


_PYSPY_FRAME = re.compile(r"^(?P<func>.*) \((?P<file>[^()]*?)(?::(?P<line>\d+))?\)$")
_PYSPY_THREAD = re.compile(r"^thread \((?P<tid>0x[0-9a-fA-F]+|\d+)\)(?::\s*(?P<name>.*))?$")


def parse_pyspy_line(line: str) -> tuple[str | None, str | None, list[Frame], int] | None:
    """One line of ``py-spy record --format raw --threads``: (thread id, thread name, frames outermost first,
    sample count); None for a blank line. Raises :class:`InputError` on a line that is not one."""
    line = line.rstrip("\n")
    if not line.strip():
        return None
    body, _, count = line.rpartition(" ")
    if not body or not count.isdigit():
        raise InputError(f"not a py-spy raw line (no sample count): {line[:80]!r}")
    tid = name = None
    frames = []
    for part in body.split(";"):
        if part.startswith("process "):
            continue
        if t := _PYSPY_THREAD.match(part):
            tid, name = t.group("tid"), t.group("name")
            continue
        m = _PYSPY_FRAME.match(part)
        frames.append(frame_from_path(m.group("file"), m.group("func")) if m else Frame("?", part))
    return tid, name, frames, int(count)


def pyspy_samples(text: str, *, interval_s: float, thread: str | None = None
                  ) -> list[tuple[Sequence[Frame], float]]:
    """Weighted stacks of one thread from ``py-spy record --format raw --threads --idle`` output: ``thread``
    an id, default the main thread (the one named ``MainThread``, else the lowest id: a process's first thread
    has its pid). Each sample weighs ``interval_s`` (1 / the sampling rate)."""
    parsed = [p for p in (parse_pyspy_line(line) for line in text.splitlines()) if p is not None]
    if thread is None:
        named = [p[0] for p in parsed if p[1] == "MainThread" and p[0] is not None]
        ids = sorted({p[0] for p in parsed if p[0] is not None}, key=lambda t: int(t, 0))
        thread = named[0] if named else (ids[0] if ids else None)
    return [(frames, count * interval_s) for tid, _, frames, count in parsed if thread is None or tid == thread]


PStatsKey = tuple[str, int, str]


def _pstats_frame(key: PStatsKey) -> Frame:
    path, _, name = key
    if path == "~":  # a built-in: "<built-in method time.sleep>", "<method 'read' of '_io.X' objects>"
        if m := re.match(r"<built-in method ([\w.]+)\.(\w+)>", name):
            return Frame(m.group(1), m.group(2))
        if m := re.match(r"<method '(\w+)' of '([\w.]+)\.(\w+)' objects>", name):
            return Frame(m.group(2), f"{m.group(3)}.{m.group(1)}")
        return Frame("builtins", name)
    return frame_from_path(path, name)


def pstats_samples(stats: Mapping[PStatsKey, Sequence[Any]], *, min_seconds: float = 1e-3
                   ) -> Iterator[tuple[tuple[Frame, ...], float]]:
    """Weighted stacks from a cProfile call graph (``pstats.Stats(file).stats``: function -> (calls, primitive
    calls, own seconds, inclusive seconds, callers -> (..., inclusive seconds of the calls from that caller))).

    cProfile keeps one level of callers, not whole stacks, so this spreads each function's time over the paths
    that reach it in proportion to its callers' shares (gprof's assumption): a function reached by several
    paths gets their shares as if each call cost the same. Paths are followed from the functions nobody called;
    a recursive call (already on the path) is not followed again, and a path worth less than ``min_seconds``
    keeps all its time at its last frame. Every second of the roots' inclusive time lands on exactly one stack.
    """
    callees: dict[PStatsKey, list[tuple[PStatsKey, float]]] = defaultdict(list)
    for callee, entry in stats.items():
        for caller, edge in (entry[4] or {}).items():
            callees[caller].append((callee, float(edge[3])))
    roots = [k for k, entry in stats.items() if not set(entry[4] or ()) - {k}]  # called by nobody (but itself)
    frames: dict[PStatsKey, Frame] = {}

    def frame(k: PStatsKey) -> Frame:
        if k not in frames:
            frames[k] = _pstats_frame(k)
        return frames[k]

    work: list[tuple[PStatsKey, float, tuple[Frame, ...], frozenset[PStatsKey]]] = [
        (r, float(stats[r][3]), (frame(r),), frozenset((r,))) for r in roots]
    while work:
        key, secs, stack, on_path = work.pop()
        inclusive = float(stats[key][3])
        if secs < min_seconds or inclusive <= 0:
            yield stack, secs
            continue
        children = [(g, secs * edge / inclusive) for g, edge in callees.get(key, ()) if g not in on_path and edge > 0]
        spent = sum(t for _, t in children)
        if spent > secs:  # recursion can make the edges add up to more than the caller's inclusive time
            children = [(g, t * secs / spent) for g, t in children]
            spent = secs
        yield stack, secs - spent
        for g, t in children:
            work.append((g, t, (*stack, frame(g)), on_path | {g}))
