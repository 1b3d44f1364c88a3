"""The whole TIN flow on three hand-made sentences, every number computed by hand: mutate, check
through run_suite, locate, repair with a fake proposer, grade against gold."""

from __future__ import annotations

import pytest

from lingtest.data.model import Entity, Tree
from lingtest.suite.run import run_suite
from lingtest.systems.cache import CachedSystem
from lingtest.systems.ner.labels import LabelMaps
from lingtest.tin.grading import SchemeMapper
from lingtest.tin.issues import grade_run, issues_from_run, repair_issues
from lingtest.tin.mutant import TinSource
from lingtest.tin.repair import RelabelConfig
from lingtest.tin.suite import mutant_case
from lingtest.tin.transformations.shuffle import EntityShuffle
from lingtest.tin.transformations.structural import Structural
from lingtest.tin.transformations.token_level import TokenLevel
from tests.tin.fakes import FakeProposer, FakeSpanEmbedder, FakeTagger, RuleNER

E = Entity
TYPES = ("PER", "ORG", "LOC", "MISC")
CONLL = SchemeMapper(LabelMaps(TYPES, {"conll": {t: t for t in TYPES}}), "conll")


def rule(t: list[str]) -> list[Entity]:
    """Right except: "Mary" right after "met" is a LOC; "Apple" is an ORG only before "rise"."""
    out = []
    for i, w in enumerate(t):
        if w in ("Paris", "Berlin", "Rome"):
            out.append(E(i, i + 1, "LOC"))
        elif w in ("John", "Anna"):
            out.append(E(i, i + 1, "PER"))
        elif w == "Mary":
            out.append(E(i, i + 1, "LOC" if i > 0 and t[i - 1] == "met" else "PER"))
        elif w == "Google" or (w == "Apple" and t[i + 1:i + 2] == ["rise"]):
            out.append(E(i, i + 1, "ORG"))
    return out


def test_mutate_check_repair_grade():
    system = CachedSystem(RuleNER(rule), None)
    tree, words = Tree.from_bracketed("(S (NP (NNP Apple)) (VP (VBD rose)) (. .))")
    raw = [("s1", "Paris and Berlin are big cities .".split(), [E(0, 1, "LOC"), E(2, 3, "LOC")], None, None),
           ("s2", "John met Mary in Rome .".split(), [E(0, 1, "PER"), E(2, 3, "PER"), E(4, 5, "LOC")], None,
            None),
           ("s3", words, [E(0, 1, "ORG")], tree, ["Apple", "rise", "."])]
    preds = system.predict([toks for _, toks, *_ in raw])
    sources = [TinSource(sid, toks, p, tree=tr, lemmas=lem, gold=gold)
               for (sid, toks, gold, tr, lem), p in zip(raw, preds, strict=True)]
    tagger = FakeTagger({"big": "JJ", "large": "JJ", "met": "VBD", "saw": "VBD", "rose": "VBD",
                         "fell": "VBD"})
    fills = FakeProposer({"big": [("large", 9.0)], "met": [("saw", 9.0)], "rose": [("fell", 9.0)]})
    token = TokenLevel(fills, tagger, top_k=5, min_score=0.0, tags=["JJ", "VBD"], skip_lemmas=[])
    mutants = [m for t in (token, EntityShuffle(max_exhaustive=4, samples=8, seed=0, whole_phrases=True), Structural())
               for m in t.generate(sources)]
    assert sorted((m.seed_id, m.transformation) for m in mutants) == [
        ("s1", "shuffle"), ("s1", "token"), ("s2", "shuffle"), ("s2", "token"), ("s3", "structural"),
        ("s3", "token")]
    gold = {s.id: s.gold for s in sources}
    cases = [mutant_case(m, system="rule_ner", gold=gold[m.seed_id]) for m in mutants]
    run = run_suite(system, cases)
    issues = issues_from_run(cases, run.results, run.outputs)
    assert sorted((i.seed_id, i.transformation) for i in issues) == [
        ("s2", "shuffle"), ("s2", "token"), ("s3", "structural")]
    by = {(i.seed_id, i.transformation): i for i in issues}
    assert by[("s2", "shuffle")].suspicious_source == [(2, 3)]  # "Mary"
    # N(s) has one PER and two LOCs (Mary, Rome): the shuffle swaps the LOCs: "John met Rome in Mary ."
    assert by[("s2", "shuffle")].mutant.tokens == "John met Rome in Mary .".split()
    assert by[("s2", "shuffle")].suspicious_followup == [(4, 5)]
    assert by[("s3", "structural")].suspicious_followup == [(1, 2)]  # "Did Apple rise ?"

    proposer = FakeProposer({"Mary": [("Anna", 8.0)], "Apple": [("Google", 8.0)]})
    cfg = RelabelConfig(top_k=5, p_threshold=5.5, sim_threshold=0.45, k=2.5, alpha=0.2, lam=0.5,
                        subwords=False)
    repairs = repair_issues(issues, system=system, proposer=proposer, embedder=FakeSpanEmbedder(), config=cfg)
    assert sorted(repairs.sources) == ["s2", "s3"]
    assert repairs.sources["s2"].entities == [E(0, 1, "PER"), E(2, 3, "PER"), E(4, 5, "LOC")]
    assert repairs.sources["s3"].entities == [E(0, 1, "ORG")]

    grade = grade_run(issues, repairs, {s.id: (s.tokens, s.entities, s.gold) for s in sources}, CONLL)
    o = grade.summary["overall"]
    assert (o["issues"], o["erroneous"], o["precision"], o["source_wrong"]) == (3, 3, 1.0, 3)
    # the three mutants move or keep every gold entity intact ("John met Rome in Mary ."): no issue discounted
    assert (o["precision_validity_adjusted"], o["issues_invalid"]) == (1.0, 0)
    assert (o["hits"], o["wrong_sources"], o["hit_rate"]) == (2, 2, 1.0)
    assert o["error_categories"] == {"omission": 1, "over_labelling": 0, "incorrect_category": 1,
                                     "range_error": 0}
    assert grade.repair_source.to_dict()["FT"] == 2 and grade.repair_source.err2cor == 1.0
    assert (grade.repair_followup.tt, grade.repair_followup.num_error) == (3, 0)
    # F1 over the three sources: before tp 4, fp 1, fn 2; after: all six right
    assert grade.f1_before.f1 == pytest.approx(2 * 0.8 * (4 / 6) / (0.8 + 4 / 6))
    assert grade.f1_after.f1 == 1.0
    assert grade.to_dict()["repair"]["overall"]["TT"] == 3
