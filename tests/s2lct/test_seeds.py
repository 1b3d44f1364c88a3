"""Search sentences from parsed documents: SST phrase sentiment and HateXplain majority labels,
HateCheck's slur and identity lists."""

from __future__ import annotations

import pytest

from lingtest.data.model import Document, Sentence, Token, Tree
from lingtest.errors import InputError
from lingtest.s2lct.grammar import Node
from lingtest.s2lct.seeds import hatecheck_lexicons, search_sentences


def doc(i, words, tags, label, tree=True):
    toks = [Token(w, tag=t) for w, t in zip(words, tags, strict=True)]
    tr = Tree("S", [Tree(t, token=j) for j, t in enumerate(tags)]) if tree else None
    return Document(id=f"d{i}", sentences=[Sentence(tokens=toks, tree=tr)], label=label)


def test_sst_fine_labels_become_phrase_sentiment():
    docs = [doc(i, ["w", str(i)], ["NN", "CD"], str(i)) for i in range(5)]
    pool = search_sentences(docs, label_from="sst_fine", lowercase=False)
    assert [f.sentence.label for f in pool] == ["negative", "negative", "neutral", "positive", "positive"]
    assert pool[0].tree == Node("S", (Node("NN", (), "w"), Node("CD", (), "0")))


def test_hatexplain_majority_mapping_drops_undecided_and_lowercases():
    docs = [doc(0, ["You", "X"], ["PRP", "NN"], "hatespeech"), doc(1, ["a", "b"], ["DT", "NN"], "offensive"),
            doc(2, ["c", "d"], ["DT", "NN"], "normal"), doc(3, ["e", "f"], ["DT", "NN"], "undecided"),
            doc(4, ["you", "x"], ["PRP", "NN"], "normal")]  # the same text again (lower-cased): kept once
    pool = search_sentences(docs, label_from="hatexplain_majority", lowercase=True)
    assert [(f.sentence.text, f.sentence.label) for f in pool] == [("you x", "hate"), ("a b", "non-hate"),
                                                                    ("c d", "non-hate")]


def test_multi_sentence_documents_and_missing_trees():
    two = Document(id="m", label="3", sentences=[
        Sentence(tokens=[Token("Good", tag="JJ")], tree=Tree("FRAG", [Tree("JJ", token=0)])),
        Sentence(tokens=[Token("Fine", tag="JJ")], tree=Tree("FRAG", [Tree("JJ", token=0)]))])
    pool = search_sentences([two, doc(9, ["a"], ["DT"], "1", tree=False)], label_from="sst_fine", lowercase=False)
    assert pool[0].sentence.words == ["Good", "Fine"] and pool[0].tree is not None
    assert pool[0].tree.label == "TEXT" and len(pool[0].tree.children) == 2
    assert pool[1].tree is None
    with pytest.raises(ValueError, match="label_from"):
        search_sentences([], label_from="stars", lowercase=False)


def test_hatecheck_placeholders(tmp_path):
    p = tmp_path / "template_placeholders.csv"
    p.write_text('Placeholder,Values\n[IDENTITY_S],"woman, Muslim"\n[IDENTITY_P],"women, trans people"\n'
                 '[IDENTITY_A],"female"\n[SLUR_S],"bitch, Jihadi"\n[SLUR_P],"bitches"\n[SLUR_S_leet],"b1tch"\n',
                 encoding="utf-8")
    lex = hatecheck_lexicons(p)
    assert lex["hatecheck_slur"] == ["bitch", "jihadi", "bitches"]
    assert lex["hatecheck_identity"] == ["woman", "muslim", "women", "trans people", "female"]
    p.write_text("a,b\n", encoding="utf-8")
    with pytest.raises(InputError, match="header"):
        hatecheck_lexicons(p)
    p.write_text('Placeholder,Values\n[SLUR_S],"x",extra\n', encoding="utf-8")
    with pytest.raises(InputError) as exc:
        hatecheck_lexicons(p)
    assert exc.value.line == 2
