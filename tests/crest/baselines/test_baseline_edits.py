"""Edits of a source and what follows from them: the follow-up's words, the gold carried onto it, the record (the
same as CREST's), its oracle alignment and its validity."""

from __future__ import annotations

import pytest
from baseline_fakes import make_source
from crest_fakes import FakeParser, FakeSystem

from lingtest.crest.baselines.edits import (
    Edit,
    Perturbation,
    apply_edits,
    carry_span,
    edit_expectation,
    followup_gold,
    followup_validity,
    insertion,
)
from lingtest.crest.baselines.records import followup_words, make_case
from lingtest.crest.baselines.stages import evaluate_followups
from lingtest.crest.generate import FollowUp
from lingtest.crest.grading import case_validity
from lingtest.crest.suite import make_case as crest_make_case
from lingtest.data.align import Alignment
from lingtest.data.model import Sentence, TestCase, Token

TEXT = "John said that the big dog liked him ."


def src():
    return make_source(TEXT, [[(0, 1), (7, 8)]], ws={7: ""})


def parse(words):
    return FakeParser().parse([words])[0]


def case_of(p: Perturbation, baseline: str = "test") -> TestCase:
    s = src()
    return make_case(baseline, s, 0, p, parse(followup_words(s, p)[0]))


def test_words_of_a_substitution_a_deletion_an_insertion_and_a_contraction():
    words, ws = TEXT.split(), [" "] * 9
    assert apply_edits(words, ws, [Edit(4, ("huge",))])[0] == "John said that the huge dog liked him .".split()
    assert apply_edits(words, ws, [Edit(4, ())])[0] == "John said that the dog liked him .".split()
    assert apply_edits(words, ws, [Edit(4, ("big", "old"), keep=0)])[0] == \
        "John said that the big old dog liked him .".split()
    w, s = apply_edits(["it", "is", "not", "here"], [" "] * 4, [Edit(2, ("n't",), prev_ws="")])
    assert w == ["it", "is", "n't", "here"] and s == [" ", "", " ", " "]
    with pytest.raises(ValueError):
        Edit(1, ("two words",))
    with pytest.raises(ValueError):
        Perturbation((Edit(1, ("a",)), Edit(1, ("b",))), "x")


def test_gold_offsets_shift_after_an_insertion_or_a_deletion():
    n = 9
    # an insertion before both mentions' tail: "him" moves one right, "John" stays
    ins = insertion(TEXT.split(), [" "] * n, 2, ["indeed"], protected={0, 7})
    assert ins == Edit(1, ("said", "indeed"), keep=0, ws=(" ", " "))
    assert followup_gold([[(0, 1), (7, 8)]], n, [ins]) == [[(0, 1), (8, 9)]]
    # a deletion before "him" moves it one left; a multi-word mention spanning the deletion shrinks
    assert followup_gold([[(0, 1), (7, 8)], [(3, 6)]], n, [Edit(4, ())]) == [[(0, 1), (6, 7)], [(3, 5)]]
    # a mention whose every token is deleted is dropped
    assert followup_gold([[(0, 1), (7, 8)]], n, [Edit(7, ())]) == [[(0, 1)]]
    assert carry_span((7, 8), n, [Edit(7, ())]) is None


def test_an_insertion_beside_a_mention_keeps_the_inserted_word_outside_it():
    words = TEXT.split()
    # boundary 1 lies between John (a mention) and said: said carries it, John keeps its span
    e = insertion(words, [" "] * 9, 1, ["then"], protected={0, 7})
    assert e.position == 1 and e.new == ("then", "said") and e.keep == 1
    assert carry_span((0, 1), 9, [e]) == (0, 1)
    # at the end only "." can carry it; before the first word only John (a mention) can
    e0 = insertion(words, [" "] * 9, 0, ["So"], protected={0, 7})
    assert (e0.position, e0.keep) == (0, 1)
    assert carry_span((0, 1), 9, [e0]) == (1, 2)  # John moved right, the inserted word outside it


def test_expectation_is_crest_s_for_one_edit_and_an_alignment_for_several():
    assert edit_expectation([Edit(4, ())], 9) == "same-coreference"
    swap = [Edit(4, ("dog",)), Edit(5, ("big",))]
    assert edit_expectation(swap, 9) == {"name": "oracle", "alignment": {"replacements": [[4, 1], [5, 1]]}}
    assert edit_expectation([Edit(7, ()), Edit(8, ())], 9) == {"name": "oracle"}
    assert edit_expectation([Edit(2, ("x",)), Edit(8, ())], 9) == \
        {"name": "oracle", "alignment": {"replacements": [[2, 1]]}}
    with pytest.raises(ValueError):
        edit_expectation([Edit(2, ()), Edit(5, ("x",))], 9)


def test_a_one_word_substitution_is_recorded_exactly_as_crest_records_it():
    s = src()
    p = Perturbation((Edit(4, ("huge",)),), "sit", 0.25)
    words, ws = followup_words(s, p)
    parsed = parse(words)
    mine = make_case("sit", s, 3, p, parsed)
    fs = Sentence([Token.from_dict(t.to_dict()) for t in parsed.tokens], tree=parsed.tree, id=f"{s.id}#3")
    for t, w in zip(fs.tokens, ws, strict=True):
        t.ws = w
    theirs = crest_make_case(s, FollowUp(s.id, 3, 4, "big", "huge", "sit", 0.25, fs, Alignment(9, 4, 1), True),
                             full=True)
    a, b = mine.to_dict(), theirs.to_dict()
    assert a["meta"].pop("baseline") == "sit"
    assert a["provenance"].pop("transformation") == "sit:sit"
    b["provenance"].pop("transformation")
    a.pop("id"), b.pop("id")
    assert a == b
    assert mine.meta["followup_text"] == "John said that the huge dog liked him."


def test_validity_of_one_edit_is_crest_s_and_covers_every_edit_of_several():
    sub = case_of(Perturbation((Edit(4, ("huge",)),), "x"))
    assert followup_validity(sub) == case_validity(sub) and followup_validity(sub).valid
    inside = case_of(Perturbation((Edit(7, ("her",)),), "x"))
    assert followup_validity(inside) == case_validity(inside)
    assert "edit_inside_mention" in followup_validity(inside).reasons
    # a swap outside the mentions keeps the gold; a consistent name change touches every mention it renames
    swap = case_of(Perturbation((Edit(4, ("dog",)), Edit(5, ("big",))), "eda_swap"))
    assert swap.meta["edits"] == [{"position": 4, "old": "big", "new": "dog", "n_new": 1},
                                  {"position": 5, "old": "dog", "new": "big", "n_new": 1}]
    assert followup_validity(swap).valid
    assert "unrecorded_edit" in case_validity(swap).reasons  # CREST's check sees one edit only
    rename = case_of(Perturbation((Edit(0, ("Mary",)), Edit(1, ("told",))), "x"))
    assert followup_validity(rename).reasons == ("edit_inside_mention",)
    # deleting a mention: lost (and the recorded gold drops it)
    gone = case_of(Perturbation((Edit(7, ()),), "eda_delete"))
    assert gone.meta["followup_gold_clusters"] == [[[0, 1]]]
    assert {"edit_inside_mention", "mention_lost"} <= set(followup_validity(gone).reasons)
    # an insertion outside the mentions is valid, its gold shifted
    ins = case_of(Perturbation((insertion(TEXT.split(), [" "] * 9, 2, ["indeed"], {0, 7}),), "eda_insert"))
    assert ins.meta["followup_gold_clusters"] == [[[0, 1], [8, 9]]] and followup_validity(ins).valid


def test_crest_s_evaluation_grades_records_of_one_and_of_several_edits():
    s = src()
    cases = [case_of(Perturbation((Edit(4, ("huge",)),), "sit")),
             case_of(Perturbation((Edit(4, ("dog",)), Edit(5, ("big",))), "eda_swap")),
             case_of(Perturbation((Edit(3, ()),), "eda_delete")),
             case_of(Perturbation((Edit(3, ("quickly", "the"), keep=1),), "eda_insert"))]
    res = evaluate_followups(FakeSystem(), [s], cases, {"name": "blanc", "thr_p": 1.0, "thr_r": 1.0})
    # the fake system clusters John/him wherever they are: consistent on every follow-up, and right
    assert [p.issue for p in res.pairs] == [False] * 4
    assert [p.valid for p in res.pairs] == [True] * 4
    assert res.source_correct == {s.id: True}
    # "quickly" is the fake system's planted bug word, not here; "rapidly" is: an issue, a true positive
    bug = case_of(Perturbation((Edit(3, ("rapidly", "the"), keep=1),), "eda_insert"))
    (pair,) = evaluate_followups(FakeSystem(), [s], [bug], {"name": "blanc", "thr_p": 1.0, "thr_r": 1.0}).pairs
    assert pair.issue and pair.true_positive and pair.valid
