"""``bench/bench_profile.py`` on a fake workspace: the per-stage JSON from a fake MLflow store and log, and the
throwaway copy a profiled stage runs in (only what the stage reads; nothing written into the workspace)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import bench_profile  # noqa: E402
from tests.fakes.mlflow_store import fake_sqlite_store  # noqa: E402

from lingtest.errors import InputError  # noqa: E402

T0 = 1_800_000_000.0


def fake_workspace(root: Path) -> Path:
    ws = root / "work" / "repro"
    (ws / "stages" / "crest").mkdir(parents=True)
    (ws / "src" / "lingtest").mkdir(parents=True)
    (ws / "src" / "lingtest" / "__init__.py").write_text("")
    (ws / "dvc.yaml").write_text("stages:\n  prepare:\n    cmd: x\n  parse:\n    cmd: x\n")
    (ws / "dvc.lock").write_text("schema: '2.0'\nstages:\n  parse@gum:\n    cmd: x\n    deps:\n"
                                 "    - path: data/prepared/gum\n    - path: src/lingtest/__init__.py\n"
                                 "    - path: ../shared/data/gum\n")
    (ws / "stages" / "crest" / "dvc.yaml").write_text("stages:\n  crest_generate:\n    cmd: x\n")
    (ws / "params.yaml").write_text("seed: 1\n")
    (ws / "pyproject.toml").write_text("[project]\nname='x'\n")
    (ws / "data" / "prepared" / "gum").mkdir(parents=True)
    (ws / "data" / "prepared" / "gum" / "test.jsonl").write_text("{}\n")
    (ws / "data" / "prepared" / "other").mkdir(parents=True)  # not a dependency: not copied
    (root / "work" / "shared" / "data" / "gum").mkdir(parents=True)
    fake_sqlite_store(ws / "mlruns", [
        ("old", "FINISHED", T0 - 9000, T0 - 8990, {"dvc_stage": "prepare@gum"}),  # an earlier dvc repro
        ("p", "FINISHED", T0, T0 + 2, {"dvc_stage": "prepare@gum"}),
        ("q", "FINISHED", T0 + 6, T0 + 26, {"dvc_stage": "parse@gum"}),
        ("c", "FINISHED", T0 + 30, T0 + 90, {"dvc_stage": "crest_generate"}),
    ])
    return ws


def test_records_of_the_last_repro_with_its_log(tmp_path):
    ws = fake_workspace(tmp_path)
    log = tmp_path / "repro.log"
    log.write_text("Running stage 'prepare@gum':\nRunning stage 'parse@gum':\nRunning stage 'crest_generate':\n"
                   "Running stage 'crest_report':\n\tElapsed (wall clock) time (h:mm:ss or m:ss): 1:40.00\n"
                   "\tExit status: 0\n")
    got = bench_profile.records(ws, ws / "mlruns", session=-1, max_gap_s=300, log=log)
    assert got["source"]["sessions_in_store"] == 2
    assert [(s["stage"], s["technique"], s["wall_s"], s["gap_before_s"]) for s in got["stages"]] == [
        ("prepare@gum", "pipeline", 2.0, None), ("parse@gum", "pipeline", 20.0, 4.0),
        ("crest_generate", "crest", 60.0, 4.0)]
    assert got["techniques"]["crest"]["total_s"] == 64.0
    assert got["techniques"]["pipeline"] == {"stages": 2, "wall_s": 22.0, "gap_s": 4.0, "dvc_s": None,
                                             "startup_s": None, "total_s": 26.0}
    assert got["totals"]["span_s"] == 90.0 and got["totals"]["in_stages_s"] == 82.0
    assert got["totals"]["repro_wall_s"] == 100.0 and got["totals"]["outside_stages_s"] == 10.0
    assert got["log"]["ran_without_record"] == ["crest_report"]
    first = bench_profile.records(ws, ws / "mlruns", session=0, max_gap_s=300, log=None)
    assert [s["stage"] for s in first["stages"]] == ["prepare@gum"]
    with pytest.raises(InputError, match="holds 2 dvc repro runs"):
        bench_profile.records(ws, ws / "mlruns", session=5, max_gap_s=300, log=None)


def test_main_writes_the_json_and_prints_the_slowest_stages_first(tmp_path, capsys):
    ws = fake_workspace(tmp_path)
    out = tmp_path / "profile.json"
    bench_profile.main(["--workspace", str(ws), "--cold", "--note", "shared machine", "--out", str(out)])
    data = json.loads(out.read_text())
    assert data["caches_cold"] is True and data["note"] == "shared machine"
    assert data["machine"]["cpu"] and isinstance(data["machine"]["simd"], list)
    assert "profiles" not in data
    printed = capsys.readouterr().out.splitlines()
    stage_lines = [line.split()[0] for line in printed if line.startswith(("crest_generate", "parse@", "prepare@"))]
    assert stage_lines == ["crest_generate", "parse@gum", "prepare@gum"]
    bench_profile.main(["--workspace", str(ws), "--out", str(out)])
    assert json.loads(out.read_text())["caches_cold"] is None  # not said: not known


def test_throwaway_copy_holds_the_code_and_the_stage_dependencies_only(tmp_path):
    ws = fake_workspace(tmp_path)
    before = sorted(str(p) for p in ws.rglob("*"))
    copy = bench_profile.throwaway_copy(ws, "parse@gum", tmp_path / "tmp")
    assert (copy / "data" / "prepared" / "gum" / "test.jsonl").read_text() == "{}\n"
    assert not (copy / "data" / "prepared" / "other").exists()
    assert (copy / "src" / "lingtest" / "__init__.py").is_file()
    assert (copy / "stages" / "crest" / "dvc.yaml").is_file() and (copy / "params.yaml").is_file()
    assert (tmp_path / "tmp" / "shared").resolve() == (tmp_path / "work" / "shared").resolve()  # the mirror, linked
    assert not (copy / "data" / "prepared" / "gum").is_symlink()  # copied, so the stage cannot write through
    assert sorted(str(p) for p in ws.rglob("*")) == before
    with pytest.raises(InputError, match="no dvc.lock"):
        bench_profile.dependencies(ws, "crest_generate")


def test_stage_env_drops_dvc_variables_and_sees_only_the_models(tmp_path, monkeypatch):
    ws = fake_workspace(tmp_path)
    models = tmp_path / "warm_cache"
    (models / "models" / "lm").mkdir(parents=True)
    (models / "parses").mkdir()
    monkeypatch.setenv("DVC_ROOT", "/somewhere")
    monkeypatch.delenv("LINGTEST_MIRROR", raising=False)
    env = bench_profile.stage_env(ws, tmp_path / "cache", models)
    assert "DVC_ROOT" not in env and env["LINGTEST_CACHE"] == str(tmp_path / "cache")
    assert env["PYTHONPATH"] == str(ws / "src")
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == ["models"]


def test_profiles_from_an_earlier_result_are_carried_over(tmp_path, capsys):
    ws = fake_workspace(tmp_path)
    earlier = tmp_path / "earlier.json"
    earlier.write_text(json.dumps({"note": "loaded machine", "profiles": [
        {"stage": "parse@gum", "profiler": "py-spy", "process_wall_s": 9.0, "run_wall_s": 6.0,
         "categories": {"parsing": {"seconds": 5.0, "share": 0.6, "top": [["spacy.language:Language.pipe", 5.0]]},
                                   "io": {"seconds": 1.0, "share": 0.1, "top": []}}}]}))
    out = tmp_path / "profile.json"
    bench_profile.main(["--workspace", str(ws), "--profiles-from", str(earlier), "--out", str(out)])
    data = json.loads(out.read_text())
    assert [p["stage"] for p in data["profiles"]] == ["parse@gum"]
    assert data["profiles_source"]["note"] == "loaded machine"
    printed = capsys.readouterr().out.splitlines()
    assert printed[-3:-1] == ["  parsing          5.00 s  60.0%  spacy.language:Language.pipe",
                              "  io               1.00 s  10.0%  "]


def test_a_kept_profile_file_is_sorted_again_under_todays_rules(tmp_path):
    raw = tmp_path / "pyspy.txt"
    raw.write_text("thread (7): MainThread;load (spacy/__init__.py:51) 30\n"
                   "thread (7): MainThread;read_jsonl (lingtest/data/io.py:179) 10\n")
    stale = {"stage": "parse@gum", "profiler": "py-spy", "rate_hz": 100, "process_wall_s": 9.0,
             "profile_file": str(raw), "categories": {"other": {"seconds": 0.4, "share": 1.0, "top": []}}}
    gone = {**stale, "stage": "parse@sst", "profile_file": str(tmp_path / "deleted.txt")}
    fresh, kept = bench_profile.carried_profiles({"profiles": [stale, gone]})
    assert {c: v["seconds"] for c, v in fresh["categories"].items()} == {"model_load": 0.3, "io": 0.1}
    assert fresh["process_wall_s"] == 9.0 and fresh["sampled_s"] == 0.4
    assert kept == gone


def test_stage_rates_from_the_metrics_and_the_stage_table(tmp_path):
    import json

    import yaml

    (tmp_path / "params.yaml").write_text(yaml.safe_dump({"paths": {
        "crest": {"metrics": "m/crest"}, "tin": {"metrics": "m/tin"}, "contrapro": {"metrics": "m/cp"}}}))
    for rel, data in {"m/crest/generation.json": {"selected": 100, "seconds": 10.0},
                      "m/tin/generation/sm.json": {"sources": 50, "seconds": 25.0, "system": "sm"},
                      "m/cp/lm.json": {"cases": 60, "system": "lm"}, "m/cp/other.json": {"rows": 1}}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(json.dumps(data))
    rows = [{"stage": "crest_generate", "wall_s": 20.0}, {"stage": "tin_generate@sm", "wall_s": 50.0},
            {"stage": "contrapro_score@lm", "wall_s": 12.0}]
    rates = bench_profile.stage_rates(tmp_path, rows, 170.0)
    assert rates["target_scale"] == 2.0
    crest = rates["stages"]["crest_generate"]
    assert (crest["per_s_stage"], crest["per_s_generation"], crest["target_per_s_this_cpu"]) == (5.0, 10.0, 16.0)
    assert rates["stages"]["tin_generate@sm"]["per_s_stage"] == 1.0
    cp = rates["stages"]["contrapro_score@lm"]
    assert cp["per_s_stage"] == 5.0 and cp["per_s_generation"] is None and cp["target_per_s_this_cpu"] == 20.0
    assert set(rates["stages"]) == {"crest_generate", "tin_generate@sm", "contrapro_score@lm"}
