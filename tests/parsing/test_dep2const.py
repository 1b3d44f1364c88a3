"""Dependency → constituency conversion: hand-made parses with expected bracketings, the CREST
worked example, and structural properties on random dependency trees."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lingtest.data.model import Sentence, Token, Tree
from lingtest.parsing.dep2const import dependency_to_constituency, projectivize


def sent(rows: str) -> Sentence:
    """Rows ``word TAG head dep`` (head 0-based, -1 root), one per line."""
    toks = []
    for line in rows.strip().splitlines():
        w, tag, head, dep = line.split()
        toks.append(Token(text=w, tag=tag, head=int(head), dep=dep))
    return Sentence(tokens=toks)


def bracket(s: Sentence, **kw) -> str:
    return dependency_to_constituency(s, **kw).to_bracketed(s.words)


# spaCy's parse of the CREST paper's running example
CREST = sent("""
The DT 1 det
fish NN 5 nsubj
in IN 1 prep
the DT 4 det
lake NN 2 pobj
ate VBD -1 ROOT
the DT 7 det
worm NN 5 dobj
because IN 10 mark
it PRP 10 nsubj
was VBD 5 advcl
tasty JJ 10 acomp
. . 5 punct
""")


def test_crest_example_bracketing():
    assert bracket(CREST) == (
        "(S (NP (NP (DT The) (NN fish)) (PP (IN in) (NP (DT the) (NN lake)))) "
        "(VP (VBD ate) (NP (DT the) (NN worm)) "
        "(SBAR (IN because) (S (NP (PRP it)) (VP (VBD was) (ADJP (JJ tasty)))))) (. .))")


def test_crest_depths_paper_gold_and_derived():
    # the paper's Figure 1 tree attaches the because-clause to S: depth(it) = 5, depth(the fish) = 3
    gold, _ = Tree.from_bracketed(
        "(S (NP (NP (DT The) (NN fish)) (PP (IN in) (NP (DT the) (NN lake)))) (VP (VBD ate) (NP (DT the) (NN worm)))"
        " (SBAR (IN because) (S (NP (PRP it)) (VP (VBD was) (ADJP (JJ tasty))))) (. .))")
    assert gold.token_depth(9) == 5
    assert gold.lowest_covering(0, 2)[1] == 3
    # ours attaches it inside the VP (PTB convention for post-verbal adverbial clauses): 6 and 3
    ours = dependency_to_constituency(CREST)
    assert ours.token_depth(9) == 6
    assert ours.lowest_covering(0, 2)[1] == 3
    assert dependency_to_constituency(CREST, root_label="ROOT").token_depth(9) == 7


def test_relative_clause_auxiliaries_and_flat_coordination():
    s = sent("""
The DT 1 det
man NN 8 nsubj
who WP 4 dobj
I PRP 4 nsubj
saw VBD 1 relcl
has VBZ 8 aux
not RB 8 neg
been VBN 8 aux
eating VBG -1 ROOT
cats NNS 8 dobj
, , 9 punct
dogs NNS 9 conj
and CC 11 cc
mice NNS 11 conj
. . 8 punct
""")
    assert bracket(s) == (
        "(S (NP (NP (DT The) (NN man)) (SBAR (WHNP (WP who)) (S (NP (PRP I)) (VP (VBD saw))))) "
        "(VP (VBZ has) (RB not) (VP (VBN been) (VP (VBG eating) "
        "(NP (NP (NNS cats)) (, ,) (NP (NNS dogs)) (CC and) (NP (NNS mice)))))) (. .))")


def test_wh_subject_of_relative_is_np():
    s = sent("""
people NNS -1 ROOT
who WP 2 nsubj
left VBD 0 relcl
""")
    assert bracket(s) == "(NP (NP (NNS people)) (SBAR (NP (WP who)) (S (VP (VBD left)))))"


def test_inversion_and_clause_coordination():
    q = sent("""
Is VBZ -1 ROOT
he PRP 0 nsubj
sure JJ 0 acomp
? . 0 punct
""")
    assert bracket(q) == "(SQ (VBZ Is) (NP (PRP he)) (ADJP (JJ sure)) (. ?))"
    c = sent("""
I PRP 1 nsubj
came VBD -1 ROOT
and CC 1 cc
he PRP 4 nsubj
left VBD 1 conj
. . 4 punct
""")
    # the final period hangs from the last conjunct but belongs to the top clause
    assert bracket(c) == "(S (S (NP (PRP I)) (VP (VBD came))) (CC and) (S (NP (PRP he)) (VP (VBD left))) (. .))"


def test_wh_question():
    s = sent("""
What WP 3 dobj
did VBD 3 aux
you PRP 3 nsubj
see VB -1 ROOT
? . 3 punct
""")
    assert bracket(s) == "(SBARQ (WHNP (WP What)) (SQ (VBD did) (NP (PRP you)) (VP (VB see))) (. ?))"


def test_ud_case_copula_and_infinitival_to():
    s = sent("""
She PRP 2 nsubj
is VBZ 2 cop
happy JJ -1 root
to TO 4 mark
live VB 2 xcomp
in IN 6 case
Paris NNP 4 obl
. . 2 punct
""")
    assert bracket(s) == (
        "(S (NP (PRP She)) (VP (VBZ is) (ADJP (JJ happy) (S (VP (TO to) (VP (VB live) "
        "(PP (IN in) (NP (NNP Paris)))))))) (. .))")


def test_brackets_make_a_parenthetical():
    s = sent("""
Byron NNP 1 nsubj
left VBD -1 ROOT
( -LRB- 1 punct
17 CD 1 npadvmod
) -RRB- 1 punct
""")
    assert bracket(s) == "(S (NP (NNP Byron)) (VP (VBD left) (PRN (-LRB- -LRB-) (CD 17) (-RRB- -RRB-))))"


def test_non_projective_arc_is_lifted():
    # "A hearing is scheduled on the issue today": "on" (2→... ) depends on "hearing" across the verb
    s = sent("""
A DT 1 det
hearing NN 3 nsubjpass
is VBZ 3 auxpass
scheduled VBN -1 ROOT
on IN 1 prep
the DT 6 det
issue NN 4 pobj
today NN 3 npadvmod
""")
    heads = projectivize([t.head for t in s.tokens])
    assert heads[4] == 3  # lifted from "hearing" to its head "scheduled"
    tree = dependency_to_constituency(s)
    _check_structure(tree, len(s))


def test_single_word_and_unparsed_tokens():
    assert bracket(sent("Hello UH -1 ROOT")) == "(INTJ (UH Hello))"
    s = Sentence(tokens=[Token("x"), Token("y")])  # no heads at all: still a valid tree
    _check_structure(dependency_to_constituency(s), 2)


# --------------------------------------------------------------------------------------------
# properties on random dependency trees (projective or not, any labels)
# --------------------------------------------------------------------------------------------
TAGS = ["NN", "NNS", "NNP", "PRP", "VBD", "VBZ", "VB", "MD", "JJ", "RB", "IN", "TO", "DT", "CC", ",", ".",
        "WDT", "WP", "WRB", "CD", "UH", "-LRB-", "-RRB-", "POS", "RP", "SYM"]
DEPS = ["nsubj", "dobj", "prep", "pobj", "det", "amod", "advmod", "aux", "neg", "cc", "conj", "punct", "mark",
        "relcl", "ccomp", "xcomp", "advcl", "compound", "case", "cop", "obl", "nmod", "acl", "appos", "poss",
        "expl", "dep", "nummod", "prt", "attr", "acomp", "parataxis", "flat", "fixed", "nsubjpass", "auxpass"]


@st.composite
def dep_sentences(draw):
    n = draw(st.integers(1, 14))
    order = draw(st.permutations(list(range(n))))
    heads = [-1] * n
    for k, i in enumerate(order[1:], 1):
        heads[i] = order[draw(st.integers(0, k - 1))]
    toks = [Token(text=f"w{i}", tag=draw(st.sampled_from(TAGS)), head=heads[i],
                  dep="ROOT" if heads[i] == -1 else draw(st.sampled_from(DEPS))) for i in range(n)]
    return Sentence(tokens=toks)


def _check_structure(tree: Tree, n: int) -> None:
    leaves = tree.leaves()
    assert sorted(leaves) == list(range(n))  # every token exactly once
    assert leaves == sorted(leaves)  # in order
    for node in tree.subtrees():
        lv = node.leaves()
        assert lv == list(range(lv[0], lv[-1] + 1))  # contiguous spans
        if node.token is None:
            assert node.children
            if len(node.children) == 1:  # no X -> X unary chains
                assert node.children[0].is_preterminal() or node.children[0].label != node.label
    for i in range(n):
        assert tree.token_depth(i) >= 2


@settings(max_examples=300, deadline=None)
@given(dep_sentences())
def test_random_trees_are_well_formed(s):
    _check_structure(dependency_to_constituency(s), len(s))


@pytest.mark.e2e
@pytest.mark.mirror
def test_gold_ud_conversion_agrees_with_gum_trees(mirror):
    from lingtest.parsing.evalb import evalb_corpus
    from lingtest.readers.options import configured
    from lingtest.readers.treebank import read_conllu

    (const,) = configured("ptb")(mirror / "gum" / "const" / "GUM_bio_byron.ptb")
    (dep,) = read_conllu(mirror / "gum" / "dep" / "GUM_bio_byron.conllu")
    trees = [dependency_to_constituency(s) for s in dep.sentences]
    for s, t in zip(dep.sentences, trees, strict=True):
        _check_structure(t, len(s))
    score = evalb_corpus((g.tree, t) for g, t in zip(const.sentences, trees, strict=True))
    assert score.f1 > 0.75  # 0.84 over the GUM test split
