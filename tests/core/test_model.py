from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lingtest.data import (
    Cluster,
    ContrastiveExample,
    Document,
    Entity,
    Mention,
    Provenance,
    Sentence,
    TestCase,
    Token,
    Tree,
)

# Figure 1 of the CREST paper
FISH = ("(S (NP (NP (DT The) (NN fish)) (PP (IN in) (NP (DT the) (NN lake)))) "
        "(VP (VBD ate) (NP (DT the) (NN worm))) (SBAR (IN because) (S (NP (PRP it)) "
        "(VP (VBD was) (ADJP (JJ tasty))))) (. .))")


def make_doc() -> Document:
    s1 = Sentence(tokens=[Token("John", pos="PROPN", head=1, dep="nsubj"), Token("slept", head=-1, dep="ROOT"),
                          Token(".", ws="")], id="s1")
    s2 = Sentence(tokens=[Token("He"), Token("woke", ws="")], label="2", meta={"speaker": "A"})
    return Document(id="d1", part=0, sentences=[s1, s2], clusters=[Cluster([Mention(0, 1), Mention(3, 4)], id="c")],
                    entities=[Entity(0, 1, "PER")], split="test", meta={"genre": "x"})


def test_document_roundtrip_is_lossless():
    doc = make_doc()
    again = Document.from_dict(doc.to_dict())
    assert again == doc
    assert again.to_dict() == doc.to_dict()


def test_document_views():
    doc = make_doc()
    assert doc.words == ["John", "slept", ".", "He", "woke"]
    assert doc.sentence_offsets() == [0, 3]
    assert doc.locate(3) == (1, 0)
    assert doc.key == "d1#0"
    assert doc.mention_text(Mention(3, 5)) == "He woke"
    assert doc.sentences[0].text == "John slept ."
    with pytest.raises(IndexError):
        doc.locate(5)


def test_content_hash_ignores_annotations_but_not_sentence_breaks():
    a = make_doc()
    b = make_doc()
    b.clusters = []
    assert a.content_hash() == b.content_hash()
    c = make_doc()
    c.sentences[0].tokens.extend(c.sentences[1].tokens)
    del c.sentences[1]
    assert c.content_hash() != a.content_hash()


def test_mention_rejects_empty_span():
    with pytest.raises(ValueError):
        Mention(3, 3)


def test_tree_parse_and_depths_of_paper_example():
    tree, words = Tree.from_bracketed(FISH)
    assert words[9] == "it"
    # the paper's worked example: "it" has depth 5 (S - SBAR - S - NP - PRP), "the fish" 3 (S - NP - NP)
    assert tree.token_depth(9) == 5
    node, depth = tree.lowest_covering(0, 2)
    assert node.label == "NP" and node.span() == (0, 2) and depth == 3
    assert Tree.from_dict(tree.to_dict()).to_bracketed(words) == tree.to_bracketed(words)


def test_tree_errors():
    with pytest.raises(ValueError):
        Tree.from_bracketed("(S (NP (DT the)")
    with pytest.raises(ValueError):
        Tree.from_bracketed("(S (NP the dog))")


def test_tree_escapes_brackets_in_words():
    t = Tree(label="S", children=[Tree(label="-LRB-", token=0), Tree(label="NN", token=1)])
    text = t.to_bracketed(["(", "x y"])
    back, words = Tree.from_bracketed(text)
    assert words == ["(", "x_y"]


def test_testcase_ids_are_stable_and_content_derived():
    prov = Provenance(seed_id="d1:0", transformation="wordnet", params={"position": 3})
    a = TestCase("crest", "inv", {"text": "a"}, {"text": "b"}, "same", prov)
    b = TestCase("crest", "inv", {"text": "a"}, {"text": "b"}, "same", prov)
    c = TestCase("crest", "inv", {"text": "a"}, {"text": "c"}, "same", prov)
    assert a.id == b.id != c.id
    assert TestCase.from_dict(a.to_dict()) == a


def test_contrastive_roundtrip():
    ex = ContrastiveExample(id="1", src="It is red.", ref="Es ist rot.", contrastive=["Er ist rot."],
                            src_context="The car.", meta={"pronoun": "it"})
    assert ContrastiveExample.from_dict(ex.to_dict()) == ex


@given(st.lists(st.text(alphabet="abc()xyz", min_size=1, max_size=5), min_size=1, max_size=8))
def test_flat_tree_roundtrip(words):
    tree = Tree(label="S", children=[Tree(label="X", token=i) for i in range(len(words))])
    back, got = Tree.from_bracketed(tree.to_bracketed(words))
    assert [n.token for n in back.subtrees() if n.token is not None] == list(range(len(words)))
    assert len(got) == len(words)
