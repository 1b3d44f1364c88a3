"""The baseline stage bodies on fakes: generation writes CREST's records, CREST's evaluation grades them, the
comparison assembles Table 1, Figure 4(B) and Figure 5(A); and the proposed configuration validates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from baseline_fakes import FakeParts, TinyWordNet, make_source
from crest_fakes import FakeSystem
from omegaconf import OmegaConf

from lingtest.config import compose, validate
from lingtest.crest.baselines import BASELINES
from lingtest.crest.baselines.config import BaselinesConfig
from lingtest.crest.baselines.stages import (
    comparison_markdown,
    comparison_rows,
    run_baseline_evaluate,
    run_baseline_generate,
)
from lingtest.crest.config import CrestConfig
from lingtest.crest.suite import load_cases, load_sources
from lingtest.data.io import read_header

HERE = Path(__file__).parent
CONF = HERE.parents[2] / "conf" / "crest" / "baselines.yaml"


@pytest.fixture(scope="module")
def config() -> BaselinesConfig:
    """conf/crest/baselines.yaml as composed."""
    node = OmegaConf.merge(OmegaConf.create({"seed": 13}),
                           OmegaConf.create({"crest_baselines": OmegaConf.load(CONF)}))
    data = OmegaConf.to_container(node, resolve=True)
    return validate(BaselinesConfig, data["crest_baselines"], "crest_baselines")


@pytest.fixture(scope="module")
def crest() -> CrestConfig:
    return CrestConfig.from_config(compose())


def sources():
    return [make_source("John quickly told Mary that he liked the big dog today .", [[(0, 1), (5, 6)]], "a:s0",
                        ents={0: "B-PERSON", 3: "B-PERSON"}),
            make_source("he is not sure that the dog liked him", [[(0, 1), (8, 9)]], "a:s1"),
            make_source("the dog barked", [[(0, 2), (0, 2)]], "b:s0")]


def test_the_proposed_configuration_names_every_baseline_and_rejects_unknown_keys(config):
    assert sorted(config.baselines) == BASELINES.names()
    for name in config.baselines:
        assert isinstance(config.options(name), BASELINES.get(name).Config)
    assert config.M is None and config.seed == 13 and config.sit.top_k == 10 and config.patinv.top_k == 50
    from lingtest.errors import ConfigError

    with pytest.raises(ConfigError, match="crest_baselines.sit.topk"):
        validate(BaselinesConfig, {**config.model_dump(), "sit": {**config.sit.model_dump(), "topk": 3}},
                 "crest_baselines")


@pytest.mark.parametrize("baseline", ["checklist", "textattack"])
def test_generation_writes_crest_records_that_crest_s_evaluation_grades(tmp_path, config, crest, baseline):
    parts = FakeParts(wordnet=TinyWordNet([["like", "love"], ["dog", "hound", "pooch"], ["big", "large"]]))
    cfg = config.model_copy(update={"M": 4})
    srcs = sources()
    got = run_baseline_generate(crest, cfg, baseline, parts, out_dir=tmp_path / baseline,
                                metrics_path=tmp_path / "m" / "generation.json", sources=srcs)
    cases = load_cases(tmp_path / baseline / "generated.jsonl")
    assert got["generated"] == got["selected"] == len(cases) > 0
    assert json.loads((tmp_path / "m" / "generation.json").read_text())["generated"] == len(cases)
    assert read_header(tmp_path / baseline / "generated.jsonl")["baseline"] == baseline
    assert [s.id for s in load_sources(tmp_path / baseline / "sources.jsonl")] == [s.id for s in srcs]
    by_source = {s.id: s for s in srcs}
    for case in cases:
        s = by_source[case.provenance.seed_id]
        assert case.meta["order"] < 4 and case.meta["baseline"] == baseline and case.meta["selected"]
        words = [t["text"] for t in case.followup["sentences"][0]["tokens"]]
        assert words != s.sentence.words and case.followup["sentences"][0]["tokens"][0].get("tag")
        edits = case.meta.get("edits") or [{"position": case.meta["position"], "n_new": case.meta["n_new_tokens"]}]
        assert len(words) == len(s.sentence.words) + sum(int(e["n_new"]) - 1 for e in edits)
    # the same seed writes the same records
    again = run_baseline_generate(crest, cfg, baseline, parts, out_dir=tmp_path / "again",
                                  metrics_path=tmp_path / "again.json", sources=sources())
    assert again["generated"] == got["generated"]
    written = (tmp_path / baseline / "generated.jsonl").read_bytes()
    assert (tmp_path / "again" / "generated.jsonl").read_bytes() == written
    row, res = run_baseline_evaluate(crest, baseline, FakeSystem(),
                                     load_sources(tmp_path / baseline / "sources.jsonl"), cases,
                                     got["seconds_per_selected"])
    assert row["approach"] == baseline and row["system"] == "fake" and row["tests"] == len(cases)
    assert row["validity_total"] == len(cases) and 0 <= row["validity_valid"] <= len(cases)
    assert set(row["issue_types"]) == {"span_error", "missing_entity", "extra_entity", "missing_mention",
                                       "extra_mention", "conflated_entities", "divided_entity"}
    assert len(res.results) == len(cases)


def test_a_name_change_in_a_mention_is_an_invalid_test(tmp_path, config, crest):
    cfg = config.model_copy(update={"checklist": config.checklist.model_copy(update={"recipes": ["change_names"]})})
    srcs = sources()[:1]
    run_baseline_generate(crest, cfg, "checklist", FakeParts(), out_dir=tmp_path, metrics_path=tmp_path / "g.json",
                          sources=srcs)
    cases = load_cases(tmp_path / "generated.jsonl")
    assert cases and all(c.meta["candidate_source"] == "change_names" for c in cases)
    row, res = run_baseline_evaluate(crest, "checklist", FakeSystem(), srcs, cases)
    # John is a gold mention, Mary is not: renaming John breaks the test, renaming Mary does not
    john = [c.meta["position"] == 0 for c in cases]
    assert any(john) and not all(john)
    assert [not p.valid for p in res.pairs] == john
    assert row["validity_reasons"] == {"edit_inside_mention": sum(john)}


def test_comparison_rows_and_tables(config):
    def row(approach_issues, valid, total):
        return {"sources": 3, "sources_correct": 2, "sources_wrong": 1, "generated": total, "selected": total,
                "issues": approach_issues, "hits": 1, "hit_rate": 1.0, "true_positives": approach_issues - 1,
                "false_positives": 1, "precision": 0.5, "validity": valid / total, "validity_valid": valid,
                "validity_total": total, "precision_validity_adjusted": 0.5,
                "issue_types": {"missing_mention": approach_issues, "span_error": 1}}

    crest_rows = {"sieve": {**row(2, 10, 10), "system": "sieve"}}
    base = {"sit": {"sieve": row(4, 7, 10)}, "checklist": {"sieve": row(3, 5, 8)}}
    rows = comparison_rows(crest_rows, {"seconds_per_selected": 0.04}, base,
                           {"sit": {"seconds_per_selected": 0.5}, "checklist": {"seconds_per_selected": 0.01}})
    assert [(r["approach"], r["system"]) for r in rows] == [("sit", "sieve"), ("checklist", "sieve"),
                                                            ("crest", "sieve")]
    assert [r["seconds_per_selected"] for r in rows] == [0.5, 0.01, 0.04]
    md = comparison_markdown(rows)
    assert "## sieve" in md and "| Approach | # Src (P+N) |" in md
    assert "| sit | 10 | 7 | 3 | 70.00 |" in md and "| crest | 10 | 10 | 0 | 100.00 |" in md
    assert "| checklist | 1 | 0 | 0 | 3 | 0 | 0 | 0 |" in md
