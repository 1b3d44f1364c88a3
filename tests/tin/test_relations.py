"""MR1 and MR2 as pure checks and as expectations run by run_suite on FakeNER; mutants as cases."""

from __future__ import annotations

import json

import pytest

from lingtest.data.model import Entity, TestCase, Tree
from lingtest.errors import InputError
from lingtest.suite.expectations import EXPECTATIONS
from lingtest.suite.run import run_suite
from lingtest.systems.cache import CachedSystem
from lingtest.tin.mutant import MR1, MR2, Mutant, TinSource
from lingtest.tin.relations import inconsistent_texts, mr2_difference
from lingtest.tin.spans import TokenMap
from lingtest.tin.suite import case_gold, case_mutant, mutant_case
from lingtest.tin.transformations.structural import interrogative
from tests.fakes import FakeNER

E = Entity


def test_mr1_checks_texts_present_in_both_sentences():
    s = "BBC News is a division of the BBC .".split()
    t = "BBC News is a unit of the BBC .".split()
    ok = inconsistent_texts(s, [E(0, 2, "ORG"), E(7, 8, "ORG")], t, [E(0, 2, "ORG"), E(7, 8, "ORG")])
    assert ok == []
    # the paper's Fig. 4: the label of "BBC News" changes
    got = inconsistent_texts(s, [E(0, 2, "LOC"), E(7, 8, "ORG")], t, [E(0, 2, "ORG"), E(7, 8, "ORG")])
    assert got == ["BBC News"]
    # omission in s': present in both, predicted in one
    assert inconsistent_texts(s, [E(0, 2, "ORG")], t, []) == ["BBC News"]
    # range change: "BBC" (as a token) is in both sentences, predicted only in s'
    assert inconsistent_texts(s, [E(0, 2, "ORG")], t, [E(0, 1, "ORG"), E(0, 2, "ORG")]) == ["BBC"]
    # a new word of s' is not checked
    u = "BBC News is a Fox of the BBC .".split()
    assert inconsistent_texts(s, [E(0, 2, "ORG")], u, [E(0, 2, "ORG"), E(4, 5, "ORG")]) == []


def test_mr1_compares_sets_when_occurrence_counts_differ():
    s = "Paris and Lyon".split()
    t = "Paris and Paris".split()  # the replacement made a second "Paris"
    assert inconsistent_texts(s, [E(0, 1, "LOC")], t, [E(0, 1, "LOC"), E(2, 3, "LOC")]) == []
    assert inconsistent_texts(s, [E(0, 1, "LOC")], t, [E(0, 1, "PER"), E(2, 3, "LOC")]) == ["Paris"]


def test_mr2_is_set_equality_with_case_restored():
    s = "Twitter was the obvious solution .".split()
    t = "Was twitter the obvious solution ?".split()
    assert mr2_difference(s, [E(0, 1, "ORG")], t, [E(1, 2, "ORG")], {1: "Twitter"}) == ([], [])
    assert mr2_difference(s, [E(0, 1, "ORG")], t, [E(1, 2, "ORG")]) == (
        [("Twitter", "ORG")], [("twitter", "ORG")])
    assert mr2_difference(s, [E(0, 1, "ORG")], t, [E(0, 1, "PER")], {1: "Twitter"}) == (
        [("Twitter", "ORG")], [("Was", "PER")])


def structural_case() -> TestCase:
    tree, words = Tree.from_bracketed("(S (NP (NN Twitter)) (VP (VBD was) (NP (DT the) (NN answer))) (. .))")
    m = interrogative(TinSource("s1", words, [], tree=tree))
    return mutant_case(m, system="fake_ner", gold=[E(0, 1, "ORG")])


def test_mr_expectations_run_through_run_suite_with_fake_ner():
    assert EXPECTATIONS.get(MR1).__name__ == "TinMR1" and EXPECTATIONS.get(MR2).__name__ == "TinMR2"
    same = "Paris is nice".split()
    mr1_pass = mutant_case(Mutant("a", "token", MR1, same, "Paris is great".split(), TokenMap.identity(3),
                                  changed=(2, 3), changed_followup=(2, 3)))
    new_word = mutant_case(Mutant("b", "token", MR1, "Paris looks nice".split(), "Paris looks Good".split(),
                                  TokenMap.identity(3), changed=(2, 3), changed_followup=(2, 3)))
    shuffle_pass = mutant_case(Mutant("c", "shuffle", MR2, "Ann met Bob".split(), "Bob met Ann".split(),
                                      TokenMap.from_order(3, [2, 1, 0])))
    structural = structural_case()  # FakeNER: "Twitter" (PER) in s, "Was" in s'
    # an entity only in s' (the new word "Good") is not checked by MR1
    ner = FakeNER()
    run = run_suite(CachedSystem(ner, None), [mr1_pass, new_word, shuffle_pass, structural])
    assert [r.passed for r in run.results] == [True, True, True, False]
    assert ner.calls == 1
    assert run.results[3].details == {"only_source": [["Twitter", "PER"]], "only_followup": [["Was", "PER"]]}
    assert run.results[0].predictions == {"source": [[0, 1, "PER"]], "followup": [[0, 1, "PER"]]}


def test_mr1_violation_through_run_suite():
    # FakeNER tags capitalised words: "Great" becomes an entity in s'; "Paris" keeps PER: MR1 holds.
    # A system that loses "Paris" when "nice" becomes "Great" violates MR1.
    from tests.tin.fakes import RuleNER

    ner = RuleNER(lambda t: [] if "Great" in t else [E(0, 1, "LOC")])
    c = mutant_case(Mutant("a", "token", MR1, "Paris is nice".split(), "Paris is Great".split(),
                           TokenMap.identity(3), changed=(2, 3), changed_followup=(2, 3)))
    run = run_suite(CachedSystem(ner, None), [c])
    assert not run.results[0].passed and run.results[0].details == {"inconsistent": ["Paris"]}


def test_cases_roundtrip_and_carry_gold_and_restore():
    c = structural_case()
    assert c.expected == {"name": MR2, "restore": [[1, "Twitter"]]}
    assert c.source == {"tokens": ["Twitter", "was", "the", "answer", "."]}
    assert c.followup == {"tokens": ["Was", "twitter", "the", "answer", "?"]}
    assert c.meta["followup_text"] == "Was twitter the answer?" and c.meta["system"] == "fake_ner"
    back = TestCase.from_dict(json.loads(json.dumps(c.to_dict())))
    assert back.id == c.id and back.to_dict() == c.to_dict()
    m = case_mutant(back)
    assert m.restore == {1: "Twitter"} and m.alignment.to_followup == (1, 0, 2, 3, 4)
    assert case_gold(back) == ([E(0, 1, "ORG")], [E(1, 2, "ORG")])
    # the same mutant always gives the same case id
    assert structural_case().id == c.id


def test_bad_restore_is_reported():
    c = structural_case()
    c.expected = {"name": MR2, "restore": [[9, "x"]]}
    with pytest.raises(InputError):
        run_suite(CachedSystem(FakeNER(), None), [c])
    c.expected = {"name": MR2, "restore": "x"}
    with pytest.raises(InputError):
        run_suite(CachedSystem(FakeNER(), None), [c])
    with pytest.raises(InputError):
        case_mutant(TestCase.from_dict({**c.to_dict(), "meta": {}}))
