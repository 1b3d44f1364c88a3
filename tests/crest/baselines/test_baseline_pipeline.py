"""The three stage bodies through the stage runner, on the configuration proposed for conf/ (a copy of conf/ with
``crest/baselines.yaml``, its defaults entry and the ``paths.crest.baselines*`` keys), with fakes for the
parser and the system under test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from baseline_fakes import FakeParts
from crest_fakes import FakeSystem
from omegaconf import OmegaConf

from lingtest.config import compose
from lingtest.crest.baselines import stages
from lingtest.data.io import write_json, write_jsonl
from lingtest.data.model import Cluster, Document, Mention, Sentence, Token
from lingtest.pipeline.runner import run_body
from lingtest.tracking import NullTracker, leaf_params, stage_spec

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).parent
@pytest.fixture(scope="module")
def cfg(tmp_path_factory):
    return compose(["crest.N=3", "crest.systems=[fake]", "crest_baselines.baselines=[checklist,textattack]"],
                   conf_dir=ROOT / "conf")


def prepared_split(root: Path, corpus: str) -> None:
    texts = ["John said that he liked the dog .", "It is not sure that it barked .", "The dog saw the cat ."]
    docs = [Document(f"doc{i}", sentences=[Sentence([Token(w) for w in t.split()])],
                     clusters=[Cluster([Mention(0, 1), Mention(3, 4)])]) for i, t in enumerate(texts)]
    write_jsonl(root / "data" / "prepared" / corpus / "test.jsonl", docs, kind="document")


def test_generate_evaluate_and_report_through_the_stage_runner(tmp_path, cfg, monkeypatch):
    # no WordNet in the fakes: TextAttack runs the recipes that need none
    monkeypatch.setattr("lingtest.crest.baselines.parts.StageParts",
                        lambda c, b, fill_table=None: FakeParts(wordnet=_NoWordNet()))
    monkeypatch.setattr("lingtest.systems.factory.build_system", lambda c, task, name: FakeSystem())
    corpus = str(cfg.crest.corpus)
    prepared_split(tmp_path, corpus)
    for b in ("checklist", "textattack"):
        # as `dvc repro` runs it: the run already holds the parameters the stage's DVC file lists, which
        # a stage body must not log again with another value (MLflow refuses that)
        tracker = StrictTracker()
        config = OmegaConf.to_container(cfg, resolve=True)
        spec = stage_spec(ROOT, f"crest_baseline_generate@{b}", config)
        assert spec is not None and "crest_baselines.M" in spec.params
        tracker.log_params(leaf_params(config, spec.params))
        gen = run_body(stages.generate_stage, cfg, tracker=tracker, item=b, root=tmp_path)
        assert tracker.params["crest_baselines.M"] == "None" and str(tracker.params["crest_baselines.M_used"]) == "20"
        assert gen["sources"] == 3 and gen["generated"] > 0
        out = run_body(stages.evaluate_stage, cfg, item=b, root=tmp_path)
        assert set(out["systems"]) == {"fake"} and out["systems"]["fake"]["tests"] == gen["generated"]
    metrics = tmp_path / "metrics" / "crest" / corpus
    write_json(metrics / "generation.json", {"seconds_per_selected": 0.05})
    crest_row = {**out["systems"]["fake"], "approach": "crest"}
    write_json(metrics / "systems" / "fake.json", crest_row)
    table = run_body(stages.report_stage, cfg, root=tmp_path)
    assert "| checklist |" in table and "| textattack |" in table and "| crest |" in table
    rows = json.loads((metrics / "comparison" / "table1.json").read_text())["rows"]
    assert [r["approach"] for r in rows] == ["checklist", "textattack", "crest"]
    assert (tmp_path / "data" / "results" / "crest" / corpus / "baselines" / "checklist" / "fake.jsonl").exists()
    with pytest.raises(Exception, match="not in crest_baselines.baselines"):
        run_body(stages.generate_stage, cfg, item="sit", root=tmp_path)


class StrictTracker(NullTracker):
    """A NullTracker that refuses to change a logged parameter's value, as MLflow does."""

    def log_params(self, params):
        from lingtest.tracking import flatten

        flat = flatten(params)
        changed = sorted(k for k, v in flat.items() if k in self.params and str(self.params[k]) != str(v))
        if changed:
            raise ValueError(f"changing param values is not allowed (MLflow refuses it): {changed}")
        super().log_params(flat)


class _NoWordNet:
    def synsets(self, word, pos=None):
        return []
