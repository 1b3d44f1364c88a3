"""Fixtures of the S2LCT classifier tests (test_training.py, test_coverage.py import them): prepared toy
corpora and suites under tmp_path, and the config a stage body reads."""

from __future__ import annotations

from pathlib import Path

from lingtest.data.io import write_jsonl
from lingtest.data.model import Document, Provenance, Sentence, TestCase, Token

POSITIVE = ["a good film .", "a great movie !", "i liked it .", "the plot is fun .", "a great story",
            "the actor was great", "good fun", "i liked the film", "a fun movie", "the story is good ."]
NEGATIVE = ["a bad film .", "an awful movie !", "the plot is boring .", "i hate them", "a boring story",
            "the actor was awful", "bad and boring", "the film was bad", "an awful plot", "the story is bad ."]


def document(i: int, text: str, label: str) -> Document:
    return Document(id=f"d{i}", sentences=[Sentence(tokens=[Token(w) for w in text.split()], id=f"d{i}-s0",
                                                    label=label)], label=label)


def write_corpus(folder: Path, split: str, rows: list[tuple[str, str]]) -> Path:
    path = folder / f"{split}.jsonl"
    docs = [document(i, t, lab) for i, (t, lab) in enumerate(rows)]
    write_jsonl(path, docs, kind=f"{folder.name}:toy")  # the kind prepare writes: <dataset>:<format>
    return path


def case(text: str, expected: str, i: int) -> TestCase:
    return TestCase(technique="s2lct", relation="label", source={"text": text}, followup=None, expected=expected,
                    provenance=Provenance(seed_id=f"s{i}", transformation="seed"))


def sentiment_corpus(tmp_path: Path) -> Path:
    """<prepared>/toy_sst/{train,test}.jsonl: labelled toy sentences (test: the first four of each)."""
    prepared = tmp_path / "prepared"
    rows = [(t, "positive") for t in POSITIVE] + [(t, "negative") for t in NEGATIVE]
    write_corpus(prepared / "toy_sst", "train", rows)
    write_corpus(prepared / "toy_sst", "test", rows[:4] + rows[10:14])
    return prepared


def suites(tmp_path: Path) -> Path:
    """<suites>/toy.jsonl (S2LCT-like cases) and <baselines>/toy.jsonl (CheckList-like cases)."""
    s2lct = ["i liked it , but the plot was boring", "people hate the actor and the story",
             "a great film !", "the movie is not good", "is it fun ? not the plot", "good good good film",
             "the story was awful but the actor was great", "a boring , bad , awful movie"]
    baseline = ["the film is good .", "the film is bad .", "the movie is good .", "the movie is bad ."]
    root = tmp_path / "suites"
    write_jsonl(root / "s2lct" / "toy.jsonl", [case(t, "positive", i) for i, t in enumerate(s2lct)], kind="testcase")
    write_jsonl(root / "baselines" / "toy.jsonl", [case(t, "neutral", i) for i, t in enumerate(baseline)],
                kind="testcase")
    return root


TOY_DATA = {"dataset": "toy_sst", "train_split": "train", "test_split": "test",
            "labels": {"positive": "positive", "negative": "negative"}, "drop": [], "max_train": None,
            "lowercase": False}
TRAINER = {"base_model": "offline-default", "epochs": 1, "max_length": 16, "batch_size": 4, "learning_rate": 5e-4,
           "warmup_ratio": 0.0, "weight_decay": 0.0, "max_grad_norm": 1.0, "group_by_length": True,
           "eval_batch_size": 8, "seed": 13, "device": "cpu", "threads": 1}


def stage_config(tmp_path: Path, prepared: Path, suites_root: Path, *, base_model: str, **trainer: object):
    """The composed config with the toy classifier ``toy`` (``finetuned_classifier`` at ``<tmp>/models/toy``,
    trained on ``toy_sst``, measured on suite ``toy``) added, and the paths under ``tmp_path``; not in
    struct mode, so that a test can add systems."""
    from omegaconf import OmegaConf

    from lingtest.config import compose

    paths = {"classifiers": tmp_path / "models", "training": tmp_path / "metrics" / "training",
             "coverage": tmp_path / "metrics" / "coverage", "suites": suites_root / "s2lct",
             "baselines": suites_root / "baselines"}
    cfg = compose([f"paths.prepared={prepared}", *[f"paths.s2lct.{k}={v}" for k, v in paths.items()],
                   "resources.device=cpu", "systems.cache=false", "s2lct.seed=13"])
    OmegaConf.set_struct(cfg, False)
    cfg = OmegaConf.merge(cfg, {
        "systems": {"classification": {"toy": {"kind": "finetuned_classifier", "path": str(tmp_path / "models" / "toy"),
                                               "label_map": None, "neutral_margin": 1 / 3, "max_length": 32,
                                               "device": "cpu", "dtype": "float32"}}},
        "s2lct": {"systems": {"toy": "toy"},
                  "training": {"trainer": {**TRAINER, "base_model": base_model, **trainer},
                               "classifiers": {"toy": TOY_DATA}},
                  "coverage": {"systems": {"toy": {"suite": "toy", "bounds": TOY_DATA}}, "hub_systems": {},
                               "modules": r"(.+\.)?(encoder|transformer)\.layer\.\d+", "bounds_max_texts": None,
                               "sizes": [2, 4, 8], "trials": 3, "batch_size": 3}},
    })
    OmegaConf.set_struct(cfg, False)
    return cfg
