"""Corpus aggregation, the Table 3 view and the plot."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from tests.fakes.conf_options import adversarial_metrics

from lingtest.adversarial.report import aggregate, plot_sets, render_table3, table3_row


@dataclass
class S:
    recall_num: float
    recall_den: float
    precision_num: float
    precision_den: float


def test_aggregate_sums_counts_before_dividing():
    docs = [{"muc": S(1, 2, 1, 1), "bcub": S(1, 1, 1, 1), "ceafe": S(0, 1, 0, 1)},
            {"muc": S(3, 4, 1, 3), "bcub": S(1, 1, 1, 1), "ceafe": S(1, 1, 1, 1)}]
    out = aggregate(docs, adversarial_metrics())  # muc, bcub, ceafe
    # MUC: R = 4/6, P = 2/4 -> F1 = 2*(2/3*1/2)/(2/3+1/2) = 4/7
    assert out["muc"]["recall"] == pytest.approx(100 * 4 / 6)
    assert out["muc"]["precision"] == pytest.approx(50.0)
    assert out["muc"]["f1"] == pytest.approx(100 * 4 / 7)
    assert out["ceafe"]["f1"] == pytest.approx(50.0)
    assert out["conll"]["f1"] == pytest.approx((100 * 4 / 7 + 100 + 50) / 3)
    assert aggregate([{"muc": S(0, 0, 0, 0)}], ("muc",))["muc"]["f1"] == 0.0


def test_table3_row_groups_and_deltas():
    conll = {"clean": 60.0, "swap": 40.0, "delete": 44.0, "visual": 42.0,
             "synonym": 58.0, "hyponym": 54.0, "hypernym": 56.0, "mixed": 45.0}
    row = table3_row(conll)
    assert row["alpha"] == pytest.approx(42.0) and row["alpha_delta"] == pytest.approx(-18.0)
    assert row["beta"] == pytest.approx(56.0) and row["beta_delta"] == pytest.approx(-4.0)
    assert row["avg"] == pytest.approx(49.0) and row["avg_delta"] == pytest.approx(-11.0)
    md = render_table3({"sieve": row})
    assert "| sieve | 60.00 | 49.00 | -11.00 | 42.00 | -18.00 | 56.00 | -4.00 |" in md
    assert "beta" not in table3_row({"clean": 1.0, "swap": 0.5})


def test_plot_writes_png(tmp_path):
    path = tmp_path / "sub" / "f1.png"
    plot_sets({"a": {"clean": 60, "swap": 40}, "b": {"clean": 55, "swap": 45}}, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
