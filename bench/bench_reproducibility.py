"""Whether two from-scratch ``dvc repro`` runs of the same commit produced the same outputs, bit for bit.

    .venv/bin/python bench/bench_reproducibility.py --a RUN1 --b RUN2 [--note TEXT]
        [--out bench/results/reproducibility.json]

``RUN1`` and ``RUN2`` are two workspaces (clones of one commit, each with its own empty DVC cache and
``$LINGTEST_CACHE``) in which ``dvc repro -P`` ran to the end. Every output of every stage in their
``dvc.lock`` files (the root one and ``stages/*/dvc.lock``) is compared by the md5 DVC recorded; where two
differ the files are compared in the workspaces: a JSON file by its leaves (a leaf whose key names a wall-clock
measurement, :data:`WALL_CLOCK`, is reported apart), a Markdown file with the cells of its tables' time columns
masked (:data:`WALL_CLOCK_COLUMN`), any other file by its bytes. The result lists per stage
the outputs that are identical, those that differ only in wall-clock fields and those that differ otherwise
(with the first differing leaves or files), and the two runs' commits; nothing is written into the
workspaces.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import socket
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

#: a JSON key that names a wall-clock measurement (seconds, rates per second): the one thing two runs may differ
#: in by design
WALL_CLOCK = re.compile(r"(^|_)(seconds|secs|elapsed|duration)($|_)|per_second|^time_|_time$|(^|_)[a-z]+_s$")


def lock_outs(workspace: Path) -> dict[str, dict[str, str]]:
    """Stage name -> output path -> the md5 DVC recorded, over every lock file (:func:`lingtest.dvcfiles.read_locks`).
    Every stage runs in the project root (``wdir: ../..`` in ``stages/*/dvc.yaml``), so its paths are relative to
    the workspace."""
    from lingtest.dvcfiles import read_locks

    return {str(name): {str(o["path"]): str(o.get("md5", "")) for o in stage.get("outs") or []}
            for name, stage in read_locks(workspace).items()}


def json_leaves(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """``(dotted path, leaf)`` for every leaf of a JSON value (lists by index)."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            yield from json_leaves(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from json_leaves(v, f"{prefix}[{i}]")
    else:
        yield prefix, value


def is_wall_clock(path: str) -> bool:
    """Whether a dotted JSON path names a wall-clock measurement: its last key does, or a key above it does
    (``seconds.evaluate``, ``seconds_by_step.filters``)."""
    keys = [k.rstrip("]") for k in re.split(r"[.\[]", path) if k and not k.rstrip("]").isdigit()]
    return any(WALL_CLOCK.search(k) for k in keys)


def diff_json(a: Any, b: Any) -> tuple[list[str], list[str]]:
    """The dotted paths whose leaves differ between two JSON values (present in one only counts): those that
    name wall-clock measurements, and the others."""
    la, lb = dict(json_leaves(a)), dict(json_leaves(b))
    differ = sorted(k for k in la.keys() | lb.keys() if la.get(k, ...) != lb.get(k, ...))
    clock = [k for k in differ if is_wall_clock(k)]
    return clock, [k for k in differ if not is_wall_clock(k)]


#: a Markdown table column whose header names a wall-clock measurement (*Time (s/sel)*, *train s*)
WALL_CLOCK_COLUMN = re.compile(r"\btime\b|seconds|\(s\)|\bs/|\ss\s*$", re.IGNORECASE)


def mask_wall_clock_columns(text: str) -> str:
    """A Markdown text with the cells of every table column whose header names a wall-clock measurement
    replaced by ``*``, so that two tables compare equal when only their times differ."""
    out: list[str] = []
    masked: set[int] = set()
    for line in text.splitlines():
        if not line.startswith("|"):
            masked = set()
            out.append(line)
            continue
        cells = line.split("|")
        if not masked and not set(line) <= set("|-: "):
            found = {i for i, c in enumerate(cells) if WALL_CLOCK_COLUMN.search(c)}
            if found:
                masked = found
                out.append(line)
                continue
        out.append("|".join(" * " if i in masked and not set(c) <= set("-: ") else c for i, c in enumerate(cells)))
    return "\n".join(out)


def _md5(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "md5").hexdigest()


def _files(path: Path) -> dict[str, Path]:
    if path.is_file():
        return {"": path}
    if not path.is_dir():
        return {}
    return {p.relative_to(path).as_posix(): p for p in sorted(path.rglob("*")) if p.is_file()}


def compare_output(a: Path, b: Path, *, limit: int = 10) -> dict[str, Any]:
    """How two copies of one output (a file or a folder) differ: ``kind`` is ``identical``, ``wall_clock``
    (only JSON leaves naming wall-clock measurements differ) or ``different``, with the differing files and,
    for JSON files, the differing leaves (at most ``limit`` of each)."""
    fa, fb = _files(a), _files(b)
    missing = sorted(fa.keys() ^ fb.keys())
    clock: list[str] = []
    other: list[str] = [f"{name or a.name}: only in one run" for name in missing]
    for name in sorted(fa.keys() & fb.keys()):
        pa, pb = fa[name], fb[name]
        if pa.stat().st_size == pb.stat().st_size and _md5(pa) == _md5(pb):
            continue
        label = name or a.name
        if pa.suffix == ".json":
            try:
                c, o = diff_json(json.loads(pa.read_text(encoding="utf-8")),
                                 json.loads(pb.read_text(encoding="utf-8")))
            except (UnicodeDecodeError, json.JSONDecodeError):
                other.append(f"{label}: bytes")
                continue
            clock += [f"{label}:{k}" for k in c]
            other += [f"{label}:{k}" for k in o]
        elif pa.suffix == ".md":
            ta, tb = pa.read_text(encoding="utf-8"), pb.read_text(encoding="utf-8")
            same = mask_wall_clock_columns(ta) == mask_wall_clock_columns(tb)
            (clock if same else other).append(f"{label}: {'time columns' if same else 'text'}")
        else:
            other.append(f"{label}: bytes")
    kind = "different" if other else "wall_clock" if clock else "identical"
    return {"kind": kind, "wall_clock": clock[:limit], "different": other[:limit],
            "n_wall_clock": len(clock), "n_different": len(other)}


def compare_runs(a: Path, b: Path) -> dict[str, Any]:
    """Every stage output of two workspaces compared (see the module docstring)."""
    outs_a, outs_b = lock_outs(a), lock_outs(b)
    stages: dict[str, Any] = {}
    counts = {"identical": 0, "wall_clock": 0, "different": 0, "missing": 0}
    for stage in sorted(outs_a.keys() | outs_b.keys()):
        oa, ob = outs_a.get(stage, {}), outs_b.get(stage, {})
        rows: dict[str, Any] = {}
        for path in sorted(oa.keys() | ob.keys()):
            if path not in oa or path not in ob:
                rows[path] = {"kind": "missing"}
            elif oa[path] and oa[path] == ob[path]:
                rows[path] = {"kind": "identical"}
            else:
                rows[path] = compare_output(a / path, b / path)
            counts[rows[path]["kind"]] += 1
        stages[stage] = rows
    return {"outputs": sum(counts.values()), **counts, "stages": stages}


def _commit(workspace: Path) -> str | None:
    try:
        return subprocess.run(["git", "-C", str(workspace), "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def machine() -> dict[str, Any]:
    """The CPU (model, SIMD flags, cores) and Python."""
    from lingtest.environment import cpu_model, usable_cpus
    from lingtest.profiling import cpu_simd_flags

    return {"python": platform.python_version(), "cpu": cpu_model(), "simd": cpu_simd_flags(),
            "cores": os.cpu_count(), "usable_cpus": usable_cpus(), "host": socket.gethostname()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", type=Path, required=True, help="the first run's workspace")
    ap.add_argument("--b", type=Path, required=True, help="the second run's workspace")
    ap.add_argument("--note", default="", help="how the runs were made (caches, load)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "reproducibility.json")
    args = ap.parse_args(argv)
    commits = [_commit(args.a), _commit(args.b)]
    result = {"benchmark": "reproducibility", "commits": commits, "same_commit": commits[0] == commits[1],
              "machine": machine(), "note": args.note, **compare_runs(args.a, args.b)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{result['outputs']} outputs: {result['identical']} identical, {result['wall_clock']} differ only in "
          f"wall-clock fields, {result['different']} differ, {result['missing']} in one run only -> {args.out}")
    for stage, rows in result["stages"].items():
        for path, row in rows.items():
            if row["kind"] in ("different", "missing"):
                print(f"  {stage}: {path}: {row['kind']} {row.get('different', [])[:3]}")
    return 0 if result["different"] == 0 and result["missing"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
