"""The LM score cache across TIN's stages, on one machine and one day: the stages that score with TIN's LM in the
configuration (``params.yaml``: the generation and repair of every system, the baseline of every attacked one) run in
pipeline order three ways from this checkout, on the inputs of a workspace that has run the pipeline.

* **before**: ``tin.score_cache=false`` (the packed layout, no cache), each stage with its own fresh cache folder;
* **after**: ``tin.score_cache=true``, the stages one after the other sharing one cache folder that starts empty,
  as in a from-scratch ``dvc repro``;
* **cold**: each stage again with ``tin.score_cache=true`` and an empty cache of its own. Its outputs must be
  byte-identical to the same stage's in *after*, whose cache held what the earlier stages scored: a cached
  score is the score the stage computes itself.

Cache folders link only the workspace cache's ``models`` and ``nltk_data`` (no parse, prediction or score cache
from elsewhere); tracking is off and outputs go to a temporary folder. Per stage: wall and CPU seconds of each
run, the groups the cache found and scored (from the stage's log), and whether *after* and *cold* wrote the
same bytes. The machine (CPU model, SIMD flags) is recorded.

    .venv/bin/python bench/bench_score_cache.py --workspace /work/fresh --cache /work/fresh-cache
        [--out bench/results/score_cache_xeon.json]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from bench_profile import machine  # noqa: E402
from bench_stage_speedups import fresh_cache, run_stage_process  # noqa: E402


def tin_lm_stages(params: Any) -> list[tuple[str, str]]:
    """TIN's stages that score with its LM, in the order ``dvc repro`` runs them: the generation and the repair of
    every system of ``tin.systems``, the baseline of every system of ``tin.baseline.systems``."""
    tin = params["tin"]
    return [*(("tin_generate", s) for s in tin["systems"]), *(("tin_repair", s) for s in tin["systems"]),
            *(("tin_baseline", s) for s in tin["baseline"]["systems"])]
INPUTS = ["paths.tin.sources={ws}/data/tin/conll2003/sources.jsonl",
          "paths.tin.phrase_index={ws}/data/tin/phrase_index.npz",
          "paths.tin.ner_model={ws}/models/tin/minilm_ner", "systems.ner.minilm_ner.path={ws}/models/tin/minilm_ner"]
OUTPUTS = ["paths.tin.generated={out}/generated", "paths.tin.metrics={out}/metrics"]
#: tin_repair reads the issues tin_evaluate found: the workspace's, so that every run repairs the same issues
REPAIR_INPUTS = ["paths.tin.issues={ws}/data/tin/conll2003/issues"]
FOUND = re.compile(r"LM score cache: (\d+) of (\d+) groups found, (\d+) to score")


def stage_name(stage: str, item: str) -> str:
    return f"{stage}@{item}"


def cache_counts(log: str) -> dict[str, int]:
    """The groups a stage's LM found in its score cache and scored, summed over its log lines."""
    found = total = scored = 0
    for m in FOUND.finditer(log):
        found, total, scored = found + int(m[1]), total + int(m[2]), scored + int(m[3])
    return {"groups": total, "found": found, "scored": scored}


def without_timings(value: Any) -> Any:
    """A metrics value without its ``seconds*`` entries (a run's own timings), at any depth."""
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if not str(k).startswith("seconds")}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def same_outputs(a: Path, b: Path) -> tuple[bool, list[str]]:
    """Whether two output folders hold the same files: the same bytes, JSON files the same but for their
    timings (:func:`without_timings`). Also returns the files that differ."""
    names = sorted({p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file()}
                   | {p.relative_to(b).as_posix() for p in b.rglob("*") if p.is_file()})
    differ = []
    for n in names:
        x, y = a / n, b / n
        if not (x.is_file() and y.is_file()):
            differ.append(n)
        elif n.endswith(".json"):
            if without_timings(json.loads(x.read_text(encoding="utf-8"))) != without_timings(
                    json.loads(y.read_text(encoding="utf-8"))):
                differ.append(n)
        elif x.read_bytes() != y.read_bytes():
            differ.append(n)
    return not differ, differ


def run(stage: str, item: str, overrides: list[str], ws: Path, cache: Path, out: Path) -> dict[str, Any]:
    """One run of a stage with ``cache`` as its ``LINGTEST_CACHE``: wall and CPU seconds, the cache's counts."""
    extra = REPAIR_INPUTS if stage == "tin_repair" else []
    args = [stage, item, *(a.format(ws=ws, out=out) for a in [*INPUTS, *extra, *OUTPUTS]), *overrides]
    log, seconds = run_stage_process(args, cache, f"{stage}@{item} {overrides}")
    return {"wall_s": seconds["wall_s"], "cpu_s": seconds["cpu_s"], **cache_counts(log)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workspace", type=Path, required=True, help="a workspace after dvc repro -P")
    ap.add_argument("--cache", type=Path, required=True, help="its LINGTEST_CACHE (models, nltk_data)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "score_cache_xeon.json")
    args = ap.parse_args()
    import yaml

    stages = tin_lm_stages(yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8")))
    rows: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="lingtest-score-cache-") as tmp:
        shared = fresh_cache(args.cache)
        try:
            for stage, item in stages:
                name = stage_name(stage, item)
                folder = fresh_cache(args.cache)
                before = run(stage, item, ["tin.score_cache=false"], args.workspace, folder,
                             Path(tmp) / "before" / name)
                shutil.rmtree(folder, ignore_errors=True)
                after = run(stage, item, ["tin.score_cache=true"], args.workspace, shared, Path(tmp) / "after" / name)
                folder = fresh_cache(args.cache)
                cold = run(stage, item, ["tin.score_cache=true"], args.workspace, folder, Path(tmp) / "cold" / name)
                shutil.rmtree(folder, ignore_errors=True)
                same, differ = same_outputs(Path(tmp) / "after" / name, Path(tmp) / "cold" / name)
                rows[name] = {"before": before, "after": after, "cold": cold,
                              "saved_s": round(before["wall_s"] - after["wall_s"], 1),
                              "after_equals_cold": same, **({"differing": differ} if differ else {})}
                print(name, json.dumps(rows[name]), flush=True)
        finally:
            shutil.rmtree(shared, ignore_errors=True)
    total = {k: round(sum(r[k]["wall_s"] for r in rows.values()), 1) for k in ("before", "after", "cold")}
    result = {"benchmark": "score_cache", "workspace": str(args.workspace), "machine": machine(),
              "caches_cold": True, "order": [stage_name(*s) for s in stages],
              "note": "per stage: before (tin.score_cache=false), after (true, one cache shared by the stages in "
                      "this order, empty at the start) and cold (true, an empty cache), one after the other, "
                      "nothing else running; no parse or prediction cache",
              "stages": rows, "wall_s": total, "saved_s": round(total["before"] - total["after"], 1),
              "all_after_equal_cold": all(r["after_equals_cold"] for r in rows.values())}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
