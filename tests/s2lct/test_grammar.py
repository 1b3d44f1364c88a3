"""Algorithm 1 (syntax expansion identification) and production-rule coverage on hand-built trees."""

from __future__ import annotations

import pytest

from lingtest.data.model import Tree
from lingtest.s2lct.grammar import (
    ReferenceCFG,
    embed,
    masked_sentences,
    node_from_tree,
    parse_bracketed,
    production_rule_coverage,
    productions,
    strip_function_tags,
)

REFERENCE = [
    "(S (NP-SBJ (DT the) (NNS dogs)) (VP (VBD ran)) (. .))",
    "(S (NP-SBJ (DT all) (NNS cats)) (VP (VBD sat)) (. .))",
    "(S (NP (DT the) (JJ big) (NN dog)) (VP (VBD ran)) (. .))",
    "(FRAG (CC and) (NP (DT all)) (. .))",
    "(S (NP (DT the) (NN dog) (, ,)) (VP (VBD ran)) (. .))",
]


def reference() -> ReferenceCFG:
    trees = []
    for t in REFERENCE:
        n = parse_bracketed(t)
        trees.append(n)
    return ReferenceCFG([strip(n) for n in trees])


def strip(n):
    from lingtest.s2lct.grammar import Node

    return Node(strip_function_tags(n.label), tuple(strip(c) for c in n.children), n.word)


def test_the_papers_running_example():
    seed = parse_bracketed("(FRAG (CC Or) (NP (DT both)) (. .))")
    assert productions(seed) == [("FRAG", ("CC", "NP", ".")), ("NP", ("DT",))]
    ms = masked_sentences(seed, reference(), top=5, max_masks=9)
    texts = [m.text() for m in ms]
    assert "Or both {NNS} ." in texts
    m = ms[texts.index("Or both {NNS} .")]
    assert (m.lhs, m.seed_rhs, m.ref_rhs) == ("NP", ("DT",), ("DT", "NNS"))
    assert m.words == ["Or", "both", None, "."] and m.mask_positions == [2]
    # NP -> DT NNS is the most probable expansion of NP -> DT (2 of the 5 NP rules)
    assert texts[0] == "Or both {NNS} ."
    assert set(texts) == {"Or both {NNS} .", "Or both {JJ} {NN} ."}
    # NP -> DT NN , adds a comma: not a word-level POS, never a mask
    assert all("{,}" not in t for t in texts)


def test_probabilities_follow_start_lhs_and_rule_counts():
    cfg = reference()
    # P(start = FRAG) = 1/5, P(NP) = 5/13 NP rules among 13 productions, P(NP -> DT NNS | NP) = 2/5
    total = sum(cfg.rules.values())
    assert cfg.prob("FRAG", "NP", ("DT", "NNS")) == pytest.approx(1 / 5 * (5 / total) * (2 / 5))
    assert cfg.prob("FRAG", "NP", ("NNS", "DT")) == 0.0


def test_top_and_max_masks():
    seed = parse_bracketed("(FRAG (CC Or) (NP (DT both)) (. .))")
    assert [m.text() for m in masked_sentences(seed, reference(), top=1, max_masks=9)] == ["Or both {NNS} ."]
    two = masked_sentences(seed, reference(), top=5, max_masks=1)
    assert "Or both {JJ} {NN} ." not in [m.text() for m in two]


def test_subsequence_must_be_ordered_and_longer():
    assert embed(("DT",), ("DT", "NNS")) == [0]
    assert embed(("NN", "DT"), ("DT", "NN")) is None
    assert embed(("DT", "NN"), ("DT", "JJ", "NN")) == [0, 2]
    seed = parse_bracketed("(S (NP (DT the) (NNS dogs)) (VP (VBD ran)) (. .))")
    ms = masked_sentences(seed, reference(), top=5, max_masks=9)
    assert all(m.ref_rhs != m.seed_rhs for m in ms)  # an equal right-hand side is no expansion


def test_function_tags_are_stripped():
    assert strip_function_tags("NP-SBJ-1") == "NP"
    assert strip_function_tags("PP=2") == "PP"
    assert strip_function_tags("-NONE-") == "-NONE-"
    assert strip_function_tags("-LRB-") == "-LRB-"


def test_production_rule_coverage_on_hand_built_trees():
    a = parse_bracketed("(S (NP (DT the) (NN dog)) (VP (VBD ran)))")
    b = parse_bracketed("(S (NP (DT a) (NN cat)) (VP (VBD sat) (ADVP (RB away))))")
    c = parse_bracketed("(FRAG (NP (NN dog)))")
    # lexical rules (NN -> dog) never count; repeated productions count once
    assert production_rule_coverage([a]) == 3  # S -> NP VP, NP -> DT NN, VP -> VBD
    assert production_rule_coverage([a, a]) == 3
    assert production_rule_coverage([a, b]) == 5  # + VP -> VBD ADVP, ADVP -> RB
    assert production_rule_coverage([a, b, c]) == 7  # + FRAG -> NP, NP -> NN
    assert production_rule_coverage([]) == 0


def test_node_from_lingtest_tree():
    tree = Tree("FRAG", [Tree("CC", token=0), Tree("NP-SBJ", [Tree("DT", token=1)]), Tree(".", token=2)])
    n = node_from_tree(tree, ["Or", "both", "."])
    assert n == parse_bracketed("(FRAG (CC Or) (NP (DT both)) (. .))")


def test_bad_brackets():
    for bad in ["(S (NP (DT a)", "(S (DT a b))", "(S (DT a)) x"]:
        with pytest.raises(ValueError):
            parse_bracketed(bad)
