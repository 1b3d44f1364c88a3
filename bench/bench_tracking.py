"""What a stage process spends on its MLflow run, live and deferred (the journal).

    .venv/bin/python bench/bench_tracking.py --workspace WS [--stage download --item hatecheck]
        [--repeat 5] [--out bench/results/tracking_deferred.json]

Runs one quick stage's command (``python -m lingtest.pipeline.stage STAGE ITEM``) in the workspace
``WS`` ``--repeat`` times with ``tracking.deferred=false`` (a live MLflow run) and as many times with
``tracking.deferred=true`` (a journal record), alternating, each time as its own process the way DVC
starts it, and times each process from start to exit. Both log into a throw-away SQLite store under
``/tmp``; then ``lingtest runs sync`` imports the journal records into it, timed as one process (what
one sync after a ``dvc repro`` costs). Records the median process seconds of each mode, the
difference (what deferred tracking saves per stage), the sync's seconds, and checks that the store
then holds as many runs of each mode. The stage's outputs in ``WS`` are rewritten with the same content.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_profile import machine  # noqa: E402


def timed(cmd: list[str], workspace: Path) -> float:
    t = time.perf_counter()
    proc = subprocess.run(cmd, cwd=workspace, capture_output=True, text=True, env=os.environ.copy())
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return round(time.perf_counter() - t, 3)


def count_runs(db: Path) -> dict[str, int]:
    """The store's active runs by status."""
    import sqlite3

    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT status, count(*) FROM runs WHERE lifecycle_stage = 'active' GROUP BY status")
        return dict(rows.fetchall())
    finally:
        con.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workspace", type=Path, default=ROOT)
    ap.add_argument("--stage", default="download")
    ap.add_argument("--item", default="hatecheck")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "tracking_deferred.json")
    args = ap.parse_args(argv)
    workspace = args.workspace.resolve()
    from lingtest.journal import journal_dir, pending_records

    before = set(pending_records(journal_dir(workspace)))
    if before:
        raise SystemExit(f"{journal_dir(workspace)} holds {len(before)} record(s): run `lingtest runs sync` first")
    with tempfile.TemporaryDirectory(prefix="bench_tracking_") as tmp:
        db = Path(tmp) / "mlflow.db"
        base = [sys.executable, "-m", "lingtest.pipeline.stage", args.stage, *([args.item] if args.item else []),
                "tracking.enabled=true", f"tracking.uri=sqlite:///{db}"]
        timed([*base, "tracking.deferred=false"], workspace)  # creates the store: not counted
        live: list[float] = []
        deferred: list[float] = []
        for _ in range(args.repeat):
            live.append(timed([*base, "tracking.deferred=false"], workspace))
            deferred.append(timed([*base, "tracking.deferred=true"], workspace))
        pending = len(pending_records(journal_dir(workspace)))
        sync_s = timed([sys.executable, "-m", "lingtest.cli", "runs", "sync", "--root", str(workspace)], workspace)
        runs = count_runs(db)
    result: dict[str, Any] = {
        "benchmark": "tracking_deferred",
        "command": f"bench/bench_tracking.py --workspace WS --stage {args.stage} --item {args.item} "
                   f"--repeat {args.repeat}",
        "stage": f"{args.stage}@{args.item}" if args.item else args.stage,
        "machine": machine(),
        "note": "process seconds from start to exit, warm file caches; live and deferred alternate",
        "live_process_s": live, "deferred_process_s": deferred,
        "live_median_s": round(statistics.median(live), 3),
        "deferred_median_s": round(statistics.median(deferred), 3),
        "saved_per_stage_s": round(statistics.median(live) - statistics.median(deferred), 3),
        "records_synced": pending, "sync_process_s": sync_s,
        "store_runs_by_status": runs,
    }
    expected = 1 + 2 * args.repeat
    if pending != args.repeat or runs.get("FINISHED") != expected:
        raise SystemExit(f"expected {args.repeat} journal records and {expected} FINISHED runs: {result}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: result[k] for k in ("live_median_s", "deferred_median_s", "saved_per_stage_s",
                                             "records_synced", "sync_process_s")}))
    print(f"-> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
