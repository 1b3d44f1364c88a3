"""evalb-style bracket scoring against hand-computed cases."""

from __future__ import annotations

import pytest

from lingtest.data.model import Tree
from lingtest.parsing.evalb import evalb_corpus, evalb_sentence, normalise_label


def t(s: str) -> Tree:
    return Tree.from_bracketed(s)[0]


GOLD1 = "(ROOT (S (NP (DT The) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))) (. .)))"
TEST1 = "(S (NP (DT The) (NN cat)) (VP (VBD sat)) (PP (IN on) (NP (DT the) (NN mat))) (. .))"


def test_attachment_error_hand_computed():
    # gold S(0,6) NP(0,2) VP(2,6) PP(3,6) NP(4,6); test has VP(2,3) instead of VP(2,6); ROOT ignored
    c = evalb_sentence(t(GOLD1), t(TEST1))
    assert (c.matched, c.gold, c.test) == (4, 5, 5)
    assert c.precision == pytest.approx(0.8) and c.recall == pytest.approx(0.8) and c.f1 == pytest.approx(0.8)
    assert c.words == 6 and c.exact == 0


def test_identical_trees_score_one():
    c = evalb_sentence(t(GOLD1), t(GOLD1))
    assert c.f1 == 1.0 and c.unlabelled_f1 == 1.0 and c.exact == 1


def test_function_tags_and_prt_advp_equivalence():
    gold = t("(S (NP-SBJ-1 (PRP He)) (VP (VBD gave) (PRT (RP up))))")
    test = t("(S (NP (PRP He)) (VP (VBD gave) (ADVP (RP up))))")
    c = evalb_sentence(gold, test)
    assert (c.matched, c.gold, c.test) == (4, 4, 4)  # S, NP, VP, PRT=ADVP
    assert normalise_label("NP-SBJ-1") == "NP" and normalise_label("PP=2") == "PP"
    assert normalise_label("-NONE-") == "-NONE-"


def test_punctuation_removed_and_brackets_are_a_multiset():
    gold = t("(S (NP (NNP John)) (, ,) (VP (VBD ran)) (. .))")
    test = t("(S (NP (NP (NNP John)) (, ,)) (VP (VBD ran)) (. .))")
    c = evalb_sentence(gold, test)
    # without punctuation both NPs of the test tree span (0,1): one matches, one is extra
    assert (c.matched, c.gold, c.test) == (3, 3, 4)
    assert c.precision == pytest.approx(0.75) and c.recall == 1.0
    assert c.unlabelled_f1 == pytest.approx(2 * 0.75 / 1.75)


def test_labelled_vs_unlabelled():
    gold = t("(S (NP (DT a) (NN b)) (VP (VBZ c)))")
    test = t("(S (ADJP (DT a) (NN b)) (VP (VBZ c)))")
    c = evalb_sentence(gold, test)
    assert c.matched == 2 and c.matched_unlabelled == 3
    assert c.f1 == pytest.approx(2 / 3) and c.unlabelled_f1 == 1.0


def test_corpus_sums_counts_not_averages():
    pairs = [(t(GOLD1), t(TEST1)),
             (t("(S (NP (DT a) (NN b)) (VP (VBZ c)))"), t("(S (ADJP (DT a) (NN b)) (VP (VBZ c)))"))]
    c = evalb_corpus(pairs)
    assert (c.matched, c.gold, c.test, c.sentences) == (6, 8, 8, 2)
    assert c.f1 == pytest.approx(0.75)
    short = evalb_corpus(pairs, max_length=3)
    assert short.sentences == 1 and short.gold == 3


def test_different_words_rejected():
    with pytest.raises(ValueError):
        evalb_sentence(t("(S (NN a) (NN b))"), t("(S (NN a))"))
