"""The steps of the dependency → constituency conversion one at a time: head cleaning, flat
coordination, punctuation placement, word categories, the layers a head projects, the tree
builder's helpers, and the version hash that keys the parse cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from lingtest.data.model import Sentence, Token, Tree
from lingtest.parsing.dep2const import dep2const_version
from lingtest.parsing.dep2const.build import collapse_unaries, flat_subtree, is_bare, parenthetical
from lingtest.parsing.dep2const.coordination import normalise_coordination
from lingtest.parsing.dep2const.deptree import DepTree, token_category
from lingtest.parsing.dep2const.heads import clean_heads
from lingtest.parsing.dep2const.layers import (
    assign_layers,
    coordination_site,
    enforce_nesting,
    fronted_wh,
    head_facts,
    nominal_label,
    null_complementiser,
)
from lingtest.parsing.dep2const.punctuation import attach_brackets, final_punct_to_root, raise_edge_punct


def sent(rows: str) -> Sentence:
    """Rows ``word TAG head dep`` (head 0-based, -1 root), one per line."""
    toks = []
    for line in rows.strip().splitlines():
        w, tag, head, dep = line.split()
        toks.append(Token(text=w, tag=tag, head=int(head), dep=dep))
    return Sentence(tokens=toks)


def tree(rows: str) -> DepTree:
    return DepTree.from_sentence(sent(rows))


# ---- heads ----------------------------------------------------------------------------------
def test_clean_heads_one_root_valid_heads_and_ptb_relabels():
    s = sent("""
to TO 1 mark
go VB -1 ROOT
not RB 1 advmod
now RB -1 root
x NN 9 dep
y NN 5 Dep
""")
    heads, deps = clean_heads(s)
    assert heads == [1, -1, 1, 1, 1, 1]  # second root, out-of-range and self heads hang from the root
    assert deps == ["aux", "ROOT", "neg", "dep", "dep", "dep"]  # infinitival to → aux, not → neg


def test_clean_heads_cuts_a_cycle():
    s = Sentence(tokens=[Token(text=w, tag="NN", head=h, dep="dep")
                         for w, h in (("a", 1), ("b", 2), ("c", 0))])
    heads, deps = clean_heads(s)
    assert heads == [-1, 2, 0] and deps[0] == "ROOT"


# ---- coordination ---------------------------------------------------------------------------
@pytest.mark.parametrize("heads,deps", [
    ([-1, 0, 0, 2, 2], ["ROOT", "punct", "conj", "cc", "conj"]),  # spaCy: C → B → A, "and" on B
    ([-1, 2, 0, 4, 0], ["ROOT", "punct", "conj", "cc", "conj"]),  # UD: "," on B, "and" on C
])
def test_coordination_hangs_from_the_first_conjunct(heads, deps):
    # "A , B and C"
    assert normalise_coordination(heads, deps) == [-1, 0, 0, 0, 0]


def test_coordination_input_is_not_modified():
    heads = [-1, 0, 0, 2, 2]
    normalise_coordination(heads, ["ROOT", "punct", "conj", "cc", "conj"])
    assert heads == [-1, 0, 0, 2, 2]


# ---- punctuation ----------------------------------------------------------------------------
def test_final_period_goes_to_the_root():
    s = sent("""
He PRP 1 nsubj
left VBD -1 ROOT
and CC 1 cc
stayed VBD 1 conj
. . 3 punct
""")
    heads = [t.head for t in s.tokens]
    assert final_punct_to_root(s.tokens, heads, [t.dep for t in s.tokens]) == [1, -1, 1, 1, 1]


def test_brackets_hang_from_the_phrase_they_enclose():
    s = sent("""
fish NN -1 ROOT
( -LRB- 0 punct
17 CD 0 nummod
) -RRB- 0 punct
""")
    assert attach_brackets(s.tokens, [-1, 0, 0, 0], ["ROOT", "punct", "nummod", "punct"]) == [-1, 2, 0, 2]


def test_edge_comma_is_raised_out_of_the_pp_but_brackets_stay():
    # "went , in Dulwich": UD hangs the comma on "in"
    assert raise_edge_punct([-1, 2, 0, 2], ["ROOT", "punct", "prep", "pobj"], ["VBD", ",", "IN", "NNP"]) \
        == [-1, 0, 0, 2]
    assert raise_edge_punct([-1, 2, 0, 2], ["ROOT", "punct", "prep", "pobj"], ["VBD", "-LRB-", "IN", "NNP"]) \
        == [-1, 2, 0, 2]


# ---- categories -----------------------------------------------------------------------------
@pytest.mark.parametrize("tag,pos,cat", [
    ("VBD", "", "V"), ("MD", "", "V"), ("", "AUX", "V"), ("WP", "", "N"), ("WRB", "", "R"),
    ("CD", "", "N"), ("PRP", "", "N"), ("", "PROPN", "N"), ("JJR", "", "J"), ("", "ADV", "R"),
    ("TO", "", "P"), ("", "ADP", "P"), ("UH", "", "U"), ("", "CCONJ", "C"), (",", "", "PU"),
    ("", "PART", "R"), ("ZZ", "", "N"),
])
def test_token_category(tag, pos, cat):
    assert token_category(tag, pos) == cat


def test_deptree_children_and_root():
    t = tree("""
He PRP 2 nsubj
will MD 2 aux
join VB -1 ROOT
the DT 4 det
board NN 2 dobj
""")
    assert t.root == 2 and t.children[2] == [0, 1, 4] and t.children[4] == [3]
    assert t.subtree(4) == [3, 4] and t.tag(2) == "VB" and t.category(4) == "N"


# ---- layers ---------------------------------------------------------------------------------
def test_verb_projects_vp_aux_vp_and_s():
    t = tree("""
He PRP 2 nsubj
will MD 2 aux
join VB -1 ROOT
the DT 4 det
board NN 2 dobj
""")
    layers = assign_layers(t, 2, "ROOT", True)
    assert [(ly.label, ly.deps) for ly in layers] == [("VP", [4]), ("VP", [1]), ("S", [0])]
    assert [ly.label for ly in assign_layers(t, 2, "conj", False)] == ["VP", "VP"]  # no S: a VP conjunct


def test_nominal_labels():
    which = tree("""
which WDT 1 det
book NN -1 ROOT
""")
    assert nominal_label(which, head_facts(which, 1, "ROOT", True)) == "WHNP"
    assert nominal_label(which, head_facts(which, 1, "nsubj", True)) == "NP"  # WH subject of a relative
    about = tree("""
about RB 1 quantmod
20 CD -1 ROOT
""")
    assert nominal_label(about, head_facts(about, 1, "ROOT", True)) == "QP"
    people = tree("""
the DT 1 det
people NNS -1 ROOT
in IN 1 prep
Paris NNP 2 pobj
""")
    layers = assign_layers(people, 1, "ROOT", True)
    assert [(ly.label, ly.deps) for ly in layers] == [("NP", [0]), ("NP", [2])]  # post-modifier: outer NP


@pytest.mark.parametrize("rows,site", [
    ("He PRP 1 nsubj\nsang VBD -1 ROOT\nand CC 1 cc\ndanced VBD 1 conj", "below-aux"),
    ("He PRP 1 nsubj\nsang VBD -1 ROOT\nand CC 1 cc\nshe PRP 4 nsubj\ndanced VBD 1 conj", "clause"),
    ("He PRP 2 nsubj\nwill MD 2 aux\nsing VB -1 ROOT\nand CC 2 cc\nhas VBZ 5 aux\ndanced VBN 2 conj",
     "above-aux"),
    ("cats NNS -1 ROOT\nand CC 0 cc\ndogs NNS 0 conj", "phrase"),
    ("cats NNS -1 ROOT", None),
])
def test_coordination_site(rows, site):
    t = tree(rows)
    assert coordination_site(head_facts(t, t.root, "ROOT", True)) == site


def test_fronted_wh_phrase():
    q = tree("""
What WP 3 dobj
did VBD 3 aux
you PRP 3 nsubj
see VB -1 ROOT
? . 3 punct
""")
    assert fronted_wh(q, head_facts(q, 3, "ROOT", True)) == 0
    statement = tree("""
What WP 3 dobj
did VBD 3 aux
you PRP 3 nsubj
see VB -1 ROOT
""")
    # in a main clause only questions front a WH phrase
    assert fronted_wh(statement, head_facts(statement, 3, "ROOT", True)) is None
    rel = tree("""
the DT 1 det
man NN -1 ROOT
who WP 3 nsubj
left VBD 1 relcl
""")
    assert fronted_wh(rel, head_facts(rel, 3, "relcl", True)) == 2


def test_null_complementiser_only_for_finite_clauses_after_their_verb():
    think = tree("""
I PRP 1 nsubj
think VBP -1 ROOT
he PRP 3 nsubj
left VBD 1 ccomp
""")
    assert null_complementiser(think, head_facts(think, 3, "ccomp", True))
    let = tree("""
I PRP 1 nsubj
let VBD -1 ROOT
him PRP 3 nsubj
go VB 1 ccomp
""")
    assert not null_complementiser(let, head_facts(let, 3, "ccomp", True))  # small clause stays S


def test_enforce_nesting_lowers_punctuation_and_raises_farther_words():
    assign = {1: 2, 2: 0}  # right of head 0: a comma at layer 2 before an object at layer 0
    enforce_nesting(["ROOT", "punct", "dobj"], 0, assign)
    assert assign == {1: 0, 2: 0}
    assign = {1: 1, 2: 0}  # a farther word below a closer one is raised
    enforce_nesting(["ROOT", "advmod", "dobj"], 0, assign)
    assert assign == {1: 1, 2: 1}


# ---- building -------------------------------------------------------------------------------
def test_flat_and_bare_dependents():
    t = tree("""
New NNP 1 compound
York NNP 2 compound
City NNP -1 ROOT
very RB 4 advmod
big JJ 2 amod
""")
    assert flat_subtree(t, 1) == [0, 1]  # a compound chain goes in flat
    assert flat_subtree(t, 4) is None
    assert is_bare(t, 3, 4)  # adverb under an adjective
    assert not is_bare(t, 4, 2)  # "big" has a dependent: it projects an ADJP


def test_parenthetical_and_unary_collapse():
    pre = [Tree("-LRB-", token=0), Tree("CD", token=1), Tree("-RRB-", token=2)]
    assert parenthetical(Tree("NP", pre)).label == "PRN"
    assert parenthetical(Tree("NP", pre[:2])).label == "NP"
    nested = Tree("NP", [Tree("NP", [Tree("NN", token=0)])])
    assert collapse_unaries(nested).to_bracketed() == "(NP (NN 0))"
    different = Tree("S", [Tree("VP", [Tree("VB", token=0)])])
    assert collapse_unaries(different).to_bracketed() == "(S (VP (VB 0)))"


def test_version_covers_every_module_of_the_conversion(monkeypatch):
    before = dep2const_version()
    assert len(before) == 12 and dep2const_version() == before
    read = Path.read_bytes

    def edited(self: Path) -> bytes:
        data = read(self)
        return data + b"\n# edited\n" if self.name == "layers.py" else data

    monkeypatch.setattr(Path, "read_bytes", edited)
    assert dep2const_version() != before
