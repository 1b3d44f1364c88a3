"""Where the time of a ``dvc repro`` goes: per stage from a finished run's MLflow records, and inside a few stages
by profiling their bodies in a throwaway copy of the workspace.

    .venv/bin/python bench/bench_profile.py --workspace DIR [--mlruns DIR/mlruns] [--log repro.log]
        [--session -1] [--cold] [--note TEXT] [--stage NAME[@ITEM] ...] [--profiler auto|py-spy|cprofile]
        [--rate 100] [--out bench/results/profile_<x>.json]

Between stages (:mod:`lingtest.profiling`; runs still in the workspace's journal, ``tracking.deferred``, are
imported into its store first): the runs of one ``dvc repro`` (``--session``, alias ``--repro``: which
one, by default the last, when the store holds several) give per stage its wall seconds inside the tracked run and
the gap since the previous stage ended, split into DVC's share and the process start-up where the run recorded its
process (same boot of this machine); totals per technique (``stages/<technique>/dvc.yaml``) and for the whole run.
``--log`` (the ``dvc repro`` output, optionally with GNU ``/usr/bin/time -v`` at its end) adds the stages DVC says it
ran and skipped, the invocation's wall seconds and whether it ended.

Inside a stage (``--stage``, a few at most: each runs the stage's body once): the stage's command
(``python -m lingtest.pipeline.stage NAME [ITEM]``) runs in a copy under ``/tmp`` holding the workspace's code,
config and the stage's dependencies from its ``dvc.lock`` (nothing is written into the workspace), with an empty
``$LINGTEST_CACHE`` except the converted models (``--models-cache``; what ``convert_lm`` leaves there in a
from-scratch run), sampled by py-spy (``--rate`` per second, main thread, idle time included: wall time) or, where
py-spy is not installed, under cProfile. The samples are sorted into :data:`lingtest.profiling.CATEGORY_RULES`'s
categories. ``--profiles-from`` takes them from an earlier result instead (one profile of a stage serves several
record tables), sorted again under today's rules where the profile file is still there (``--keep`` keeps it).

Whether caches were cold is the user's word (``--cold``, ``--warm``; null when neither is given); on a shared
machine the figures depend on the load of other jobs (``--note``; the load average at the start and end is
recorded).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lingtest.profiling import Breakdown, Frame

ROOT = Path(__file__).resolve().parents[1]
#: what a stage needs of a workspace besides its dependencies: the code and the config
CODE_PATHS = ("src", "conf", "hydra_plugins", "dvc.yaml", "dvc.lock", "params.yaml", "pyproject.toml")


def machine() -> dict[str, Any]:
    """The CPU (model, SIMD flags, cores), Python and the load average now."""
    from lingtest.environment import cpu_model, usable_cpus
    from lingtest.profiling import cpu_simd_flags

    return {"python": platform.python_version(), "cpu": cpu_model(), "simd": cpu_simd_flags(),
            "cores": os.cpu_count(), "usable_cpus": usable_cpus(), "host": socket.gethostname(),
            "load_average_1_5_15": [round(x, 2) for x in os.getloadavg()]}


# ---------------------------------------------------------------- records


def records(workspace: Path, mlruns: Path, *, session: int, max_gap_s: float, log: Path | None) -> dict[str, Any]:
    """The stage table, technique totals and run totals of one ``dvc repro`` from its MLflow records."""
    from lingtest.environment import usable_cpus
    from lingtest.errors import InputError
    from lingtest.journal import journal_dir, pending_records
    from lingtest.profiling import (
        boot_time,
        cpu_use,
        read_runs,
        read_time_report,
        repro_log_stages,
        split_sessions,
        stage_table,
        stage_techniques,
        technique_totals,
    )
    from lingtest.tracking import sync_runs

    if pending_records(journal_dir(workspace)):  # runs of deferred tracking: into the store first
        print(f"runs journal: {sync_runs(workspace).summary()}", file=sys.stderr)
    sessions = split_sessions(read_runs(mlruns), max_gap_s=max_gap_s)
    if not sessions:
        raise InputError("no runs in the MLflow store", path=mlruns)
    try:
        chosen = sessions[session]
    except IndexError:
        raise InputError(f"--session {session}: the store holds {len(sessions)} dvc repro runs",
                         path=mlruns) from None
    rows = stage_table(chosen, stage_techniques(workspace), boot=boot_time(), host=socket.gethostname())
    ended = [r.end for r in rows if r.end is not None]
    out: dict[str, Any] = {
        "source": {"workspace": str(workspace), "mlruns": str(mlruns), "session": session,
                   "sessions_in_store": len(sessions), "stages_recorded": len(rows),
                   "running_or_unfinished": [r.stage for r in rows if r.end is None]},
        "stages": [r.as_dict() for r in rows],
        "techniques": technique_totals(rows),
    }
    span = (max(ended) - rows[0].start) if ended else None
    totals = out["techniques"]["all"]
    out["totals"] = {"first_start": rows[0].as_dict()["start"], "last_end": rows[-1].as_dict()["end"],
                     "span_s": round(span, 3) if span is not None else None,
                     "in_stages_s": totals["wall_s"], "between_stages_s": totals["gap_s"],
                     "dvc_s": totals["dvc_s"], "startup_s": totals["startup_s"]}
    use = cpu_use(rows, usable_cpus())
    if use is not None:
        if span:
            use["most_saved_share_of_span"] = round(use["most_saved_by_overlap_s"] / span, 3)
        out["cpu_use"] = use
    if log is not None:
        text = log.read_text(encoding="utf-8", errors="replace")
        said = repro_log_stages(text)
        recorded = {r.stage for r in rows}
        out["log"] = {"path": str(log), "ran": len(said["ran"]), "skipped": len(said["skipped"]),
                      # DVC names a stage of stages/<t>/dvc.yaml "stages/<t>/dvc.yaml:<name>", MLflow by its name
                      "ran_without_record": [s for s in said["ran"] if s.rpartition(":")[2] not in recorded],
                      "last_ran": said["ran"][-1] if said["ran"] else None,
                      "time_report": read_time_report(text)}
        report = out["log"]["time_report"]
        if report is not None and span is not None:
            # DVC's own time outside every stage run: before the first stage and after the last one
            out["totals"]["repro_wall_s"] = round(float(report["wall_s"]), 3)
            out["totals"]["outside_stages_s"] = round(float(report["wall_s"]) - span, 3)
    return out


# ---------------------------------------------------------------- profiling one stage


def dependencies(workspace: Path, stage: str) -> list[str]:
    """The paths of ``stage``'s dependencies in the workspace's ``dvc.lock`` files, code left out."""
    from lingtest.dvcfiles import read_locks
    from lingtest.errors import InputError

    entry = read_locks(workspace).get(stage)
    if not isinstance(entry, dict):
        raise InputError(f"stage {stage!r} is in no dvc.lock of the workspace (has it run there?)", path=workspace)
    return [str(d["path"]) for d in entry.get("deps", []) if not str(d["path"]).startswith("src/")]


def throwaway_copy(workspace: Path, stage: str, into: Path) -> Path:
    """A copy of ``workspace`` under ``into`` with what ``stage`` reads: the code and config, the stages'
    DVC files and the stage's dependencies (copied; a dependency outside the workspace, such as the data
    mirror, is linked at the same relative place). Returns the copy's root."""
    ws = into / "ws"
    ws.mkdir(parents=True)
    for rel in CODE_PATHS:
        _copy(workspace / rel, ws / rel)
    for dvc_file in sorted((workspace / "stages").glob("*/dvc.*")):
        _copy(dvc_file, ws / dvc_file.relative_to(workspace))
    for rel in dependencies(workspace, stage):
        parts = Path(rel).parts
        if parts and parts[0] == "..":
            ups = len([p for p in parts if p == ".."])
            first = parts[ups]
            link = Path(os.path.normpath(ws.joinpath(*parts[:ups]) / first))
            target = Path(os.path.normpath(workspace.joinpath(*parts[:ups]) / first)).resolve()
            if not link.exists() and target.exists():
                link.parent.mkdir(parents=True, exist_ok=True)
                link.symlink_to(target, target_is_directory=target.is_dir())
        else:
            _copy(workspace / rel, ws / rel)
    shared = (workspace.parent / "shared").resolve()
    if shared.is_dir() and not (into / "shared").exists():
        (into / "shared").symlink_to(shared, target_is_directory=True)  # the mirror beside the project
    return ws


def _copy(src: Path, dest: Path) -> None:
    if not src.exists():
        return
    dest.parent.mkdir(parents=True, exist_ok=True)
    if src.is_dir():
        shutil.copytree(src, dest, symlinks=False, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    else:
        shutil.copy2(src, dest)


def stage_env(ws: Path, cache: Path, models_cache: Path | None) -> dict[str, str]:
    """The stage's environment: this one without DVC's variables, the copy's code first on the path, a fresh
    cache that sees only the converted models, no progress bars."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DVC_")}
    cache.mkdir(parents=True, exist_ok=True)
    if models_cache is not None and (models_cache / "models").is_dir():
        (cache / "models").symlink_to((models_cache / "models").resolve(), target_is_directory=True)
        if "NLTK_DATA" not in env and (models_cache / "nltk_data").is_dir():
            env["NLTK_DATA"] = str((models_cache / "nltk_data").resolve())
    env.update({"PYTHONPATH": str(ws / "src"), "LINGTEST_CACHE": str(cache), "LINGTEST_NO_PROGRESS": "1"})
    mirror = ws.parent / "shared" / "data"
    if mirror.is_dir() and "LINGTEST_MIRROR" not in env:
        env["LINGTEST_MIRROR"] = str(mirror.resolve())
    return env


def init_store(ws: Path, env: dict[str, str]) -> float:
    """Create the copy's MLflow store before the stage runs (a real run's store exists after its first stage,
    so its schema creation is no stage's cost); returns the seconds it took."""
    uri = f"sqlite:///{ws / 'mlruns' / 'mlflow.db'}"
    (ws / "mlruns").mkdir(exist_ok=True)
    code = f"from mlflow.tracking import MlflowClient; MlflowClient(tracking_uri={uri!r}).search_experiments()"
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=ws, env=env, check=True, capture_output=True)
    return time.perf_counter() - t0


def find_pyspy(given: str | None) -> str | None:
    """py-spy's executable: ``given``, else on ``$PATH`` or beside this Python."""
    if given:
        return given
    beside = Path(sys.executable).parent / "py-spy"
    return shutil.which("py-spy") or (str(beside) if beside.is_file() else None)


def breakdown_of(profile_file: Path, profiler: str, rate: int) -> Breakdown:
    """The categories of a profile file: py-spy's raw output (``rate`` samples per second) or cProfile's stats."""
    from lingtest.profiling import attribute, pstats_samples, pyspy_samples

    samples: list[tuple[Sequence[Frame], float]]
    if profiler == "py-spy":
        samples = pyspy_samples(profile_file.read_text(encoding="utf-8", errors="replace"), interval_s=1 / rate)
    else:
        import pstats

        samples = list(pstats_samples(pstats.Stats(str(profile_file)).stats))  # type: ignore[attr-defined]
    return attribute(samples)


def carried_profiles(earlier: dict[str, Any]) -> list[dict[str, Any]]:
    """The profiles of an earlier result; one whose profile file is still there is sorted again under today's
    :data:`~lingtest.profiling.CATEGORY_RULES` (its measured seconds kept)."""
    out = []
    for prof in earlier.get("profiles", []):
        raw = prof.get("profile_file")
        if raw and Path(raw).is_file():
            breakdown = breakdown_of(Path(raw), prof["profiler"], int(prof.get("rate_hz") or 100))
            prof = {**prof, **breakdown.as_dict(), "sampled_s": round(breakdown.total, 3)}
        out.append(prof)
    return out


def profile_stage(workspace: Path, stage: str, *, profiler: str, pyspy: str | None, rate: int,
                  models_cache: Path | None, keep: Path | None, timeout_s: float) -> dict[str, Any]:
    """Run ``stage`` (``name`` or ``name@item``) once in a throwaway copy under a profiler; its category
    breakdown, process and run seconds."""
    from lingtest.profiling import read_runs

    name, _, item = stage.partition("@")
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="lt_profile_", dir=str(keep) if keep else None))
    try:
        ws = throwaway_copy(workspace, stage, tmp)
        env = stage_env(ws, tmp / "cache", models_cache)
        store_s = init_store(ws, env)
        cmd = [sys.executable, "-m", "lingtest.pipeline.stage", name, *([item] if item else [])]
        out_file = tmp / ("pyspy.txt" if profiler == "py-spy" else "cprofile.pstats")
        if profiler == "py-spy":
            assert pyspy is not None
            wrapped = [pyspy, "record", "--format", "raw", "--rate", str(rate), "--idle", "--threads",
                       "-o", str(out_file), "--", *cmd]
        else:
            wrapped = [sys.executable, "-m", "cProfile", "-o", str(out_file), *cmd[1:]]
        t0 = time.perf_counter()
        done = subprocess.run(wrapped, cwd=ws, env=env, capture_output=True, text=True, timeout=timeout_s)
        process_s = time.perf_counter() - t0
        if done.returncode != 0:
            raise RuntimeError(f"stage {stage} failed under {profiler} (exit {done.returncode}):\n"
                               f"{done.stderr[-3000:]}")
        breakdown = breakdown_of(out_file, profiler, rate)
        runs = [r for r in read_runs(ws / "mlruns") if r.stage == stage]
        run_s = runs[-1].end - runs[-1].start if runs and runs[-1].end is not None else None
        return {"stage": stage, "profiler": profiler, "rate_hz": rate if profiler == "py-spy" else None,
                "process_wall_s": round(process_s, 3), "run_wall_s": round(run_s, 3) if run_s else None,
                "store_init_s_excluded": round(store_s, 3), "sampled_s": round(breakdown.total, 3),
                **breakdown.as_dict(), "profile_file": str(out_file) if keep else None}
    finally:
        if keep is None:
            shutil.rmtree(tmp, ignore_errors=True)


# ---------------------------------------------------------------- output


#: the in-stage rate targets on the reference AVX2 CPU and that CPU's float32 matrix-product peak (GFLOP/s on 2
#: threads); on another CPU a target scales by the measured peak over this one
REFERENCE_PEAK_GFLOPS = 85.0
RATE_TARGETS = {"crest_generate": 8.0, "tin_generate": 4.0, "contrapro_score": 10.0}


def _wall(rows: list[dict[str, Any]], stage: str) -> float | None:
    for r in rows:
        if r.get("stage") == stage and r.get("wall_s"):
            return float(r["wall_s"])
    return None


def _timed(rows: list[dict[str, Any]], stage: str, metric: str, file_metrics: dict[str, Any]) -> float | None:
    """A stage's timed generation seconds: the run's metric ``metric`` (where the stages record it), else the
    ``seconds`` of its metrics file (runs of versions that still wrote it there)."""
    for r in rows:
        if r.get("stage") == stage and metric in (r.get("timed") or {}):
            return float(r["timed"][metric])
    got = file_metrics.get("seconds")
    return float(got) if isinstance(got, (int, float)) else None


def _rate(n: Any, seconds: float | None) -> float | None:
    return round(float(n) / seconds, 3) if n is not None and seconds else None


def stage_rates(workspace: Path, rows: list[dict[str, Any]], peak_gflops: float | None) -> dict[str, Any]:
    """The rates the demo's model-heavy stages reached inside a run: CREST's selected follow-ups per second,
    TIN's sources per second per system and ContraPro's examples per second per system, each over the stage's
    whole wall time (model loads included, from the run's records) and, where the stage's metrics time its
    generation alone, over that; with the targets scaled to this CPU by ``peak_gflops``."""
    import yaml

    def metrics(rel: str) -> dict[str, Any]:
        f = workspace / rel
        return json.loads(f.read_text(encoding="utf-8")) if f.is_file() else {}

    params = yaml.safe_load((workspace / "params.yaml").read_text(encoding="utf-8"))
    paths = params.get("paths", {})
    scale = peak_gflops / REFERENCE_PEAK_GFLOPS if peak_gflops else None
    out: dict[str, Any] = {"peak_gemm_gflops": peak_gflops, "reference_peak_gemm_gflops": REFERENCE_PEAK_GFLOPS,
                           "target_scale": round(scale, 3) if scale else None, "stages": {}}

    def add(stage: str, kind: str, what: str, n: Any, inner_s: float | None) -> None:
        wall = _wall(rows, stage)
        target = RATE_TARGETS[kind]
        out["stages"][stage] = {"what": what, "count": n, "stage_wall_s": wall, "per_s_stage": _rate(n, wall),
                                "generation_s": inner_s, "per_s_generation": _rate(n, inner_s),
                                "target_per_s_reference_cpu": target,
                                "target_per_s_this_cpu": round(target * scale, 2) if scale else None}

    crest = metrics(f"{paths.get('crest', {}).get('metrics', 'metrics/crest/ontogum')}/generation.json")
    if crest:
        add("crest_generate", "crest_generate", "selected follow-ups", crest.get("selected"),
            _timed(rows, "crest_generate", "crest.seconds", crest))
    tin_dir = workspace / str(paths.get("tin", {}).get("metrics", "metrics/tin/conll2003")) / "generation"
    for f in sorted(tin_dir.glob("*.json")) if tin_dir.is_dir() else []:
        m = json.loads(f.read_text(encoding="utf-8"))
        add(f"tin_generate@{f.stem}", "tin_generate", "sources", m.get("sources"),
            _timed(rows, f"tin_generate@{f.stem}", f"tin.{f.stem}.generation.seconds", m))
    cp_dir = workspace / str(paths.get("contrapro", {}).get("metrics", "metrics/contrapro"))
    for f in sorted(cp_dir.glob("*.json")) if cp_dir.is_dir() else []:
        m = json.loads(f.read_text(encoding="utf-8"))
        if "cases" in m and "system" in m:
            add(f"contrapro_score@{f.stem}", "contrapro_score", "examples", m.get("cases"), None)
    return out


def summary_lines(result: dict[str, Any], top: int = 25) -> list[str]:
    """A short table: the slowest stages (inside + gap before), the techniques, the profiled categories."""
    lines = []
    t = result.get("totals", {})
    lines.append(f"{len(result.get('stages', []))} stages, span {t.get('span_s')} s: {t.get('in_stages_s')} s in "
                 f"stages, {t.get('between_stages_s')} s between (dvc {t.get('dvc_s')}, start-up {t.get('startup_s')})")
    rows = sorted(result.get("stages", []), key=lambda r: -((r["wall_s"] or 0) + (r["gap_before_s"] or 0)))
    lines.append(f"{'stage':42} {'technique':15} {'wall_s':>8} {'gap_s':>7} {'dvc_s':>7} {'start_s':>7}")
    for r in rows[:top]:
        lines.append(f"{r['stage'][:42]:42} {r['technique'][:15]:15} {_fmt(r['wall_s'])} {_fmt(r['gap_before_s'], 7)} "
                     f"{_fmt(r['dvc_s'], 7)} {_fmt(r['startup_s'], 7)}")
    lines.append(f"{'technique':20} {'stages':>6} {'wall_s':>8} {'gap_s':>8} {'total_s':>8}")
    techniques = result.get("techniques", {})
    for k, v in sorted(techniques.items(), key=lambda kv: -kv[1]["total_s"]):
        lines.append(f"{k:20} {v['stages']:>6} {_fmt(v['wall_s'])} {_fmt(v['gap_s'])} {_fmt(v['total_s'])}")
    for prof in result.get("profiles", []):
        lines.append(f"{prof['stage']} ({prof['profiler']}): process {prof['process_wall_s']} s, run "
                     f"{prof['run_wall_s']} s")
        for cat, v in sorted(prof["categories"].items(), key=lambda kv: -kv[1]["seconds"]):
            head = v["top"][0][0] if v["top"] else ""
            lines.append(f"  {cat:12} {v['seconds']:8.2f} s {100 * v['share']:5.1f}%  {head}")
    return lines


def _fmt(x: float | None, width: int = 8) -> str:
    return f"{x:{width}.2f}" if x is not None else f"{'-':>{width}}"


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workspace", type=Path, required=True, help="the pipeline workspace that ran dvc repro")
    ap.add_argument("--mlruns", type=Path, help="its MLflow store (default WORKSPACE/mlruns)")
    ap.add_argument("--log", type=Path, help="the dvc repro output (optionally ending with /usr/bin/time -v)")
    ap.add_argument("--session", "--repro", dest="session", type=int, default=-1,
                    help="which dvc repro of the store (0: first, -1: last)")
    ap.add_argument("--max-gap", type=float, default=300.0, help="seconds without a run that end a dvc repro")
    cold = ap.add_mutually_exclusive_group()
    cold.add_argument("--cold", dest="cold", action="store_const", const=True,
                      help="the run started from empty caches (your word; neither flag: not known)")
    cold.add_argument("--warm", dest="cold", action="store_const", const=False, help="it did not")
    ap.add_argument("--note", default="", help="what else to know: machine load, what ran beside it")
    ap.add_argument("--stage", action="append", default=[], help="profile this stage's body (name or name@item)")
    ap.add_argument("--profiler", choices=["auto", "py-spy", "cprofile"], default="auto")
    ap.add_argument("--py-spy", dest="pyspy", help="py-spy's executable (default: on PATH or beside python)")
    ap.add_argument("--rate", type=int, default=100, help="py-spy samples per second")
    ap.add_argument("--models-cache", type=Path,
                    default=Path(os.environ.get("LINGTEST_CACHE", Path.home() / ".cache" / "lingtest")),
                    help="the cache whose models/ (converted LM) the profiled stage may read")
    ap.add_argument("--profiles-from", type=Path,
                    help="take the stage profiles of an earlier result of this script instead of profiling again")
    ap.add_argument("--keep", type=Path, help="keep the throwaway copies and profiles under this folder")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds one profiled stage may take")
    ap.add_argument("--peak-gflops", type=float,
                    help="this CPU's float32 matrix-product peak on 2 threads (default: measured, bench/lm_bound.py)")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)

    from lingtest.data.io import write_json
    from lingtest.profiling import rules_table

    workspace = args.workspace.resolve()
    result: dict[str, Any] = {"benchmark": "profile", "machine": machine(), "caches_cold": args.cold,
                              "note": args.note}
    result.update(records(workspace, (args.mlruns or workspace / "mlruns").resolve(), session=args.session,
                          max_gap_s=args.max_gap, log=args.log))
    peak = args.peak_gflops
    if peak is None:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from lm_bound import peak_gemm_gflops

        peak = round(peak_gemm_gflops(2), 1)
    result["rates"] = stage_rates(workspace, result.get("stages", []), peak)
    # each stage's seconds inside its run, by name, for pages that quote one stage
    result["stage_wall_s"] = {r["stage"]: r["wall_s"] for r in result.get("stages", [])}
    if args.profiles_from is not None:
        earlier = json.loads(args.profiles_from.read_text(encoding="utf-8"))
        result["profiles"] = carried_profiles(earlier)
        result["category_rules"] = earlier.get("category_rules", rules_table())
        result["profiles_source"] = {"file": str(args.profiles_from), "note": earlier.get("note", ""),
                                     "machine": earlier.get("machine")}
    if args.stage:
        pyspy = find_pyspy(args.pyspy)
        profiler = args.profiler if args.profiler != "auto" else ("py-spy" if pyspy else "cprofile")
        if profiler == "py-spy" and pyspy is None:
            ap.error("--profiler py-spy: no py-spy found (pip install py-spy, or --py-spy PATH)")
        result["category_rules"] = rules_table()
        fresh = [profile_stage(workspace, s, profiler=profiler, pyspy=pyspy, rate=args.rate,
                               models_cache=args.models_cache, keep=args.keep, timeout_s=args.timeout)
                 for s in args.stage]
        result["profiles"] = [*result.get("profiles", []), *fresh]
    result["machine"]["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    write_json(args.out, result)
    print("\n".join(summary_lines(result)))
    print(f"-> {args.out}")
    return result


if __name__ == "__main__":
    main()
