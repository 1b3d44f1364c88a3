"""``bench/lm_bound.py``: the FLOP count behind the README's compute bounds (TIN, ContraPro), on
products whose FLOPs are known by hand."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from lm_bound import bound, count_gflop, peak_gemm_gflops  # noqa: E402


def test_count_gflop_counts_a_matrix_product_and_a_linear_layer():
    a, b = torch.randn(8, 16), torch.randn(16, 32)
    out, gflop = count_gflop(lambda: a @ b)
    assert out.shape == (8, 32)
    assert gflop == pytest.approx(2 * 8 * 16 * 32 / 1e9)
    layer = torch.nn.Linear(16, 4, bias=False)
    _, gflop = count_gflop(lambda: layer(torch.randn(5, 16)))
    assert gflop == pytest.approx(2 * 5 * 16 * 4 / 1e9)
    _, none = count_gflop(lambda: a + 1)  # elementwise work is not counted
    assert none == 0


def test_bound_divides_the_measured_peak_by_the_cost_per_item(monkeypatch):
    import lm_bound

    monkeypatch.setattr(lm_bound, "peak_gemm_gflops", lambda threads, **kw: 10.0 * threads)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    got = bound(items=4, gflop=8.0, target=50.0)
    assert got["gflop_per_item"] == 2.0
    assert got["peak_gemm_gflops_by_threads"] == {"1": 10.0, "2": 20.0}
    assert got["bound_items_per_s_by_threads"] == {"1": 5.0, "2": 10.0}
    assert got["gflops_needed_for_target"] == 100.0


def test_peak_is_a_positive_rate_and_restores_the_thread_count():
    before = torch.get_num_threads()
    assert peak_gemm_gflops(1, rows=(8,), inner=32, cols=64, seconds=0.05) > 0
    assert torch.get_num_threads() == before
