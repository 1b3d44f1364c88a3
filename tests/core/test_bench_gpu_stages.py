"""``bench/bench_gpu_stages.py``: reading what the GPU run recorded and comparing its scores with the CPU's."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import bench_gpu_stages as bg  # noqa: E402


def test_process_seconds_reads_each_stage_and_marks_failures():
    text = ("convert_lm rc=0 process_ms=69799\ncontrapro_score_lm_de_context rc=0 process_ms=18565\n"
            "crest_generate rc=1 process_ms=10\n")
    got = bg.process_seconds(text)
    assert got["convert_lm"] == 69.799
    assert got["contrapro_score_lm_de_context"] == 18.565
    assert math.isnan(got["crest_generate"])


def test_score_agreement_counts_changed_choices_and_differences():
    cpu = {"a": [-1.0, -2.0, -3.0], "b": [-5.0, -4.0], "c": [-1.0, -1.5], "only_cpu": [0.0, -1.0]}
    gpu = {"a": [-1.0, -2.0, -3.00001], "b": [-3.0, -4.0], "c": [-1.0, -1.5]}
    got = bg.score_agreement(gpu, cpu)
    assert got["cases"] == 3 and got["same_choice"] == 2 and got["changed_choice"] == ["b"]
    assert got["max_abs_logprob_diff"] == 2.0 and got["over_0_01_nats"] == 1


def test_journal_runs_and_machine(tmp_path: Path):
    j = tmp_path / "mlruns" / "journal"
    j.mkdir(parents=True)
    (j / "x.json").write_text(json.dumps({"run_name": "crest_generate", "status": "FINISHED", "start_time": 1000,
                                          "end_time": 58700, "metrics": [["crest.seconds", 56.54, 1, 0],
                                                                         ["crest.generated", 1078, 1, 0]]}))
    (j / "y.json").write_text(json.dumps({"run_name": "contracat_score@lm_de_context", "status": "RUNNING",
                                          "start_time": 1000, "end_time": None, "metrics": []}))
    runs = bg.journal_runs(tmp_path)
    assert runs["crest_generate"] == {"status": "FINISHED", "timed": {"crest.seconds": 56.54}, "wall_s": 57.7}
    assert runs["contracat_score@lm_de_context"]["wall_s"] is None
    m = bg.machine("setup_ms 6931\nNVIDIA H200, 143771 MiB, 580.159.04\nCPU(s): 16\nModel name:   Intel Xeon\n"
                   "Flags: fpu avx2 avx512f amx_tile sse\ntorch 2.11.0+cu130 NVIDIA H200\n")
    assert m["gpu"] == "NVIDIA H200" and m["gpu_memory"] == "143771 MiB" and m["driver"] == "580.159.04"
    assert m["host_cpu"] == "Intel Xeon" and m["host_cpus"] == "16" and m["payload_setup_s"] == 6.931
    assert m["host_simd"] == ["amx_tile", "avx2", "avx512f"]
