"""The stage bodies on the tiny fixture in a temporary project folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from lingtest.data import Document, read_jsonl
from lingtest.pipeline.runner import run_body

ROOT = Path(__file__).resolve().parents[2]


class Recorder:
    def __init__(self):
        self.metrics, self.params, self.artifacts, self.tags = {}, {}, [], {}

    def log_params(self, d):
        self.params.update(d)

    def log_metrics(self, d, step=None):
        self.metrics.update(d)

    def log_artifact(self, p):
        self.artifacts.append(p)

    def set_tags(self, d):
        self.tags.update(d)


@pytest.fixture()
def project(tmp_path, fixtures_dir, monkeypatch):
    prepared = tmp_path / "data" / "prepared" / "tiny"
    prepared.mkdir(parents=True)
    for split in ("train", "test"):
        shutil.copy(fixtures_dir / "adversarial" / f"{split}.jsonl", prepared / f"{split}.jsonl")
    monkeypatch.chdir(tmp_path)
    adv = OmegaConf.load(ROOT / "conf" / "adversarial" / "default.yaml")
    paths = OmegaConf.load(ROOT / "conf" / "paths" / "default.yaml")
    cfg = OmegaConf.create({"dataset": "tiny", "seed": 13, "adversarial": adv, "paths": paths,
                            "resources": {"device": "cpu"}})
    cfg.adversarial.splits = ["train", "test"]
    cfg.adversarial.sets = ["swap", "visual", "mixed"]
    cfg.adversarial.p = 1.0
    cfg.adversarial.mixed.schemes = {"swap": 1, "delete": 1}
    return tmp_path, cfg


def test_generate_and_overlap(project):
    from lingtest.adversarial.stages import generate_stage as generate
    from lingtest.adversarial.stages import overlap_stage as overlap

    root, cfg = project
    rec = Recorder()
    run_body(generate, cfg, rec)
    base = root / "data" / "adversarial" / "tiny"
    for s in ("clean", "swap", "visual", "mixed"):
        for split in ("train", "test"):
            assert (base / s / f"{split}.jsonl").exists() and (base / s / f"{split}.conll").exists()
    swapped = list(read_jsonl(base / "swap" / "test.jsonl", Document.from_dict))
    assert swapped[0].words[0] != "Mary" and swapped[0].words[3] == "dog"
    suite = root / "data" / "suites" / "adversarial" / "tiny.jsonl"
    cases = [json.loads(x) for x in suite.read_text().splitlines()[1:]]
    assert {c["provenance"]["transformation"] for c in cases} == {"swap", "visual", "mixed"}
    changes = [ch for c in cases if c["provenance"]["transformation"] == "swap" for ch in c["meta"]["changes"]]
    assert sorted(c["original"] for c in changes) == ["John", "Mary", "Mary"]
    assert all(c["expected"]["name"] == "invariance" for c in cases)
    assert rec.metrics["swap.test.changed_mention_share"] == pytest.approx(0.6)
    # a second run, in this process instead of the configured forked workers, writes the same files
    assert cfg.adversarial.workers == 2
    files = sorted(p for p in [*base.rglob("*"), suite] if p.is_file())
    first = {p: p.read_bytes() for p in files}
    cfg.adversarial.workers = 1
    again = Recorder()
    run_body(generate, cfg, again)
    assert {p: p.read_bytes() for p in files} == first
    assert again.metrics == {k: v for k, v in rec.metrics.items()}

    out = run_body(overlap, cfg, rec)
    written = json.loads((root / "metrics" / "adversarial" / "tiny" / "overlap.json").read_text())
    assert written["sets"]["clean"]["test_vs_clean_train"]["share"] == pytest.approx(0.4)
    assert written["sets"]["swap"]["test_vs_clean_train"]["share"] == pytest.approx(0.2)
    assert written["sets"]["swap"]["changed_mentions"]["share"] == pytest.approx(0.6)
    assert written["groups"]["alpha"]["sets"] == ["swap", "visual"]
    at = written["adversarial_training"]["swap"]
    assert at["ratio"] == 0.5 and set(at["test_sets"]) == {"clean", "swap", "visual", "mixed"}
    assert out["dataset"] == "tiny"
    assert rec.metrics["overlap.sets.clean.test_vs_clean_train.share"] == pytest.approx(0.4)
    assert rec.artifacts[-1].endswith("overlap.json")


def test_generate_needs_prepared_data(project):
    from lingtest.adversarial.stages import generate_stage as generate
    from lingtest.errors import LingtestError

    _, cfg = project
    cfg.dataset = "missing"
    with pytest.raises(LingtestError, match="written by stage prepare@missing"):
        run_body(generate, cfg, Recorder())


def test_later_stages_name_the_stage_they_need(project):
    from lingtest.adversarial.stages import overlap_stage, report_stage
    from lingtest.errors import MissingResourceError

    _, cfg = project
    with pytest.raises(MissingResourceError, match="written by stage adversarial_generate;"):
        run_body(overlap_stage, cfg, Recorder())
    cfg.adversarial.systems = ["sieve"]
    with pytest.raises(MissingResourceError, match="written by stage adversarial_score@sieve;"):
        run_body(report_stage, cfg, Recorder())


def test_the_configuration_is_checked_before_any_work(project):
    from lingtest.adversarial.stages import generate_stage
    from lingtest.errors import ConfigError

    root, cfg = project
    cfg.adversarial.input = "somewhere"
    with pytest.raises(ConfigError, match="adversarial.input"):
        run_body(generate_stage, cfg, Recorder())
    assert not (root / "data" / "adversarial").exists()


def test_score_with_an_oracle_system(project, monkeypatch):
    pytest.importorskip("lingtest.metrics.coref")
    from lingtest.adversarial.stages import generate_stage as generate
    from lingtest.adversarial.stages import report_stage, score_stage
    from lingtest.systems import SYSTEMS
    from lingtest.systems.coref.base import CorefSystem

    root, cfg = project
    run_body(generate, cfg, Recorder())
    gold = {d.key: d.clusters for d in read_jsonl(root / "data" / "adversarial" / "tiny" / "clean" / "test.jsonl",
                                                    Document.from_dict)}

    class Oracle(CorefSystem):
        name = "oracle"

        def predict(self, inputs):
            return [gold[d.key] for d in inputs]  # perturbations keep spans (no multi-word schemes here)

    monkeypatch.setitem(SYSTEMS.task("coref")._entries, "oracle", Oracle)
    cfg.systems = {"cache": False, "batch_size": {"cpu": 8}, "coref": {"oracle": {}}}
    cfg.adversarial.systems = ["oracle"]
    rec = Recorder()
    res = run_body(score_stage, cfg, rec, "oracle")
    assert res["table3"]["clean"] == pytest.approx(100.0)
    assert res["table3"]["alpha_delta"] == pytest.approx(0.0)
    assert all(v["failures"] == 0 for v in res["invariance"].values())  # gold is invariant
    # the generated perturbations keep their gold, and no failure means no precision to adjust
    assert all(v["validity_valid"] == v["validity_total"] == v["cases"] > 0 for v in res["invariance"].values())
    assert all(v["precision_validity_adjusted"] is None for v in res["invariance"].values())
    metrics = root / "metrics" / "adversarial" / "tiny"
    assert (metrics / "systems" / "oracle.json").exists()
    assert (root / "data" / "results" / "adversarial" / "tiny" / "oracle.jsonl").exists()
    assert rec.metrics["oracle.table3.clean"] == pytest.approx(100.0)
    run_body(report_stage, cfg, rec)
    assert (metrics / "conll_f1.png").exists()
    assert "oracle" in (metrics / "table3.md").read_text()


@pytest.mark.parametrize("overrides", [[], ["profile=offline"], ["profile=hub"]])
def test_composed_config_builds_every_set(overrides):
    from lingtest.adversarial.config import AdversarialConfig
    from lingtest.adversarial.sets import build_perturber
    from lingtest.config import compose

    cfg = compose(overrides, conf_dir=ROOT / "conf")
    config = AdversarialConfig.from_config(cfg)
    assert config.seed == cfg.seed and 0 < config.p <= 1
    for s in config.sets:
        p = build_perturber(config, s)
        assert p.name == s and p.p == config.p
    assert set(build_perturber(config, "mixed").names) == {"swap", "delete", "visual", "synonym", "hyponym", "hypernym"}
    assert config.scheme_options("visual") == {"min_length": config.orthographic.min_length,
                                               "scripts": list(config.visual.scripts)}


def test_the_workspace_params_validate():
    from lingtest.adversarial.config import AdversarialConfig
    from lingtest.config import load_params

    config = AdversarialConfig.from_config(load_params(ROOT / "params.yaml"))
    assert config.test_split in config.splits and "mixed" in config.sets
