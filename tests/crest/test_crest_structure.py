"""Depth selection (Algorithm 2), CR-related indices (Eq. 2) and alignment, on the paper's
worked example "The fish in the lake ate the worm because it was tasty."."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lingtest.crest.indices import cr_related_indices
from lingtest.crest.select import depths_preserved, mention_depth
from lingtest.data.align import Alignment, detokenize, replace_words
from lingtest.data.model import Cluster, Mention, Sentence, Token, Tree

# The paper's Figure 1 constituent structure: SBAR attaches to S, so that the depth of "it" is
# S-SBAR-S-NP-PRP = 5 and that of "The fish" is S-NP-NP = 3 (Section 3.2).
EXAMPLE = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "crest" / "paper_example.json")
                     .read_text(encoding="utf-8"))
WORDS = EXAMPLE["words"]
GOLD_TREE = EXAMPLE["tree"]


@pytest.fixture
def tree() -> Tree:
    t, words = Tree.from_bracketed(GOLD_TREE)
    assert words == WORDS
    return t


def test_paper_depths_from_fixture(tree):
    for name, (span, depth) in EXAMPLE["expected_depths"].items():
        assert mention_depth(tree, tuple(span)) == depth, name


def test_paper_depths(tree):
    assert mention_depth(tree, (9, 10)) == 5  # it
    assert mention_depth(tree, (0, 2)) == 3  # The fish
    assert mention_depth(tree, (6, 8)) == 3  # the worm: S-VP-NP
    assert mention_depth(tree, (0, 5)) == 2  # The fish in the lake: S-NP


def test_selection_keeps_same_structure_and_drops_deeper_mention(tree):
    gold = [[(6, 8), (9, 10)]]
    same, _ = Tree.from_bracketed(GOLD_TREE.replace("lake", "pond"))
    assert depths_preserved(tree, same, gold, Alignment(13, 4))
    # a follow-up whose parse puts "it" one level deeper (an extra VP around the SBAR)
    deeper, _ = Tree.from_bracketed(GOLD_TREE.replace("(SBAR (IN because) (S (NP (PRP it)) (VP (VBD was) "
                                                      "(ADJP (JJ tasty)))))",
                                                      "(VP (SBAR (IN because) (S (NP (PRP it)) (VP (VBD was) "
                                                      "(ADJP (JJ tasty))))))"))
    assert not depths_preserved(tree, deeper, gold, Alignment(13, 4))


def test_selection_maps_mentions_through_a_multiword_replacement(tree):
    # "lake" -> "fishing pond": the worm/it move one token to the right in the follow-up
    fu, words = Tree.from_bracketed(GOLD_TREE.replace("(NN lake)", "(NN fishing) (NN pond)"))
    assert words[4:6] == ["fishing", "pond"]
    al = Alignment(13, 4, 2)
    assert depths_preserved(tree, fu, [[(6, 8), (9, 10)]], al)
    assert not depths_preserved(tree, fu, [[(6, 8), (9, 10)]], Alignment(13, 4, 1))  # wrong map


def _spacy_like() -> Sentence:
    return Sentence([Token(w, head=h, dep=d) for w, h, d in zip(WORDS, EXAMPLE["heads"], EXAMPLE["deps"], strict=True)])


def test_cr_related_indices_paper_example_spacy_copula():
    sent = _spacy_like()
    gold = [Cluster([Mention(6, 8), Mention(9, 10)])]
    # mentions 6,7,9; "was" (head of nsubj "it"); "tasty" (acomp of that head, the paper's example)
    assert cr_related_indices(sent, gold) == set(EXAMPLE["expected_cr_indices"]) == {6, 7, 9, 10, 11}
    assert cr_related_indices(sent, gold, copula_complements=()) == {6, 7, 9, 10}


def test_cr_related_indices_ud_and_amod():
    # UD analysis: tasty is the head, it -> nsubj -> tasty; "big" amod of "worm"
    words = "the big worm was tasty".split()
    heads, deps = [2, 2, 4, 4, -1], ["det", "amod", "nsubj", "cop", "root"]
    sent = Sentence([Token(w, head=h, dep=d) for w, h, d in zip(words, heads, deps, strict=True)])
    assert cr_related_indices(sent, [Cluster([Mention(0, 3)])]) == {0, 1, 2, 4}
    # subtype matching: nsubj:pass counts as nsubj
    sent.tokens[2].dep = "nsubj:pass"
    assert 4 in cr_related_indices(sent, [Cluster([Mention(0, 3)])])
    assert 4 not in cr_related_indices(sent, [Cluster([Mention(0, 3)])], match_subtypes=False)


def test_alignment_maps_both_ways():
    al = Alignment(n_source=6, position=2, n_new=3)
    assert al.n_followup == 8
    assert [al.token_to_followup(i) for i in range(6)] == [0, 1, 2, 5, 6, 7]
    assert [al.token_to_source(j) for j in range(8)] == [0, 1, 2, 2, 2, 3, 4, 5]
    assert al.span_to_followup((3, 5)) == (5, 7)
    assert al.span_to_followup((0, 2)) == (0, 2)
    assert al.span_to_followup((1, 4)) == (1, 6)  # covers the replaced word
    assert al.span_to_source((5, 7)) == (3, 5)
    assert al.span_to_source((2, 5)) == (2, 3)
    for span in [(0, 1), (3, 4), (4, 6), (1, 4)]:
        assert al.span_to_source(al.span_to_followup(span)) == span
    with pytest.raises(IndexError):
        al.token_to_source(8)


def test_replace_words_keeps_whitespace():
    words, ws = ["I", "like", "it", "."], [" ", " ", "", ""]
    nw, nws = replace_words(words, ws, 1, ["look", "after"])
    assert nw == ["I", "look", "after", "it", "."]
    assert detokenize(nw, nws) == "I look after it."
