"""The technique-neutral validity checks on hand-made edits: coreference clusters through token
replacements, named entities through a token map, and the summary figures."""

from __future__ import annotations

import pytest

from lingtest.metrics.validity import (
    EDIT_INSIDE_MENTION,
    EDIT_OUT_OF_RANGE,
    EDIT_OUTSIDE_MENTIONS,
    ENTITIES_MERGED,
    ENTITY_EDITED,
    ENTITY_SPLIT,
    ENTITY_TEXT_CHANGED,
    FOLLOWUP_GOLD_MISMATCH,
    MENTION_LOST,
    NEW_CAPITALISED_WORD,
    UNRECORDED_EDIT,
    Validity,
    adjusted_precision,
    coref_edit_reasons,
    entity_edit_reasons,
    replacement_boundaries,
    validity_summary,
)

#: "The fish in the lake ate the worm because it was tasty ." - the worm (6, 8) and it (9, 10)
WORDS = "The fish in the lake ate the worm because it was tasty .".split()
GOLD = [[(6, 8), (9, 10)]]


def test_boundaries_follow_multi_word_and_dropped_replacements():
    assert replacement_boundaries(4, {1: 2}) == [0, 1, 3, 4, 5]
    assert replacement_boundaries(3, {1: 0}) == [0, 1, 1, 2]
    assert replacement_boundaries(2, {}) == [0, 1, 2]


def test_a_replacement_outside_every_mention_keeps_the_gold():
    fu = WORDS[:4] + ["clean", "pond"] + WORDS[5:]  # "lake" -> "clean pond": later spans shift by one
    moved = [[(7, 9), (10, 11)]]
    assert coref_edit_reasons(WORDS, fu, GOLD, moved, {4: 2}, scope="outside_mentions",
                              new_words={4: ["clean", "pond"]}) == []


def test_a_replacement_inside_a_mention_is_outside_crest_relation():
    fu = WORDS[:7] + ["bug"] + WORDS[8:]  # the head of "the worm"
    assert coref_edit_reasons(WORDS, fu, GOLD, GOLD, {7: 1}, scope="outside_mentions") == [EDIT_INSIDE_MENTION]
    # ... and exactly what the adversarial relation does; an edit outside mentions is not
    assert coref_edit_reasons(WORDS, fu, GOLD, GOLD, {7: 1}, scope="inside_mentions") == []
    fu2 = WORDS[:4] + ["pond"] + WORDS[5:]
    assert coref_edit_reasons(WORDS, fu2, GOLD, GOLD, {4: 1}, scope="inside_mentions") == [EDIT_OUTSIDE_MENTIONS]


def test_unrecorded_edits_lost_mentions_and_wrong_followup_gold():
    fu = WORDS[:4] + ["pond"] + WORDS[5:]
    fu[1] = "shark"  # a second, unrecorded change
    assert coref_edit_reasons(WORDS, fu, GOLD, GOLD, {4: 1}, scope="outside_mentions") == [UNRECORDED_EDIT]
    assert coref_edit_reasons(WORDS, WORDS[:5], GOLD, GOLD, {4: 1}, scope="outside_mentions") == [UNRECORDED_EDIT]
    assert coref_edit_reasons(WORDS, WORDS, GOLD, GOLD, {99: 1}, scope="outside_mentions") == [EDIT_OUT_OF_RANGE]
    dropped = WORDS[:9] + WORDS[10:]  # "it" deleted: its mention has no token left
    assert MENTION_LOST in coref_edit_reasons(WORDS, dropped, GOLD, None, {9: 0}, scope="inside_mentions")
    fu_ok = WORDS[:4] + ["pond"] + WORDS[5:]
    assert coref_edit_reasons(WORDS, fu_ok, GOLD, [[(6, 8), (10, 11)]], {4: 1},
                              scope="outside_mentions") == [FOLLOWUP_GOLD_MISMATCH]
    assert coref_edit_reasons(WORDS, fu_ok, GOLD, [[(9, 10), (6, 8)]], {4: 1}, scope="outside_mentions") == []
    assert coref_edit_reasons(WORDS, fu_ok, GOLD, GOLD, {4: 1}, scope="outside_mentions",
                              new_words={4: ["lake"]}) == [UNRECORDED_EDIT]
    with pytest.raises(ValueError, match="outside the source"):
        coref_edit_reasons(WORDS, WORDS, [[(0, 99)]], None, {}, scope="outside_mentions")
    with pytest.raises(ValueError, match="scope"):
        coref_edit_reasons(WORDS, WORDS, GOLD, GOLD, {}, scope="anywhere")


SENT = "New York City said that it beat Boston Globe .".split()
ENTS = [(0, 3, "LOC"), (7, 9, "ORG")]


def test_a_word_replaced_outside_every_entity_keeps_them():
    fu = SENT[:6] + ["defeated"] + SENT[7:]
    same = list(range(len(SENT)))
    assert entity_edit_reasons(SENT, fu, ENTS, same, changed=(6, 7), changed_followup=(6, 7),
                               followup_entities=ENTS) == []


def test_an_entity_word_replaced_in_place_is_an_edited_entity():
    fu = SENT[:8] + ["Herald"] + SENT[9:]
    same = list(range(len(SENT)))
    assert entity_edit_reasons(SENT, fu, ENTS, same, changed=(8, 9), changed_followup=(8, 9)) == \
        [ENTITY_EDITED, NEW_CAPITALISED_WORD]  # "Herald" is also a new capitalised word
    gone = [i if i != 8 else None for i in range(len(SENT))]
    assert entity_edit_reasons(SENT, fu, ENTS, gone, flag_new_names=False) == [ENTITY_EDITED]


def test_a_shuffle_that_splits_an_entity():
    # the system found "New", "York", "City" as three LOCs: swapping two of them splits the gold LOC
    fu = ["York", "New", *SENT[2:]]
    order = [1, 0, *range(2, len(SENT))]
    assert entity_edit_reasons(SENT, fu, ENTS, order) == [ENTITY_SPLIT]


def test_entities_of_one_label_made_adjacent_are_merged():
    src = "Paris and Rome are far .".split()
    fu = "Paris Rome and are far .".split()  # "and" moved after Rome
    order = [0, 2, 1, 3, 4, 5]
    ents = [(0, 1, "LOC"), (2, 3, "LOC")]
    assert entity_edit_reasons(src, fu, ents, order) == [ENTITIES_MERGED]
    # already adjacent in the source: nothing merged by the edit
    assert entity_edit_reasons(fu, fu, [(0, 1, "LOC"), (1, 2, "LOC")], list(range(6))) == []


def test_changed_case_of_an_entity_word_and_new_capitalised_words():
    fu = ["new", *SENT[1:]]
    assert entity_edit_reasons(SENT, fu, ENTS, list(range(len(SENT)))) == [ENTITY_TEXT_CHANGED]
    named = SENT[:6] + ["Microsoft"] + SENT[7:]
    same = list(range(len(SENT)))
    assert entity_edit_reasons(SENT, named, ENTS, same, changed=(6, 7), changed_followup=(6, 7)) == \
        [NEW_CAPITALISED_WORD]
    assert entity_edit_reasons(SENT, named, ENTS, same, changed=(6, 7), changed_followup=(6, 7),
                               flag_new_names=False) == []
    question = ["Did", *SENT[:-1], "?"]  # an inserted, capitalised first word is no name
    assert entity_edit_reasons(SENT, question, ENTS, [*range(1, len(SENT)), None]) == []


def test_recorded_followup_entities_must_be_the_moved_ones():
    fu = ["Also", *SENT]
    moved = [1 + i for i in range(len(SENT))]
    assert entity_edit_reasons(SENT, fu, ENTS, moved, followup_entities=[(1, 4, "LOC"), (8, 10, "ORG")]) == []
    assert entity_edit_reasons(SENT, fu, ENTS, moved, followup_entities=ENTS) == [FOLLOWUP_GOLD_MISMATCH]
    assert entity_edit_reasons(SENT, fu, ENTS, moved[:-1]) == [UNRECORDED_EDIT]


def test_summary_and_adjusted_precision():
    vs = [Validity(), Validity.of(["a", "b", "a"]), Validity(), Validity.of(["a"])]
    assert vs[1].reasons == ("a", "b") and not vs[1].valid and vs[0].valid
    assert vs[1].to_dict() == {"valid": False, "reasons": ["a", "b"]}
    s = validity_summary(vs)
    assert s == {"validity": 0.5, "validity_valid": 2, "validity_total": 4, "validity_reasons": {"a": 2, "b": 1}}
    assert validity_summary([])["validity"] is None
    assert validity_summary([Validity(), Validity(), Validity.of("x")], digits=2)["validity"] == 0.67
    # (true positive, valid): a true positive on an invalid case becomes a false positive
    adj = adjusted_precision([(True, True), (True, False), (False, True), (True, True)])
    assert adj == {"precision_validity_adjusted": 0.5, "issues_invalid": 1}
    assert adjusted_precision([]) == {"precision_validity_adjusted": None, "issues_invalid": 0}
