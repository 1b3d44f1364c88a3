"""Token-level mutants: non-entity verbs and adjectives, top-K fills, same tag in place."""

from __future__ import annotations

import pytest

from lingtest.data.model import Entity
from lingtest.tin.mutant import MR1, TinSource
from lingtest.tin.transformations import TRANSFORMATIONS
from tests.tin.fakes import FakeProposer, FakeTagger

TAGS = {"The": "DT", "new": "JJ", "old": "JJ", "fresh": "JJ", "Apple": "NNP", "shares": "NNS",
        "rose": "VBD", "fell": "VBD", "climbed": "VBD", "rising": "VBG", ".": ".", "was": "VBD", "Big": "NNP",
        "modern": "JJ", "announced": "VBD", "said": "VBD", "very": "RB"}


def make(proposer, **kw):
    cls = TRANSFORMATIONS.get("token")
    opts = {"top_k": 3, "min_score": 5.0, "tags": ["JJ", "VB", "VBD", "VBZ"], "skip_lemmas": ["be"]} | kw
    return cls(proposer, FakeTagger(TAGS), **opts)


def test_replaces_non_entity_verbs_and_adjectives_with_same_tag_fills():
    s = TinSource(id="s", tokens="The new Apple shares rose .".split(), entities=[Entity(2, 3, "ORG")],
                  lemmas=["the", "new", "Apple", "share", "rise", "."])
    prop = FakeProposer({"new": [("old", 9.0), ("fresh", 8.0), ("shares", 7.0)],
                         "rose": [("fell", 10.0), ("rising", 9.5), ("climbed", 4.0), ("Rose", 9.0)]})
    muts = make(prop).generate([s])
    assert [(m.params["position"], m.params["new"]) for m in muts] == [(1, "old"), (1, "fresh"), (4, "fell")]
    # "shares" (NNS) and "rising" (VBG) fail the tag check; "climbed" is under min_score; top_k=3 cuts "Rose"
    assert {p for _, p in prop.requests} == {1, 4}  # the entity and the noun were never masked
    m = muts[0]
    assert m.relation == MR1 and m.tokens == "The old Apple shares rose .".split()
    assert m.changed == (1, 2) == m.changed_followup and m.alignment.to_followup == tuple(range(6))
    assert m.params["tag"] == "JJ" and m.params["score"] == 9.0 and m.params["rank"] == 0


def test_skips_lemmas_entities_and_originals_and_matches_case():
    s = TinSource(id="s", tokens="Big was modern .".split(), entities=[], lemmas=["big", "be", "modern", "."])
    prop = FakeProposer({"was": [("said", 9.0)], "modern": [("modern", 9.0), ("MODERN", 9.0), ("new", 6.0)]})
    muts = make(prop).generate([s])
    assert [" ".join(m.tokens) for m in muts] == ["Big was new ."]
    up = TinSource(id="u", tokens="THE NEW SHARES".split(), entities=[])
    tagger_table = dict(TAGS, NEW="JJ", OLD="JJ")
    t = TRANSFORMATIONS.get("token")(FakeProposer({"NEW": [("old", 9.0)]}), FakeTagger(tagger_table), top_k=2,
                                     min_score=0, tags=["JJ"], skip_lemmas=[])
    assert [m.tokens for m in t.generate([up])] == [["THE", "OLD", "SHARES"]]


def test_no_sources_and_bad_options():
    assert make(FakeProposer({})).generate([]) == []
    with pytest.raises(ValueError):
        make(FakeProposer({}), top_k=0)


def test_a_fill_that_repeats_a_word_of_the_same_tag_is_refused():
    # "Cuo finished a respectable seventh and Xu ninth": seventh -> ninth would finish both ninth
    tags = {"Cuo": "NNP", "finished": "VBD", "a": "DT", "respectable": "JJ", "seventh": "JJ", "and": "CC",
            "Xu": "NNP", "ninth": "JJ", "eighth": "JJ", "Ninth": "JJ", ".": "."}
    s = TinSource(id="s", tokens="Cuo finished a respectable seventh and Xu ninth .".split(),
                  entities=[Entity(0, 1, "PER"), Entity(6, 7, "PER")])
    prop = FakeProposer({"seventh": [("ninth", 0.5), ("eighth", 0.3)]})
    cls = TRANSFORMATIONS.get("token")
    opts = {"top_k": 3, "min_score": 0.1, "tags": ["JJ"], "skip_lemmas": []}
    strict = cls(prop, FakeTagger(tags), distinct_fill=True, **opts)
    assert [m.params["new"] for m in strict.generate([s])] == ["eighth"]
    assert strict.refused == {"repeats a word": 1}
    assert [m.params["new"] for m in cls(prop, FakeTagger(tags), distinct_fill=False, **opts).generate([s])] == [
        "ninth", "eighth"]
    # a word of another tag, or the original position itself, is no repeat; case does not matter
    assert cls.repeats(s.tokens, [tags[w] for w in s.tokens], 4, "Ninth")
    assert not cls.repeats(s.tokens, [tags[w] for w in s.tokens], 4, "seventh")
    assert not cls.repeats(s.tokens, [tags[w] for w in s.tokens], 4, "finished")
    assert not cls.repeats(["a", "ninth", "ninth"], ["DT", "JJ", "NN"], 1, "ninth")
