"""Random entity shuffle: every permutation up to the limit, seeded samples beyond, spans tracked."""

from __future__ import annotations

import random

import pytest

from lingtest.data.model import Entity
from lingtest.tin.mutant import MR2, TinSource
from lingtest.tin.transformations.shuffle import (
    EntityShuffle,
    EntityShuffleConfig,
    keep_at_most,
    keeps_names_apart,
    permutations_of,
    referent_kind,
    slot_key,
)
from tests.tin.fakes import parsed

PAPER = ("Spotify , Apple Music , and Deezer all said the track was their top performer , beating "
         "competition from Ed Sheeran , Drake , and Taylor Swift .").split()
PAPER_ENTS = [Entity(0, 1, "ORG"), Entity(2, 4, "ORG"), Entity(6, 7, "ORG"),
              Entity(19, 21, "PER"), Entity(22, 23, "PER"), Entity(25, 27, "PER")]


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
                     Entity(19, 21, "PER"), Entity(22, 23, "PER"), Entity(25, 27, "PER")]
    assert [m.tokens[e.start:e.end] for e in moved][:2] == [["Apple", "Music"], ["Spotify"]]
    assert all(m.tokens[m.alignment.to_followup[i]] == w for i, w in enumerate(PAPER))


def test_identity_and_repeated_texts_give_no_mutant():
    s = TinSource(id="x", tokens="Paris and Paris and Rome".split(),
                  entities=[Entity(0, 1, "LOC"), Entity(2, 3, "LOC"), Entity(4, 5, "LOC")])
    # every shuffle that changes the words puts a Paris where Rome was while another Paris stays a Paris
    # (keeps_names_apart: in "Paris and Rome and Paris" the first and last places, Paris and Rome in the
    # source, share a name)
    assert shuffler().generate([s]) == []
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
    with pytest.raises(ValueError):
        EntityShuffle(max_exhaustive=4, samples=1, seed=0, whole_phrases=True, max_per_source=0)


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


def texts(mutants) -> list[str]:
    return [" ".join(m.tokens) for m in mutants]


# ---- at most max_per_source mutants of one source ------------------------------------------------------
def test_at_most_max_per_source_mutants_of_a_source_drawn_with_a_seed():
    """The paper's sentence gives 10 shuffles (two groups of three); with a cap of 3 a seeded draw keeps 3
    of them, in their order, the same 3 on every run; with no cap, all."""
    s = TinSource(id="bbc", tokens=PAPER, entities=PAPER_ENTS)
    every = texts(shuffler().mutants_of(s))
    capped = texts(shuffler(max_per_source=3).mutants_of(s))
    assert len(every) == 10 and len(capped) == 3
    assert set(capped) <= set(every) and capped == [t for t in every if t in capped]  # in the uncapped order
    assert capped == texts(shuffler(max_per_source=3).mutants_of(s))  # deterministic
    draws = {tuple(texts(shuffler(max_per_source=3, seed=seed).mutants_of(s))) for seed in range(8)}
    assert len(draws) > 1  # seeded, not the first three
    assert texts(shuffler(max_per_source=10).mutants_of(s)) == every
    # per source: a second source has its own 3
    other = TinSource(id="bbc2", tokens=PAPER, entities=PAPER_ENTS)
    assert len(shuffler(max_per_source=3).generate([s, other])) == 6


def test_keep_at_most():
    items = list("abcdef")
    assert keep_at_most(items, None, random.Random(0)) == items
    assert keep_at_most(items, 6, random.Random(0)) == items
    kept = keep_at_most(items, 2, random.Random(0))
    assert len(kept) == 2 and kept == sorted(kept) and kept == keep_at_most(items, 2, random.Random(0))


def test_max_per_source_is_a_typed_key_with_a_default_in_conf():
    from pathlib import Path

    from omegaconf import OmegaConf

    conf = OmegaConf.load(Path(__file__).resolve().parents[2] / "conf" / "tin" / "default.yaml")
    entry = {**OmegaConf.to_container(conf.transformations.shuffle), "seed": 1}
    config = EntityShuffleConfig.model_validate(entry)
    assert config.max_per_source == 3
    assert EntityShuffle.from_config(config, None).max_per_source == 3
    assert EntityShuffleConfig.model_validate({**entry, "max_per_source": None}).max_per_source is None
    with pytest.raises(ValueError):
        EntityShuffleConfig.model_validate({**entry, "max_per_source": 0})


# ---- names kept apart -----------------------------------------------------------------------------------
def test_no_name_lands_where_the_same_name_stands():
    """Every ORG by label (no parse): of the shuffles of Zywiec, Okocim, Zywiec, Heineken only the one that
    leaves both Zywiecs in place is kept, not *Zywiec 's production of Zywiec*."""
    words = "Zywiec had its eye on Okocim , but Zywiec 's production of Heineken fell".split()
    ents = [Entity(0, 1, "ORG"), Entity(5, 6, "ORG"), Entity(8, 9, "ORG"), Entity(12, 13, "ORG")]
    got = texts(shuffler().mutants_of(TinSource("z", words, ents)))
    assert got == ["Zywiec had its eye on Heineken , but Zywiec 's production of Okocim fell"]


def test_keeps_names_apart():
    words = "Okocim sued Zywiec over Zywiec 's beer".split()
    slots = [Entity(0, 1, "ORG"), Entity(2, 3, "ORG")]
    # the second Zywiec stays (a possessor): Zywiec moved to the front leaves it, Okocim comes next to it
    assert not keeps_names_apart(words, slots, (1, 0))
    assert keeps_names_apart(words, slots, (0, 1))
    abab = "A met B and A met B".split()
    pairs = [Entity(0, 1, "PER"), Entity(2, 3, "PER"), Entity(4, 5, "PER"), Entity(6, 7, "PER")]
    assert keeps_names_apart(abab, pairs, (1, 0, 3, 2))  # both As and both Bs trade places: still two pairs
    assert not keeps_names_apart(abab, pairs, (1, 0, 2, 3))  # "B met A and A met B"
    assert keeps_names_apart("A met B".split(), [Entity(0, 1, "PER"), Entity(2, 3, "PER")], (1, 0))
    sued = parsed("Okocim/NNP/1/nsubj sued/VBD/-1/ROOT Zywiec/NNP/1/dobj over/IN/1/prep Zywiec/NNP/6/poss "
                  "'s/POS/4/case beer/NN/3/pobj", [Entity(0, 1, "ORG"), Entity(2, 3, "ORG"), Entity(4, 5, "ORG")])
    assert shuffler(whole_phrases=True).mutants_of(sued) == []  # not "Zywiec sued Okocim over Zywiec 's beer"


# ---- same kind of referent ------------------------------------------------------------------------------
#: CoNLL-2003 test-0054, sentence 19, as spaCy's en_core_web_sm parses it; a system that typed all four names
#: ORG (Van Boxmeer is a person). The reviewed suite had 23 shuffles of it, 10 of them ill-formed.
ZYWIEC = parsed(
    "Van/NNP/1/compound Boxmeer/NNP/2/nsubj said/VBD/-1/ROOT Zywiec/NNP/4/nsubj had/VBD/2/ccomp its/PRP$/6/poss "
    "eye/NN/4/dobj on/IN/6/prep Okocim/NNP/7/pobj ,/,/6/punct which/WDT/12/nsubj has/VBZ/12/aux said/VBN/6/relcl "
    "it/PRP/15/nsubj would/MD/15/aux start/VB/12/ccomp producing/VBG/15/xcomp Carlsberg/NNP/18/compound "
    "beer/NN/16/dobj next/JJ/20/amod year/NN/16/npadvmod ,/,/2/punct but/CC/2/cc that/DT/30/mark "
    "Zywiec/NNP/27/poss 's/POS/24/case potential/JJ/27/amod production/NN/30/nsubj of/IN/27/prep "
    "Heineken/NNP/28/pobj was/VBD/2/conj a/DT/33/det medium-term/JJ/33/amod possibility/NN/30/attr "
    "rather/RB/35/advmod than/IN/30/prep a/DT/38/det short-term/JJ/38/amod one/NN/35/pobj ././2/punct",
    [Entity(0, 2, "ORG"), Entity(3, 4, "ORG"), Entity(8, 9, "ORG"), Entity(17, 18, "ORG"), Entity(24, 25, "ORG"),
     Entity(29, 30, "ORG")], id="test-0054/19")


def test_the_reviewed_sentence_gives_no_ill_formed_shuffle():
    """Van Boxmeer has no pronoun, Zywiec *its*, Okocim *which*, Heineken is what *production of* takes:
    no two agree, so none moves (before: 23 shuffles, *Zywiec said Van Boxmeer had its eye on Okocim*,
    *Zywiec 's potential production of Van Boxmeer*, ...)."""
    van, zywiec, okocim, _, _, heineken = ZYWIEC.entities
    assert [referent_kind(ZYWIEC, e) for e in (van, zywiec, okocim, heineken)] == ["none", "thing", "thing", "none"]
    assert slot_key(ZYWIEC, heineken) == ("ORG", "complement", "proper")
    assert slot_key(ZYWIEC, van) == ("ORG", "argument", "proper")
    assert shuffler(whole_phrases=True).mutants_of(ZYWIEC) == []


def test_entities_trade_places_only_with_those_pronouns_call_the_same_kind():
    # *its* binds the subject of its clause (not of the clause above), *which* the name right before it
    things = parsed("Boxmeer/NNP/1/nsubj said/VBD/-1/ROOT Zywiec/NNP/3/nsubj raised/VBD/1/ccomp its/PRP$/5/poss "
                    "stake/NN/3/dobj in/IN/5/prep Okocim/NNP/6/pobj ,/,/7/punct which/WDT/10/nsubj "
                    "brews/VBZ/7/relcl beer/NN/10/dobj",
                    [Entity(0, 1, "ORG"), Entity(2, 3, "ORG"), Entity(7, 8, "ORG")])
    assert [referent_kind(things, e) for e in things.entities] == ["none", "thing", "thing"]
    assert texts(shuffler(whole_phrases=True).mutants_of(things)) == [
        "Boxmeer said Okocim raised its stake in Zywiec , which brews beer"]  # Boxmeer stays
    # vice versa: *his* and *who* take persons; a company typed PER does not move into their places
    people = parsed("Kohl/NNP/1/nsubj said/VBD/-1/ROOT Yeltsin/NNP/3/nsubj lost/VBD/1/ccomp his/PRP$/5/poss "
                    "temper/NN/3/dobj with/IN/3/prep Smith/NNP/6/pobj ,/,/7/punct who/WP/10/nsubj "
                    "apologised/VBD/7/relcl", [Entity(0, 1, "PER"), Entity(2, 3, "PER"), Entity(7, 8, "PER")])
    assert [referent_kind(people, e) for e in people.entities] == ["none", "person", "person"]
    assert texts(shuffler(whole_phrases=True).mutants_of(people)) == [
        "Kohl said Smith lost his temper with Yeltsin , who apologised"]
    mixed = parsed("Kohl/NNP/1/nsubj said/VBD/-1/ROOT Yeltsin/NNP/3/nsubj lost/VBD/1/ccomp his/PRP$/5/poss "
                   "temper/NN/3/dobj with/IN/3/prep Zywiec/NNP/6/pobj ,/,/7/punct which/WDT/10/nsubj "
                   "apologised/VBD/7/relcl", [Entity(0, 1, "PER"), Entity(2, 3, "PER"), Entity(7, 8, "PER")])
    assert [referent_kind(mixed, e) for e in mixed.entities] == ["none", "person", "thing"]
    assert shuffler(whole_phrases=True).mutants_of(mixed) == []  # not "... Zywiec lost his temper with Yeltsin , which"
    # the kind is part of the group
    assert shuffler(whole_phrases=True).mutants_of(people)[0].params["group"] == ["PER", "argument", "proper",
                                                                                 "person"]


def test_possessives_bind_the_nearest_subject_that_does_not_hold_them():
    # *its profit* is the subject of *rose*: *its* refers to the subject of *said*
    nested = parsed("Zywiec/NNP/1/nsubj said/VBD/-1/ROOT its/PRP$/3/poss profit/NN/4/nsubj rose/VBD/1/ccomp",
                    [Entity(0, 1, "ORG")])
    assert referent_kind(nested, nested.entities[0]) == "thing"
    # *her* as an object is no possessive (and refers to someone else than the subject); *their* says nothing
    obj = parsed("Smith/NNP/1/nsubj told/VBD/-1/ROOT her/PRP/1/dobj", [Entity(0, 1, "PER")])
    assert referent_kind(obj, obj.entities[0]) == "none"
    own = parsed("Smith/NNP/1/nsubj sold/VBD/-1/ROOT her/PRP$/3/poss house/NN/1/dobj", [Entity(0, 1, "PER")])
    assert referent_kind(own, own.entities[0]) == "person"
    their = parsed("Ajax/NNP/1/nsubj lost/VBD/-1/ROOT their/PRP$/3/poss match/NN/1/dobj", [Entity(0, 1, "ORG")])
    assert referent_kind(their, their.entities[0]) == "none"
    # without dependencies only the relative pronoun right after the name is seen
    bare = TinSource("b", "Zywiec raised its stake in Okocim , which brews beer".split(),
                     [Entity(0, 1, "ORG"), Entity(5, 6, "ORG")])
    assert [referent_kind(bare, e) for e in bare.entities] == ["none", "thing"]


def test_the_complement_of_a_common_noun_trades_places_only_with_another():
    """*production of Heineken*: the noun chooses what may follow *of*; a subject does not move there
    (*Heineken welcomed the production of Smith*), another such complement does."""
    welcome = parsed("Smith/NNP/1/nsubj welcomed/VBD/-1/ROOT the/DT/3/det production/NN/1/dobj of/IN/3/prep "
                     "Heineken/NNP/4/pobj", [Entity(0, 1, "ORG"), Entity(5, 6, "ORG")])
    assert [slot_key(welcome, e)[1] for e in welcome.entities] == ["argument", "complement"]
    assert shuffler(whole_phrases=True).mutants_of(welcome) == []
    sales = parsed("production/NN/3/nsubj of/IN/0/prep Heineken/NNP/1/pobj rose/VBD/-1/ROOT and/CC/3/cc "
                   "sales/NNS/8/nsubj of/IN/5/prep Okocim/NNP/6/pobj fell/VBD/3/conj",
                   [Entity(2, 3, "ORG"), Entity(7, 8, "ORG")])
    assert texts(shuffler(whole_phrases=True).mutants_of(sales)) == [
        "production of Okocim rose and sales of Heineken fell"]
