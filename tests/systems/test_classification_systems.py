"""Text classifiers under test (lingtest.systems.classification): CheckList's three-class convention and
label maps exactly, the Hugging Face path (hub id or folder) on a tiny randomly initialised BERT built in
the test, the lexicon systems (VADER, TextBlob, alt-profanity-check) against their libraries, and the
configured entries."""

from __future__ import annotations

import inspect
import math
from pathlib import Path

import pytest
import yaml
from tests.fakes.tiny_transformers import tiny_sequence_classifier

from lingtest.errors import ConfigError, MissingResourceError
from lingtest.resources.finetuning import checkpoint_fingerprint
from lingtest.systems import SYSTEMS
from lingtest.systems.classification.base import ClassificationTask, top_label
from lingtest.systems.classification.labels import map_labels, three_class, three_class_label
from lingtest.systems.classification.transformer import FineTunedClassifier, HFTextClassifier
from lingtest.systems.entries import OWN_KEYS

ROOT = Path(__file__).resolve().parents[2]
THIRD = 1 / 3


# ---- CheckList's convention -------------------------------------------------------------------------
@pytest.mark.parametrize("p, label", [(0.0, "negative"), (0.2, "negative"), (0.3333, "negative"),
                                      (0.3334, "neutral"), (0.5, "neutral"), (0.6666, "neutral"),
                                      (0.6667, "positive"), (1.0, "positive")])
def test_three_classes_by_p_positive_as_checklist(p, label):
    probs = three_class(p, THIRD)
    assert three_class_label(p, THIRD) == label
    assert top_label(probs) == label
    assert sum(probs.values()) == pytest.approx(1.0) and all(0 <= v <= 1 for v in probs.values())
    # the winner is strict (no tie-breaking by name) and p can be read back
    ordered = sorted(probs.values(), reverse=True)
    assert ordered[0] > ordered[1]
    back = probs["positive"] if label != "neutral" else 0.5 + probs["positive"] - probs["negative"]
    assert back == pytest.approx(p)


def test_band_edges_inclusive_and_exclusive():
    lo, hi = 0.5 - 0.05, 0.5 + 0.05  # VADER's |compound| >= 0.05 in p units, margin 0.1 wide in p
    assert three_class_label(lo, 0.1, inclusive=True) == "neutral"
    assert three_class_label(hi, 0.1, inclusive=True) == "neutral"
    assert three_class_label(0.25, 0.5, inclusive=False) == "negative"  # exactly on the edge
    assert three_class_label(0.75, 0.5, inclusive=False) == "positive"
    assert top_label(three_class(0.75, 0.5, inclusive=False)) == "positive"
    assert three_class(0.5, 0.0) == {"negative": 0.0, "neutral": 1.0, "positive": 0.0}  # TextBlob's polarity 0
    assert three_class_label(0.5000001, 0.0) == "positive"
    with pytest.raises(ValueError):
        three_class(1.5, THIRD)


def test_map_labels_renames_and_sums():
    probs = {"hatespeech": 0.2, "offensive": 0.5, "normal": 0.3}
    mapped = map_labels(probs, {"hatespeech": "hate", "offensive": "non-hate", "normal": "non-hate"})
    assert mapped == pytest.approx({"hate": 0.2, "non-hate": 0.8})
    assert map_labels(probs, None) == probs
    with pytest.raises(ConfigError, match="normal"):
        map_labels(probs, {"hatespeech": "hate", "offensive": "non-hate"})
    assert map_labels({"a": 0.6, "b": 0.4000001}, {"a": "x", "b": "x"}) == {"x": 1.0}  # never above 1


# ---- Hugging Face models --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_binary(tmp_path_factory):
    """A 2-layer BERT with textattack-style labels LABEL_0 (negative) / LABEL_1 (positive)."""
    return tiny_sequence_classifier(tmp_path_factory.mktemp("tiny-sst2"), ["LABEL_0", "LABEL_1"], seed=1)


@pytest.fixture(scope="module")
def tiny_three(tmp_path_factory):
    """A 3-label model (HateXplain's labels)."""
    return tiny_sequence_classifier(tmp_path_factory.mktemp("tiny-hx"), ["hatespeech", "normal", "offensive"], seed=2)


TEXTS = ["a good film .", "the plot was awful !", "i liked it , but the actor was boring", "movie"]


def _softmax_positive(folder, texts):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder)
    net = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    out = []
    for t in texts:  # one at a time: no padding, so this also checks that batching changes nothing
        with torch.inference_mode():
            logits = net(**tok(t, return_tensors="pt")).logits[0]
        out.append(float(torch.softmax(logits, dim=-1)[1]))
    return out


def test_hf_classifier_on_a_tiny_model_follows_checklist(tiny_binary):
    system = HFTextClassifier(str(tiny_binary), revision=None, label_map={"LABEL_0": "negative",
                                                                         "LABEL_1": "positive"},
                              neutral_margin=THIRD, max_length=32, device="cpu", dtype="float32")
    preds = system.predict(TEXTS)
    expected = [three_class(p, THIRD) for p in _softmax_positive(tiny_binary, TEXTS)]
    assert len(preds) == len(TEXTS)
    for got, want in zip(preds, expected, strict=True):
        assert got == pytest.approx(want, abs=1e-5)
        assert set(got) == {"negative", "neutral", "positive"}
        ClassificationTask().decode_output(ClassificationTask().encode_output(got))  # a valid output
    assert system.predict([]) == []
    assert system.config() == {"weights": checkpoint_fingerprint(tiny_binary),
                               "label_map": {"LABEL_0": "negative", "LABEL_1": "positive"},
                               "neutral_margin": THIRD, "max_length": 32}


def test_hf_classifier_without_conversion_and_label_checks(tiny_binary, tiny_three):
    raw = HFTextClassifier(str(tiny_binary), revision=None, label_map=None, neutral_margin=None,
                           max_length=32, device="cpu", dtype="float32").predict(TEXTS[:2])
    assert all(set(p) == {"LABEL_0", "LABEL_1"} and math.isclose(sum(p.values()), 1.0, rel_tol=1e-6) for p in raw)
    hx = HFTextClassifier(str(tiny_three), revision=None, label_map={"hatespeech": "hate", "normal": "non-hate",
                                                                     "offensive": "non-hate"},
                          neutral_margin=None, max_length=32, device="cpu", dtype="float32").predict(TEXTS[:2])
    assert all(set(p) == {"hate", "non-hate"} for p in hx)
    with pytest.raises(ConfigError, match="label_map has no entry"):
        HFTextClassifier(str(tiny_three), revision=None, label_map={"hatespeech": "hate"}, neutral_margin=None,
                         max_length=32, device="cpu", dtype="float32").predict(TEXTS[:1])
    with pytest.raises(ConfigError, match="neutral_margin needs a binary model"):
        HFTextClassifier(str(tiny_three), revision=None, label_map=None, neutral_margin=THIRD, max_length=32,
                         device="cpu", dtype="float32").predict(TEXTS[:1])
    with pytest.raises(ConfigError, match="neutral margin"):
        HFTextClassifier(str(tiny_binary), revision=None, label_map=None, neutral_margin=1.5, max_length=32,
                         device="cpu", dtype="float32")


def test_truncation_keeps_long_texts_predictable(tiny_binary):
    system = HFTextClassifier(str(tiny_binary), revision=None, label_map=None, neutral_margin=None, max_length=5,
                              device="cpu", dtype="float32")
    long = " ".join(["good film"] * 100)
    short = "good film good"  # the 3 subwords that survive truncation to 5 (with [CLS] and [SEP])
    assert system.predict([long])[0] == pytest.approx(system.predict([short])[0], abs=1e-6)


def test_hub_id_offline_is_a_clear_error(monkeypatch):
    import huggingface_hub.constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)  # read once at import
    system = HFTextClassifier("lingtest-no-such-org/no-such-model", revision=None, label_map=None,
                              neutral_margin=None, max_length=32, device="cpu", dtype="float32")
    assert system.config()["model"] == "lingtest-no-such-org/no-such-model"
    with pytest.raises(MissingResourceError, match="needs a network"):
        system.predict(["a good film"])


def test_finetuned_classifier_needs_its_checkpoint(tmp_path, tiny_binary):
    with pytest.raises(MissingResourceError, match="train_classifier"):
        FineTunedClassifier(str(tmp_path / "none"), label_map=None, neutral_margin=None, max_length=32,
                            device="cpu", dtype="float32")
    system = FineTunedClassifier(str(tiny_binary), label_map={"LABEL_0": "negative", "LABEL_1": "positive"},
                                 neutral_margin=THIRD, max_length=32, device="cpu", dtype="float32")
    assert len(system.config()["weights"]) == 64


# ---- lexicon systems ------------------------------------------------------------------------------------
def test_vader_follows_its_compound_rule():
    pytest.importorskip("vaderSentiment")
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    system = SYSTEMS.get("classification", "vader")(neutral_compound=0.05)
    texts = ["I love this wonderful movie!", "This is a terrible, awful film.", "The film is in the box."]
    preds = system.predict(texts)
    assert [top_label(p) for p in preds] == ["positive", "negative", "neutral"]
    analyzer = SentimentIntensityAnalyzer()
    for text, probs in zip(texts, preds, strict=True):
        c = analyzer.polarity_scores(text)["compound"]
        want = "positive" if c >= 0.05 else "negative" if c <= -0.05 else "neutral"
        assert top_label(probs) == want
        assert probs == pytest.approx(three_class((c + 1) / 2, 0.05, inclusive=False))
    assert system.config()["neutral_compound"] == 0.05


def test_textblob_polarity_zero_is_neutral():
    pytest.importorskip("textblob")
    from textblob import TextBlob

    system = SYSTEMS.get("classification", "textblob")(neutral_polarity=0.0)
    texts = ["What a great and beautiful day.", "The food was bad and disgusting.", "The table is in the room."]
    preds = system.predict(texts)
    assert [top_label(p) for p in preds] == ["positive", "negative", "neutral"]
    assert TextBlob(texts[2]).sentiment.polarity == 0.0


def test_profanity_check_labels():
    pytest.importorskip("profanity_check")
    system = SYSTEMS.get("classification", "profanity_check")(profane_label="hate", clean_label="non-hate")
    preds = system.predict(["you are a fucking idiot", "have a nice day with your family"])
    assert [top_label(p) for p in preds] == ["hate", "non-hate"]
    assert all(p["hate"] + p["non-hate"] == pytest.approx(1.0) for p in preds)
    with pytest.raises(ConfigError):
        SYSTEMS.get("classification", "profanity_check")(profane_label="x", clean_label="x")


def test_lexicon_margins_are_checked():
    with pytest.raises(ConfigError, match="empty"):
        SYSTEMS.get("classification", "vader")(neutral_compound=0.0)
    with pytest.raises(ConfigError):
        SYSTEMS.get("classification", "textblob")(neutral_polarity=-0.1)


# ---- configuration -------------------------------------------------------------------------------------
def test_configured_classifiers_match_their_classes():
    """Every systems.classification entry names a registered class and exactly its options (required
    keyword options, no code defaults)."""
    entries = yaml.safe_load((ROOT / "conf" / "systems" / "default.yaml").read_text())["classification"]
    assert {"minilm_sst2", "minilm_hatexplain", "vader", "textblob", "profanity_check"} <= set(entries)
    for name, entry in entries.items():
        cls = SYSTEMS.get("classification", entry.get("kind", name))
        params = {k: p for k, p in inspect.signature(cls).parameters.items()}
        options = {k for k in entry if k not in OWN_KEYS}
        required = {k for k, p in params.items() if p.default is inspect.Parameter.empty}
        assert options == set(params), (name, options ^ set(params))
        assert required == set(params), f"{name}: options with code defaults {set(params) - required}"


def test_classifier_precision_bfloat16_runs_and_keys_the_cache(tiny_binary, monkeypatch):
    """``dtype`` bfloat16 runs the model in bfloat16 (probabilities close to float32's, still floats that
    sum to 1) and puts the precision in the cache key; float32 keeps the key it always had;
    ``bfloat16_if_native`` follows the CPU's flags; an unknown dtype is a config error."""
    import torch

    from lingtest.resources import quantize

    def build(dtype):
        return HFTextClassifier(str(tiny_binary), revision=None, label_map=None, neutral_margin=None,
                                max_length=32, device="cpu", dtype=dtype)

    f32, bf16 = build("float32"), build("bfloat16")
    assert "dtype" not in f32.config() and bf16.config()["dtype"] == "bfloat16"
    assert bf16.load()[0].dtype == torch.bfloat16 and f32.load()[0].dtype == torch.float32
    for p, q in zip(f32.predict(TEXTS), bf16.predict(TEXTS), strict=True):
        assert p.keys() == q.keys() and sum(q.values()) == pytest.approx(1.0, abs=1e-6)
        assert all(abs(p[k] - q[k]) < 0.05 for k in p)
    monkeypatch.setattr(quantize, "native_bf16", lambda flags=None: True)
    assert build("bfloat16_if_native").precision() == "bfloat16"
    monkeypatch.setattr(quantize, "native_bf16", lambda flags=None: False)
    native = build("bfloat16_if_native")
    assert native.precision() == "float32" and "dtype" not in native.config()
    with pytest.raises(ConfigError, match="dtype.*bfloat16_if_native"):
        build("float16")


def test_resolve_precision_by_device_and_flags():
    from lingtest.resources.quantize import resolve_precision

    assert resolve_precision("float32", "cpu", flags=["amx_bf16"]) == "float32"
    assert resolve_precision("bfloat16", "cpu", flags=[]) == "bfloat16"
    assert resolve_precision("bfloat16_if_native", "cpu", flags=["avx2", "avx512_bf16"]) == "bfloat16"
    assert resolve_precision("bfloat16_if_native", "cpu", flags=["avx2", "fma"]) == "float32"
    assert resolve_precision("bfloat16_if_native", "mps", flags=["amx_bf16"]) == "float32"
