"""Spans, occurrences and the token map that carries gold and predictions onto a mutant."""

from __future__ import annotations

import pytest

from lingtest.data.model import Entity
from lingtest.tin.spans import TokenMap, entities_from_tags, find_occurrences, overlaps


def test_find_occurrences_matches_whole_tokens():
    toks = "New York and New Yorkers love New York".split()
    assert find_occurrences(toks, ["New", "York"]) == [(0, 2), (6, 8)]
    assert find_occurrences(toks, ["York"]) == [(1, 2), (7, 8)]  # not inside "Yorkers"
    assert find_occurrences(toks, []) == []


def test_overlaps_is_strict_about_touching_spans():
    assert overlaps((0, 2), (1, 3)) and not overlaps((0, 2), (2, 3))


def test_entities_from_tags_uses_conlleval_chunking():
    # IOB1: I-PER after O starts a chunk; B-PER splits two adjacent PER
    assert entities_from_tags(["I-PER", "I-PER", "B-PER", "O", "I-LOC"], "iob1") == [
        Entity(0, 2, "PER"), Entity(2, 3, "PER"), Entity(4, 5, "LOC")]


def test_replacement_map_shifts_later_tokens():
    m = TokenMap.replacement(6, 2, 4, 1)  # tokens 2-3 become one token
    assert m.to_followup == (0, 1, None, None, 3, 4) and m.n_followup == 5
    assert m.map_span((4, 6)) == (3, 5)
    assert m.map_span((1, 3)) is None  # touches a replaced token
    moved = m.map_entities([Entity(0, 2, "ORG"), Entity(5, 6, "LOC")])
    assert moved == [Entity(0, 2, "ORG"), Entity(4, 5, "LOC")]
    assert m.map_entities([Entity(3, 4, "PER")]) is None


def test_from_order_tracks_moves_and_insertions():
    # "He has faced floods ." -> "Has he faced floods ?" ; and an inserted word
    m = TokenMap.from_order(5, [1, 0, 2, 3, 4])
    assert m.to_followup == (1, 0, 2, 3, 4)
    assert m.map_span((2, 4)) == (2, 4) and m.map_span((0, 2)) is None  # order reversed: not a span
    ins = TokenMap.from_order(3, [None, 0, 1, 2])
    assert ins.map_span((0, 3)) == (1, 4) and ins.to_source() == [None, 0, 1, 2]
    with pytest.raises(ValueError):
        TokenMap.from_order(2, [0, 0])


def test_token_map_json_roundtrip_and_validation():
    m = TokenMap.replacement(4, 1, 2, 3)
    assert TokenMap.from_dict(m.to_dict()) == m
    with pytest.raises(ValueError):
        TokenMap((0, 5), 3)
