"""``bench/bench_stage_bound.py``: a stage's counted operations against this CPU's float32 limit."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import bench_stage_bound as sb  # noqa: E402


def test_summarize_gives_the_rate_its_share_of_peak_and_the_floor():
    row = sb.summarize(gflop=6000.0, wall_s=60.0, n_items=300, peak=200.0)
    assert row["achieved_gflops"] == 100.0
    assert row["share_of_peak"] == 0.5
    assert row["floor_s"] == 30.0  # 6,000 GFLOP at 200 GFLOP/s
    assert row["floor_items_per_s"] == 10.0
    assert row["items_per_s"] == 5.0
    no_items = sb.summarize(gflop=6000.0, wall_s=60.0, n_items=None, peak=200.0)
    assert no_items["floor_s"] == 30.0 and no_items["floor_items_per_s"] is None and no_items["items_per_s"] is None


def test_items_counts_jsonl_records_without_the_header_or_reads_a_key(tmp_path):
    rows = [{"__schema__": 1, "kind": "result"}, {"case_id": "a"}, {"case_id": "b"}]
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "x.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows) + "\n")
    assert sb.items(sb.Case("s", [], [], "results/x.jsonl"), tmp_path, tmp_path / "ws") == 2
    assert sb.items(sb.Case("s", [], [], "{ws}/x.jsonl"), tmp_path / "out", tmp_path / "results") == 2
    assert sb.items(sb.Case("s", [], [], ""), tmp_path, tmp_path) is None
    (tmp_path / "metrics").mkdir()
    (tmp_path / "metrics" / "generation.json").write_text(json.dumps({"stats": {"selected": 7}, "selected": 5}))
    assert sb.items(sb.Case("s", [], [], "metrics/generation.json", "selected"), tmp_path, tmp_path) == 5
    assert sb.items(sb.Case("s", [], [], "metrics/generation.json", "stats.selected"), tmp_path, tmp_path) == 7


@pytest.mark.parametrize("case", sb.CASES, ids=lambda c: c.name)
def test_every_case_overrides_configured_keys_and_names_a_known_stage(case):
    from omegaconf import OmegaConf

    from lingtest.pipeline.stage import TARGETS

    assert case.args[0] in TARGETS
    cfg = OmegaConf.load(ROOT / "params.yaml")
    for override in [*case.paths, *case.extra]:
        key = override.partition("=")[0]
        assert OmegaConf.select(cfg, key, default="missing") != "missing", (case.name, key)
    # the items are read from the workspace's inputs or from an output the case writes under {out}
    first = case.items_file.split("/")[0]
    assert first in ("", "{ws}") or any("{out}/" + first in p for p in case.paths), case.name


def test_totals_and_the_half_time_target_from_two_profiles():
    rows = {"crest_generate": sb.summarize(6000.0, 60.0, 300, 200.0),   # floor 30 s
            "contrapro_score@x": sb.summarize(2000.0, 20.0, 100, 200.0),  # floor 10 s
            "not_in_profile": sb.summarize(200.0, 5.0, 10, 200.0)}        # floor 1 s
    assert sb.totals(rows) == {"wall_s": 85.0, "floor_s": 41.0, "most_saved_s": 44.0}
    profile = {"totals": {"span_s": 1000.0}, "rates": {"peak_gemm_gflops": 200.0},
               "stage_wall_s": {"crest_generate": 70.0, "contrapro_score@x": 8.0}}
    baseline = {"totals": {"span_s": 1200.0}}
    demo = sb.against_half(rows, profile, baseline)
    assert demo["half_s"] == 600.0 and demo["needed_s"] == 400.0
    # the profile's own wall seconds count (70 - 30), and a stage already under its floor there gives nothing back
    assert demo["most_saved_at_peak_s"] == 40.0
    assert demo["span_if_bounded_stages_at_peak_s"] == 960.0
    assert demo["stages_in_profile"] == ["contrapro_score@x", "crest_generate"]
    # the floors of the profile's day come from its own peak, not the bench's
    slower = dict(profile, rates={"peak_gemm_gflops": 100.0})
    assert sb.against_half(rows, slower, baseline)["most_saved_at_peak_s"] == 10.0  # 70 - 6000/100
