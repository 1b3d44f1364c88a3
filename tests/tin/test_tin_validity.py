"""TIN validity: a mutant keeps its source's gold when every gold entity survives intact, none is
split or merged and no new name appears; the summaries report it beside each precision."""

from __future__ import annotations

import copy

from lingtest.data.model import Entity, TestCase
from lingtest.systems.ner.labels import LabelMaps
from lingtest.tin.flow import summarize_checked
from lingtest.tin.grading import GradedIssue, SchemeMapper, case_validity, grade_issue, summarize_issues
from lingtest.tin.issues import Issue
from lingtest.tin.mutant import MR1, MR2, Mutant, TinSource
from lingtest.tin.report import table3_markdown
from lingtest.tin.spans import TokenMap
from lingtest.tin.suite import case_mutant, mutant_case

E = Entity
CONLL = SchemeMapper(LabelMaps.from_config({"target": ["PER", "ORG", "LOC", "MISC"],
                                            "schemes": {"conll": {t: t for t in ("PER", "ORG", "LOC", "MISC")}}}),
                     "conll")
SRC = "New York City said it beat Boston .".split()
GOLD = [E(0, 3, "LOC"), E(6, 7, "LOC")]


def token_case(position: int, new: str, gold=GOLD) -> TestCase:
    tokens = SRC[:position] + [new] + SRC[position + 1:]
    m = Mutant("s", "token", MR1, list(SRC), tokens, TokenMap.identity(len(SRC)),
               params={"position": position, "old": SRC[position], "new": new},
               changed=(position, position + 1), changed_followup=(position, position + 1))
    return mutant_case(m, system="sys", gold=gold)


def shuffle_case() -> TestCase:
    """The system found New / York / City as three LOCs: trading York and City splits the gold LOC."""
    order = [0, 2, 1, *range(3, len(SRC))]
    m = Mutant("s", "shuffle", MR2, list(SRC), [SRC[i] for i in order], TokenMap.from_order(len(SRC), order))
    return mutant_case(m, system="sys", gold=GOLD)


def test_a_word_replaced_outside_the_entities_keeps_the_gold():
    assert case_validity(token_case(5, "defeated")).valid


def test_an_entity_word_the_system_missed_replaced_in_place_is_invalid():
    case = token_case(2, "hall")  # the gold LOC "New York City" becomes "New York hall"
    assert case.meta["followup_gold"] == [[0, 3, "LOC"], [6, 7, "LOC"]]  # the map alone does not see it
    assert case_validity(case).reasons == ("entity_edited",)


def test_a_shuffle_that_splits_a_gold_entity_is_invalid():
    case = shuffle_case()
    assert case.meta["followup_gold"] is None
    assert case_validity(case).reasons == ("entity_split",)


def test_a_new_capitalised_word_is_a_name_gold_lacks():
    assert case_validity(token_case(5, "Smith")).reasons == ("new_capitalised_word",)


def test_without_gold_nothing_is_decided_and_given_gold_is_used():
    bare = token_case(5, "defeated", gold=None)
    assert "gold" not in bare.meta and case_validity(bare) is None
    assert case_validity(bare, GOLD).valid
    assert not case_validity(bare, [E(5, 6, "MISC")]).valid


def test_a_followup_gold_recorded_as_lost_though_it_survives_is_a_mismatch():
    d = copy.deepcopy(token_case(5, "defeated").to_dict())
    d["meta"]["followup_gold"] = None
    assert case_validity(TestCase.from_dict(d)).reasons == ("followup_gold_mismatch",)


def issue(case: TestCase, src_pred, fu_pred) -> Issue:
    gold = [E(s, e, lab) for s, e, lab in case.meta["gold"]]
    fu = case.meta["followup_gold"]
    return Issue(case.id, case_mutant(case), src_pred, fu_pred, [], [], gold,
                 None if fu is None else [E(s, e, lab) for s, e, lab in fu])


def test_summary_reports_validity_and_adjusted_precision_beside_precision():
    ok, split, edited = token_case(5, "defeated"), shuffle_case(), token_case(2, "hall")
    cases = [ok, split, edited]
    wrong_src = [E(0, 1, "LOC"), E(1, 2, "LOC"), E(2, 3, "LOC"), E(6, 7, "LOC")]  # N(s) split the city
    issues = [issue(ok, list(GOLD), [E(0, 3, "LOC")]),  # N(s') misses Boston: a true positive on a valid case
              issue(split, wrong_src, [E(0, 1, "LOC")])]  # N(s) wrong: erroneous, but on an invalid case
    sources = [TinSource("s", list(SRC), wrong_src, gold=list(GOLD))]
    summary, graded = summarize_checked(cases, issues, sources, CONLL)
    assert [g.valid for g in graded] == [True, False]
    o = summary["overall"]
    assert (o["issues"], o["erroneous"], o["precision"]) == (2, 2, 1.0)
    assert (o["precision_validity_adjusted"], o["issues_invalid"]) == (0.5, 1)
    assert (o["validity"], o["validity_valid"], o["validity_total"]) == (1 / 3, 1, 3)
    assert o["validity_reasons"] == {"entity_edited": 1, "entity_split": 1}
    assert summary["shuffle"]["precision_validity_adjusted"] == 0.0 and summary["shuffle"]["validity"] == 0.0
    assert summary["token"]["validity_total"] == 2 and summary["token"]["precision_validity_adjusted"] == 1.0
    # without gold: counts only, no validity
    bare, _ = summarize_checked(cases, issues, [TinSource("s", list(SRC), wrong_src)], CONLL)
    assert "validity" not in bare["overall"]


def test_summarize_issues_adjusts_only_when_every_issue_is_decided():
    g = grade_issue([], [], [E(0, 1, "PER")], [E(0, 1, "PER")], CONLL)  # erroneous
    s = summarize_issues([GradedIssue("a", "t", g, True), GradedIssue("b", "t", g, False)], {"a": True, "b": True})
    assert s["overall"]["precision"] == 1.0 and s["overall"]["precision_validity_adjusted"] == 0.5
    assert s["overall"]["issues_invalid"] == 1
    undecided = summarize_issues([GradedIssue("a", "t", g)], {"a": True})
    assert "precision_validity_adjusted" not in undecided["overall"]


def test_table3_adds_the_validity_table_for_labelled_rows():
    overall = {"issues": 2, "erroneous": 2, "precision": 1.0, "precision_validity_adjusted": 0.5,
               "issues_invalid": 1, "validity": 0.5, "validity_valid": 2, "validity_total": 4, "checked": 4}
    row = {"system": "sys", "labelled": True, "sources": 1, "wrong_sources": 1, "checked_mutants": 4,
           "issues": {"overall": overall, "token": {"checked": 4, "issues": 2, "validity": 0.5, "validity_valid": 2,
                                                    "validity_total": 4}},
           "mutants": {}}
    text = table3_markdown([row], [("token", "Token-level"), ("shuffle", "Entity shuffle")])
    assert "| system | Token-level | Entity shuffle | overall | precision | adjusted precision |" in text
    assert "| sys | 2/4 (50.0%) | – | 2/4 (50.0%) | 100.0% | 50.0% (1 on invalid) |" in text
    assert "Validity" not in table3_markdown([{**row, "labelled": False}], [("token", "Token-level")])
    # precision: a transformation without issues says how many mutants it checked, or that it had none
    assert "| sys | 2 issues | no mutants | 100.0% (2/2) |" in text
    quiet = {**row, "issues": {**row["issues"], "token": {"checked": 29, "issues": 0}, "shuffle": {"checked": 1}}}
    assert "| sys | no issue in 29 mutants | no issue in 1 mutant | 100.0% (2/2) |" in table3_markdown(
        [quiet], [("token", "Token-level"), ("shuffle", "Entity shuffle")])
    uncounted = {**row, "issues": {**row["issues"], "token": {"issues": 0}}}  # metrics without `checked`
    assert "| sys | no issue | no mutants |" in table3_markdown([uncounted], [("token", "Token-level"),
                                                                             ("shuffle", "Entity shuffle")])
    # Table 4: a baseline without issues says how many sources it attacked
    from lingtest.tin.report import table4_markdown

    t4 = table4_markdown({"sys": row}, {"sys": {"issues": 0, "attacked": 7, "hits": 0, "wrong_sources": 1}},
                         [("token", "Token-level")])
    assert "| sys | 2 issues | 100.0% (2/2) | no issue in 7 attacked sources | 0 / 1 |" in t4


def test_table3_counts_the_mutants_after_each_filter():
    from lingtest.tin.filters import FilterCounts

    counts = FilterCounts(generated=10, semantic_removed=2, naturalness_removed=1, fit_removed=3).to_dict()
    row = {"system": "sys", "issues": {"overall": {"issues": 1}, "token": {"issues": 1}},
           "mutants": {"token": counts, "shuffle": {"generated": 4, "after_semantic": 4, "kept": 3}}}
    text = table3_markdown([row], [("token", "Token-level"), ("shuffle", "Entity shuffle")])
    assert "| system | transformation | generated | after semantic | after fit | after naturalness | issues |" in text
    assert "| sys | Token-level | 10 | 8 | 5 | 4 | 1 |" in text
    assert "| sys | Entity shuffle | 4 | 4 | 4 | 3 | 0 |" in text  # a generation from before the fit filter
