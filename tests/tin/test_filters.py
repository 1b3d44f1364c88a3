"""Semantic, fit and naturalness filters, counted per transformation."""

from __future__ import annotations

import math

import pytest

from lingtest.errors import ConfigError
from lingtest.resources.naturalness import naturalness_scores, syneval
from lingtest.tin.filters import FilterConfig, filter_mutants
from lingtest.tin.mutant import MR1, MR2, Mutant
from lingtest.tin.spans import TokenMap
from tests.fakes.conf_options import score_grid
from tests.tin.fakes import FakeLM, FakeSpanEmbedder

GRID = score_grid()
CONFIG = FilterConfig(semantic_threshold={"token": 0.65, "phrase": 0.65, "structural": None},
                      epsilon={"token": 0.0, "phrase": 0.01, "structural": 0.02},
                      weight_min=0.6, weight_mean=0.4, grid=GRID,
                      fit={"token": None, "phrase": None, "structural": None}, fit_window=3)


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
                                             "fit_removed": 0, "after_fit": 2, "naturalness_removed": 1, "kept": 1}
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
    lenient = FilterConfig({"token": None}, {"token": drop}, 0.0, 1.0, GRID, {"token": None}, 3)
    strict = FilterConfig({"token": None}, {"token": drop - step}, 0.0, 1.0, GRID, {"token": None}, 3)
    assert len(filter_mutants([src], embedder=None, lm=FakeLM(), config=lenient).kept) == 1
    assert len(filter_mutants([src], embedder=None, lm=FakeLM(), config=strict).kept) == 0


def test_missing_configuration_is_an_error():
    m = token_mutant("a good day", 1, "fine")
    with pytest.raises(ConfigError):
        filter_mutants([m], embedder=None, lm=FakeLM(), config=FilterConfig({}, {}, 0.6, 0.4, GRID, {}, 3))
    with pytest.raises(ConfigError):
        filter_mutants([m], embedder=None, lm=FakeLM(), config=CONFIG)  # semantic filter without embedder
    with pytest.raises(ConfigError):
        FilterConfig.from_dict({"epsilon": {}}, GRID)
    cfg = FilterConfig.from_dict({"semantic_threshold": {"token": 0.65}, "epsilon": {"token": 0},
                                  "weight_min": 0.6, "weight_mean": 0.4, "fit": {"token": -5}, "fit_window": 3}, GRID)
    assert cfg.semantic_threshold["token"] == 0.65 and cfg.fit["token"] == -5 and cfg.fit_window == 3
    with pytest.raises(ConfigError):
        FilterConfig({}, {}, 0.6, 0.4, GRID, {}, -1)  # a negative window


def test_detokenize_for_the_language_model():
    from lingtest.tin.text import detokenize

    assert detokenize("He said , `` I 'm fine ( really ) . ''".split()) == 'He said, "I\'m fine (really)."'
    assert detokenize('She wrote " hello " and left .'.split()) == 'She wrote "hello" and left.'
    assert detokenize("stocks do n't fall 3 % -LRB- AP -RRB-".split()) == "stocks don't fall 3% (AP)"


def fit_config(fit: float | None, window: int | None = 3) -> FilterConfig:
    return FilterConfig(semantic_threshold={"token": None, "phrase": None, "structural": None},
                        epsilon={"token": 1.0, "phrase": 1.0, "structural": 1.0}, weight_min=0.6, weight_mean=0.4,
                        grid=GRID, fit={"token": fit, "phrase": fit, "structural": fit}, fit_window=window)


def phrase_mutant(source: str, start: int, end: int, new: str) -> Mutant:
    src = source.split()
    words = new.split()
    out = src[:start] + words + src[end:]
    return Mutant("s", "phrase", MR1, src, out, TokenMap.replacement(len(src), start, end, len(words)),
                  changed=(start, end), changed_followup=(start, start + len(words)))


def test_fit_texts_cut_the_window_after_the_replacement():
    from lingtest.tin.filters import fit_texts

    m = phrase_mutant("the court ejects the head of the inquiry .", 1, 2, "city court")
    assert fit_texts(m, 2) == ("the court ejects the", "the city court ejects the")
    assert fit_texts(m, 0) == ("the court", "the city court")
    assert fit_texts(m, None) == ("the court ejects the head of the inquiry.",
                                  "the city court ejects the head of the inquiry.")
    with pytest.raises(ValueError):
        fit_texts(Mutant("s", "structural", MR2, ["He", "ran"], ["Ran", "he"], TokenMap.from_order(2, [1, 0])), 3)


def test_the_fit_filter_removes_a_replacement_much_less_probable_than_the_original():
    # FakeLM: a word's log-probability is -len(word) / 10 unless penalised; the fit is the difference of the sums
    lm = FakeLM({"exported": -6.0, "sold": -0.5})
    src = "it was traded at 15 dollars per share"
    muts = [token_mutant(src, 2, "exported"), token_mutant(src, 2, "sold"),
            Mutant("s", "structural", MR2, ["He", "can", "go", "."], ["Can", "he", "go", "?"],
                   TokenMap.from_order(4, [1, 0, 2, 3]))]
    res = filter_mutants(muts, embedder=None, lm=lm, config=fit_config(-5.0))
    assert [" ".join(m.tokens) for m in res.kept] == ["it was sold at 15 dollars per share", "Can he go ?"]
    assert muts[0].scores["fit"] == GRID.round("logprob", -6.0 + 0.6) and "naturalness" not in muts[0].scores
    assert muts[1].scores["fit"] == GRID.round("logprob", -0.5 + 0.6)
    assert "fit" not in muts[2].scores  # no replaced span: not filtered
    assert res.counts["token"].to_dict() == {"generated": 2, "semantic_removed": 0, "after_semantic": 2,
                                             "fit_removed": 1, "after_fit": 1, "naturalness_removed": 0, "kept": 1}
    # null: not filtered; a lower threshold lets it through
    assert len(filter_mutants(muts, embedder=None, lm=lm, config=fit_config(None)).kept) == 3
    assert len(filter_mutants(muts, embedder=None, lm=lm, config=fit_config(-5.4)).kept) == 3
    assert len(filter_mutants(muts, embedder=None, lm=lm, config=fit_config(-5.401)).kept) == 3
    assert len(filter_mutants(muts, embedder=None, lm=lm, config=fit_config(-5.399)).kept) == 2


def test_the_fit_window_bounds_what_the_replacement_is_judged_on():
    # a word after the window that the replacement would make improbable is not seen; the whole sentence sees it
    class Context(FakeLM):
        def token_logprobs(self, texts):
            out = super().token_logprobs(texts)
            return [type(o)([*o.logprobs, -9.0]) if "let Japan to" in t else o for o, t in zip(out, texts, strict=True)]

    m = token_mutant("goals allowed Japan to come from behind", 1, "let")
    assert len(filter_mutants([m], embedder=None, lm=Context(), config=fit_config(-5.0, window=1)).kept) == 1
    assert len(filter_mutants([m], embedder=None, lm=Context(), config=fit_config(-5.0, window=2)).kept) == 0
    assert len(filter_mutants([m], embedder=None, lm=Context(), config=fit_config(-5.0, window=None)).kept) == 0


def test_the_fit_filter_scores_a_phrase_against_the_phrase_it_replaced():
    lm = FakeLM({"cut": -5.2, "sole": -5.5})
    muts = [phrase_mutant("Zywiec had its eye on Okocim", 3, 4, "cut eye"),
            phrase_mutant("she was charged with possession of explosives", 4, 5, "sole possession"),
            phrase_mutant("he left the prison early", 3, 4, "jail")]
    res = filter_mutants(muts, embedder=None, lm=lm, config=fit_config(-5.0))
    assert [" ".join(m.tokens) for m in res.kept] == ["he left the jail early"]
    assert [m.scores["fit"] for m in muts] == [GRID.round("logprob", x) for x in (-5.2, -5.5, 0.2)]
    assert res.counts["phrase"].fit_removed == 2
