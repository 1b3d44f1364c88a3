"""BoundCov / SActCov (lingtest.s2lct.coverage): hand-computed bounds and corners, curves against direct
computation, activations of a tiny randomly initialised BERT against its own hidden states, and the
s2lct_coverage stage body on fixture suites."""

from __future__ import annotations

import json

import numpy as np
import pytest

from lingtest.errors import ConfigError
from lingtest.pipeline.runner import run_body
from lingtest.s2lct.coverage import (
    Bounds,
    corner_neurons,
    coverage,
    coverage_curve,
    hooked_modules,
    layer_activations,
    neuron_bounds,
    trial_orders,
)
from lingtest.tracking import NullTracker
from tests.fakes.tiny_transformers import tiny_sequence_classifier
from tests.s2lct.classifier_fixtures import NEGATIVE, POSITIVE, sentiment_corpus, stage_config, suites

MODULES = r"(.+\.)?(encoder|transformer)\.layer\.\d+"


def test_bounds_and_corners_by_hand():
    train = np.array([[0.0, 1.0], [2.0, -1.0], [1.0, 0.0]])
    b = neuron_bounds(train)
    assert b.low.tolist() == [0.0, -1.0] and b.high.tolist() == [2.0, 1.0] and b.texts == 3
    test = np.array([[3.0, 0.0], [1.0, -2.0], [1.0, 1.0]])  # n0 above its high (3 > 2); n1 below its low
    upper, lower = corner_neurons(test, b)
    assert upper.tolist() == [True, False] and lower.tolist() == [False, True]  # 1.0 == high is no corner
    c = coverage(test, b)
    assert c["bound_cov"] == (1 + 1) / (2 * 2) and c["sact_cov"] == 1 / 2 and c["upper"] == c["lower"] == 1
    assert coverage(train, b)["bound_cov"] == 0.0  # the training data covers no corner of itself
    assert coverage(np.zeros((0, 2)), b)["bound_cov"] == 0.0
    with pytest.raises(ValueError):
        coverage(np.zeros((1, 3)), b)
    with pytest.raises(ValueError):
        Bounds(np.zeros(2), np.zeros(3), 1)


def test_curve_is_coverage_of_seeded_prefixes():
    rng = np.random.default_rng(0)
    b = neuron_bounds(rng.normal(size=(50, 20)))
    acts = rng.normal(scale=1.6, size=(40, 20))
    sizes, orders = trial_orders(40, [10, 5, 40, 100], trials=3, seed=7)
    assert sizes == [5, 10, 40] and len(orders) == 3  # 100 > 40 texts: left out
    assert [len(o) for o in orders] == [40] * 3
    assert trial_orders(40, [10], 3, 7)[1][0].tolist() == orders[0][:10].tolist()  # the same orders, cut
    curve = coverage_curve(acts, b, sizes, orders)
    for t, order in enumerate(orders):
        assert order.tolist() == np.random.default_rng([7, t]).permutation(40).tolist()
        for i, s in enumerate(sizes):
            direct = coverage(acts[order[:s]], b)
            assert curve["bound_cov"]["trials"][t][i] == pytest.approx(direct["bound_cov"])
            assert curve["sact_cov"]["trials"][t][i] == pytest.approx(direct["sact_cov"])
        assert curve["bound_cov"]["trials"][t] == sorted(curve["bound_cov"]["trials"][t])  # monotone
    assert curve["bound_cov"]["trials"][0][-1] == pytest.approx(coverage(acts, b)["bound_cov"])
    assert curve["sact_cov"]["median"] == pytest.approx(np.median(curve["sact_cov"]["trials"], axis=0).tolist())
    with pytest.raises(ValueError, match="cannot give a curve"):
        coverage_curve(acts, b, [10], [orders[0][:5]])


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    folder = tiny_sequence_classifier(tmp_path_factory.mktemp("tiny-cov"), ["negative", "positive"], seed=5)
    return AutoModelForSequenceClassification.from_pretrained(folder).eval(), AutoTokenizer.from_pretrained(folder)


TEXTS = ["a good film .", "the plot was awful and boring !", "i liked it", "movie", "the actor is great , but"]


def test_activations_are_token_means_of_each_layer_output(tiny):
    """The hooked layer outputs, averaged over real tokens, equal the model's own hidden states of each text
    run alone (no padding): padding in a batch changes nothing."""
    import torch

    net, tok = tiny
    modules = hooked_modules(net, MODULES)
    hooks_before = [len(m._forward_hooks) for _, m in modules]  # transformers may keep hooks of its own
    assert [n for n, _ in modules] == ["bert.encoder.layer.0", "bert.encoder.layer.1"]
    acts = layer_activations(net, tok, TEXTS, modules=modules, max_length=32, batch_size=3, device="cpu")
    assert [len(m._forward_hooks) for _, m in modules] == hooks_before  # ours are removed afterwards
    assert acts.shape == (5, 2 * 8)
    for i, text in enumerate(TEXTS):
        with torch.inference_mode():
            hidden = net(**tok(text, return_tensors="pt"), output_hidden_states=True).hidden_states
        want = torch.cat([h[0].mean(dim=0) for h in hidden[1:]]).numpy()  # hidden[0]: the embeddings
        assert acts[i] == pytest.approx(want, abs=1e-5)
    one_by_one = layer_activations(net, tok, TEXTS, modules=modules, max_length=32, batch_size=1, device="cpu")
    assert acts == pytest.approx(one_by_one, abs=1e-5)
    b = neuron_bounds(acts[:3])
    assert b.low == pytest.approx(np.minimum.reduce(acts[:3])) and b.high == pytest.approx(acts[:3].max(axis=0))


def test_module_pattern_must_match(tiny):
    net, _ = tiny
    with pytest.raises(ConfigError, match="no submodule matches"):
        hooked_modules(net, r"decoder\.block\.\d+")
    with pytest.raises(ConfigError, match="invalid regular expression"):
        hooked_modules(net, "(")
    dense = hooked_modules(net, r".*layer\.\d+\.output\.dense")  # the reference hooks submodules like these
    assert len(dense) == 2


def test_the_coverage_stage_on_fixture_suites(tmp_path):
    """s2lct_coverage@toy: bounds from the toy training texts, curves for the S2LCT suite and the baseline,
    JSON and PNG written; the whole-suite numbers equal a direct computation."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from lingtest.s2lct.classifier_stages import coverage_stage
    from lingtest.s2lct.suite import suite_texts

    ckpt = tiny_sequence_classifier(tmp_path / "models" / "toy", ["negative", "positive"], seed=9)
    root = suites(tmp_path)
    cfg = stage_config(tmp_path, sentiment_corpus(tmp_path), root, base_model="offline-default")
    tracker = NullTracker()
    result = run_body(coverage_stage, cfg, tracker, "toy")
    out = tmp_path / "metrics" / "coverage"
    assert (out / "toy.png").stat().st_size > 1000
    saved = json.loads((out / "toy.json").read_text())
    assert saved["neurons"] == 16 and saved["bound_texts"] == 20 and saved["suite"] == "toy"
    assert saved["curves"]["S2LCT"]["sizes"] == [2, 4, 8] and saved["curves"]["baseline"]["sizes"] == [2, 4]
    assert saved["suite_texts"] == {"S2LCT": 8, "baseline": 4}

    net = AutoModelForSequenceClassification.from_pretrained(ckpt).eval()
    tok = AutoTokenizer.from_pretrained(ckpt)
    modules = hooked_modules(net, MODULES)
    bounds = neuron_bounds(layer_activations(net, tok, POSITIVE + NEGATIVE, modules=modules, max_length=32,
                                             batch_size=7, device="cpu"))
    texts = suite_texts(root / "s2lct" / "toy.jsonl")
    assert len(texts) == 8
    all_acts = layer_activations(net, tok, texts, modules=modules, max_length=32, batch_size=8, device="cpu")
    sizes, orders = trial_orders(8, [2, 4, 8], 3, 13)
    direct = coverage_curve(all_acts, bounds, sizes, orders)  # every text, not only the sampled ones
    for m in ("bound_cov", "sact_cov"):
        assert np.allclose(result["curves"]["S2LCT"][m]["trials"], direct[m]["trials"])
    assert direct["bound_cov"]["trials"][0][-1] == pytest.approx(coverage(all_acts, bounds)["bound_cov"])
    assert tracker.metrics["S2LCT.bound_cov.n8"] == pytest.approx(direct["bound_cov"]["median"][-1])


def test_the_coverage_stage_needs_a_transformer(tmp_path):
    from lingtest.s2lct.classifier_stages import coverage_stage

    cfg = stage_config(tmp_path, sentiment_corpus(tmp_path), suites(tmp_path), base_model="offline-default")
    cfg.systems.classification.toy = {"kind": "vader", "neutral_compound": 0.05}
    with pytest.raises(ConfigError, match="transformer classifier"):
        run_body(coverage_stage, cfg, NullTracker(), "toy")
    with pytest.raises(ConfigError, match="not configured"):
        run_body(coverage_stage, cfg, NullTracker(), "other")


def test_the_coverage_stage_on_a_hub_classifier(tmp_path):
    """s2lct_coverage_hub@<system>: an ``hf_text_classification`` entry (here a local folder standing in for
    a hub id) listed under ``hub_systems`` gets the same curves as the same weights under ``systems``, though it
    scores in bfloat16: neurons are bounded and counted in float32."""
    from lingtest.s2lct.classifier_stages import coverage_stage

    tiny_sequence_classifier(tmp_path / "models" / "toy", ["negative", "positive"], seed=9)
    cfg = stage_config(tmp_path, sentiment_corpus(tmp_path), suites(tmp_path), base_model="offline-default")
    ours = run_body(coverage_stage, cfg, NullTracker(), "toy")
    cfg.systems.classification.hubby = {"kind": "hf_text_classification", "model": str(tmp_path / "models" / "toy"),
                                        "revision": None, "label_map": {"negative": "negative", "positive": "positive"},
                                        "neutral_margin": None, "max_length": 32, "device": "cpu", "dtype": "bfloat16"}
    cfg.s2lct.coverage.hub_systems = {"hubby": {"suite": "toy", "bounds": cfg.s2lct.coverage.systems.toy.bounds}}
    hub = run_body(coverage_stage, cfg, NullTracker(), "hubby")
    assert hub["system"] == "hubby" and (tmp_path / "metrics" / "coverage" / "hubby.json").exists()
    assert hub["curves"] == ours["curves"] and hub["neurons"] == ours["neurons"] == 16
    cfg.s2lct.coverage.hub_systems = {"toy": cfg.s2lct.coverage.systems.toy}
    with pytest.raises(ConfigError, match="in both"):
        run_body(coverage_stage, cfg, NullTracker(), "toy")


def test_suite_texts_reads_cases_and_documents(tmp_path):
    from lingtest.data.io import write_jsonl
    from lingtest.errors import InputError
    from lingtest.s2lct.suite import suite_texts
    from tests.s2lct.classifier_fixtures import case, document

    cases = [case("a", "x", 0), case("b", "x", 1), case("a", "x", 2)]
    cases[1].followup = {"texts": ["c", "b"]}
    write_jsonl(tmp_path / "c.jsonl", cases, kind="testcase")
    assert suite_texts(tmp_path / "c.jsonl") == ["a", "b", "c"]
    write_jsonl(tmp_path / "d.jsonl", [document(0, "one two", "x")], kind="document")
    assert suite_texts(tmp_path / "d.jsonl") == ["one two"]
    write_jsonl(tmp_path / "p.jsonl", [document(0, "a prepared post", "x")], kind="hatecheck:hatecheck")
    assert suite_texts(tmp_path / "p.jsonl") == ["a prepared post"]  # prepared splits name their reader
    write_jsonl(tmp_path / "e.jsonl", [{"x": 1}], kind="other")
    with pytest.raises(InputError, match="line 2.*a test case"):
        suite_texts(tmp_path / "e.jsonl")
