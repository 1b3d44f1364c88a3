"""Before and after, on one machine and one day: the stages that the demo's per-stage speed-ups touch, each run
twice from this checkout with a configuration override that turns its speed-up off ("before") and with the
configuration as committed ("after"), on the inputs of a workspace that has run the pipeline.

The speed-ups:

* ``adversarial_generate``: its (split, set) units perturbed in 2 forked workers (``adversarial.workers``);
* ``contrapro_generate``: the attacks over 2 consecutive runs of the examples in forked workers
  (``contrapro.workers``);
* the sieve, VADER and TextBlob predicting their batches in 2 forked workers (``systems.<task>.<name>.workers``;
  the sieve also in batches of 8 documents);
* the MiniLM classifiers scoring in bfloat16 where the CPU multiplies it natively
  (``systems.classification.<name>.dtype: bfloat16_if_native``);
* the German-context LM scorer computing its head's log-normaliser in bfloat16 where the CPU multiplies it
  natively (``systems.contrastive.lm_de_context.normaliser: bfloat16_if_native``), for ContraPro and ContraCAT.

Each run gets a fresh cache folder that links only the workspace cache's ``models`` and ``nltk_data`` (no parse
or prediction cache), tracking off, and its outputs in a temporary folder. Per stage: wall and CPU seconds
(user + system, children included) before and after, and whether the outputs are byte-identical (the worker
speed-ups must be); for the bfloat16 classifiers, which are not, the share of test cases whose verdict
(passed or failed) is the same. The machine (CPU model, SIMD flags) is recorded.

    .venv/bin/python bench/bench_stage_speedups.py --workspace /work/t4 --cache /work/t4-cache
        [--only adversarial_generate,...] [--keep] [--out bench/results/stage_speedups_xeon.json]
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from bench_profile import machine  # noqa: E402


@dataclass(frozen=True)
class Case:
    """One stage run before and after: its arguments, the overrides reading the workspace's inputs (``{ws}``)
    and writing the outputs (``{out}``), the override that turns the speed-up off, and how outputs compare."""

    name: str
    args: list[str]
    paths: list[str]
    before: list[str]
    compare: str = "identical"  # identical | verdicts (the share of result records with the same verdict)
    results: str = ""  # the result file (under {out}) compared by verdict
    notes: str = ""
    extra: list[str] = field(default_factory=list)


S2LCT_IN = ["paths.s2lct.suites={ws}/data/suites/s2lct", "paths.s2lct.baselines={ws}/data/s2lct/baselines",
            "paths.s2lct.metrics={out}/metrics", "paths.s2lct.results={out}/results"]
ADV_SUITE = ["paths.adversarial.suite={ws}/data/suites/adversarial/ontogum.jsonl",
             "paths.adversarial.metrics={out}/metrics", "paths.adversarial.results={out}/results"]

CASES = [
    Case("adversarial_generate", ["adversarial_generate"],
         ["paths.parsed={ws}/data/parsed", "paths.adversarial.sets={out}/sets",
          "paths.adversarial.suite={out}/suite.jsonl"],
         ["adversarial.workers=1"]),
    Case("adversarial_score@sieve", ["adversarial_score", "sieve"], ADV_SUITE,
         ["systems.coref.sieve.workers=1", "systems.coref.sieve.batch_size=null"]),
    Case("contrapro_generate", ["contrapro_generate"],
         ["paths.prepared={ws}/data/prepared", "paths.contrapro.examples={out}/examples.jsonl",
          "paths.contrapro.attacked={out}/attacked", "paths.contrapro.suites={out}/suites",
          "paths.contrapro.cases={out}/cases.jsonl", "paths.contrapro.review={out}/review.tsv"],
         ["contrapro.workers=1"]),
    Case("s2lct_evaluate@textblob", ["s2lct_evaluate", "textblob"], S2LCT_IN,
         ["systems.classification.textblob.workers=1"]),
    Case("s2lct_evaluate@vader", ["s2lct_evaluate", "vader"], S2LCT_IN,
         ["systems.classification.vader.workers=1"]),
    Case("s2lct_evaluate@minilm_sst2", ["s2lct_evaluate", "minilm_sst2"], S2LCT_IN,
         ["systems.classification.minilm_sst2.dtype=float32"], compare="verdicts", results="results/minilm_sst2.jsonl",
         extra=["systems.classification.minilm_sst2.path={ws}/models/s2lct/minilm_sst2"]),
    Case("s2lct_evaluate@minilm_hatexplain", ["s2lct_evaluate", "minilm_hatexplain"], S2LCT_IN,
         ["systems.classification.minilm_hatexplain.dtype=float32"], compare="verdicts",
         results="results/minilm_hatexplain.jsonl",
         extra=["systems.classification.minilm_hatexplain.path={ws}/models/s2lct/minilm_hatexplain"]),
    Case("contrapro_score@lm_de_context", ["contrapro_score", "lm_de_context"],
         ["paths.contrapro.cases={ws}/data/suites/contrapro.jsonl", "paths.contrapro.results={out}/results",
          "paths.contrapro.metrics={out}/metrics"],
         ["systems.contrastive.lm_de_context.normaliser=float32"], compare="verdicts",
         results="results/lm_de_context.jsonl"),
    Case("contracat_score@lm_de_context", ["contracat_score", "lm_de_context"],
         ["paths.contracat.cases={ws}/data/suites/contracat.jsonl", "paths.contracat.sets={ws}/data/suites/contracat",
          "paths.contracat.results={out}/results", "paths.contracat.metrics={out}/metrics"],
         ["systems.contrastive.lm_de_context.normaliser=float32"], compare="verdicts",
         results="results/lm_de_context.jsonl"),
]


def stage_bench_arguments(ap: argparse.ArgumentParser, out: Path) -> None:
    """The options of a bench that runs pipeline stages on a workspace's inputs: the workspace, its cache, the
    cases to run, the result file and whether to keep the rows of the cases not run now."""
    ap.add_argument("--workspace", type=Path, required=True, help="a workspace after dvc repro -P")
    ap.add_argument("--cache", type=Path, required=True, help="its LINGTEST_CACHE (models, nltk_data)")
    ap.add_argument("--only", default="", help="comma-separated case names (default: all)")
    ap.add_argument("--out", type=Path, default=out)
    ap.add_argument("--keep", action="store_true", help="keep the rows of --out for the cases not run now")


def kept_rows(out: Path, keep: bool, running: set[str]) -> dict[str, Any]:
    """With ``keep``, the rows (``stages``) of an earlier ``out`` for the cases not in ``running``; else none."""
    if not (keep and out.exists()):
        return {}
    return {k: v for k, v in json.loads(out.read_text(encoding="utf-8"))["stages"].items() if k not in running}


def fresh_cache(cache: Path) -> Path:
    """A temporary cache folder linking the workspace cache's models and NLTK data only."""
    folder = Path(tempfile.mkdtemp(prefix="lingtest-stage-cache-"))
    for name in ("models", "nltk_data"):
        if (cache / name).exists():
            (folder / name).symlink_to(cache / name)
    return folder


def run_stage_process(args: list[str], cache: Path, what: str) -> tuple[str, dict[str, Any]]:
    """``python -m lingtest.pipeline.stage ARGS`` from this checkout with ``cache`` as its ``LINGTEST_CACHE``, no
    prediction cache and tracking off: its log (stderr) and its wall and CPU seconds (its process and children).
    Exits naming ``what`` when the stage fails."""
    env = {**os.environ, "LINGTEST_CACHE": str(cache), "PYTHONPATH": str(ROOT / "src"), "LINGTEST_NO_PROGRESS": "1"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "lingtest.pipeline.stage", *args, "systems.cache=false",
                           "tracking.enabled=false"], cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{what}: exit {proc.returncode}\n{proc.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return proc.stderr, {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "cores_busy": round(cpu / wall, 2)}


def run(case: Case, overrides: list[str], ws: Path, cache: Path, out: Path) -> dict[str, Any]:
    """One run of the stage with a fresh cache folder: wall and CPU seconds (its process and children)."""
    args = [a.format(ws=ws, out=out) for a in [*case.args, *case.paths, *overrides, *case.extra]]
    folder = fresh_cache(cache)
    try:
        return run_stage_process(args, folder, f"{case.name} {overrides}")[1]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def same_tree(a: Path, b: Path) -> tuple[bool, list[str]]:
    """Whether two output folders hold the same files with the same bytes (and which differ)."""
    names = sorted({p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file()}
                   | {p.relative_to(b).as_posix() for p in b.rglob("*") if p.is_file()})
    differ = [n for n in names if not ((a / n).is_file() and (b / n).is_file()
                                       and filecmp.cmp(a / n, b / n, shallow=False))]
    return not differ, differ


def verdicts(path: Path) -> dict[str, bool]:
    out = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            d = json.loads(line)
            if "case_id" in d:
                out[d["case_id"]] = bool(d["passed"])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    stage_bench_arguments(ap, ROOT / "bench" / "results" / "stage_speedups_xeon.json")
    args = ap.parse_args()
    chosen = [c for c in CASES if not args.only or c.name in args.only.split(",")]
    rows = kept_rows(args.out, args.keep, {c.name for c in chosen})
    for case in chosen:
        with tempfile.TemporaryDirectory(prefix="lingtest-speedup-") as tmp:
            b_out, a_out = Path(tmp) / "before", Path(tmp) / "after"
            before = run(case, case.before, args.workspace, args.cache, b_out)
            after = run(case, [], args.workspace, args.cache, a_out)
            row: dict[str, Any] = {"stage": case.name, "before_overrides": case.before, "before": before,
                                   "after": after, "saved_s": round(before["wall_s"] - after["wall_s"], 1),
                                   "speedup": round(before["wall_s"] / after["wall_s"], 2)}
            if case.compare == "identical":
                same, differ = same_tree(b_out, a_out)
                row["outputs_identical"] = same
                if differ:
                    row["outputs_differing"] = differ
            else:
                vb, va = verdicts(b_out / case.results), verdicts(a_out / case.results)
                common = vb.keys() & va.keys()
                row["cases"] = len(common)
                row["same_verdict"] = sum(vb[k] == va[k] for k in common)
                row["same_verdict_share"] = round(row["same_verdict"] / max(len(common), 1), 5)
                row["passed_before"] = sum(vb.values())
                row["passed_after"] = sum(va.values())
        rows[case.name] = row
        print(json.dumps(row), flush=True)
    result = {"benchmark": "stage_speedups", "workspace": str(args.workspace), "machine": machine(),
              "caches_cold": True, "note": "each stage run once before and once after, one after the other, "
              "nothing else running; no parse or prediction cache", "stages": rows,
              "saved_s": round(sum(r["saved_s"] for r in rows.values()), 1)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
