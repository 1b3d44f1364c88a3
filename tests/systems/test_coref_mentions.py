"""Mention detection over hand-parsed sentences."""

from __future__ import annotations

import pytest
from coref_handparse import JOHN_SAID, doc

from lingtest.data.model import Document, Sentence, Token
from lingtest.errors import InputError
from lingtest.systems.coref.mentions import (
    LIST,
    NOMINAL,
    PRONOMINAL,
    PROPER,
    ParsedDoc,
    detect_mentions,
    is_pleonastic_it,
    np_span,
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
    d = doc("Acme/NNP/6/nsubj/B-ORG ,/,/1/punct the/DT/4/det company/NN/1/appos ,/,/1/punct "
            "grew/VBD/0/ROOT ././6/punct")
    ms, _ = spans(d)
    assert {"Acme", "the company"} <= set(ms)
    assert ms["the company"].kind == NOMINAL


def test_inside_entity_and_same_head_keep_larger():
    # "The Bank of America sued ." : "America" is inside the ORG entity; "Bank of America" vs "The Bank of
    # America" share the head "Bank" and the larger is kept
    d = doc("The/DT/2/det Bank/NNP/5/nsubj/B-ORG of/IN/2/prep/I-ORG America/NNP/3/pobj/I-ORG "
            "sued/VBD/0/ROOT ././5/punct")
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


def test_generic_bare_nouns_are_flagged():
    # "Workers like the job ."
    ms, _ = spans(doc("Workers/NNS/2/nsubj like/VBP/0/ROOT the/DT/4/det job/NN/2/dobj ././2/punct"))
    assert ms["Workers"].generic and not ms["the job"].generic


def test_adjectival_and_modifier_entities_and_masked_tokens_skipped():
    # "Republican senators met ___ ."
    ms, _ = spans(doc("Republican/JJ/2/amod/B-NORP senators/NNS/3/nsubj met/VBD/0/ROOT ___/NN/3/dobj ././3/punct"))
    assert set(ms) == {"Republican senators"}
    # "Indian/NNP as a compound NORP modifier
    ms2, _ = spans(doc("The/DT/3/det Indian/NNP/3/compound/B-NORP army/NN/4/nsubj won/VBD/0/ROOT ././4/punct"))
    assert set(ms2) == {"The Indian army"}


def test_trim_keeps_possessive_and_balanced_brackets():
    # "the joke 's end" -> "the joke 's" is the possessor; "jokes ( old ones )"
    d = doc("the/DT/2/det joke/NN/4/poss 's/POS/2/case end/NN/5/nsubj came/VBD/0/ROOT ././5/punct")
    ms, _ = spans(d)
    assert "the joke 's" in ms
    d2 = doc("He/PRP/2/nsubj told/VBD/0/ROOT jokes/NNS/2/dobj (/-LRB-/6/punct old/JJ/6/amod ones/NNS/3/appos "
             ")/-RRB-/6/punct ././2/punct")
    ms2, pd2 = spans(d2)
    assert "jokes" in ms2
    from lingtest.systems.coref.mentions import _trim

    assert _trim(pd2, 2, 7) == (2, 7)  # the closing bracket matches one inside the span
    assert _trim(pd2, 4, 7) == (4, 6)  # an unmatched closing bracket is dropped


def test_pleonastic_with_contracted_copula_and_become():
    # "It ’s important that you listen ." (lemma of ’s left as is by the tagger)
    d = doc("It/PRP/2/nsubj ’s/VBZ/0/ROOT/O/’s important/JJ/2/acomp that/IN/6/mark you/PRP/6/nsubj "
            "listen/VB/2/ccomp ././2/punct")
    _, pd = spans(d)
    assert is_pleonastic_it(pd, 0)
    # "It became apparent that they left ."
    d2 = doc("It/PRP/2/nsubj became/VBD/0/ROOT/O/become apparent/JJ/2/acomp that/IN/6/mark they/PRP/6/nsubj "
             "left/VBD/2/ccomp ././2/punct")
    ms2, pd2 = spans(d2)
    assert is_pleonastic_it(pd2, 0) and "It" not in ms2


def test_ud_style_parse():
    """UD hangs subject and copula on a nominal predicate and prepositions on their noun."""
    # "Smith is a lawyer in Paris ." / "He lived in the house ."
    d = doc("Smith/NNP/4/nsubj/B-PERSON is/VBZ/4/cop a/DT/4/det lawyer/NN/0/root in/IN/6/case "
            "Paris/NNP/4/nmod/B-GPE ././4/punct",
            "He/PRP/2/nsubj lived/VBD/0/root in/IN/5/case the/DT/5/det house/NN/2/obl ././2/punct")
    ms, pd = spans(d)
    assert {"Smith", "a lawyer in Paris", "Paris", "He", "the house"} == set(ms)
    from lingtest.systems.coref import sieves as S

    st = S.ClusterState(list(ms.values()))
    assert S.predicate_nominative(ms["a lawyer in Paris"], ms["Smith"], st, pd)
