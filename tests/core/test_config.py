from __future__ import annotations

from omegaconf import OmegaConf
from tests.conftest import ROOT

from lingtest.config import compose, compose_yaml, load_params


def test_params_yaml_is_the_composition_of_conf():
    """params.yaml must be exactly what DVC's Hydra composition writes: regenerate it with
    `lingtest config compose` after editing conf/."""
    assert (ROOT / "params.yaml").read_text(encoding="utf-8") == compose_yaml(conf_dir=ROOT / "conf")


def test_overrides_compose_like_dvc_exp_run():
    cfg = compose(["dataset=conll2012", "crest.M=30", "profile=hub"], conf_dir=ROOT / "conf")
    assert cfg.dataset == "conll2012" and cfg.crest.M == 30
    assert cfg.profile.network is True and cfg.parser.name == "stanza"
    offline = compose(conf_dir=ROOT / "conf")
    assert offline.profile.network is False and offline.parser.name == "spacy"


def test_load_params_applies_dotlist_overrides(tmp_path):
    p = tmp_path / "params.yaml"
    p.write_text(OmegaConf.to_yaml(OmegaConf.create({"crest": {"M": 20}, "seed": 1})))
    cfg = load_params(p, ["crest.M=50"])
    assert cfg.crest.M == 50 and cfg.seed == 1
