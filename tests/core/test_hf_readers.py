"""The hub converters on records shaped exactly like the Hugging Face datasets' (recorded by hand
from the dataset cards)."""

from __future__ import annotations

import pytest

from lingtest.data import Entity, Mention
from lingtest.errors import InputError
from lingtest.readers.hf import from_hf_conll2012, iob_spans

POS = ["XX", "``", "$", "''", ",", "-LRB-", "-RRB-", ".", ":", "ADD", "AFX", "CC", "CD", "DT", "EX", "FW", "HYPH",
       "IN", "JJ", "JJR", "JJS", "LS", "MD", "NFP", "NN", "NNP", "NNPS", "NNS", "PDT", "POS", "PRP", "PRP$", "RB",
       "RBR", "RBS", "RP", "SYM", "TO", "UH", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "WDT", "WP", "WP$", "WRB"]
NER = ["O", "B-PERSON", "I-PERSON", "B-NORP", "I-NORP"]

RECORD = {
    "document_id": "bc/cctv/00/cctv_0001",
    "sentences": [
        {"part_id": 0, "words": ["John", "Smith", "arrived", "."], "pos_tags": [25, 25, 40, 7],
         "parse_tree": "(TOP (S (NP (NNP John) (NNP Smith)) (VP (VBD arrived)) (. .)))", "predicate_lemmas": [None] * 4,
         "predicate_framenet_ids": [None] * 4, "word_senses": [None] * 4, "speaker": "A",
         "named_entities": [1, 2, 0, 0], "srl_frames": [], "coref_spans": [[7, 0, 1]]},
        {"part_id": 0, "words": ["He", "smiled", "."], "pos_tags": [30, 40, 7],
         "parse_tree": "(TOP (S (NP (PRP He)) (VP (VBD smiled)) (. .)))", "predicate_lemmas": [None] * 3,
         "predicate_framenet_ids": [None] * 3, "word_senses": [None] * 3, "speaker": "A",
         "named_entities": [0, 0, 0], "srl_frames": [], "coref_spans": [[7, 0, 0]]},
        {"part_id": 1, "words": ["Bye", "."], "pos_tags": [38, 7], "parse_tree": "(TOP (FRAG (UH Bye) (. .)))",
         "speaker": "B", "named_entities": [0, 0], "coref_spans": []},
    ],
}


def test_conll2012_record_becomes_one_document_per_part():
    docs = list(from_hf_conll2012([RECORD], POS, NER, max_depth=250))
    assert [d.key for d in docs] == ["bc/cctv/00/cctv_0001#0", "bc/cctv/00/cctv_0001#1"]
    d = docs[0]
    assert d.words == ["John", "Smith", "arrived", ".", "He", "smiled", "."]
    assert [[(m.start, m.end) for m in c.mentions] for c in d.clusters] == [[(0, 2), (4, 5)]]
    assert d.entities == [Entity(0, 2, "PERSON")]
    assert d.sentences[0].tokens[2].tag == "VBD" and d.sentences[1].meta == {"speaker": "A"}
    assert d.sentences[0].tree.to_bracketed(d.sentences[0].words).startswith("(TOP (S (NP (NNP John)")


def test_conll2012_bad_span_names_the_field():
    bad = {"document_id": "x", "sentences": [{"part_id": 0, "words": ["a"], "coref_spans": [[1, 0, 3]]}]}
    with pytest.raises(InputError, match="coref_spans"):
        list(from_hf_conll2012([bad], POS, NER, max_depth=250))
    with pytest.raises(InputError, match="document_id"):
        list(from_hf_conll2012([{"sentences": []}], POS, NER, max_depth=250))


def test_iob_spans_handles_iob1_and_iob2():
    assert iob_spans(["B-PER", "I-PER", "O", "I-LOC", "I-LOC", "B-LOC"]) == [
        Entity(0, 2, "PER"), Entity(3, 5, "LOC"), Entity(5, 6, "LOC")]
    assert iob_spans(["I-ORG", "I-PER"], offset=10) == [Entity(10, 11, "ORG"), Entity(11, 12, "PER")]
    assert Mention(0, 1) < Mention(0, 2)
