"""``bench/bench_stage_speedups.py``: comparing a stage's outputs before and after a speed-up."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import bench_stage_speedups as ss  # noqa: E402


def test_same_tree_names_every_file_that_differs_or_is_missing(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for root in (a, b):
        (root / "sets" / "swap").mkdir(parents=True)
        (root / "sets" / "swap" / "test.jsonl").write_text("same\n")
    assert ss.same_tree(a, b) == (True, [])
    (b / "sets" / "swap" / "test.jsonl").write_text("other\n")
    (a / "only_a.json").write_text("{}")
    assert ss.same_tree(a, b) == (False, ["only_a.json", "sets/swap/test.jsonl"])


def test_verdicts_read_result_records_and_skip_the_header(tmp_path):
    path = tmp_path / "r.jsonl"
    rows = [{"__schema__": 1, "kind": "result"}, {"case_id": "x", "passed": True}, {"case_id": "y", "passed": False}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert ss.verdicts(path) == {"x": True, "y": False}


def test_every_case_turns_its_speed_up_off_by_an_override_of_a_configured_key():
    from omegaconf import OmegaConf

    conf = {name: OmegaConf.load(ROOT / "conf" / name / "default.yaml")
            for name in ("adversarial", "contrapro", "systems")}
    cfg = OmegaConf.create(conf)
    for case in ss.CASES:
        for override in case.before:
            key, _, value = override.partition("=")
            assert OmegaConf.select(cfg, key, default="missing") != "missing", (case.name, key)
            assert str(OmegaConf.select(cfg, key)) != value or value == "null", (case.name, override)


def test_kept_rows_keep_only_the_cases_not_run_now(tmp_path):
    out = tmp_path / "r.json"
    assert ss.kept_rows(out, True, {"a"}) == {}  # no earlier file
    out.write_text(json.dumps({"stages": {"a": {"wall_s": 1}, "b": {"wall_s": 2}}}))
    assert ss.kept_rows(out, True, {"a"}) == {"b": {"wall_s": 2}}
    assert ss.kept_rows(out, False, {"a"}) == {}
