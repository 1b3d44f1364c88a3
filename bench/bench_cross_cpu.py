"""Whether a workspace regenerated the released suites byte for byte, and where it did not, how far it is off:
run it after ``dvc repro -P`` on another machine to see what that machine's CPU changes.

    .venv/bin/python bench/bench_cross_cpu.py --workspace DIR [--note TEXT] [--out bench/results/cross_cpu.json]

For the newest release of every suite (``releases/index.json``) whose suite file the workspace holds (the path
the release's provenance records), the workspace's file is compared with the release's sha256 (of the pipeline's
file, ``file_sha256``, where the release holds a derived form of it), then with the release's rows
(``releases/<name>/<version>/data/*.jsonl.gz``, the suite's own lines): equal sha256, or else, by case ``id``,
the cases only in the release, only in the workspace, and the common cases that differ, with the fields that
differ (``meta`` by its keys) and, for numbers, the largest difference. Suites that are folders (sets of files)
are compared by their file listing's sha256 where the release records one, else skipped. The machine of the
workspace's run is the one this script runs on (give ``--note`` otherwise); the release's is in its
provenance.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def cases_by_id(lines: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The records of a suite's JSONL lines that carry an ``id`` (the header and other records are skipped)."""
    out: dict[str, dict[str, Any]] = {}
    for line in lines:
        if line.strip():
            rec = json.loads(line)
            if isinstance(rec, dict) and "id" in rec:
                out[str(rec["id"])] = rec
    return out


def _max_diff(a: Any, b: Any) -> float | None:
    """The largest absolute difference between two numbers or equally long lists of numbers, else None."""
    if isinstance(a, bool) or isinstance(b, bool):
        return None
    if isinstance(a, int | float) and isinstance(b, int | float):
        return abs(float(a) - float(b))
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and a:
        parts = [_max_diff(x, y) for x, y in zip(a, b, strict=True)]
        return None if any(p is None for p in parts) else max(p for p in parts if p is not None)
    return None


def compare_cases(released: Mapping[str, dict[str, Any]], regenerated: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
    """Case-by-case comparison: counts, and per differing field (``meta.<key>`` for the meta object) how many
    common cases differ in it and the largest numeric difference."""
    common = sorted(set(released) & set(regenerated))
    fields: Counter[str] = Counter()
    largest: dict[str, float] = {}
    differing = 0
    for cid in common:
        a, b = released[cid], regenerated[cid]
        if a == b:
            continue
        differing += 1
        for key in sorted(set(a) | set(b)):
            if a.get(key) == b.get(key):
                continue
            if key == "meta" and isinstance(a.get(key), dict) and isinstance(b.get(key), dict):
                pairs = [(f"meta.{k}", a[key].get(k), b[key].get(k)) for k in sorted(set(a[key]) | set(b[key]))
                         if a[key].get(k) != b[key].get(k)]
            else:
                pairs = [(key, a.get(key), b.get(key))]
            for name, x, y in pairs:
                fields[name] += 1
                d = _max_diff(x, y)
                if d is not None:
                    largest[name] = max(largest.get(name, 0.0), d)
    return {"released": len(released), "regenerated": len(regenerated), "common": len(common),
            "only_released": len(set(released) - set(regenerated)),
            "only_regenerated": len(set(regenerated) - set(released)), "common_differing": differing,
            "fields": dict(sorted(fields.items())), "largest_difference": {k: float(f"{v:.3g}") for k, v
                                                                           in sorted(largest.items())}}


def newest_releases(root: Path) -> list[Path]:
    """The folder of every suite's newest release in ``releases/index.json`` (suite name -> version -> entry)."""
    index = json.loads((root / "releases" / "index.json").read_text(encoding="utf-8"))
    out = []
    for name in sorted(index):
        version = max(index[name], key=lambda v: tuple(int(x) for x in str(v).split(".")))
        out.append(root / "releases" / name / str(version))
    return out


def compare_release(release: Path, workspace: Path) -> dict[str, Any]:
    prov = json.loads((release / "provenance.json").read_text(encoding="utf-8"))
    suite = prov["suite"]
    out: dict[str, Any] = {"release": f"{release.parent.name}@{release.name}", "path": suite["path"],
                           "release_cpu": prov.get("environment", {}).get("cpu")}
    target = workspace / suite["path"]
    if not target.exists():
        return {**out, "status": "absent"}
    if target.is_dir():
        return {**out, "status": "folder, not compared"}
    data = target.read_bytes()
    # file_sha256: the pipeline's own file where the release holds a derived form of it (TIN's parsed sources)
    if hashlib.sha256(data).hexdigest() == suite.get("file_sha256", suite["sha256"]):
        return {**out, "status": "identical"}
    lines = data.decode("utf-8").splitlines()
    texts = sorted((release / "data").glob("*.jsonl.gz"))
    if len(texts) == 1:
        with gzip.open(texts[0], "rt", encoding="utf-8") as fh:
            released = cases_by_id(fh)
        return {**out, "status": "differs", **compare_cases(released, cases_by_id(lines))}
    tables = sorted((release / "data").glob("*.parquet"))
    if len(tables) != 1:
        return {**out, "status": f"differs (the release holds {len(texts)} text and {len(tables)} row files)"}
    # text withheld (its licence): the rows tie each case to the sha256 of its suite line
    import pyarrow.parquet as pq

    from lingtest.release.records import line_sha256

    table = pq.read_table(tables[0], columns=["id", "line_sha256"]).to_pydict()
    released_lines = dict(zip(map(str, table["id"]), table["line_sha256"], strict=True))
    ids = {str(rec["id"]): line_sha256(line) for line in lines if line.strip()
           for rec in [json.loads(line)] if isinstance(rec, dict) and "id" in rec}
    common = set(released_lines) & set(ids)
    return {**out, "status": "differs", "compared": "line sha256 (text withheld)", "released": len(released_lines),
            "regenerated": len(ids), "common": len(common), "only_released": len(set(released_lines) - set(ids)),
            "only_regenerated": len(set(ids) - set(released_lines)),
            "common_differing": sum(released_lines[c] != ids[c] for c in common)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workspace", required=True, type=Path, help="a workspace after dvc repro -P")
    ap.add_argument("--note", default=None)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "cross_cpu.json"))
    args = ap.parse_args(argv)

    from lingtest.data.io import write_json
    from lingtest.environment import cpu_model
    from lingtest.profiling import cpu_simd_flags

    suites = [compare_release(r, args.workspace) for r in newest_releases(ROOT)]
    result = {"benchmark": "cross_cpu", "workspace_cpu": cpu_model(), "workspace_simd": cpu_simd_flags(),
              "note": args.note, "identical": sum(s["status"] == "identical" for s in suites),
              "differing": sum(s["status"].startswith("differs") for s in suites), "suites": suites}
    for s in suites:
        extra = (f"  {s['only_released']} only released, {s['only_regenerated']} only regenerated, "
                 f"{s['common_differing']} of {s['common']} common differ" if "common" in s else "")
        print(f"{s['release']:<45} {s['status']}{extra}")
    write_json(args.out, result)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
