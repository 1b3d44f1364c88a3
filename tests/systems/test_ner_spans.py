"""The pure span helpers every NER adapter uses: tag decoding, IOB2 encoding, character offsets -> tokens,
range-conflict resolution."""

from __future__ import annotations

import pytest

from lingtest.data.model import Entity
from lingtest.errors import InputError
from lingtest.systems.ner.spans import (
    char_span_to_tokens,
    entities_to_iob2,
    join_tokens,
    resolve_overlaps,
    split_tag,
    tags_to_entities,
)


def spans(ents):
    return [(e.start, e.end, e.label) for e in ents]


def test_split_tag():
    assert split_tag("O") == ("O", "")
    assert split_tag("B-PER") == ("B", "PER")
    assert split_tag("I_ORG") == ("I", "ORG")
    assert split_tag("S-WORK_OF_ART") == ("S", "WORK_OF_ART")
    assert split_tag("PER") == ("I", "PER")  # IO tagging
    assert split_tag("B-") == ("I", "B-")  # no type after the prefix: a type of its own, never a crash


@pytest.mark.parametrize("tags, expected", [
    # IOB2
    (["B-PER", "I-PER", "O", "B-LOC"], [(0, 2, "PER"), (3, 4, "LOC")]),
    # IOB1: I- opens an entity, B- splits two adjacent ones of the same type
    (["I-PER", "I-PER", "B-PER", "O", "I-LOC"], [(0, 2, "PER"), (2, 3, "PER"), (4, 5, "LOC")]),
    # a type change inside a run starts a new entity (conlleval's reading)
    (["B-PER", "I-ORG", "I-ORG"], [(0, 1, "PER"), (1, 3, "ORG")]),
    # BIOES and BILOU
    (["S-PER", "B-ORG", "I-ORG", "E-ORG", "S-ORG"], [(0, 1, "PER"), (1, 4, "ORG"), (4, 5, "ORG")]),
    (["U-LOC", "B-PER", "L-PER", "O"], [(0, 1, "LOC"), (1, 3, "PER")]),
    # IOE: an E ends the entity, the next I of the same type opens another
    (["I-PER", "E-PER", "I-PER", "E-PER"], [(0, 2, "PER"), (2, 4, "PER")]),
    # plain IO labels merge runs of one type
    (["PER", "PER", "O", "LOC"], [(0, 2, "PER"), (3, 4, "LOC")]),
    (["O", "O"], []),
    ([], []),
    # an entity reaching the sentence end
    (["O", "B-MISC", "I-MISC"], [(1, 3, "MISC")]),
])
def test_tags_to_entities(tags, expected):
    assert spans(tags_to_entities(tags)) == expected


def test_entities_to_iob2_round_trips_and_rejects_bad_spans():
    ents = [Entity(3, 4, "LOC"), Entity(0, 2, "PER")]
    tags = entities_to_iob2(ents, 5)
    assert tags == ["B-PER", "I-PER", "O", "B-LOC", "O"]
    assert tags_to_entities(tags) == sorted(ents)
    adjacent = entities_to_iob2([Entity(0, 1, "PER"), Entity(1, 2, "PER")], 2)
    assert adjacent == ["B-PER", "B-PER"] and len(tags_to_entities(adjacent)) == 2
    with pytest.raises(InputError, match="overlaps"):
        entities_to_iob2([Entity(0, 2, "PER"), Entity(1, 3, "ORG")], 4)
    with pytest.raises(InputError, match="outside"):
        entities_to_iob2([Entity(2, 5, "PER")], 4)


def test_char_offsets_to_tokens():
    text, offsets = join_tokens(["U.S.-based", "Acme", "Corp", "hired", "Ann", "."])
    assert text == "U.S.-based Acme Corp hired Ann ."
    assert offsets[1] == (11, 15) and text[slice(*offsets[4])] == "Ann"
    assert char_span_to_tokens(offsets, 11, 20) == (1, 3)  # "Acme Corp"
    assert char_span_to_tokens(offsets, 0, 4) == (0, 1)  # "U.S." inside "U.S.-based": snapped to the token
    assert char_span_to_tokens(offsets, 13, 17) == (1, 3)  # a span cutting two tokens covers both
    assert char_span_to_tokens(offsets, 10, 11) is None  # only the space between tokens
    text, offsets = join_tokens(["Zoë", "Ångström", "ü"])
    assert text[slice(*offsets[1])] == "Ångström"  # code points, not bytes


def test_overlaps_resolved_by_score_then_shorter_span():
    a, b, c = Entity(0, 3, "Address"), Entity(2, 3, "Location"), Entity(5, 6, "Person")
    assert resolve_overlaps([(a, 0.6), (b, 0.9), (c, 0.5)]) == [b, c]
    assert resolve_overlaps([(a, 0.9), (b, 0.6), (c, 0.5)]) == [a, c]
    assert resolve_overlaps([(a, 0.7), (b, 0.7)]) == [b]  # tie: the shorter span stays
    assert resolve_overlaps([(b, 0.7), (b, 0.7)]) == [b]  # an exact duplicate counts once
    assert resolve_overlaps([]) == []
