"""The ContraCAT stage bodies end to end on the readers' fixture vocabulary (with foods added from a TSV
list) and a callable contrastive system; the typed configuration of every profile."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from lingtest.contracat import stages
from lingtest.contracat.config import ContracatConfig
from lingtest.errors import ConfigError, MissingResourceError
from lingtest.pipeline.runner import run_body
from lingtest.tracking import NullTracker

VOCABULARY = Path(__file__).resolve().parents[1] / "fixtures" / "readers" / "contracat" / "templates"


def neuter_wins(batch):
    """A contrastive "system": always the third (neuter) candidate."""
    return [[-3.0, -2.0, -1.0] for _ in batch]


@pytest.mark.parametrize("profile", [[], ["profile=hub"], ["profile=offline"]])
def test_every_profile_validates(profile):
    from lingtest.config import compose

    c = ContracatConfig.from_config(compose(profile))
    assert c.templates and c.extra_nouns.noun_class == "concrete_noun"


@pytest.fixture
def cfg(tmp_path):
    from lingtest.config import compose

    (tmp_path / "foods.tsv").write_text("apple\tApfel\tm\negg\tEi\tn\nsoup\tSuppe\tf\n", encoding="utf-8")
    cfg = compose(["systems.cache=false", f"contracat.vocabulary={VOCABULARY}", "contracat.extra_nouns.class=food",
                   f"contracat.extra_nouns.tsv={tmp_path / 'foods.tsv'}", "contracat.templates=[0_priors/role,mine]",
                   "contracat.sample=3", "contracat.systems=[neuter]",
                   *[f"paths.contracat.{k}={tmp_path / v}" for k, v in
                     {"sets": "sets", "cases": "cases.jsonl", "results": "results", "metrics": "metrics",
                      "report": "report"}.items()]])
    OmegaConf.set_struct(cfg, False)
    from lingtest.contracat.definitions import RELEASE

    entry = {"kind": "callable", "function": "tests.contracat.test_stages:neuter_wins", "io": "objects",
             "version": None, "options": {}}
    return OmegaConf.merge(cfg, {"systems": {"contrastive": {"neuter": entry}},
                                 "contracat": {"custom": {"mine": RELEASE["0_priors/role"]}}})


def test_stage_bodies_generate_score_report(cfg, tmp_path):
    with pytest.raises(MissingResourceError, match="stage contracat_generate"):
        run_body(stages.score_stage, cfg, item="neuter")
    tracker = NullTracker()
    summary = run_body(stages.generate_stage, cfg, tracker)
    assert summary["vocabulary"] == {"animal": 2, "food": 3}
    role = summary["templates"]["0_priors/role"]
    assert role["examples"] > 3 and role["scored"] == 3 and summary["templates"]["mine"] == role
    assert json.loads((tmp_path / "sets" / "summary.json").read_text()) == summary
    assert tracker.metrics == {"cases": 6.0, "validity": 1.0, "examples.0_priors/role": float(role["examples"]),
                               "examples.mine": float(role["examples"])}
    assert summary["validity"]["validity"] == 1.0 and summary["scored_invalid"] == {} and role["validity"] == 1.0
    sets = tmp_path / "sets"
    assert (sets / "mine" / "en.txt").read_bytes() == (sets / "0_priors" / "role" / "en.txt").read_bytes()
    with pytest.raises(MissingResourceError, match="stage contracat_score@neuter"):
        run_body(stages.report_stage, cfg)
    scored = run_body(stages.score_stage, cfg, item="neuter")
    assert scored["cases"] == 6 and scored["templates"]["0_priors/role"]["chosen"]["n"] == 1.0
    # priors have no correct answer: no wrong choice to grade, every case valid
    assert (scored["validity"], scored["errors"], scored["precision_validity_adjusted"]) == (1.0, 0, None)
    text = run_body(stages.report_stage, cfg)
    assert (tmp_path / "report" / "report.md").read_text() == text and "neuter" in text


def test_an_unknown_template_or_key_is_a_config_error(cfg):
    with pytest.raises(ConfigError, match="unknown template 'nope'"):
        run_body(stages.generate_stage, OmegaConf.merge(cfg, {"contracat": {"templates": ["nope"]}}))
    with pytest.raises(ConfigError, match="contracat.extra_nouns.typo: unknown key"):
        run_body(stages.generate_stage, OmegaConf.merge(cfg, {"contracat": {"extra_nouns": {"typo": 1}}}))
