"""``bench/bench_quant.py``: its comparison of quantised scores with float32 (choices, score
differences, per-chunk speed) and the ONNX Runtime body adapter, the latter on a tiny Gemma-3 with a
fake session that runs the torch body (no onnxruntime needed)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import bench_quant  # noqa: E402


def test_choice_is_the_first_best_candidate():
    assert bench_quant.choice([-3.0, -1.0, -2.0]) == 1
    assert bench_quant.choice([-1.0, -1.0]) == 0


def test_percentile_interpolates_linearly():
    xs = [float(x) for x in range(101)]
    assert bench_quant.percentile(xs, 99) == 99.0
    assert bench_quant.percentile([0.0, 1.0], 50) == 0.5
    assert bench_quant.percentile([4.0, 1.0, 3.0], 100) == 4.0
    assert math.isnan(bench_quant.percentile([], 99))


def test_agreement_counts_changed_choices_and_score_differences():
    ref = [[-1.0, -2.0, -3.0], [-5.0, -4.0], [-2.0, -2.5]]
    got = [[-1.1, -2.0, -3.0], [-4.0, -4.5], [-2.0, -2.5]]
    a = bench_quant.agreement(ref, got)
    assert a["examples"] == 3 and a["same_choices"] == 2 and a["same_choice_share"] == 0.6667
    assert a["changed_examples"] == [1] and a["float32_margin_of_changed"] == [1.0]
    assert a["max_abs_score_diff"] == 1.0
    diffs = sorted([0.1, 0.0, 0.0, 1.0, 0.5, 0.0, 0.0])
    assert a["mean_abs_score_diff"] == pytest.approx(sum(diffs) / 7, abs=1e-5)
    assert a["p99_abs_score_diff"] == pytest.approx(bench_quant.percentile(diffs, 99), abs=1e-5)
    assert bench_quant.agreement(ref, ref)["same_choice_share"] == 1.0
    with pytest.raises(ValueError, match="example 1: 2 reference candidates but 3"):
        bench_quant.agreement(ref, [[-1.0, -2.0, -3.0], [-1.0, -2.0, -3.0], [-1.0, -2.0]])
    with pytest.raises(ValueError, match="3 reference examples but 1"):
        bench_quant.agreement(ref, ref[:1])


def test_relative_speed_is_the_median_per_chunk_ratio():
    secs = {"float32": [10.0, 20.0, 30.0], "fast": [5.0, 5.0, 30.0], "slow": [20.0, 40.0, 60.0]}
    assert bench_quant.relative_speed(secs) == {"float32": 1.0, "fast": 2.0, "slow": 0.5}


def test_ort_body_adapter_scores_as_the_torch_model():
    """The adapter, given a session that computes what the exported body computes, makes
    :class:`CausalLMScorer`'s packed pass return the torch model's scores (so what the ONNX variant
    changes is the body's arithmetic alone)."""
    import torch
    from tests.resources.test_quantize import tiny_gemma

    from lingtest.resources.lm import CausalLMScorer

    model, tok = tiny_gemma()

    class TorchSession:
        calls = 0

        def run(self, outputs, feed):
            assert outputs is None and set(feed) == {"ids", "mask", "pos"}
            assert feed["mask"].ndim == 4 and feed["mask"].dtype.name == "float32"
            TorchSession.calls += 1
            with torch.inference_mode():
                out = model.base_model(input_ids=torch.from_numpy(feed["ids"]),
                                       attention_mask=torch.from_numpy(feed["mask"]),
                                       position_ids=torch.from_numpy(feed["pos"]), use_cache=False)
            return [out.last_hidden_state.numpy()]

    groups = [["der Hund sah die Katze . sie lief", "der Hund sah die Katze . er lief"],
              ["das Haus ist groß", "das Haus ist klein", "das Haus ist ."]]
    adapted = CausalLMScorer.from_model(bench_quant.OrtBodyLM(TorchSession(), model), tok, device="cpu")
    got = adapted.score_grouped(groups, relative=True)
    want = CausalLMScorer.from_model(model, tok, device="cpu").score_grouped(groups, relative=True)
    assert TorchSession.calls == 1  # both groups in one packed pass, through the session
    assert [x for r in got for x in r] == pytest.approx([x for r in want for x in r], abs=1e-5)


def test_bf16_normaliser_block_variants_name_rows_and_columns():
    m = bench_quant.BF16_BLOCKS.fullmatch("bf16_normaliser_512x8192")
    assert m is not None and (int(m[1]), int(m[2])) == (512, 8192)
    assert bench_quant.BF16_BLOCKS.fullmatch("bf16_normaliser") is None
    assert bench_quant.BF16_BLOCKS.fullmatch("bf16_normaliser_512") is None
