"""The train_ner stage body (:func:`lingtest.tin.train_ner.train_ner_stage`) on a tiny randomly initialised BERT
(built in the test) and 36 invented CoNLL-format sentences: it reads the prepared splits, honours the subset
sizes, writes the checkpoint the minilm_ner system loads and the metrics file, and logs to the tracker."""

from __future__ import annotations

import json

import pytest
from omegaconf import OmegaConf

from lingtest.data import Document, write_jsonl
from lingtest.pipeline.runner import run_body
from lingtest.readers.options import configured
from lingtest.tin.train_ner import train_ner_stage
from tests.fakes.lm import NullTracker


def test_train_ner_stage(tmp_path, fixtures_dir, tiny_encoder, tiny_tokenizer):
    base = tmp_path / "base"
    tiny_encoder.save_pretrained(base)
    tiny_tokenizer.save_pretrained(base)
    docs = list(configured("conll2003")(fixtures_dir / "ner_systems" / "conll_tiny.txt"))
    for split in ("train", "dev"):
        write_jsonl(tmp_path / "prepared" / "toy" / f"{split}.jsonl", docs, kind="document")
    cfg = OmegaConf.create({
        "paths": {"prepared": str(tmp_path / "prepared"),
                  "tin": {"ner_model": str(tmp_path / "model"), "ner_model_metrics": str(tmp_path / "m.json")}},
        "tin": {"train_data": {"corpus": "toy", "train_split": "train", "dev_split": "dev",
                               "max_train_sentences": 20, "max_dev_sentences": None},
                "train_ner": {"base_model": str(base), "epochs": 1, "max_length": 32, "batch_size": 8,
                              "learning_rate": 1e-3, "warmup_ratio": 0.0, "weight_decay": 0.0,
                              "max_grad_norm": 1.0, "group_by_length": True, "eval_batch_size": 16, "seed": 3,
                              "device": "cpu", "threads": 1}}})
    assert isinstance(docs[0], Document)
    tracker = NullTracker()
    metrics = run_body(train_ner_stage, cfg, tracker)
    n_dev = sum(1 for d in docs for s in d.sentences if s.tokens)
    assert metrics["train_sentences"] == 20 and metrics["dev_sentences"] == n_dev
    assert (tmp_path / "model" / "config.json").is_file() and (tmp_path / "model" / "training.json").is_file()
    saved = json.loads((tmp_path / "m.json").read_text())
    assert saved["metrics"]["dev_f1"] == metrics["dev_f1"] and saved["data"]["max_train_sentences"] == 20
    assert tracker.metrics["train_ner.dev_f1"] == metrics["dev_f1"]


def test_train_ner_stage_reads_only_its_two_keys_and_names_a_missing_input(tmp_path):
    from lingtest.errors import MissingResourceError
    from lingtest.tin.train_ner import TinTraining

    data = {"corpus": "toy", "train_split": "train", "dev_split": "dev", "max_train_sentences": None,
            "max_dev_sentences": None}
    trainer = {"base_model": "x", "epochs": 1, "max_length": 32, "batch_size": 8, "learning_rate": 1e-3,
               "warmup_ratio": 0.0, "weight_decay": 0.0, "max_grad_norm": 1.0, "group_by_length": True,
               "eval_batch_size": 16, "seed": 3, "device": "cpu", "threads": 1}
    cfg = OmegaConf.create({"paths": {"prepared": str(tmp_path / "prepared"),
                                      "tin": {"ner_model": str(tmp_path / "model"),
                                              "ner_model_metrics": str(tmp_path / "m.json")}},
                            "tin": {"train_data": data, "train_ner": trainer, "transformations": "not read here"}})
    assert TinTraining.from_config(cfg).train_data.corpus == "toy"
    with pytest.raises(MissingResourceError, match=r"train\.jsonl not found: it is written by stage prepare@toy"):
        run_body(train_ner_stage, cfg, NullTracker())
