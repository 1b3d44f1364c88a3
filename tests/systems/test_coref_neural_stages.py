"""The stage helpers of lingtest.coref_training: seeded subsets, the mixed training set (perturbed
documents keep their own spans and are checked against their clean originals), and the experiment
table with the overlap figures beside each F1."""

from __future__ import annotations

import copy

import pytest
from coref_handparse import doc

from lingtest.adversarial.apply import replace_tokens
from lingtest.coref_training.report import experiment_table, overlap_share
from lingtest.coref_training.training_set import parse_perturbed, subset
from lingtest.data.model import Cluster, Document, Mention
from lingtest.errors import LingtestError


def _docs(n: int) -> list[Document]:
    out = []
    for i in range(n):
        d = doc("John/NNP/2/nsubj/B-PERSON met/VBD/0/ROOT Mary/NNP/2/dobj/B-PERSON ././2/punct",
                "He/PRP/2/nsubj smiled/VBD/0/ROOT ././2/punct", id=f"d{i}")
        d.clusters = [Cluster([Mention(0, 1), Mention(4, 5)])]
        out.append(d)
    return out


def test_subset_is_seeded_and_keeps_input_order():
    docs = _docs(10)
    a = subset(docs, 4, 13)
    assert [d.key for d in a] == [d.key for d in subset(docs, 4, 13)]
    assert [d.key for d in a] == sorted((d.key for d in a), key=lambda k: int(k[1:]))
    assert [d.key for d in subset(docs, 4, 14)] != [d.key for d in a]
    assert subset(docs, None, 13) == docs and subset(docs, 99, 13) == docs


class _WordParser:
    """Parses by copying (a stand-in for the configured parser), optionally dropping a token."""

    def __init__(self, corrupt: bool = False) -> None:
        self.corrupt = corrupt

    def parse_documents(self, docs):
        out = copy.deepcopy(docs)
        if self.corrupt:
            out[0].sentences[0].tokens.pop()
        return out


def test_perturbed_documents_keep_their_own_spans_through_parsing():
    clean = _docs(2)
    pert = [replace_tokens(d, {0: ["Jo", "hn"]})[0] for d in clean]
    parsed = parse_perturbed(pert, _WordParser())
    assert [c.mentions for c in parsed[0].clusters] == [[Mention(0, 2), Mention(5, 6)]]
    with pytest.raises(LingtestError, match="changed its words"):
        parse_perturbed(pert, _WordParser(corrupt=True))


def test_experiment_table_puts_overlap_beside_f1():
    sets = ["swap", "mixed"]
    scores = {v: {"sets": {"clean": {"conll": {"f1": f}}, "swap": {"conll": {"f1": f - 10}},
                           "mixed": {"conll": {"f1": f - 5}}},
                  "table3": {"avg": f - 10, "alpha": f - 10}} for v, f in (("clean", 50.0), ("mixed", 48.0))}
    overlap = {"sets": {"clean": {"test_vs_clean_train": {"mentions": 100, "overlapping": 60}},
                        "swap": {"test_vs_clean_train": {"mentions": 100, "overlapping": 40}}},
               "adversarial_training": {"mixed": {"test_sets": {"swap": {"mentions": 100, "overlapping": 55}}}}}
    training = {"clean": {"data": {"documents": 10, "perturbed_in_subset": 0}, "epoch": 3, "train_loss": [3, 2, 1],
                          "dev_f1": 40.0, "train_candidate_recall": {"recall": 0.8}, "seconds": 12.0},
                "mixed": {"data": {"documents": 10, "perturbed_in_subset": 5}, "epoch": 2, "train_loss": [3, 2, 1],
                          "dev_f1": 39.0, "train_candidate_recall": {"recall": 0.75}, "seconds": 13.0}}
    assert overlap_share(overlap, "clean", "swap") == 0.4
    assert overlap_share(overlap, "mixed", "swap") == 0.55
    assert overlap_share(overlap, "mixed", "clean") is None
    md, data = experiment_table(scores, training, overlap, sets)
    assert "| clean | 50.00 (60.0) | 40.00 (40.0) | 45.00 |" in md
    assert "| mixed (5/10 docs perturbed) | 48.00 | 38.00 (55.0) | 43.00 |" in md
    assert "| mixed | 10 | 5 | 2 / 3 | 39.00 | 75.0% |" in md and "13.0" not in md  # no wall clock in outputs
    assert data["variants"]["mixed"]["conll_f1"]["swap"] == 38.0


def test_the_configured_sections_are_valid():
    """coref_training.train builds a training config (demo and offline profiles) and every
    systems.coref entry of kind neural takes exactly the system's options and points at
    <paths.coref_training.models>/<variant>."""
    import inspect
    from pathlib import Path

    from lingtest.config import compose
    from lingtest.systems.coref.neural.system import NeuralCorefSystem
    from lingtest.systems.coref.neural.trainer import TrainCorefConfig
    from lingtest.systems.entries import OWN_KEYS

    root = Path(__file__).resolve().parents[2]
    for overrides in ([], ["profile=offline"]):
        cfg = compose(overrides, conf_dir=root / "conf")
        tc = TrainCorefConfig.from_mapping(cfg.coref_training.train)
        assert tc.encoder == "offline-default" and not tc.fine_tune
        params = set(inspect.signature(NeuralCorefSystem).parameters)
        for variant in cfg.coref_training.variants:
            entry = dict(cfg.systems.coref[f"neural_{variant}"])
            assert entry["kind"] == "neural"
            assert set(entry) - set(OWN_KEYS) <= params
            assert entry["path"] == f"{cfg.paths.coref_training.models}/{variant}"
    demo = compose([], conf_dir=root / "conf").coref_training
    full = compose(["profile=offline"], conf_dir=root / "conf").coref_training
    assert demo.max_train_documents < 191 and full.max_train_documents is None
    assert demo.train.epochs < full.train.epochs


@pytest.mark.parametrize("overrides", [[], ["profile=offline"], ["profile=hub"]])
def test_the_typed_section_validates_and_gives_the_trainer_its_options(overrides):
    from pathlib import Path

    from lingtest.config import compose
    from lingtest.coref_training.config import CorefTrainingConfig
    from lingtest.errors import ConfigError
    from lingtest.systems.coref.neural.trainer import TrainCorefConfig

    root = Path(__file__).resolve().parents[2]
    cfg = compose(overrides, conf_dir=root / "conf")
    config = CorefTrainingConfig.from_config(cfg)
    # the typed block hands the trainer the very values (and kinds: repr tells 5 from 5.0) conf/ holds
    assert repr(config.train) == repr(
        TrainCorefConfig.from_mapping(cfg.coref_training.train))
    assert config.max_train_documents == cfg.coref_training.max_train_documents
    cfg.coref_training.train.epochs = "many"
    with pytest.raises(ConfigError, match="coref_training.train.epochs"):
        CorefTrainingConfig.from_config(cfg)


def test_the_workspace_params_validate():
    from pathlib import Path

    from lingtest.config import load_params
    from lingtest.coref_training.config import CorefTrainingConfig

    config = CorefTrainingConfig.from_config(load_params(Path(__file__).resolve().parents[2] / "params.yaml"))
    assert "clean" in config.variants


def test_the_mixed_training_set_replaces_half_the_documents_with_checked_perturbed_ones(tmp_path, monkeypatch):
    from pathlib import Path

    from omegaconf import OmegaConf

    from lingtest.coref_training import stages
    from lingtest.coref_training.config import CorefTrainingConfig
    from lingtest.data import write_jsonl
    from lingtest.errors import ConfigError, InputError, MissingResourceError
    from lingtest.execution.context import StageContext

    clean = _docs(8)
    pert = []
    for d in clean:
        p = replace_tokens(d, {0: ["Jo", "hn"]})[0]  # every later span moves by one
        p.meta["adversarial"] = {"set": "mixed"}
        pert.append(p)
    write_jsonl(tmp_path / "parsed" / "x" / "train.jsonl", clean, kind="document")
    write_jsonl(tmp_path / "adv" / "mixed" / "train.jsonl", pert, kind="document")
    monkeypatch.setattr("lingtest.parsing.cache.build_parser", lambda options: _WordParser())
    conf = Path(__file__).resolve().parents[2] / "conf"
    cfg = OmegaConf.create({
        "dataset": "x", "seed": 13, "parser": {"name": "spacy"}, "resources": {"device": "cpu"},
        "paths": {"parsed": "parsed", "adversarial": {"sets": "adv"}},
        "adversarial": OmegaConf.load(conf / "adversarial" / "default.yaml"),
        "coref_training": OmegaConf.load(conf / "coref_training" / "default.yaml")})
    cfg.adversarial.sets = ["swap", "mixed"]
    cfg.adversarial.overlap.adversarial_train_ratio = 0.5

    def training_documents(variant):
        ctx = StageContext("coref_train", cfg, item=variant, root=tmp_path)
        return stages.training_documents(ctx, CorefTrainingConfig.from_config(cfg), variant)

    docs, info = training_documents("mixed")
    assert info["perturbed_documents"] == 4 and info["perturbed_in_subset"] == 4 and len(docs) == 8
    for d in docs:
        if "adversarial" in d.meta:  # a perturbed document with its own, shifted spans
            assert d.words[:2] == ["Jo", "hn"] and [c.mentions for c in d.clusters] == [[Mention(0, 2), Mention(5, 6)]]
        else:
            assert [c.mentions for c in d.clusters] == [[Mention(0, 1), Mention(4, 5)]]
    cfg.coref_training.max_train_documents = 4  # a subset: the same documents for both variants, half perturbed
    sub, info_sub = training_documents("mixed")
    sub_clean, _ = training_documents("clean")
    assert [d.key for d in sub] == [d.key for d in sub_clean] and len(sub) == 4
    assert info_sub["perturbed_in_subset"] == 2
    cfg.coref_training.max_train_documents = None
    docs_clean, info_clean = training_documents("clean")
    assert info_clean["perturbed_documents"] == 0 and [d.words for d in docs_clean] == [d.words for d in clean]
    # perturbed documents carrying the clean spans are refused before any training
    for p, d in zip(pert, clean, strict=True):
        p.clusters = copy.deepcopy(d.clusters)
    write_jsonl(tmp_path / "adv" / "mixed" / "train.jsonl", pert, kind="document")
    with pytest.raises(InputError, match="do not match its tokens|moved|shorter"):
        training_documents("mixed")
    with pytest.raises(ConfigError, match="neither 'clean' nor"):
        training_documents("hyponym")
    cfg.adversarial.sets = ["swap", "mixed", "delete"]
    with pytest.raises(MissingResourceError, match="written by stage adversarial_generate;"):
        training_documents("delete")
    cfg.dataset = "y"
    with pytest.raises(MissingResourceError, match="written by stage parse@y;"):
        training_documents("clean")


def test_the_stage_bodies_write_the_training_metrics_and_the_table(tmp_path, monkeypatch):
    import json
    from pathlib import Path

    from omegaconf import OmegaConf

    from lingtest.coref_training import stages
    from lingtest.data import write_jsonl
    from lingtest.errors import ConfigError, MissingResourceError
    from lingtest.pipeline.runner import run_body
    from lingtest.tracking import NullTracker

    for split in ("train", "dev"):
        write_jsonl(tmp_path / "parsed" / "x" / f"{split}.jsonl", _docs(4), kind="document")
    seen = {}

    def fake_train(config, train_docs, dev_docs, out_dir):
        seen.update(config=config, train=len(train_docs), dev=len(dev_docs), out=out_dir)
        return {"epoch": 1, "dev_f1": None, "seconds": 1.5, "train_loss": [2.0], "dev_conll_f1": [0.0],
                "train_candidate_recall": {"recall": 0.5}}

    monkeypatch.setattr("lingtest.systems.coref.neural.trainer.train_coref", fake_train)
    conf = Path(__file__).resolve().parents[2] / "conf"
    cfg = OmegaConf.create({
        "dataset": "x", "seed": 13, "resources": {"device": "cpu"},
        "paths": {"parsed": "parsed", "adversarial": {"sets": "adv", "metrics": "adv_metrics"},
                  "coref_training": {"models": "models", "training": "training", "metrics": "ct"}},
        "adversarial": OmegaConf.load(conf / "adversarial" / "default.yaml"),
        "coref_training": OmegaConf.load(conf / "coref_training" / "default.yaml")})
    cfg.coref_training.max_dev_documents = 2
    result = run_body(stages.train_stage, cfg, NullTracker(), "clean", root=tmp_path)
    assert seen["train"] == 4 and seen["dev"] == 2 and seen["out"] == tmp_path / "models" / "clean"
    assert seen["config"].epochs == cfg.coref_training.train.epochs
    written = json.loads((tmp_path / "training" / "clean.json").read_text())
    assert written == {k: v for k, v in result.items() if k != "seconds"} and result["seconds"] == 1.5
    assert written["data"] == {"variant": "clean", "split": "train", "perturbed_documents": 0,
                                                     "documents": 4, "perturbed_in_subset": 0}
    with pytest.raises(ConfigError, match="unknown variant"):
        run_body(stages.train_stage, cfg, NullTracker(), "bogus", root=tmp_path)

    cfg.coref_training.variants = ["clean"]
    with pytest.raises(MissingResourceError, match="written by stage adversarial_overlap;"):
        run_body(stages.report_stage, cfg, NullTracker(), root=tmp_path)
    (tmp_path / "adv_metrics" / "systems").mkdir(parents=True)
    (tmp_path / "adv_metrics" / "overlap.json").write_text("{}")
    with pytest.raises(MissingResourceError, match="written by stage adversarial_score@neural_clean;"):
        run_body(stages.report_stage, cfg, NullTracker(), root=tmp_path)
    scores = {"sets": {"clean": {"conll": {"f1": 50.0}}}, "table3": {"clean": 50.0}}
    (tmp_path / "adv_metrics" / "systems" / "neural_clean.json").write_text(json.dumps(scores))
    table = run_body(stages.report_stage, cfg, NullTracker(), root=tmp_path)
    assert "| clean | 50.00 |" in table
    assert (tmp_path / "ct" / "adversarial_training.md").read_text() == table
    assert "clean" in json.loads((tmp_path / "ct" / "adversarial_training.json").read_text())["variants"]
