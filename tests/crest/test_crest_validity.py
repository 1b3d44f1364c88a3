"""CREST validity: a follow-up keeps its source's gold when the replaced word lies outside every gold
mention and the gold moves with the replacement; the summaries report it beside the precision."""

from __future__ import annotations

import copy

import pytest
from crest_fakes import FakeSystem

from lingtest.crest.evaluate import EvalResult, PairRecord, evaluate_system, summarize
from lingtest.crest.generate import FollowUp, Source
from lingtest.crest.grading import case_validity
from lingtest.crest.report import ablation_markdown, table1_markdown
from lingtest.crest.suite import make_case
from lingtest.data.align import Alignment
from lingtest.data.model import Cluster, Document, Mention, Sentence, TestCase, Token
from lingtest.errors import InputError

WORDS = "John said that he ran .".split()


def source() -> Source:
    doc = Document("s1", sentences=[Sentence([Token(w) for w in WORDS])],
                   clusters=[Cluster([Mention(0, 1), Mention(3, 4)])])
    return Source.from_document(doc)


def followup(src: Source, order: int, position: int, new: str) -> FollowUp:
    words = WORDS[:position] + new.split() + WORDS[position + 1:]
    al = Alignment(len(WORDS), position, len(new.split()))
    return FollowUp(src.id, order, position, WORDS[position], new, "wordnet_synonym", None,
                    Sentence([Token(w) for w in words], id=f"s1#{order}"), al, selected=True)


def test_a_replacement_outside_the_mentions_is_valid_even_with_several_words():
    src = source()
    assert case_validity(make_case(src, followup(src, 0, 1, "stated"))).valid
    two = make_case(src, followup(src, 1, 2, "so that"))  # later mentions shift by one
    assert two.meta["followup_gold_clusters"] == [[[0, 1], [4, 5]]] and case_validity(two).valid
    assert case_validity(make_case(src, followup(src, 2, 1, "stated"), full=True)).valid


def test_a_replacement_inside_a_mention_or_a_wrong_record_is_invalid():
    src = source()
    inside = case_validity(make_case(src, followup(src, 0, 3, "she")))
    assert not inside.valid and inside.reasons == ("edit_inside_mention",)
    case = make_case(src, followup(src, 1, 1, "stated"))
    d = copy.deepcopy(case.to_dict())
    d["meta"]["followup_gold_clusters"] = [[[0, 1], [2, 3]]]
    assert case_validity(TestCase.from_dict(d)).reasons == ("followup_gold_mismatch",)
    d = copy.deepcopy(case.to_dict())
    d["meta"]["old_token"] = "told"  # the record names another word than the one replaced
    assert case_validity(TestCase.from_dict(d)).reasons == ("unrecorded_edit",)
    d = copy.deepcopy(case.to_dict())
    d["meta"]["gold_clusters"] = [[[0, 1], [3, 40]]]
    with pytest.raises(InputError, match="outside the source"):
        case_validity(TestCase.from_dict(d))
    d = copy.deepcopy(case.to_dict())
    del d["meta"]["position"]
    with pytest.raises(InputError, match="not a CREST case"):
        case_validity(TestCase.from_dict(d))


def test_summary_reports_validity_and_adjusted_precision():
    src = source()
    fus = [followup(src, 0, 1, "stated"),  # valid, passes
           followup(src, 1, 4, "rapidly"),  # valid, the planted bug: an issue (true positive)
           followup(src, 2, 3, "rapidly")]  # replaces "he": invalid, and an issue
    cases = [make_case(src, f) for f in fus]
    res = evaluate_system(FakeSystem(), [src], cases, {"name": "blanc", "thr_p": 1.0, "thr_r": 1.0})
    assert [p.valid for p in res.pairs] == [True, True, False]
    assert [p.issue for p in res.pairs] == [False, True, True]
    row = summarize(res, M=20, select=False)
    assert (row["issues"], row["true_positives"], row["precision"]) == (2, 2, 1.0)
    assert (row["validity"], row["validity_valid"], row["validity_total"]) == (0.6667, 2, 3)
    assert row["validity_reasons"] == {"edit_inside_mention": 1}
    assert (row["precision_validity_adjusted"], row["issues_invalid"]) == (0.5, 1)
    assert summarize(res, M=1, select=False)["precision_validity_adjusted"] is None  # no issue within M=1


def test_summary_counts_only_the_tests_of_the_configuration():
    pairs = [PairRecord("a", 0, True, "x", True, 0.0, 0.0, True),
             PairRecord("a", 1, False, "x", True, 0.0, 0.0, True, invalid_reasons=["edit_inside_mention"]),
             PairRecord("a", 2, True, "x", False, 1.0, 1.0, False)]
    res = EvalResult("sys", {"a": False}, pairs, 0.0)
    sel = summarize(res, M=20, select=True)
    assert (sel["validity_valid"], sel["validity_total"], sel["precision_validity_adjusted"]) == (2, 2, 1.0)
    every = summarize(res, M=20, select=False)
    assert (every["validity_valid"], every["validity_total"], every["precision_validity_adjusted"]) == (2, 3, 0.5)


def test_tables_show_the_validity_columns_when_the_rows_have_them():
    row = {"system": "s", "sources": 2, "sources_correct": 1, "sources_wrong": 1, "generated": 4, "selected": 3,
           "issues": 2, "hits": 1, "hit_rate": 1.0, "true_positives": 2, "false_positives": 0, "precision": 1.0,
           "M": 20, "select": True, "tests": 3, "validity": 0.6667, "validity_valid": 2, "validity_total": 3,
           "precision_validity_adjusted": 0.5}
    t1 = table1_markdown([row])
    assert "# (%) Valid | Adj. Prec |" in t1 and "| 1.00 | 2 / 3 (66.67) | 0.50 |" in t1
    ab = ablation_markdown([row])
    assert "Adj. Prec (%)" in ab and "| 2 / 3 (66.67) | 50.00 |" in ab
    old = {k: v for k, v in row.items() if not k.startswith(("validity", "precision_validity"))}
    assert "Valid" not in table1_markdown([old]) and table1_markdown([old]).splitlines()[1].count("|") == 10
    timed = table1_markdown([{**old, "seconds_per_selected": 0.25}])  # a benchmark's rows carry the time
    assert "| Time (s/sel) |" in timed and "| 0.250 |" in timed and timed.splitlines()[1].count("|") == 11
