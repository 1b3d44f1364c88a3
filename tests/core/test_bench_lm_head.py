"""``bench/bench_lm_head.py``: the output head's share of a stage, from timed calls."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import bench_lm_head as bh  # noqa: E402


def test_summarise_counts_rows_seconds_and_call_sizes():
    calls = {"packed log-normaliser": [(512, 0.5), (300, 0.4), (1, 0.01)], "next-token logits": [(8, 0.08)]}
    got = bh.summarise(calls, 10.0)
    packed = got["places"]["packed log-normaliser"]
    assert packed["calls"] == 3 and packed["rows"] == 813 and packed["seconds"] == 0.91
    assert packed["calls_by_rows_up_to"] == {"1": {"calls": 1, "seconds": 0.01}, "512": {"calls": 2, "seconds": 0.9}}
    assert got["places"]["next-token logits"]["ms_per_row"] == 10.0
    assert got["head_seconds"] == 1.0 and got["head_share"] == 0.099


def test_gemm_by_rows_reports_each_size_and_whether_its_bits_match():
    got = bh.gemm_by_rows([16, 512], seconds=0.05, vocab=16384)
    assert [r["rows"] for r in got] == [16, 512]
    assert all(r["gflop_per_s"] > 0 and r["ms_per_row"] > 0 for r in got)
    assert got[1]["same_bits_as_512_rows"] is True  # the reference against itself
    assert isinstance(got[0]["same_bits_as_512_rows"], bool)
