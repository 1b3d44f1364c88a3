"""Mention detection over hand-parsed sentences."""

from __future__ import annotations

import pytest
from coref_handparse import JOHN_SAID, doc

from lingtest.errors import InputError
from lingtest.data.model import Document, Sentence, Token
from lingtest.systems.coref.mentions import (
    LIST, NOMINAL, PRONOMINAL, PROPER, ParsedDoc, detect_mentions, is_pleonastic_it, np_span,
)


def spans(d):
    pd = ParsedDoc.from_document(d)
    return {" ".join(m.words): m for m in detect_mentions(pd)}, pd


def test_name_and_pronoun():
    ms, _ = spans(doc(JOHN_SAID))
    assert set(ms) == {"John", "he"}
    assert ms["John"].kind == PROPER and ms["John"].ner == "PERSON" and ms["John"].is_subject
    assert ms["he"].kind == PRONOMINAL and ms["he"].gender == "MALE"


def test_maximal_np_with_relative_clause_and_possessive():
    # "The old man who lived here sold his house ."
    d = doc("The/DT/3/det old/JJ/3/amod man/NN/7/nsubj who/WP/5/nsubj lived/VBD/3/relcl here/RB/5/advmod "
            "sold/VBD/0/ROOT his/PRP$/9/poss house/NN/7/dobj ././7/punct")
    ms, pd = spans(d)
    assert "The old man who lived here" in ms
    assert ms["The old man who lived here"].modifiers == frozenset({"old"})
    assert "his house" in ms and "his" in ms
    assert ms["who"].relative
    assert np_span(pd, 2) == (0, 6)


def test_pleonastic_it_removed():
    # "It is clear that John left ."
    d = doc("It/PRP/2/nsubj is/VBZ/0/ROOT clear/JJ/2/acomp that/IN/6/mark John/NNP/6/nsubj/B-PERSON "
            "left/VBD/2/ccomp ././2/punct")
    ms, pd = spans(d)
    assert "It" not in ms and "John" in ms
    assert is_pleonastic_it(pd, 0)
    # "It was red ." keeps a referential it
    d2 = doc("It/PRP/2/nsubj was/VBD/0/ROOT red/JJ/2/acomp ././2/punct")
    ms2, pd2 = spans(d2)
    assert "It" in ms2 and not is_pleonastic_it(pd2, 0)


def test_weather_it_removed():
    ms, _ = spans(doc("It/PRP/2/nsubj rained/VBD/0/ROOT/O/rain ././2/punct"))
    assert "It" not in ms


def test_numeric_mentions_removed():
    # "He paid 20 dollars in 2010 ."
    d = doc("He/PRP/2/nsubj paid/VBD/0/ROOT 20/CD/4/nummod/B-MONEY dollars/NNS/2/dobj/I-MONEY in/IN/2/prep "
            "2010/CD/5/pobj/B-DATE ././2/punct")
    ms, _ = spans(d)
    assert set(ms) == {"He"}


def test_coordination_gives_parts_and_whole():
    d = doc("John/NNP/4/nsubj/B-PERSON and/CC/1/cc Mary/NNP/1/conj/B-PERSON left/VBD/0/ROOT ././4/punct")
    ms, _ = spans(d)
    assert {"John", "Mary", "John and Mary"} <= set(ms)
    assert ms["John and Mary"].kind == LIST and ms["John and Mary"].number == "PLURAL"


def test_apposition_is_split_off():
    # "Acme , the company , grew ."
    d = doc("Acme/NNP/6/nsubj/B-ORG ,/,/1/punct the/DT/4/det company/NN/1/appos ,/,/1/punct grew/VBD/0/ROOT ././6/punct")
    ms, _ = spans(d)
    assert {"Acme", "the company"} <= set(ms)
    assert ms["the company"].kind == NOMINAL


def test_inside_entity_and_same_head_keep_larger():
    # "The Bank of America sued ." : "America" is inside the ORG entity; "Bank of America" vs "The Bank of
    # America" share the head "Bank" and the larger is kept
    d = doc("The/DT/2/det Bank/NNP/5/nsubj/B-ORG of/IN/2/prep/I-ORG America/NNP/3/pobj/I-ORG sued/VBD/0/ROOT ././5/punct")
    ms, _ = spans(d)
    assert set(ms) == {"The Bank of America"}


def test_non_referring_heads_skipped():
    ms, _ = spans(doc("Nothing/NN/2/nsubj happened/VBD/0/ROOT ././2/punct"))
    assert ms == {}


def test_unparsed_input_is_rejected():
    d = Document(id="x", sentences=[Sentence(tokens=[Token("Hi")])])
    with pytest.raises(InputError, match="not parsed"):
        ParsedDoc.from_document(d)


def test_bfs_rank_prefers_shallow_tokens():
    _, pd = spans(doc(JOHN_SAID))
    assert pd.bfs_rank[1] == 0  # root "said"
    assert pd.bfs_rank[0] < pd.bfs_rank[2]  # "John" (depth 2) before "he" (depth 3)
