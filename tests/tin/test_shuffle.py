"""Random entity shuffle: every permutation up to the limit, seeded samples beyond, spans tracked."""

from __future__ import annotations

import random

import pytest

from lingtest.data.model import Entity
from lingtest.tin.mutant import MR2, TinSource
from lingtest.tin.transformations.shuffle import EntityShuffle, permutations_of

PAPER = ("Spotify , Apple Music , and Deezer all said the track was their top performer , beating "
         "competition from Ed Sheeran , Drake , and Taylor Swift .").split()
PAPER_ENTS = [Entity(0, 1, "ORG"), Entity(2, 4, "ORG"), Entity(6, 7, "ORG"),
              Entity(18, 20, "PER"), Entity(21, 22, "PER"), Entity(24, 26, "PER")]


def shuffler(**kw) -> EntityShuffle:
    return EntityShuffle(**{"max_exhaustive": 4, "samples": 8, "seed": 7, "whole_phrases": False, **kw})


def test_permutations_exhaustive_and_sampled():
    assert permutations_of(1, max_exhaustive=4, samples=8, rng=random.Random(0)) == []
    assert permutations_of(3, max_exhaustive=4, samples=8, rng=random.Random(0)) == [
        (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    assert len(permutations_of(4, max_exhaustive=4, samples=8, rng=random.Random(0))) == 23
    sampled = permutations_of(6, max_exhaustive=4, samples=8, rng=random.Random(0))
    assert len(sampled) == 8 and len(set(sampled)) == 8 and tuple(range(6)) not in sampled


def test_paper_example_one_type_at_a_time_with_spans_tracked():
    s = TinSource(id="bbc", tokens=PAPER, entities=PAPER_ENTS)
    muts = shuffler().generate([s])
    assert len(muts) == 5 + 5  # 3 ORG and 3 PER: 3! - 1 each
    assert all(m.relation == MR2 and m.transformation == "shuffle" for m in muts)
    by_text = {" ".join(m.tokens): m for m in muts}
    paper = ("Apple Music , Spotify , and Deezer all said the track was their top performer , beating "
             "competition from Ed Sheeran , Drake , and Taylor Swift .")
    m = by_text[paper]
    assert m.params["label"] == "ORG" and m.params["permutation"] == [1, 0, 2]
    # every entity (and every other token) follows its words
    moved = m.alignment.map_entities(PAPER_ENTS)
    assert moved == [Entity(0, 2, "ORG"), Entity(3, 4, "ORG"), Entity(6, 7, "ORG"),
                     Entity(18, 20, "PER"), Entity(21, 22, "PER"), Entity(24, 26, "PER")]
    assert [m.tokens[e.start:e.end] for e in moved][:2] == [["Apple", "Music"], ["Spotify"]]
    assert all(m.tokens[m.alignment.to_followup[i]] == w for i, w in enumerate(PAPER))


def test_identity_and_repeated_texts_give_no_mutant():
    s = TinSource(id="x", tokens="Paris and Paris and Rome".split(),
                  entities=[Entity(0, 1, "LOC"), Entity(2, 3, "LOC"), Entity(4, 5, "LOC")])
    texts = sorted(" ".join(m.tokens) for m in shuffler().generate([s]))
    assert texts == ["Paris and Rome and Paris", "Rome and Paris and Paris"]
    single = TinSource(id="y", tokens="Paris is big".split(), entities=[Entity(0, 1, "LOC")])
    assert shuffler().generate([single]) == []


def test_many_entities_are_sampled_with_a_seed():
    toks = "A , B , C , D , E and F".split()
    ents = [Entity(i, i + 1, "PER") for i in range(0, 11, 2)]
    s = TinSource(id="many", tokens=toks, entities=ents)
    a = [m.tokens for m in shuffler().generate([s])]
    b = [m.tokens for m in shuffler().generate([s])]
    c = [m.tokens for m in shuffler(seed=8).generate([s])]
    assert len(a) == 8 and len({tuple(t) for t in a}) == 8 and a == b and a != c


def test_overlapping_predictions_are_not_moved():
    s = TinSource(id="n", tokens="Bank of England and Bank of France".split(),
                  entities=[Entity(0, 3, "ORG"), Entity(2, 3, "LOC"), Entity(4, 7, "ORG"),
                            Entity(6, 7, "LOC")])
    assert shuffler().generate([s]) == []


def test_bad_options():
    with pytest.raises(ValueError):
        EntityShuffle(max_exhaustive=0, samples=1, seed=0, whole_phrases=True)


NYC = "The New York City council told European investors in Paris".split()
NYC_TAGS = ["DT", "NNP", "NNP", "NNP", "NN", "VBD", "JJ", "NNS", "IN", "NNP"]


def test_only_whole_phrases_move():
    """A system that cuts "New York City" into "New" and "York City" predicts pieces that are not whole
    phrases: they stay in place, so no mutant garbles the name ("York City New"); whole names move."""
    from lingtest.tin.transformations.shuffle import whole_phrase

    cut = [Entity(1, 2, "LOC"), Entity(2, 4, "LOC"), Entity(9, 10, "LOC")]
    source = TinSource("s", list(NYC), cut, tags=list(NYC_TAGS))
    assert [whole_phrase(source, e) for e in cut] == [False, False, True]
    assert shuffler(whole_phrases=True).mutants_of(source) == []
    garbled = shuffler(whole_phrases=False).mutants_of(source)
    assert garbled and any(m.tokens[1:4] != NYC[1:4] for m in garbled)
    whole = [Entity(1, 4, "LOC"), Entity(9, 10, "LOC")]
    moved = shuffler(whole_phrases=True).mutants_of(TinSource("s", list(NYC), whole, tags=list(NYC_TAGS)))
    assert [m.tokens for m in moved] == [["The", "Paris", "council", "told", "European", "investors", "in", "New",
                                          "York", "City"]]


def test_a_noun_phrase_constituent_is_a_whole_phrase():
    from lingtest.data.model import Tree
    from lingtest.tin.transformations.shuffle import whole_phrase

    words = "the prime minister met the king".split()
    tree, _ = Tree.from_bracketed("(S (NP (DT the) (JJ prime) (NN minister)) (VP (VBD met) (NP (DT the) (NN king))))")
    tags = ["DT", "JJ", "NN", "VBD", "DT", "NN"]
    source = TinSource("s", words, [], tags=tags, tree=tree)
    assert whole_phrase(source, Entity(0, 3, "PER")) and whole_phrase(source, Entity(4, 6, "PER"))
    assert not whole_phrase(source, Entity(1, 3, "PER"))  # "prime minister" without its determiner
