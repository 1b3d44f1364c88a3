"""bench_score_cache's pieces: the cache counts read from a stage's log, the output comparison that ignores a
run's own timings."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import bench_score_cache as bench  # noqa: E402


def test_cache_counts_sum_the_log_lines():
    log = ("INFO lingtest.resources.lm: LM score cache: 3 of 10 groups found, 7 to score (score_grouped)\n"
           "noise\n"
           "INFO lingtest.resources.lm: LM score cache: 5 of 5 groups found, 0 to score (token_logprobs_grouped)\n")
    assert bench.cache_counts(log) == {"groups": 15, "found": 8, "scored": 7}
    assert bench.cache_counts("") == {"groups": 0, "found": 0, "scored": 0}


def test_outputs_compare_without_their_timings(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for d, seconds in ((a, 1.5), (b, 9.0)):
        (d / "generated").mkdir(parents=True)
        (d / "generated" / "x.jsonl").write_text('{"id": 1}\n')
        (d / "m.json").write_text(json.dumps({"kept": 3, "seconds": seconds, "steps": [{"seconds_by_step": seconds}]}))
    assert bench.same_outputs(a, b) == (True, [])
    (b / "generated" / "x.jsonl").write_text('{"id": 2}\n')
    (b / "m.json").write_text(json.dumps({"kept": 4, "seconds": 1.5, "steps": [{}]}))
    (b / "extra.txt").write_text("")
    assert bench.same_outputs(a, b) == (False, ["extra.txt", "generated/x.jsonl", "m.json"])
    assert bench.without_timings({"seconds": 1, "a": [{"seconds_per_case": 2, "b": 3}]}) == {"a": [{"b": 3}]}


def test_the_stages_are_tin_lm_stages_of_the_configuration():
    from lingtest.config import load_params
    from lingtest.pipeline.stage import STAGES

    params = {"tin": {"systems": ["a", "b"], "baseline": {"systems": ["b"]}}}
    assert bench.tin_lm_stages(params) == [("tin_generate", "a"), ("tin_generate", "b"), ("tin_repair", "a"),
                                           ("tin_repair", "b"), ("tin_baseline", "b")]
    demo = bench.tin_lm_stages(load_params(ROOT / "params.yaml"))
    assert {s for s, _ in demo} <= set(STAGES) and demo[0][0] == "tin_generate"
