"""Stage bodies end to end with fakes: suite reproducibility, metrics, ablation outputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from crest_fakes import TABLE, FakeParser, FakeProposer, FakeSystem
from omegaconf import OmegaConf
from tests.fakes.lm import NullTracker

from lingtest.crest import stages
from lingtest.crest.suite import load_generated
from lingtest.data import Cluster, Document, Mention, Sentence, TestCase, Token, read_jsonl, write_jsonl
from lingtest.parsing import PARSERS
from lingtest.pipeline.runner import run_body
from lingtest.resources.candidates import PROPOSERS
from lingtest.systems import SYSTEMS

CONF = Path(__file__).resolve().parents[2] / "conf" / "crest" / "default.yaml"


@pytest.fixture
def cfg(tmp_path, monkeypatch, corpus_docs):
    monkeypatch.setitem(PARSERS._entries, "fake_crest", FakeParser)
    monkeypatch.setitem(PROPOSERS._entries, "fake_crest", lambda **kw: FakeProposer(TABLE))
    monkeypatch.setitem(SYSTEMS.task("coref")._entries, "fake_crest", FakeSystem)
    # a source the fake system gets wrong (it links "him" too) and breaks on with "rapidly"
    s = "John quickly saw him and he liked the big dog ."
    doc3 = Document("doc3", sentences=[Sentence([Token(w) for w in s.split()])],
                    clusters=[Cluster([Mention(0, 1), Mention(5, 6)])])
    # a source with nothing to replace: it must still count as a source
    doc4 = Document("doc4", sentences=[Sentence([Token(w) for w in "John saw him .".split()])],
                    clusters=[Cluster([Mention(0, 1), Mention(2, 3)])])
    inp = tmp_path / "prepared" / "toy" / "test.jsonl"
    write_jsonl(inp, [*corpus_docs, doc3, doc4], kind="document")
    crest = OmegaConf.load(CONF)
    root = OmegaConf.create({"dataset": "toy", "seed": 7, "parser": {"name": "fake_crest"},
                             "resources": {"device": "cpu", "score_decimals": OmegaConf.load(
                                 CONF.parents[1] / "resources" / "default.yaml").score_decimals},
                             "systems": {"cache": False, "batch_size": {"cpu": 64}, "coref": {"fake_crest": {}}},
                             "paths": {"prepared": str(tmp_path / "prepared"),
                                       "crest": {"generated": str(tmp_path / "gen.jsonl"),
                                                 "sources": str(tmp_path / "src.jsonl"),
                                                 "suite": str(tmp_path / "suite.jsonl"),
                                                 "metrics": str(tmp_path / "metrics"),
                                                 "results": str(tmp_path / "results")}},
                             "crest": crest})
    over = {"N": None, "systems": ["fake_crest"],
            "proposers": {"enabled": ["fake_crest"]}, "ranker": {"enabled": False},
            "naturalness": {"enabled": False}, "M": 3,
            "ablation": {"M": [1, 3, 5]}}
    return OmegaConf.merge(root, {"crest": over})


def test_default_config_has_every_knob():
    c = OmegaConf.load(CONF)
    for key in ("N", "M", "seed", "select", "systems", "proposers", "ranker", "oracle", "ablation"):
        assert key in c
    assert c.oracle.thr_p == 1.0 and c.oracle.thr_r == 1.0 and c.M == 20
    assert list(c.ablation.M) == [10, 20, 30, 50] and c.ranker.threshold == 0.1
    # every output path the stage bodies read lives in conf/paths (the fixture overrides them all)
    paths = OmegaConf.load(CONF.parents[1] / "paths" / "default.yaml")
    assert set(paths.crest) >= {"sources", "generated", "suite", "metrics", "results"}


def test_generate_evaluate_ablation(cfg, tmp_path):
    tracker = NullTracker()
    g = run_body(stages.generate_stage, cfg, tracker)
    assert g["sources"] == 4
    assert g["selected"] <= g["generated"]
    assert tracker.metrics["crest.sources"] == 4.0
    suite = list(read_jsonl(tmp_path / "suite.jsonl", TestCase.from_dict, kind="testcase"))
    assert len(suite) == g["suite_size"] > 0
    tc = suite[0]
    assert tc.technique == "crest" and tc.relation == "coreference-invariance"
    assert {"position", "old_token", "new_token", "candidate_source", "gold_clusters",
            "followup_gold_clusters"} <= set(tc.meta)
    assert all(t.meta["selected"] and t.meta["order"] < 3 for t in suite)
    # the generated file holds everything up to max(M, ablation M) with parses
    sources, fus = load_generated(tmp_path / "gen.jsonl", tmp_path / "src.jsonl")
    assert len(sources) == 4 and not fus.get("doc4:s0") and max(f.order for fs in fus.values() for f in fs) < 5
    assert all(f.sentence.tree is not None for fs in fus.values() for f in fs)

    r = run_body(stages.evaluate_stage, cfg, tracker, "fake_crest")
    on_disk = json.loads((tmp_path / "metrics" / "systems" / "fake_crest.json").read_text())
    assert on_disk["issues"] == r["issues"] > 0  # the planted "rapidly" bug is found
    assert r["sources"] == 4 and r["sources_wrong"] == 1 and r["hits"] == 1
    assert r["generated"] >= r["selected"] == r["tests"]
    assert r["precision"] == 1.0 and r["false_positives"] == 0
    # every generated follow-up keeps its gold, so no issue is discounted
    assert r["validity"] == 1.0 and r["validity_valid"] == r["validity_total"] == r["tests"]
    assert r["precision_validity_adjusted"] == 1.0 and r["issues_invalid"] == 0
    assert r["issue_types"]["missing_entity"] >= 1
    assert r["issues_by_candidate_source"] == {"wordnet_synonym": r["issues"]}
    results = list(read_jsonl(tmp_path / "results" / "fake_crest.jsonl", dict, kind="result"))
    assert len(results) == r["tests"] and sum(not x["passed"] for x in results) == r["issues"]
    run_body(stages.report_stage, cfg, tracker)
    assert (tmp_path / "metrics" / "table1.md").read_text().count("|") > 10

    abl = run_body(stages.ablation_stage, cfg, tracker, "fake_crest")
    assert [(a["M"], a["select"]) for a in abl] == [(1, True), (3, True), (5, True),
                                                      (1, False), (3, False), (5, False)]
    by = {(a["M"], a["select"]): a for a in abl}
    assert by[(3, True)]["issues"] == r["issues"]  # same numbers as the evaluation at M = 3
    assert by[(5, False)]["tests"] >= by[(5, True)]["tests"]
    assert by[(1, False)]["tests"] <= by[(3, False)]["tests"] <= by[(5, False)]["tests"]
    for ext in ("json", "md", "png"):
        assert (tmp_path / "metrics" / "ablation" / f"fake_crest.{ext}").stat().st_size > 0
    assert json.loads((tmp_path / "metrics" / "ablation" / "fake_crest.json").read_text())["system"] == "fake_crest"
    assert (tmp_path / "metrics" / "ablation" / "fake_crest.png").read_bytes()[:4] == b"\x89PNG"


def test_suite_is_byte_identical_across_runs(cfg, tmp_path):
    run_body(stages.generate_stage, cfg, NullTracker())
    first = (tmp_path / "suite.jsonl").read_bytes()
    gen_first = (tmp_path / "gen.jsonl").read_bytes()
    run_body(stages.generate_stage, cfg, NullTracker())
    assert (tmp_path / "suite.jsonl").read_bytes() == first
    assert (tmp_path / "gen.jsonl").read_bytes() == gen_first
    other = OmegaConf.merge(cfg, {"crest": {"N": 2, "seed": 99}})
    run_body(stages.generate_stage, other, NullTracker())
    assert (tmp_path / "suite.jsonl").read_bytes() != first


def test_missing_input_says_how_to_make_it(cfg):
    from lingtest.errors import MissingResourceError

    bad = OmegaConf.merge(cfg, {"paths": {"prepared": "/nonexistent"}})
    with pytest.raises(MissingResourceError, match="prepare"):
        run_body(stages.generate_stage, bad, NullTracker())
