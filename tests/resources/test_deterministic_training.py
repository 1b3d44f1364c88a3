"""Trainings run deterministically (lingtest.resources.finetuning.deterministic_training): the settings are
on inside a training and restored after it, and a tiny model trained twice in one process from one seed
has the same weights bit for bit (the text classifier and the NER trainer; the coreference trainer's is
tests/systems/test_coref_neural.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import torch
from tests.fakes.tiny_transformers import VOCAB, make_tokenizer

from lingtest.resources.finetuning import CUBLAS_WORKSPACE, deterministic_training
from lingtest.s2lct.training import LabelledText, TrainClassifierConfig, train_classifier
from lingtest.tin.train_ner import TaggedSentence, TrainNERConfig, train_ner

TRAINER = {"epochs": 2, "max_length": 12, "batch_size": 4, "learning_rate": 5e-3, "warmup_ratio": 0.0,
           "weight_decay": 0.01, "max_grad_norm": 1.0, "group_by_length": True, "eval_batch_size": 8, "seed": 13,
           "device": "cpu", "threads": 2}
TEXTS = [("a good film", "pos"), ("i liked it", "pos"), ("great fun", "pos"), ("the story was great", "pos"),
         ("a bad movie", "neg"), ("boring plot", "neg"), ("i hate them", "neg"), ("awful actor", "neg")]
SENTENCES = [(("the", "actor", "liked", "people"), ("O", "B-PER", "O", "O")),
             (("a", "film", "was", "boring"), ("O", "B-MISC", "O", "O")),
             (("people", "hate", "the", "plot"), ("B-PER", "O", "O", "O")),
             (("the", "movie", "is", "fun"), ("O", "B-MISC", "O", "O"))]


def weights(folder: Path) -> dict[str, torch.Tensor]:
    from safetensors.torch import load_file

    return load_file(str(folder / "model.safetensors"))


def assert_same_weights(a: Path, b: Path) -> None:
    wa, wb = weights(a), weights(b)
    assert sorted(wa) == sorted(wb)
    different = [k for k in wa if not torch.equal(wa[k], wb[k])]
    assert different == []


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    """A tiny random 2-layer BERT encoder (no task head) and its word-piece tokenizer."""
    from transformers import BertConfig, BertModel

    folder = tmp_path_factory.mktemp("tiny_base")
    tok = make_tokenizer(folder / "tokenizer-src")
    torch.manual_seed(5)
    BertModel(BertConfig(vocab_size=len(VOCAB), hidden_size=8, num_hidden_layers=2, num_attention_heads=2,
                         intermediate_size=16, max_position_embeddings=64)).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def test_the_settings_hold_inside_and_are_restored_after(monkeypatch):
    monkeypatch.delenv("CUBLAS_WORKSPACE_CONFIG", raising=False)
    before = (torch.are_deterministic_algorithms_enabled(), torch.get_num_threads(),
              torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark)
    with deterministic_training(7, 1) as threads:
        assert torch.are_deterministic_algorithms_enabled() and threads == torch.get_num_threads() == 1
        assert torch.backends.cudnn.deterministic and not torch.backends.cudnn.benchmark
        assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == CUBLAS_WORKSPACE
        first = torch.rand(3)
    with deterministic_training(7, None):
        assert torch.equal(torch.rand(3), first)  # seeded on entry
    assert (torch.are_deterministic_algorithms_enabled(), torch.get_num_threads(),
            torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark) == before
    assert "CUBLAS_WORKSPACE_CONFIG" not in os.environ
    monkeypatch.setenv("CUBLAS_WORKSPACE_CONFIG", ":16:8")  # a setting of the user's is kept
    with deterministic_training(7, None):
        assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":16:8"
    assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":16:8"


def test_the_settings_are_restored_when_the_training_fails():
    with pytest.raises(RuntimeError, match="boom"), deterministic_training(1, None):
        raise RuntimeError("boom")
    assert not torch.are_deterministic_algorithms_enabled()


def test_a_classifier_trained_twice_has_the_same_weights(base, tmp_path):
    config = TrainClassifierConfig(base_model=str(base), **TRAINER)
    data = [LabelledText(t, lab) for t, lab in TEXTS]
    first = train_classifier(config, data, data[:4], tmp_path / "a")
    second = train_classifier(config, data, data[:4], tmp_path / "b")
    assert first["train_loss"] == second["train_loss"]
    assert_same_weights(tmp_path / "a", tmp_path / "b")
    record = json.loads((tmp_path / "a" / "training.json").read_text())
    assert record["deterministic_algorithms"] is True and record["torch_threads"] == 2
    other = train_classifier(TrainClassifierConfig(base_model=str(base), **{**TRAINER, "seed": 14}), data,
                             data[:4], tmp_path / "c")
    assert other["train_loss"] != first["train_loss"]  # the seed matters: the check can fail
    assert not torch.are_deterministic_algorithms_enabled()  # restored after the training


def test_an_ner_model_trained_twice_has_the_same_weights(base, tmp_path):
    config = TrainNERConfig(base_model=str(base), **TRAINER)
    data = [TaggedSentence(tokens, tags) for tokens, tags in SENTENCES]
    first = train_ner(config, data, data[:2], tmp_path / "a")
    second = train_ner(config, data, data[:2], tmp_path / "b")
    assert first["train_loss"] == second["train_loss"]
    assert_same_weights(tmp_path / "a", tmp_path / "b")
    assert json.loads((tmp_path / "b" / "training.json").read_text())["deterministic_algorithms"] is True
