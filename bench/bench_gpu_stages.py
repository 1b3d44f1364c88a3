"""The demo's Gemma stages on a GPU: what `bench/gpu/run_stages.sh` recorded there, beside the same
stages of a from-scratch run on a CPU, and how far the GPU's outputs are from the CPU's.

    .venv/bin/python bench/bench_gpu_stages.py --outputs OUTPUTS.tgz --cpu-workspace WS \
        [--cpu-profile bench/results/profile_from_scratch_xeon.json] [--out bench/results/gpu_stages.json]

How the outputs come about (a GPU machine with torch and no network, reached by the device tool):
``bash bench/gpu/pack_stages.sh WS CACHE .gpu`` packs the wheels, the GGUF, the CREST vector index,
WordNet and the stages' inputs into parts of 60 MB; each call carries one part, the last runs
``bash bench/gpu/run_stages.sh .gpu``, which runs ``convert_lm``, ``crest_generate``,
``contrapro_score@lm_de_context``, ``crest_baseline_fills`` and ``contracat_score@lm_de_context``
from cold caches (``resources.device: auto`` puts the models on CUDA, float32) and returns
``outputs.tgz``. Read here: each stage's run from its MLflow journal record (wall seconds and the
stage's own timed metrics) and its process seconds; the CPU figures are the same stages' runs in
``--cpu-profile``. Outputs: the converted model's sha256 against the CPU workspace's, the ContraPro
and ContraCAT scores case by case (same best candidate, largest log-probability difference), and
the CREST suite against the newest release and the CPU workspace (``bench_cross_cpu.compare_cases``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import sys
import tarfile
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from bench_cross_cpu import cases_by_id, compare_cases, compare_release, newest_releases  # noqa: E402

STAGES = ("convert_lm", "crest_generate", "contrapro_score@lm_de_context", "crest_baseline_fills",
          "contracat_score@lm_de_context")


def journal_runs(root: Path) -> dict[str, dict[str, Any]]:
    """Run name -> {wall_s, status, timed metrics} from the journal records under ``root``."""
    out: dict[str, dict[str, Any]] = {}
    for f in sorted((root / "mlruns" / "journal").glob("*.json")):
        rec = json.loads(f.read_text(encoding="utf-8"))
        metrics = {m[0]: m[1] for m in rec.get("metrics", [])}
        timed = {k: round(float(v), 3) for k, v in metrics.items() if "seconds" in k}
        end = rec.get("end_time")
        out[rec["run_name"]] = {"status": rec["status"], "timed": timed,
                                "wall_s": round((end - rec["start_time"]) / 1000, 3) if end else None}
    return out


def process_seconds(text: str) -> dict[str, float]:
    """``stages.txt`` of run_stages.sh: ``<stage> rc=<rc> process_ms=<ms>`` per line (the stage's DVC name;
    ``_`` for its ``@`` in the first form of the script)."""
    return {m.group(1): int(m.group(3)) / 1000 if m.group(2) == "0" else float("nan")
            for m in re.finditer(r"^(\S+) rc=(\d+) process_ms=(\d+)$", text, flags=re.M)}


def machine(text: str) -> dict[str, Any]:
    lines = text.splitlines()
    gpu = next((ln for ln in lines if ln.count(",") == 2 and "MiB" in ln), "")
    name, memory, driver = (x.strip() for x in gpu.split(",")) if gpu else ("", "", "")
    cpu = next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("Model name")), None)
    cores = next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("CPU(s)")), None)
    flags = next((ln.split(":", 1)[1].split() for ln in lines if ln.startswith("Flags")), [])
    soft = next((ln for ln in lines if ln.startswith("torch ")), "")
    setup = next((int(ln.split()[1]) / 1000 for ln in lines if ln.startswith("setup_ms")), None)
    return {"gpu": name, "gpu_memory": memory, "driver": driver, "host_cpu": cpu, "host_cpus": cores,
            "host_simd": sorted(f for f in flags if f.startswith(("avx", "amx", "fma"))),
            "software": soft, "payload_setup_s": setup}


def score_agreement(gpu: Mapping[str, list[float]], cpu: Mapping[str, list[float]]) -> dict[str, Any]:
    """Same best candidate, and the absolute log-probability differences, over the common cases."""
    common = sorted(set(gpu) & set(cpu))
    diffs, same, changed = [], 0, []
    for k in common:
        a, b = gpu[k], cpu[k]
        diffs.append(max(abs(x - y) for x, y in zip(a, b, strict=True)))
        if max(range(len(a)), key=a.__getitem__) == max(range(len(b)), key=b.__getitem__):
            same += 1
        else:
            changed.append(k)
    return {"cases": len(common), "same_choice": same, "changed_choice": changed,
            "max_abs_logprob_diff": round(max(diffs), 4),
            "median_abs_logprob_diff": float(f"{statistics.median(diffs):.3g}"),
            "over_0_01_nats": sum(d > 0.01 for d in diffs)}


def results_scores(path: Path) -> dict[str, list[float]]:
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if "case_id" in rec:
            out[rec["case_id"]] = [float(x) for x in rec["predictions"]["source"]]
    return out


def sha256(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def summarise(gpu_root: Path, cpu_ws: Path, cpu_cache: Path | None, cpu_profile: Mapping[str, Any]) -> dict[str, Any]:
    logs = next(gpu_root.rglob("stages.txt")).parent
    runs = journal_runs(gpu_root)
    proc = process_seconds((logs / "stages.txt").read_text(encoding="utf-8"))
    cpu_rows = {r["stage"]: r for r in cpu_profile["stages"]}
    stages = []
    for name in STAGES:
        run, row = runs.get(name, {}), cpu_rows.get(name, {})
        gpu_s, cpu_s = run.get("wall_s"), row.get("wall_s")
        stages.append({"stage": name, "status": run.get("status"), "gpu_wall_s": gpu_s,
                       "gpu_process_s": proc.get(name, proc.get(name.replace("@", "_"))),
                       "gpu_timed": run.get("timed", {}),
                       "cpu_wall_s": cpu_s, "cpu_timed": row.get("timed", {}),
                       "speedup": round(cpu_s / gpu_s, 2) if gpu_s and cpu_s and name != "convert_lm" else None})
    outputs: dict[str, Any] = {}
    gpu_sha = (logs / "sha256.txt").read_text(encoding="utf-8").split()[0]
    if cpu_cache is not None:
        cpu_model = cpu_cache / "models" / "gemma-3-270m" / "model.safetensors"
        outputs["converted_model_sha256_same_as_cpu"] = gpu_sha == sha256(cpu_model)
    for t in ("contrapro", "contracat"):
        rel = Path("data/results") / t / "lm_de_context.jsonl"
        outputs[t] = score_agreement(results_scores(gpu_root / rel), results_scores(cpu_ws / rel))
    suite = Path("data/suites/crest/ontogum.jsonl")
    release = next(r for r in newest_releases(ROOT) if r.parent.name == "crest-ontogum")
    outputs["crest_suite_vs_release"] = compare_release(release, gpu_root)
    outputs["crest_suite_vs_cpu_workspace"] = compare_cases(
        cases_by_id((cpu_ws / suite).read_text(encoding="utf-8").splitlines()),
        cases_by_id((gpu_root / suite).read_text(encoding="utf-8").splitlines()))
    gpu_gen = json.loads((gpu_root / "metrics/crest/ontogum/generation.json").read_text(encoding="utf-8"))
    cpu_gen = json.loads((cpu_ws / "metrics/crest/ontogum/generation.json").read_text(encoding="utf-8"))
    counts = ("sources", "generated", "selected", "lm_texts_scored", "parser_calls")
    outputs["crest_generation_counts"] = {k: {"gpu": gpu_gen.get(k), "cpu": cpu_gen.get(k)} for k in counts}
    gpu_total = sum(s["gpu_wall_s"] or 0 for s in stages if s["stage"] != "convert_lm")
    cpu_total = sum(s["cpu_wall_s"] or 0 for s in stages if s["stage"] != "convert_lm")
    return {"benchmark": "gpu_stages", "machine": machine((logs / "machine.txt").read_text(encoding="utf-8")),
            "caches_cold": True, "cpu_reference": {"profile": cpu_profile.get("machine", {}).get("cpu"),
                                                   "cores": cpu_profile.get("machine", {}).get("cores")},
            "stages": stages,
            "totals": {"gpu_wall_s_without_conversion": round(gpu_total, 1),
                       "cpu_wall_s_without_conversion": round(cpu_total, 1),
                       "speedup": round(cpu_total / gpu_total, 2) if gpu_total else None},
            "outputs": outputs}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--outputs", type=Path, required=True, help="outputs.tgz of run_stages.sh (or its unpacked folder)")
    ap.add_argument("--cpu-workspace", type=Path, required=True, help="a CPU workspace after dvc repro -P")
    ap.add_argument("--cpu-cache", type=Path, default=None,
                    help="its LINGTEST_CACHE (for the converted model's sha256)")
    ap.add_argument("--cpu-profile", type=Path, default=ROOT / "bench/results/profile_from_scratch_xeon.json")
    ap.add_argument("--note", default="")
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/gpu_stages.json")
    args = ap.parse_args(argv)
    profile = json.loads(args.cpu_profile.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        root = args.outputs
        if root.is_file():
            with tarfile.open(root) as tar:
                tar.extractall(tmp, filter="data")
            root = Path(tmp)
        result = summarise(root, args.cpu_workspace, args.cpu_cache, profile)
    raw = list(argv if argv is not None else sys.argv[1:])
    given = " ".join(a for a, prev in zip(raw, ["", *raw[:-1]], strict=True) if "--note" not in (a, prev))
    result["command"] = ("bash bench/gpu/pack_stages.sh WS CACHE .gpu; on the GPU machine: "
                         f"bash bench/gpu/run_stages.sh .gpu; then bench/bench_gpu_stages.py {given}")
    prof = args.cpu_profile.resolve()
    result["cpu_reference"]["profile_file"] = str(prof.relative_to(ROOT) if prof.is_relative_to(ROOT) else prof)
    if args.note:
        result["note"] = args.note
    args.out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    for s in result["stages"]:
        print(f"{s['stage']:32} gpu {s['gpu_wall_s']!s:>8} s   cpu {s['cpu_wall_s']!s:>8} s   x{s['speedup']}")
    print(json.dumps(result["outputs"], indent=1)[:1500])
    print(f"wrote {args.out}")
    return result


if __name__ == "__main__":
    main()
