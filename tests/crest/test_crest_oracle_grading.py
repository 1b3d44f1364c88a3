"""BLANC oracle and gold grading with the Kummerfeld & Klein error classes."""

from __future__ import annotations

import pytest
from crest_fakes import link_blanc

from lingtest.crest.grading import classify_errors, grade_issue, same_clustering
from lingtest.crest.oracle import BlancOracle
from lingtest.data.align import Alignment
from lingtest.data.model import non_singleton
from lingtest.suite.oracles import ORACLES

A = [(0, 1), (9, 10)]
B = [(3, 5), (6, 7)]


def test_registry():
    assert ORACLES.get("blanc") is BlancOracle


def test_non_singleton_normalises():
    assert non_singleton([[(9, 10), (0, 1), (0, 1)], [(2, 3)]]) == [[(0, 1), (9, 10)]]


@pytest.mark.parametrize("metric", [None, link_blanc], ids=["real-blanc", "link-stand-in"])
def test_oracle_consistency(metric):
    o = BlancOracle(thr_p=1.0, thr_r=1.0, metric=metric)
    same = Alignment(12, 2)
    assert not o.check([A], [A], same).issue
    assert not o.check([], [], same).issue
    assert not o.check([A, [(4, 5)]], [A], same).issue  # singletons are ignored
    missed = o.check([A, B], [A], same)
    assert missed.issue and missed.recall < 1.0
    assert o.check([A], [A, B], same).issue
    assert o.check([A], [], same).issue


def test_oracle_maps_followup_positions_back():
    # the follow-up replaced token 2 by three words: its mention (11, 12) is the source's (9, 10)
    al = Alignment(12, 2, 3)
    o = BlancOracle(thr_p=1.0, thr_r=1.0)
    assert not o.check([A], [[(0, 1), (11, 12)]], al).issue
    assert o.check([A], [[(0, 1), (9, 10)]], al).issue


def test_oracle_thresholds_relax():
    o = BlancOracle(thr_p=0.0, thr_r=0.0, metric=link_blanc)
    assert not o.check([A, B], [A], Alignment(12, 2)).issue


def test_same_clustering_ignores_order_and_singletons():
    assert same_clustering([A, B], [list(reversed(B)), A, [(20, 21)]])
    assert not same_clustering([A, B], [A])


GOLD = [[(0, 2), (5, 6), (9, 10)], [(3, 4), (7, 8)]]


@pytest.mark.parametrize("pred,expected", [
    (GOLD, {}),
    ([[(0, 3), (5, 6), (9, 10)], [(3, 4), (7, 8)]], {"span_error": 1}),
    ([[(0, 2), (5, 6), (9, 10)]], {"missing_entity": 1}),
    ([*GOLD, [(11, 12), (13, 14)]], {"extra_entity": 1}),
    ([[(0, 2), (5, 6)], [(3, 4), (7, 8)]], {"missing_mention": 1}),
    ([[(0, 2), (5, 6), (9, 10), (12, 13)], [(3, 4), (7, 8)]], {"extra_mention": 1}),
    ([[(0, 2), (5, 6), (9, 10), (3, 4), (7, 8)]], {"conflated_entities": 1}),
    ([[(0, 2), (5, 6)], [(9, 10), (12, 13)], [(3, 4), (7, 8)]], {"divided_entity": 1, "extra_mention": 1}),
])
def test_error_classes(pred, expected):
    assert dict(classify_errors(GOLD, pred)) == expected


def test_grade_issue_true_and_false_positive():
    gold_src, gold_fu = [A], [[(0, 1), (11, 12)]]
    # the source is right, the follow-up misses the cluster: true positive, missing entity
    tp, types = grade_issue(gold_src, [A], gold_fu, [])
    assert tp and types == {"missing_entity"}
    # both right (e.g. a thresholded oracle fired on a harmless difference): false positive
    tp, types = grade_issue(gold_src, [A], gold_fu, gold_fu)
    assert not tp and not types
    # wrong on both sides
    tp, types = grade_issue(gold_src, [A, B], gold_fu, [[(0, 1), (11, 12), (3, 4)]])
    assert tp and types == {"extra_entity", "extra_mention"}
