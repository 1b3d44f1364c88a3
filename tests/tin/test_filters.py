"""Semantic and naturalness filters, counted per transformation."""

from __future__ import annotations

import math

import pytest

from lingtest.errors import ConfigError
from lingtest.tin.filters import FilterConfig, filter_mutants, naturalness_scores, syneval
from lingtest.tin.mutant import MR1, MR2, Mutant
from lingtest.tin.spans import TokenMap
from tests.fakes.conf_options import score_grid
from tests.tin.fakes import FakeLM, FakeSpanEmbedder

GRID = score_grid()
CONFIG = FilterConfig(semantic_threshold={"token": 0.65, "phrase": 0.65, "structural": None},
                      epsilon={"token": 0.0, "phrase": 0.01, "structural": 0.02},
                      weight_min=0.6, weight_mean=0.4, grid=GRID)


def token_mutant(source: str, position: int, new: str) -> Mutant:
    src = source.split()
    out = list(src)
    out[position] = new
    return Mutant("s", "token", MR1, src, out, TokenMap.identity(len(src)), changed=(position, position + 1),
                  changed_followup=(position, position + 1))


def test_syneval_is_weighted_min_and_mean_of_probabilities():
    lps = [math.log(0.5), math.log(0.1), math.log(0.9)]
    assert syneval(lps, weight_min=0.6, weight_mean=0.4) == pytest.approx(0.6 * 0.1 + 0.4 * 0.5)
    assert syneval([], weight_min=0.6, weight_mean=0.4) == 0.0
    lm = FakeLM()
    assert naturalness_scores(lm, ["a bb", "a bb", "ccc"], weight_min=1.0, weight_mean=0.0, grid=GRID) == [
        GRID.round("prob", math.exp(-0.2)), GRID.round("prob", math.exp(-0.2)), GRID.round("prob", math.exp(-0.3))]
    assert lm.texts == ["a bb", "ccc"]  # each distinct text once


def test_filters_count_what_each_removes():
    emb = FakeSpanEmbedder({"good": [1, 0, 0], "fine": [0.9, 0.2, 0], "bad": [0, 1, 0], "nice": [1, 0.05, 0]})
    lm = FakeLM({"nice": -5.0})  # "nice" is improbable: fails naturalness
    muts = [token_mutant("a good day", 1, "fine"), token_mutant("a good day", 1, "bad"),
            token_mutant("a good day", 1, "nice"),
            Mutant("s", "structural", MR2, ["He", "can", "go", "."], ["Can", "he", "go", "?"],
                   TokenMap.from_order(4, [1, 0, 2, 3]))]
    res = filter_mutants(muts, embedder=emb, lm=lm, config=CONFIG)
    assert [" ".join(m.tokens) for m in res.kept] == ["a fine day", "Can he go ?"]
    assert res.counts["token"].to_dict() == {"generated": 3, "semantic_removed": 1, "after_semantic": 2,
                                             "naturalness_removed": 1, "kept": 1}
    assert res.counts["structural"].to_dict()["kept"] == 1
    assert muts[1].scores["semantic"] == 0.0 and "naturalness" not in muts[1].scores
    assert muts[0].scores["semantic"] == GRID.round("similarity", 0.9 / math.hypot(0.9, 0.2))
    assert "semantic" not in muts[3].scores  # no semantic filter for the structural transformation


def test_epsilon_lets_slightly_less_natural_mutants_through():
    src = token_mutant("a good day", 1, "goodd")  # "goodd" is one letter longer: probability drops a bit
    # SynEval (the mean of 3 token probabilities) on the grid: the drop is one of two grid values
    drop = GRID.round("prob", (math.exp(-0.1) + math.exp(-0.4) + math.exp(-0.3)) / 3) - GRID.round(
        "prob", (math.exp(-0.1) + math.exp(-0.5) + math.exp(-0.3)) / 3)
    step = 10.0 ** -GRID.prob
    lenient = FilterConfig({"token": None}, {"token": drop}, 0.0, 1.0, GRID)
    strict = FilterConfig({"token": None}, {"token": drop - step}, 0.0, 1.0, GRID)
    assert len(filter_mutants([src], embedder=None, lm=FakeLM(), config=lenient).kept) == 1
    assert len(filter_mutants([src], embedder=None, lm=FakeLM(), config=strict).kept) == 0


def test_missing_configuration_is_an_error():
    m = token_mutant("a good day", 1, "fine")
    with pytest.raises(ConfigError):
        filter_mutants([m], embedder=None, lm=FakeLM(), config=FilterConfig({}, {}, 0.6, 0.4, GRID))
    with pytest.raises(ConfigError):
        filter_mutants([m], embedder=None, lm=FakeLM(), config=CONFIG)  # semantic filter without embedder
    with pytest.raises(ConfigError):
        FilterConfig.from_dict({"epsilon": {}}, GRID)
    cfg = FilterConfig.from_dict({"semantic_threshold": {"token": 0.65}, "epsilon": {"token": 0},
                                  "weight_min": 0.6, "weight_mean": 0.4}, GRID)
    assert cfg.semantic_threshold["token"] == 0.65


def test_detokenize_for_the_language_model():
    from lingtest.tin.text import detokenize

    assert detokenize("He said , `` I 'm fine ( really ) . ''".split()) == 'He said, "I\'m fine (really)."'
    assert detokenize('She wrote " hello " and left .'.split()) == 'She wrote "hello" and left.'
    assert detokenize("stocks do n't fall 3 % -LRB- AP -RRB-".split()) == "stocks don't fall 3% (AP)"
