"""Grading against gold on hand-computed cases: label mapping, issues, hits, error categories,
repair transitions and rates, F1 before/after."""

from __future__ import annotations

import pytest

from lingtest.data.model import Entity
from lingtest.errors import ConfigError
from lingtest.systems.ner.labels import LabelMaps
from lingtest.tin.grading import (
    GradedIssue,
    RepairCounts,
    SchemeMapper,
    error_categories,
    grade_issue,
    ner_f1,
    repair_transition,
    summarize_issues,
)

E = Entity
ONTONOTES = {"PERSON": "PER", "ORG": "ORG", "GPE": "LOC", "LOC": "LOC", "FAC": "LOC", "NORP": "MISC",
             "EVENT": "MISC", "PRODUCT": "MISC", "WORK_OF_ART": "MISC", "LAW": "MISC", "LANGUAGE": "MISC",
             "DATE": None, "TIME": None, "PERCENT": None, "MONEY": None, "QUANTITY": None, "ORDINAL": None,
             "CARDINAL": None}
MAPS = LabelMaps.from_config({"target": ["PER", "ORG", "LOC", "MISC"],
                              "schemes": {"ontonotes": ONTONOTES,
                                          "conll": {t: t for t in ("PER", "ORG", "LOC", "MISC")}}})
ONTO = SchemeMapper(MAPS, "ontonotes")
CONLL = SchemeMapper(MAPS, "conll")


def test_label_mapping_onto_conll():
    pred = [E(0, 1, "GPE"), E(2, 3, "FAC"), E(4, 5, "NORP"), E(5, 6, "DATE"), E(7, 9, "PERSON"),
            E(9, 10, "CARDINAL")]
    assert ONTO.map_entities(pred) == [E(0, 1, "LOC"), E(2, 3, "LOC"), E(4, 5, "MISC"), E(7, 9, "PER")]
    with pytest.raises(ConfigError):
        ONTO.map_entities([E(0, 1, "PER")])  # not an OntoNotes label: an error, not a silent drop


def test_error_categories_one_per_entity_at_fault():
    gold = [E(0, 2, "PER"), E(3, 4, "ORG"), E(5, 7, "ORG"), E(8, 9, "LOC")]
    pred = [E(0, 2, "PER"),  # right
            E(3, 4, "MISC"),  # incorrect category
            E(5, 6, "ORG"), E(6, 7, "MISC"),  # range error (one, for the gold entity)
            E(10, 11, "PER")]  # over-labelling; gold LOC 8-9 is omitted
    assert error_categories(pred, gold) == {"incorrect_category": 1, "range_error": 1, "omission": 1,
                                            "over_labelling": 1}
    assert error_categories(gold, gold) == {}
    # a gold entity found, plus an extra prediction across it: still a (range) error
    assert error_categories([E(0, 2, "PER"), E(1, 2, "PER")], [E(0, 2, "PER")]) == {"range_error": 1}


def test_grade_issue_source_and_followup():
    gold = [E(0, 1, "LOC")]
    g = grade_issue([E(0, 1, "GPE")], [E(1, 2, "PERSON")], gold, [E(1, 2, "LOC")], ONTO)
    assert (g.erroneous, g.source_wrong, g.followup_wrong) == (True, False, True)
    assert g.followup_errors == {"incorrect_category": 1} and g.source_errors == {}
    ok = grade_issue([E(0, 1, "GPE"), E(2, 3, "DATE")], [E(1, 2, "GPE")], gold, [E(1, 2, "LOC")], ONTO)
    assert not ok.erroneous  # a false alarm (the DATE maps to no CoNLL entity)
    unknown = grade_issue([], [], gold, None, ONTO)
    assert unknown.erroneous and unknown.followup_wrong is None and unknown.source_errors == {"omission": 1}


def test_summary_precision_hits_and_categories():
    wrong_src = grade_issue([], [], [E(0, 1, "PER")], [E(0, 1, "PER")], CONLL)  # omission in both
    fu_only = grade_issue([E(0, 1, "PER")], [E(0, 1, "ORG")], [E(0, 1, "PER")], [E(0, 1, "PER")], CONLL)
    clean = grade_issue([E(0, 1, "PER")], [E(0, 1, "PER")], [E(0, 1, "PER")], [E(0, 1, "PER")], CONLL)
    issues = [GradedIssue("a", "token", wrong_src), GradedIssue("a", "token", wrong_src),
              GradedIssue("b", "shuffle", fu_only), GradedIssue("c", "shuffle", clean)]
    source_wrong = {"a": True, "b": False, "c": False, "d": True, "e": False}
    s = summarize_issues(issues, source_wrong)
    o = s["overall"]
    assert o["issues"] == 4 and o["erroneous"] == 3 and o["precision"] == 0.75
    assert s["overall"]["source_wrong"] == 2 and s["overall"]["source_wrong_share"] == 0.5
    assert (s["overall"]["hits"], s["overall"]["wrong_sources"], s["overall"]["hit_rate"]) == (1, 2, 0.5)
    # source "a" counted once (omission) + two wrong follow-ups (omission) + one incorrect category
    assert s["overall"]["error_categories"] == {"omission": 3, "over_labelling": 0, "incorrect_category": 1,
                                                "range_error": 0}
    assert s["shuffle"]["precision"] == 0.5 and s["shuffle"]["hits"] == 0 and s["token"]["hits"] == 1
    assert summarize_issues([], {})["overall"]["precision"] is None


def test_repair_transitions_per_suspicious_span():
    gold = [E(0, 2, "ORG")]
    # range error repaired: "Project" labelled alone before, "Project Stratum" after
    assert repair_transition([E(0, 1, "ORG")], [E(0, 2, "ORG")], gold, (0, 1), CONLL) == "FT"  # ORG -> NULL
    assert repair_transition([E(0, 1, "ORG")], [E(0, 2, "ORG")], gold, (0, 2), CONLL) == "FT"  # NULL -> ORG
    assert repair_transition([], [], gold, (1, 2), CONLL) == "TT"  # NULL both times, and gold NULL there
    assert repair_transition([E(0, 2, "ORG")], [E(0, 2, "LOC")], gold, (0, 2), CONLL) == "TF"
    assert repair_transition([E(0, 2, "MISC")], [E(0, 2, "LOC")], gold, (0, 2), CONLL) == "FF"
    # omission (OntoNotes labels mapped first): DATE counts as NULL
    assert repair_transition([E(3, 4, "DATE")], [], [], (3, 4), ONTO) == "TT"


def test_repair_rates_reproduce_the_papers_table_6():
    c = RepairCounts.of(["TT"] * 286 + ["TF"] * 48 + ["FT"] * 192 + ["FF"] * 164)  # Flair-CoNLL row
    assert (c.num_error, c.num_correct) == (356, 334)
    assert round(100 * c.err2cor, 1) == 53.9 and round(100 * c.cor2err, 1) == 14.4
    assert round(100 * c.error_reduce, 1) == 40.4
    assert RepairCounts().to_dict()["err2cor"] is None
    with pytest.raises(ValueError):
        RepairCounts.of(["XX"])


def test_f1_before_and_after_repair():
    gold = [[E(0, 1, "PER"), E(2, 4, "ORG")], [E(1, 2, "LOC")]]
    before = [[E(0, 1, "PERSON"), E(2, 3, "ORG")], [E(1, 2, "GPE"), E(3, 4, "DATE")]]
    after = [[E(0, 1, "PERSON"), E(2, 4, "ORG")], [E(1, 2, "GPE")]]
    b = ner_f1(before, gold, [5, 4], ONTO)
    assert (b.tp, b.fp, b.fn) == (2, 1, 1) and b.f1 == pytest.approx(2 / 3)
    a = ner_f1(after, gold, [5, 4], ONTO)
    assert a.f1 == 1.0
    with pytest.raises(ValueError):
        ner_f1(before, gold, [5], ONTO)
