"""``bench/bench_thread_bits.py``: comparing an LM's results across thread counts, bit for bit."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import bench_thread_bits as tb  # noqa: E402


def test_compare_floats_counts_rows_with_any_other_bit():
    got = tb.compare_floats([[1.0, 2.0], [3.0]], [[1.0, 2.0 + 1e-7], [3.0]])
    assert got == {"identical": False, "differing": 1, "of": 2, "largest_abs_difference": pytest.approx(1e-7)}
    assert tb.compare_floats([[1.0]], [[1.0]])["identical"] is True


def test_compare_top_reports_other_token_sets_apart_from_other_values():
    base = [[(5, -1.0), (7, -2.0)], [(1, -0.5)]]
    same_ids = [[(5, -1.0), (7, -2.0000001)], [(1, -0.5)]]
    other_ids = [[(5, -1.0), (8, -2.0)], [(1, -0.5)]]
    a = tb.compare_top(base, same_ids)
    assert (a["identical"], a["differing"], a["other_token_set"]) == (False, 1, 0)
    b = tb.compare_top(base, other_ids)
    assert (b["identical"], b["differing"], b["other_token_set"]) == (False, 0, 1)
    assert tb.compare_top(base, base)["identical"] is True


def test_inputs_come_from_a_release_in_the_clone():
    texts = tb.source_texts(ROOT / "releases/crest-ontogum/1.4.0", 5)
    assert len(texts) == 5 and len(set(texts)) == 5
    groups = tb.one_word_variants(texts)
    assert all(len(g) == len(tb.FILLS) and len({len(t.split()) for t in g}) == 1 for g in groups)
    assert all(len(c.split()) in (3, 6) for c in tb.contexts(texts))
