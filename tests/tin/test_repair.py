"""Suspicious entity location, relabelling (Algorithm 1) with a fake NER system and proposer,
range conflicts and the repaired prediction R(s)."""

from __future__ import annotations

import math

import pytest

from lingtest.data.model import Entity
from lingtest.errors import ConfigError
from lingtest.tin.repair import (
    KEEP_SCORE,
    NULL,
    RelabelConfig,
    RelabelJob,
    RelabelResult,
    RepairItem,
    ScoredEntity,
    apply_relabels,
    format_consistent,
    locate,
    relabel,
    repair,
    resolve_conflicts,
)
from lingtest.tin.repair.relabel import evaluation, plan_relabel, score_relabel
from tests.tin.fakes import FakeProposer, FakeSpanEmbedder, FakeSubwordProposer, lexicon_ner

E = Entity
CFG = RelabelConfig(top_k=5, p_threshold=5.5, sim_threshold=0.45, k=2.5, alpha=0.2, lam=0.5, subwords=True)
BBC = "BBC News is an operational business division of the BBC .".split()

# the paper's Fig. 5: "BBC News" relabelled from similar entities
PROPOSER = FakeProposer({
    "BBC": [("CNN", 8.0), ("bbc", 9.0), ("Fox", 7.0), ("NBC", 5.0)],  # "bbc": format; "NBC": under 5.5
    "News": [("Newspaper", 6.0), ("company", 9.0), ("Group", 6.5)],  # "company": format; "Group": similarity
})
EMBEDDER = FakeSpanEmbedder({"bbc news": [1, 0, 0], "cnn news": [1, 0, 0], "fox news": [0.8, 0.6, 0],
                             "bbc newspaper": [0.6, 0.8, 0], "bbc group": [0, 1, 0], "bbcx news": [1, 0, 0]})


def ner():
    return lexicon_ner({"CNN News": "ORG", "Fox News": "ORG", "BBC Newspaper": "MISC", "BBC": "ORG"})


def test_format_consistency():
    assert format_consistent("Paris", "London") and not format_consistent("Paris", "london")
    assert not format_consistent("Paris", "Paris")
    assert not format_consistent("NATO", "nato") and format_consistent("NATO", "UN")
    assert not format_consistent("F-16", "Fighter") and format_consistent("F-16", "B-52")
    assert not format_consistent("#1", "one") and format_consistent("paris", "london")


def test_evaluation_function_is_eq_5():
    base = 6.0 * math.exp(2.5 * 0.8)
    assert evaluation(6.0, 0.8, null=False, subword=False, config=CFG) == pytest.approx(base)
    assert evaluation(6.0, 0.8, null=True, subword=False, config=CFG) == pytest.approx(0.2 * base)
    assert evaluation(6.0, 0.8, null=False, subword=True, config=CFG) == pytest.approx(0.5 * base)
    assert evaluation(6.0, 0.8, null=True, subword=True, config=CFG) == pytest.approx(0.1 * base)


def test_plan_screens_format_threshold_and_similarity():
    muts = plan_relabel([RelabelJob(tuple(BBC), (0, 2))], PROPOSER, EMBEDDER, CFG)
    assert [(m.position, m.word, m.p, round(m.sim, 6)) for m in muts] == [
        (0, "CNN", 8.0, 1.0), (0, "Fox", 7.0, 0.8), (1, "Newspaper", 6.0, 0.6)]
    assert muts[0].tokens[:2] == ("CNN", "News") and muts[0].span == (0, 2)


def test_relabel_scores_the_papers_example_by_hand():
    system = ner()
    [res] = relabel([RelabelJob(tuple(BBC), (0, 2))], system=system, proposer=PROPOSER, embedder=EMBEDDER,
                    config=CFG)
    org = 8.0 * math.exp(2.5 * 1.0) + 7.0 * math.exp(2.5 * 0.8)
    misc = 6.0 * math.exp(2.5 * 0.6)
    assert res.label == "ORG" and res.p_score == pytest.approx(org)
    assert res.scores == pytest.approx({"ORG": org, "MISC": misc}) and res.mutants == 3
    assert len(system.inputs) == 3


def test_null_class_and_subwords():
    # no entity predicted on the mutants: NULL wins, weighted by alpha; a subword mutant by lam
    none = lexicon_ner({})
    prop = FakeSubwordProposer({"BBC": [("CNN", 8.0)]}, subwords={"BBC": [("BBCX", 1, 6.0)]})
    [res] = relabel([RelabelJob(tuple(BBC), (0, 1))], system=none, proposer=prop,
                    embedder=FakeSpanEmbedder({"bbc": [1, 0], "cnn": [1, 0], "bbcx": [1, 0]}), config=CFG)
    null = 0.2 * 8.0 * math.exp(2.5) + 0.2 * 0.5 * 6.0 * math.exp(2.5)
    assert res.label is None and res.scores == pytest.approx({NULL: null})
    off = RelabelConfig(top_k=5, p_threshold=5.5, sim_threshold=0.45, k=2.5, alpha=0.2, lam=0.5,
                        subwords=False)
    [res2] = relabel([RelabelJob(tuple(BBC), (0, 1))], system=none, proposer=prop,
                     embedder=FakeSpanEmbedder({"bbc": [1, 0], "cnn": [1, 0], "bbcx": [1, 0]}), config=off)
    assert res2.mutants == 1


def test_no_evidence_keeps_the_original_and_ties_break_alphabetically():
    res = score_relabel([], [], CFG)
    assert res.kept_original and res.p_score == KEEP_SCORE and res.label is None
    [res] = relabel([RelabelJob(("xyz",), (0, 1))], system=ner(), proposer=FakeProposer({}),
                    embedder=EMBEDDER, config=CFG)
    assert res.kept_original
    from lingtest.tin.repair.relabel import RelabelMutant

    m = [RelabelMutant(0, 0, False, "A", ("A",), (0, 1), 6.0, 0.5)] * 2
    tie = score_relabel(m, [[E(0, 1, "PER")], [E(0, 1, "LOC")]], CFG)
    assert tie.label == "LOC"


def test_relabel_config():
    with pytest.raises(ConfigError):
        RelabelConfig.from_dict({"top_k": 5})
    with pytest.raises(ConfigError):
        RelabelConfig(top_k=5, p_threshold=5.5, sim_threshold=0.45, k=2.5, alpha=0.0, lam=0.5, subwords=True)
    cfg = RelabelConfig.from_dict({"top_k": 50, "p_threshold": 5.5, "sim_threshold": 0.45, "k": 2.5,
                                   "alpha": 0.2, "lam": 0.5, "subwords": True})
    assert cfg.top_k == 50


def test_range_conflicts_keep_the_higher_p_score():
    # the paper's Fig. 6
    a = ScoredEntity(0, 3, "ORG", 0.911, True)  # Cricket South Africa
    b = ScoredEntity(1, 3, "LOC", 0.503, True)  # South Africa
    assert resolve_conflicts([b, a]) == [a]
    # a tie drops the longer one
    c = ScoredEntity(0, 3, "ORG", 0.5, True)
    assert resolve_conflicts([c, b]) == [b]
    # an unrelabelled original wins (KEEP_SCORE); two originals may overlap (nested predictions)
    o1, o2 = ScoredEntity(0, 3, "ORG", KEEP_SCORE, False), ScoredEntity(1, 3, "LOC", KEEP_SCORE, False)
    assert resolve_conflicts([o1, b]) == [o1]
    assert resolve_conflicts([o1, o2]) == [o1, o2]
    d = ScoredEntity(5, 6, "PER", 0.1, True)
    assert resolve_conflicts([a, d]) == [a, d]


def test_apply_relabels():
    ents = [E(0, 1, "OTHER"), E(1, 2, "TITLE"), E(4, 6, "LOC")]
    rel = {(0, 1): RelabelResult(None, 3.0, {NULL: 3.0}), (1, 2): RelabelResult(None, 2.0, {NULL: 2.0}),
           (0, 2): RelabelResult("OTHER", 9.0, {"OTHER": 9.0}),
           (4, 6): RelabelResult(None, KEEP_SCORE, {}, kept_original=True)}
    # the paper's Table 5 range error: "Project" OTHER + "Stratum" TITLE -> "Project Stratum" OTHER
    out = apply_relabels(ents, rel)
    assert sorted(out) == [ScoredEntity(0, 2, "OTHER", 9.0, True),
                           ScoredEntity(4, 6, "LOC", KEEP_SCORE, False)]


def test_locate_finds_spans_in_both_sentences():
    s = "BBC News is a division of the BBC .".split()
    t = "BBC News is a unit of the BBC .".split()
    got = locate(s, [E(0, 2, "LOC"), E(7, 8, "ORG")], t, [E(0, 2, "ORG"), E(7, 8, "ORG")])
    assert got == ([(0, 2)], [(0, 2)])
    # an omission: "ESA" predicted in s' only; every occurrence in s is suspicious
    s2 = "ESA staff said ESA would act .".split()
    t2 = "ESA workers said ESA would act .".split()
    assert locate(s2, [], t2, [E(0, 1, "ORG")]) == ([(0, 1), (3, 4)], [(0, 1), (3, 4)])
    # the structural case change is undone before matching
    s3 = "Twitter was the answer .".split()
    t3 = "Was twitter the answer ?".split()
    assert locate(s3, [E(0, 1, "ORG")], t3, [E(1, 2, "PER")], {1: "Twitter"}) == ([(0, 1)], [(1, 2)])


def test_repair_pools_spans_and_predicts_once():
    system = ner()
    items = [RepairItem(BBC, [E(0, 2, "LOC"), E(9, 10, "ORG")], [(0, 2)]),
             RepairItem(BBC, [E(0, 2, "LOC"), E(9, 10, "ORG")], [(0, 2)]),  # the same sentence again
             RepairItem("nothing here".split(), [], [])]
    out = repair(items, system=system, proposer=PROPOSER, embedder=EMBEDDER, config=CFG)
    assert out[0].entities == [E(0, 2, "ORG"), E(9, 10, "ORG")] == out[1].entities
    assert out[0].relabels[(0, 2)].label == "ORG" and out[2].entities == []
    assert len(system.inputs) == 3  # the span was relabelled once
