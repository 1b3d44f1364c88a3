"""How close the demo's language-model stages run to this CPU's float32 limit: each stage is run twice from this
checkout on a workspace's inputs, once plainly (its wall seconds) and once with torch counting the floating-point
operations it does (``torch.utils.flop_counter.FlopCounterMode``, through ``bench/lm_bound.py``). From the count
and the best float32 matrix-product rate torch reaches here (``lm_bound.peak_gemm_gflops``, 2 threads):

* ``peak_gflops``: the peak, measured right before the stage's runs (this machine's speed varies over a day);
* ``achieved_gflops``: counted GFLOP / plain wall seconds - the rate the stage sustains over its whole run;
* ``share_of_peak``: that rate against the peak;
* ``floor_s``: counted GFLOP / peak - no float32 code doing the same operations can take less (everything torch
  does not count, spaCy, tokenisation, Python, is taken as free);
* ``floor_items_per_s`` against the stage's items (CREST: selected follow-ups; ContraPro and ContraCAT: scored
  cases; the baselines' fill table: filled positions).

A bound on the stage as it is specified (the same models, the same texts scored in float32), not on what a
smaller or lower-precision computation could do. Each run gets a fresh cache folder linking only the workspace
cache's ``models`` and ``nltk_data`` (no parse, score or prediction cache), tracking off, outputs in a temporary
folder. The counted run is slower (torch dispatches every operation through Python) and is not timed.

    .venv/bin/python bench/bench_stage_bound.py --workspace /work/fresh --cache /work/fresh-cache
        [--only crest_generate,...] [--keep] [--out bench/results/stage_bound_xeon.json]
        [--profile bench/results/profile_from_scratch_xeon_582c1da.json
         --baseline-profile bench/results/profile_from_scratch_xeon_f3f2c34.json]

With both profiles, ``demo`` sets the stages' floors against the demo's half-time target: how many seconds the
demo must lose, and how many the bounded stages could give back if each ran at the peak.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from bench_profile import machine  # noqa: E402
from bench_stage_speedups import fresh_cache, kept_rows, stage_bench_arguments  # noqa: E402


@dataclass(frozen=True)
class Case:
    """One stage: its arguments, the overrides that read the workspace's inputs (``{ws}``) and write the outputs
    (``{out}``), and where its item count is (a JSON file under ``{out}``, or the workspace's when it starts with
    ``{ws}/``, and a dotted key, or a JSONL file whose records are counted)."""

    name: str
    args: list[str]
    paths: list[str]
    items_file: str
    items_key: str = ""  # empty: count the records of items_file (JSONL)
    items_name: str = "items"
    extra: tuple[str, ...] = ()  # further overrides (the float32 normaliser: the bound is a float32 one)


#: the demo's German scorer computes its log-normaliser in bfloat16 where the CPU multiplies it natively; the
#: bound is on float32 products, so these runs use the float32 normaliser
F32_NORMALISER = ("systems.contrastive.lm_de_context.normaliser=float32",)

S2LCT_GENERATE = ["paths.parsed={ws}/data/parsed", "paths.prepared={ws}/data/prepared",
                  "paths.manifests={ws}/data/manifests", "paths.s2lct.suites={out}/suites",
                  "paths.s2lct.baselines={out}/baselines", "paths.s2lct.metrics={out}/metrics"]

CASES = [
    Case("crest_generate", ["crest_generate"],
         ["paths.prepared={ws}/data/prepared", "paths.crest.sources={out}/sources.jsonl",
          "paths.crest.generated={out}/generated.jsonl", "paths.crest.suite={out}/suite.jsonl",
          "paths.crest.metrics={out}/metrics"],
         "metrics/generation.json", "selected", "selected follow-ups"),
    Case("crest_baseline_fills", ["crest_baseline_fills"],
         ["paths.prepared={ws}/data/prepared", "paths.crest.baselines={out}/baselines",
          "paths.crest.baselines_metrics={out}/metrics"],
         "baselines/fills.jsonl", "", "fill records"),
    Case("contrapro_score@lm_de_context", ["contrapro_score", "lm_de_context"],
         ["paths.contrapro.cases={ws}/data/suites/contrapro.jsonl", "paths.contrapro.results={out}/results",
          "paths.contrapro.metrics={out}/metrics"],
         "results/lm_de_context.jsonl", "", "scored cases", F32_NORMALISER),
    Case("contracat_score@lm_de_context", ["contracat_score", "lm_de_context"],
         ["paths.contracat.cases={ws}/data/suites/contracat.jsonl", "paths.contracat.sets={ws}/data/suites/contracat",
          "paths.contracat.results={out}/results", "paths.contracat.metrics={out}/metrics"],
         "results/lm_de_context.jsonl", "", "scored cases", F32_NORMALISER),
    Case("tin_generate@spacy_sm", ["tin_generate", "spacy_sm"],
         ["paths.tin.sources={ws}/data/tin/conll2003/sources.jsonl",
          "paths.tin.phrase_index={ws}/data/tin/phrase_index.npz", "paths.tin.ner_model={ws}/models/tin/minilm_ner",
          "paths.tin.generated={out}/generated"],
         "{ws}/data/tin/conll2003/sources.jsonl", "", "sources"),
    Case("s2lct_generate@sst", ["s2lct_generate", "sst"], S2LCT_GENERATE, ""),
    Case("s2lct_generate@hatexplain", ["s2lct_generate", "hatexplain"], S2LCT_GENERATE, ""),
    # model training and neural scoring: torch-bound too, with no item rate to compare
    Case("coref_train@clean", ["coref_train", "clean"],
         ["paths.parsed={ws}/data/parsed", "paths.adversarial.sets={ws}/data/adversarial/ontogum",
          "paths.coref_training.models={out}/models", "paths.coref_training.training={out}/training"], ""),
    Case("train_classifier@minilm_sst2", ["train_classifier", "minilm_sst2"],
         ["paths.prepared={ws}/data/prepared", "paths.s2lct.classifiers={out}/classifiers",
          "paths.s2lct.training={out}/training"], ""),
    Case("adversarial_score@neural_clean", ["adversarial_score", "neural_clean"],
         ["paths.adversarial.suite={ws}/data/suites/adversarial/ontogum.jsonl",
          "systems.coref.neural_clean.path={ws}/models/coref/ontogum/clean", "paths.adversarial.metrics={out}/metrics",
          "paths.adversarial.results={out}/results"], ""),
]

#: run in the child: the stage's entry point, under torch's FLOP counter when asked, the count written to a file
CHILD = """
import json, sys
sys.path.insert(0, {bench!r})
from lingtest.pipeline.stage import main
def run():
    try:
        main({argv!r})
    except SystemExit as exc:
        if exc.code not in (None, 0):
            raise
if {count!r}:
    from lm_bound import count_gflop
    _, gflop = count_gflop(run)
    open({count_file!r}, "w").write(json.dumps({{"gflop": gflop}}))
else:
    run()
"""


def run(case: Case, ws: Path, cache: Path, out: Path, count: bool) -> dict[str, Any]:
    """One run of the stage; with ``count``, the GFLOP torch counted, else the wall seconds."""
    argv = [a.format(ws=ws, out=out) for a in [*case.args, *case.paths, *case.extra]] + ["systems.cache=false",
                                                                           "tracking.enabled=false"]
    folder = fresh_cache(cache)
    count_file = out / "gflop.json"
    out.mkdir(parents=True, exist_ok=True)
    code = CHILD.format(bench=str(ROOT / "bench"), argv=argv, count=count, count_file=str(count_file))
    env = {**os.environ, "LINGTEST_CACHE": str(folder), "PYTHONPATH": str(ROOT / "src"), "LINGTEST_NO_PROGRESS": "1"}
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    shutil.rmtree(folder, ignore_errors=True)
    if proc.returncode != 0:
        raise SystemExit(f"{case.name} (count={count}): exit {proc.returncode}\n{proc.stderr[-3000:]}")
    if count:
        return json.loads(count_file.read_text(encoding="utf-8"))
    return {"wall_s": round(wall, 1)}


def items(case: Case, out: Path, ws: Path) -> int | None:
    """The stage's item count from its outputs under ``out`` (or its inputs in the workspace ``ws``); None when
    the case names no items."""
    if not case.items_file:
        return None
    path = Path(case.items_file.format(ws=ws)) if case.items_file.startswith("{ws}/") else out / case.items_file
    if not case.items_key:  # a JSONL file: its records, the header line apart
        with open(path, encoding="utf-8") as fh:
            return sum(1 for line in fh if line.strip() and "__schema__" not in json.loads(line))
    value: Any = json.loads(path.read_text(encoding="utf-8"))
    for part in case.items_key.split("."):
        value = value[part]
    return int(value)


def summarize(gflop: float, wall_s: float, n_items: int | None, peak: float) -> dict[str, Any]:
    """The figures of one stage from its counted GFLOP, its plain wall seconds, its items (None: no item rate)
    and the peak rate."""
    floor = gflop / peak
    rates = n_items is not None and floor > 0
    return {"gflop": round(gflop, 1), "wall_s": wall_s, "items": n_items,
            "achieved_gflops": round(gflop / wall_s, 1), "share_of_peak": round(gflop / wall_s / peak, 3),
            "floor_s": round(floor, 1), "floor_items_per_s": round(n_items / floor, 2) if rates else None,
            "items_per_s": round(n_items / wall_s, 2) if rates else None}


def totals(rows: dict[str, dict[str, Any]]) -> dict[str, float]:
    """The stages' wall seconds, their floors, and the most that running every one at the peak could save."""
    wall = sum(r["wall_s"] for r in rows.values())
    floor = sum(r["floor_s"] for r in rows.values())
    return {"wall_s": round(wall, 1), "floor_s": round(floor, 1), "most_saved_s": round(wall - floor, 1)}


def against_half(rows: dict[str, dict[str, Any]], profile: dict[str, Any], baseline: dict[str, Any]) -> dict[str, Any]:
    """The demo's half-time target from two from-scratch profiles of one machine (``bench_profile.py``): the
    seconds the demo must lose to take half the baseline's span, beside what the bounded stages could give back if
    each ran at the peak (their wall seconds in ``profile`` minus their counted GFLOP at the profile's own measured
    peak: a same-day figure)."""
    walls = profile["stage_wall_s"]
    peak = float(profile["rates"]["peak_gemm_gflops"])  # the profile's day: its own measured peak
    saved = sum(max(walls[name] - r["gflop"] / peak, 0.0) for name, r in rows.items() if name in walls)
    half = baseline["totals"]["span_s"] / 2
    return {"span_s": profile["totals"]["span_s"], "baseline_span_s": baseline["totals"]["span_s"],
            "profile_peak_gemm_gflops": peak,
            "half_s": round(half, 1), "needed_s": round(profile["totals"]["span_s"] - half, 1),
            "stages_in_profile": sorted(n for n in rows if n in walls),
            "most_saved_at_peak_s": round(saved, 1),
            "span_if_bounded_stages_at_peak_s": round(profile["totals"]["span_s"] - saved, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    stage_bench_arguments(ap, ROOT / "bench" / "results" / "stage_bound_xeon.json")
    ap.add_argument("--profile", type=Path, help="a from-scratch profile of this machine (bench_profile.py)")
    ap.add_argument("--baseline-profile", type=Path, help="the profile the half-time target halves")
    args = ap.parse_args()
    from lm_bound import peak_gemm_gflops

    chosen = [c for c in CASES if not args.only or c.name in args.only.split(",")]
    rows = kept_rows(args.out, args.keep, {c.name for c in chosen})
    for case in chosen:
        peak = peak_gemm_gflops(2)
        with tempfile.TemporaryDirectory(prefix="lingtest-bound-") as tmp:
            plain = run(case, args.workspace, args.cache, Path(tmp) / "plain", count=False)
            counted = run(case, args.workspace, args.cache, Path(tmp) / "counted", count=True)
            row = {"stage": case.name, "items_are": case.items_name, "overrides": list(case.extra),
                   "peak_gflops": round(peak, 1),
                   **summarize(counted["gflop"], plain["wall_s"], items(case, Path(tmp) / "plain", args.workspace),
                                  peak)}
        rows[case.name] = row
        print(json.dumps(row), flush=True)
    result = {"benchmark": "stage_bound", "workspace": str(args.workspace), "machine": machine(),
              "peak_gemm_gflops_2_threads": max(r["peak_gflops"] for r in rows.values()), "caches_cold": True,
              "note": "each stage run plainly (timed) and then under torch's FLOP counter (counted), nothing else "
                      "running; no parse, score or prediction cache", "stages": rows, "totals": totals(rows)}
    if args.profile and args.baseline_profile:
        result["demo"] = against_half(rows, json.loads(args.profile.read_text(encoding="utf-8")),
                                      json.loads(args.baseline_profile.read_text(encoding="utf-8")))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
