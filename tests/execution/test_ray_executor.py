"""``executor=ray`` gives what ``executor=local`` gives, on a local Ray cluster (``ray.init(num_cpus=2)``):
the same predictions and cache (Ray Data ``map_batches`` over an actor pool, the driver storing),
per-item and batch failures handled as locally, and the same CREST suite bytes and evaluation records
(generation partitioned by source waves over generator actors). The cluster: ``local_ray`` (conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from omegaconf import OmegaConf

from lingtest.errors import SystemFailure
from lingtest.pipeline.runner import run_body
from lingtest.store import JSONStore
from lingtest.systems.base import ItemFailure, PartialFailure
from lingtest.systems.factory import build_system

ray = pytest.importorskip("ray")
# a local Ray cluster takes ~10 s to start and each actor pool seconds more on 2 cores: end-to-end tier
pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
HERE = "tests.execution.test_ray_executor"
RAY = {"name": "ray", "address": None, "num_cpus": 2,
       "inference": {"actors": 2, "cpus_per_actor": 1, "gpus_per_actor": 0},
       "crest": {"actors": 2, "cpus_per_actor": 1, "gpus_per_actor": 0},
       "generation": {"actors": 2, "cpus_per_actor": 1, "gpus_per_actor": 0}}


# a user's function (JSON form); "boom" fails its whole batch, "???" only its item
def classify(texts):
    if any("boom" in t for t in texts):
        raise ValueError("model crashed")
    out = []
    for t in texts:
        if "???" in t:
            out.append({"error": "unreadable"})
        else:
            p = min(1.0, 0.1 + 0.2 * t.count("good"))
            out.append({"negative": 1 - p, "positive": p})
    return out


def _cfg(tmp_path, executor):
    entry = {"kind": "callable", "function": f"{HERE}:classify", "io": "json", "version": None, "options": {}}
    return OmegaConf.create({"resources": {"device": "cpu"}, "executor": executor,
                             "systems": {"cache": True, "cache_dir": str(tmp_path), "batch_size": {"cpu": 3},
                                         "sort_by_length": True, "classification": {"fn": entry}}})


TEXTS = [f"{'good ' * (i % 4)}film number {i}" for i in range(20)]


def test_inference_on_ray_equals_local_and_the_driver_owns_the_cache(local_ray, tmp_path):
    local = build_system(_cfg(tmp_path / "local", {"name": "local"}), "classification", "fn")
    on_ray = build_system(_cfg(tmp_path / "ray", RAY), "classification", "fn")
    assert on_ray.key(TEXTS[0]) == local.key(TEXTS[0])  # same config, version, device type: same key
    expected = local.predict(TEXTS)
    assert on_ray.predict(TEXTS) == expected
    assert on_ray.runner.batches_run == 7 and on_ray.misses == 20  # type: ignore[attr-defined]
    a = JSONStore(tmp_path / "local" / "classification.sqlite", table="predictions")
    b = JSONStore(tmp_path / "ray" / "classification.sqlite", table="predictions")
    keys = [local.key(t) for t in TEXTS]
    assert a.get_many(keys) == b.get_many(keys) and len(b) == 20
    # warm: nothing is sent to the cluster
    again = build_system(_cfg(tmp_path / "ray", RAY), "classification", "fn")
    assert again.predict(TEXTS) == expected and again.hits == 20 and again.runner.batches_run == 0  # type: ignore[attr-defined]


def test_failures_on_ray_behave_as_locally(local_ray, tmp_path):
    cfg = _cfg(tmp_path, RAY)
    with pytest.raises(PartialFailure) as info:
        build_system(cfg, "classification", "fn").predict(["good", "??? x", "ok"])
    assert list(info.value.failures) == [1] and isinstance(info.value.outputs[1], ItemFailure)
    store = JSONStore(tmp_path / "classification.sqlite", table="predictions")
    assert len(store) == 2
    with pytest.raises(ValueError, match="model crashed"):
        build_system(cfg, "classification", "fn").predict(["fine", "boom"])
    assert len(store) == 2  # the failing batch stored nothing


def test_unknown_executor_is_an_error(tmp_path):
    from lingtest.errors import ConfigError

    with pytest.raises(ConfigError, match="executor.name"):
        build_system(_cfg(tmp_path, {"name": "dask"}), "classification", "fn")
    assert SystemFailure  # imported for the module's readers: actor failures arrive as the original type


def _have_offline_models() -> bool:
    try:
        from nltk.corpus import wordnet

        from lingtest.parsing.spacy_backend import load_spacy_model

        load_spacy_model("en_core_web_sm")

        wordnet.synsets("dog")
    except Exception:
        return False
    return True


@pytest.mark.models
def test_crest_generation_and_evaluation_on_ray_are_identical(local_ray, tmp_path):
    """Real components (spaCy sm parser + dep2const, WordNet proposer, the sieve system) on a toy corpus:
    same suite bytes, same generated file, same result records and metrics."""
    if not _have_offline_models():
        pytest.skip("offline models (spaCy en_core_web_sm, WordNet) not installed")
    from lingtest.crest import stages
    from lingtest.data import Cluster, Document, Mention, Sentence, Token, write_jsonl
    from tests.fakes.lm import NullTracker

    texts = [("John said that the big dog liked him .", [(0, 1), (7, 8)]),
             ("Mary quickly told John that he ran home .", [(3, 4), (5, 6)]),
             ("The old teacher said she would bring her books .", [(0, 3), (4, 5), (7, 8)]),
             ("Peter thinks his brother is a very good cook .", [(0, 1), (2, 3)]),
             ("Anna gave the small child her red ball .", [(0, 1), (5, 6)])]
    docs = [Document(f"doc{i}", sentences=[Sentence([Token(w) for w in t.split()])],
                     clusters=[Cluster([Mention(s, e) for s, e in ms])]) for i, (t, ms) in enumerate(texts)]
    write_jsonl(tmp_path / "prepared" / "toy" / "test.jsonl", docs, kind="document")
    conf = ROOT / "conf"
    systems = OmegaConf.load(conf / "systems" / "default.yaml")
    parser = OmegaConf.merge(OmegaConf.load(conf / "parser" / "spacy.yaml"),
                             {"workers": 0, "cache_dir": str(tmp_path / "parses")})
    crest = OmegaConf.merge(OmegaConf.load(conf / "crest" / "default.yaml"),
                            {"N": None, "M": 3, "batch_sources": 2, "proposers": {"enabled": ["wordnet"]},
                             "ranker": {"enabled": False}, "naturalness": {"enabled": False},
                             "systems": ["sieve"]})

    sieve = OmegaConf.merge(systems.coref.sieve, {"use_wordnet": False})

    def run(name, executor):
        out = tmp_path / name
        resources = {"device": "cpu",
                     "score_decimals": OmegaConf.load(conf / "resources" / "default.yaml").score_decimals}
        cfg = OmegaConf.create({"dataset": "toy", "seed": 7, "parser": parser, "resources": resources,
                                "executor": executor,
                                "systems": {"cache": False, "cache_dir": None, "batch_size": {"cpu": 2},
                                            "sort_by_length": True, "coref": {"sieve": sieve}},
                                "paths": {"prepared": str(tmp_path / "prepared"),
                                          "crest": {k: str(out / v) for k, v in
                                                    {"generated": "gen.jsonl", "sources": "src.jsonl",
                                                     "suite": "suite.jsonl", "metrics": "metrics",
                                                     "results": "results"}.items()}},
                                "crest": OmegaConf.merge(crest, {"corpus": "toy", "seed": 7})})
        gen = run_body(stages.generate_stage, cfg, NullTracker())
        row = run_body(stages.evaluate_stage, cfg, NullTracker(), "sieve")
        return out, gen, row

    a, gen_a, row_a = run("local", {"name": "local"})
    # generation over two actors (the partition is what is tested); inference over one (tested above)
    b, gen_b, row_b = run("ray", {**RAY, "inference": {**RAY["inference"], "actors": 1}})
    assert gen_a["generated"] > 0 and gen_a["suite_size"] > 0
    for f in ("suite.jsonl", "gen.jsonl", "src.jsonl", "results/sieve.jsonl"):
        assert (a / f).read_bytes() == (b / f).read_bytes(), f
    for k in ("sources", "generated", "selected", "suite_size", "candidate_survival", "stats"):
        if k == "stats":
            assert {x: v for x, v in gen_a[k].items() if x != "seconds"} == \
                   {x: v for x, v in gen_b[k].items() if x != "seconds"}
        else:
            assert gen_a[k] == gen_b[k], k
    assert {k: v for k, v in row_a.items() if k != "predict_seconds"} == \
           {k: v for k, v in row_b.items() if k != "predict_seconds"}
