"""Treebank readers: PTB bracketed files, NLTK's PTB sample zip, CoNLL-U."""

from __future__ import annotations

import pytest

from lingtest.errors import InputError
from lingtest.readers.options import configured
from lingtest.readers.treebank import read_conllu

read_ptb = configured("ptb")
read_ptb_sample = configured("ptb_sample")


def test_read_ptb_multiline_trees(fixtures_dir):
    (doc,) = read_ptb(fixtures_dir / "parsing" / "two_trees.ptb")
    assert doc.id == "two_trees"
    assert [s.id for s in doc.sentences] == ["two_trees-1", "two_trees-2"]
    assert doc.sentences[0].words == ["Education", "and", "early", "loves"]
    s2 = doc.sentences[1]
    assert s2.words == ["Byron", "left", "(", "17", ")", "."]  # -LRB-/-RRB- leaves unescaped
    assert [t.tag for t in s2.tokens] == ["NNP", "VBD", "-LRB-", "CD", "-RRB-", "."]
    assert s2.tree.label == "ROOT"
    assert ("NP-SBJ", 0, 1) in s2.tree.constituents()
    assert ("PRN", 2, 5) in s2.tree.constituents()


def test_read_ptb_strips_traces(fixtures_dir):
    (doc,) = read_ptb(fixtures_dir / "parsing" / "traces.mrg")
    s = doc.sentences[0]
    assert s.words == ["Mr.", "Vinken", "is", "expected", "to", "win", "."]
    assert "-NONE-" not in {t.label for t in s.tree.subtrees()}
    # the emptied subject NP is gone, the S over "to win" stays
    assert ("S", 4, 6) in s.tree.constituents()
    assert sorted(s.tree.leaves()) == list(range(7))


@pytest.mark.parametrize("name,line", [("unbalanced.ptb", 1), ("extra_close.ptb", 2)])
def test_read_ptb_malformed(fixtures_dir, name, line):
    with pytest.raises(InputError) as ei:
        list(read_ptb(fixtures_dir / "parsing" / name))
    assert ei.value.line == line
    assert name in str(ei.value)


def test_read_conllu(fixtures_dir):
    docs = list(read_conllu(fixtures_dir / "parsing" / "sample.conllu"))
    assert [d.id for d in docs] == ["doc_a", "doc_b"]
    a = docs[0]
    assert a.meta["meta::genre"] == "test"
    s = a.sentences[0]
    assert s.id == "doc_a-1" and s.meta["text"] == "I don't know."
    assert s.words == ["I", "do", "n't", "know", "."]  # range 2-3 and empty node 4.1 skipped
    assert [t.head for t in s.tokens] == [3, 3, 3, -1, 3]
    assert [t.dep for t in s.tokens] == ["nsubj", "aux", "advmod", "root", "punct"]
    assert s.tokens[0].morph.startswith("Case=Nom") and s.tokens[3].morph == "VerbForm=Inf"
    assert [t.pos for t in s.tokens][:2] == ["PRON", "AUX"] and s.tokens[2].tag == "RB"
    assert s.tokens[4].morph is None  # "_" becomes None
    assert s.text == "I don't know."  # SpaceAfter and multiword tokens give the original spacing
    assert docs[1].sentences[0].words == ["Hi"]


@pytest.mark.parametrize("name,line,field",
                         [("bad_columns.conllu", 15, None), ("bad_head.conllu", 16, "HEAD")])
def test_read_conllu_malformed(fixtures_dir, name, line, field):
    with pytest.raises(InputError) as ei:
        list(read_conllu(fixtures_dir / "parsing" / name))
    assert ei.value.line == line
    assert ei.value.field == field


@pytest.mark.e2e
@pytest.mark.mirror
def test_gum_const_and_dep_align(mirror):
    (const,) = read_ptb(mirror / "gum" / "const" / "GUM_bio_byron.ptb")
    (dep,) = read_conllu(mirror / "gum" / "dep" / "GUM_bio_byron.conllu")
    assert dep.id == "GUM_bio_byron"
    assert [s.words for s in const.sentences] == [s.words for s in dep.sentences]
    assert [s.id for s in const.sentences] == [s.id for s in dep.sentences]


@pytest.mark.e2e
@pytest.mark.mirror
def test_ptb_sample_zip(mirror):
    docs = list(read_ptb_sample(mirror / "ptb-sample" / "treebank.zip"))
    assert len(docs) == 199
    assert sum(len(d.sentences) for d in docs) == 3914  # as documented by the mirror README
    first = docs[0].sentences[0]
    assert first.words[:2] == ["Pierre", "Vinken"]
    assert all("-NONE-" not in {t.label for t in s.tree.subtrees()} for d in docs for s in d.sentences)
