"""Stanza conversion, tested on Stanza's own objects built from strings (no models needed)."""

from __future__ import annotations

import pytest

stanza = pytest.importorskip("stanza")
from stanza.models.common.doc import Document as StanzaDocument  # noqa: E402
from stanza.models.constituency import tree_reader  # noqa: E402

from lingtest.errors import MissingResourceError  # noqa: E402
from lingtest.parsing.stanza_backend import StanzaParser, bioes_to_iob2, stanza_doc_to_sentences  # noqa: E402

WORDS = [
    {"id": 1, "text": "Barack", "upos": "PROPN", "xpos": "NNP", "lemma": "Barack", "head": 3, "deprel": "nsubj",
     "feats": "Number=Sing", "ner": "B-PERSON"},
    {"id": 2, "text": "Obama", "upos": "PROPN", "xpos": "NNP", "lemma": "Obama", "head": 1, "deprel": "flat",
     "feats": "Number=Sing", "ner": "E-PERSON"},
    {"id": 3, "text": "won", "upos": "VERB", "xpos": "VBD", "lemma": "win", "head": 0, "deprel": "root",
     "feats": "Mood=Ind|Tense=Past|VerbForm=Fin", "ner": "O"},
    {"id": 4, "text": "Iowa", "upos": "PROPN", "xpos": "NNP", "lemma": "Iowa", "head": 3, "deprel": "obj",
     "feats": "Number=Sing", "ner": "S-GPE"},
]
TREE = "(ROOT (S (NP (NNP Barack) (NNP Obama)) (VP (VBD won) (NP (NNP Iowa)))))"


def make_doc():
    doc = StanzaDocument([WORDS, [{"id": 1, "text": "Hi", "upos": "INTJ", "xpos": "UH", "lemma": "hi", "head": 0,
                                   "deprel": "root", "ner": "O"}]])
    doc.sentences[0].constituency = tree_reader.read_trees(TREE, use_tqdm=False)[0]
    return doc


def test_conversion_fields():
    s, hi = stanza_doc_to_sentences(make_doc())
    assert s.words == ["Barack", "Obama", "won", "Iowa"]
    assert [t.head for t in s.tokens] == [2, 0, -1, 2]
    assert [t.dep for t in s.tokens] == ["nsubj", "flat", "root", "obj"]
    assert [t.pos for t in s.tokens][2] == "VERB" and s.tokens[2].tag == "VBD" and s.tokens[2].lemma == "win"
    assert s.tokens[2].morph == "Mood=Ind|Tense=Past|VerbForm=Fin"
    assert [t.ent for t in s.tokens] == ["B-PERSON", "I-PERSON", "O", "B-GPE"]
    assert s.tree.to_bracketed(s.words) == TREE
    assert s.tree.token_depth(3) == 5
    assert hi.words == ["Hi"] and hi.tree is None and hi.tokens[0].head == -1


def test_bioes_to_iob2():
    assert [bioes_to_iob2(t) for t in ["S-ORG", "B-ORG", "I-ORG", "E-ORG", "O", None]] == \
        ["B-ORG", "B-ORG", "I-ORG", "I-ORG", "O", None]


class FakePipeline:
    """Stands in for stanza.Pipeline: returns the prepared document."""

    def __init__(self, doc):
        self.doc = doc
        self.inputs = None

    def __call__(self, sentences):
        self.inputs = sentences
        return self.doc


def test_parser_with_given_pipeline():
    fake = FakePipeline(make_doc())
    p = StanzaParser(pipeline=fake)
    out = p.parse([["Barack", "Obama", "won", "Iowa"], [], ["Hi"]])
    assert fake.inputs == [["Barack", "Obama", "won", "Iowa"], ["Hi"]]
    assert out[1].tokens == [] and out[2].words == ["Hi"]
    with pytest.raises(RuntimeError, match="changed the tokens"):
        p.parse([["Barack", "Obama", "lost", "Iowa"], ["Hi"]])


def test_missing_models_raise_missing_resource(tmp_path):
    with pytest.raises(MissingResourceError, match="stanza.download"):
        StanzaParser(model_dir=str(tmp_path), use_gpu=False)
