"""What DVC spends on its lock files while ``dvc repro`` runs the pipeline.

    .venv/bin/python bench/bench_dvc_overhead.py --workspace WS --label LABEL [--repeat 3]
        [--out bench/results/dvc_overhead.json]

Each time a stage finishes, DVC rewrites the ``dvc.lock`` beside the stage's ``dvc.yaml``: it reads the
whole file with its round-trip YAML parser (pure Python), puts the stage's entry in and writes it back
(``dvc.utils.serialize.modify_yaml``). That cost grows with the file, and the file grows with the
stages' dependency lists. For every lock file of the workspace ``WS`` (a pipeline run to the end) this
script records its size, stages and path entries and times that same round trip on a copy (the best of
``--repeat``), then adds up what one ``dvc repro`` of every stage spends on it: each stage pays its own
file's round trip once. The result is stored under ``runs.LABEL`` of ``--out`` (other labels kept), with
the machine it ran on; nothing in ``WS`` is written.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_profile import machine  # noqa: E402


def lock_files(workspace: Path) -> list[Path]:
    """The workspace's ``dvc.lock`` files: the root one and ``stages/*/dvc.lock``."""
    return [p for p in [workspace / "dvc.lock", *sorted((workspace / "stages").glob("*/dvc.lock"))] if p.is_file()]


def round_trip_seconds(path: Path, repeat: int) -> float:
    """The best of ``repeat`` timings of DVC's read-modify-write of ``path`` (on a copy; nothing changed)."""
    from dvc.utils.serialize import modify_yaml

    best = float("inf")
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "dvc.lock"
        shutil.copyfile(path, copy)
        for _ in range(repeat):
            t0 = time.perf_counter()
            with modify_yaml(str(copy)) as data:
                data.setdefault("stages", {})
            best = min(best, time.perf_counter() - t0)
    return best


def describe(path: Path, workspace: Path, repeat: int) -> dict[str, Any]:
    """Size, stages, path entries (code dependencies apart) and the round-trip time of one lock file."""
    import yaml

    stages = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("stages") or {}
    entries = [e for s in stages.values() for key in ("deps", "outs") for e in s.get(key) or []]
    code = [e for s in stages.values() for e in s.get("deps") or [] if str(e.get("path", "")).startswith("src/")]
    return {"file": str(path.relative_to(workspace)), "bytes": path.stat().st_size, "stages": len(stages),
            "path_entries": len(entries), "code_entries": len(code),
            "round_trip_s": round(round_trip_seconds(path, repeat), 4)}


def measure(workspace: Path, repeat: int) -> dict[str, Any]:
    """Every lock file of ``workspace`` (:func:`describe`) and the totals over one run of every stage."""
    files = [describe(p, workspace, repeat) for p in lock_files(workspace)]
    return {"workspace": str(workspace), "files": files,
            "stages": sum(f["stages"] for f in files),
            "code_entries": sum(f["code_entries"] for f in files),
            "bytes": sum(f["bytes"] for f in files),
            "lock_seconds_per_run": round(sum(f["stages"] * f["round_trip_s"] for f in files), 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workspace", type=Path, required=True, help="a pipeline workspace run to the end")
    ap.add_argument("--label", required=True, help="the name this measurement is stored under")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--note", default="")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "dvc_overhead.json")
    args = ap.parse_args(argv)
    result = json.loads(args.out.read_text(encoding="utf-8")) if args.out.is_file() else {}
    result.setdefault("benchmark", "dvc_overhead")
    result.setdefault("runs", {})[args.label] = {"machine": machine(), "note": args.note,
                                                 **measure(args.workspace.resolve(), args.repeat)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    run = result["runs"][args.label]
    print(f"{args.label}: {run['stages']} stages, {run['code_entries']} code entries, {run['bytes']} bytes of "
          f"lock files; DVC's lock round trips over one run: {run['lock_seconds_per_run']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
