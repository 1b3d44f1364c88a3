"""Each baseline on hand-made sentences: what it changes and what it must not change."""

from __future__ import annotations

import random
from collections import Counter

from baseline_fakes import BagEmbedder, FakeParts, TableFill, TinyWordNet, make_source
from crest_fakes import FakeParser

from lingtest.crest.baselines.base import Generated
from lingtest.crest.baselines.cat import Cat, CatConfig
from lingtest.crest.baselines.checklist import (
    CheckList,
    CheckListConfig,
    contract,
    expand_contractions,
    number_replacements,
    swap_characters,
)
from lingtest.crest.baselines.edits import apply_edits
from lingtest.crest.baselines.patinv import Lexicon, PatInv, PatInvConfig, tree_shape
from lingtest.crest.baselines.sit import Sit, SitConfig, dependency_distance, sit_verdict
from lingtest.crest.baselines.textattack import TextAttack, TextAttackConfig
from lingtest.data.model import Sentence, Token, Tree

TEXT = "John said that the big dog liked him ."
JOHN_HIM = [[(0, 1), (7, 8)]]


def words_of(source, p) -> list[str]:
    return apply_edits(source.sentence.words, [t.ws for t in source.sentence.tokens], p.edits)[0]


def changed(source, p) -> list[int]:
    return sorted(e.position for e in p.edits)


def followup_texts(source, got: Generated) -> list[str]:
    return [" ".join(words_of(source, p)) for p in got.followups[0]]


# ---- SIT ----------------------------------------------------------------------------------------------
SIT = SitConfig(tags=["NN", "JJ"], top_k=10, min_score=0.0, min_chars=2, skip_edges=True, same_tag_prefix=True,
                max_dep_distance=0)


def test_sit_replaces_only_nouns_and_adjectives_and_keeps_the_dependency_labels():
    s = make_source(TEXT, JOHN_HIM)
    fill = TableFill({"big": [("huge", 0.5), ("quickly", 0.3), ("x", 0.2), ("small", 0.1)],
                      "dog": [("cat", 0.6), ("said", 0.3), ("d.g", 0.1)],
                      "john": [("mary", 0.9)], "liked": [("loved", 0.9)]})
    got = Sit(SIT, FakeParser(), fill).generate([s], M=20, seed=0)
    assert followup_texts(s, got) == ["John said that the huge dog liked him .",
                                      "John said that the small dog liked him .",
                                      "John said that the big cat liked him ."]
    # John (first token, NNP) and liked (a verb) are never asked for; "quickly"/"said" change the tag,
    # "x" is one character, "d.g" holds punctuation
    assert {pos for _, pos in fill.requests} == {4, 5}
    assert got.dropped == Counter({"tag_changed": 2})
    parser = FakeParser()
    for p in got.followups[0]:
        assert changed(s, p) in ([4], [5])
        fu = parser.parse([words_of(s, p)])[0]
        assert [t.dep for t in fu.tokens] == [t.dep for t in s.sentence.tokens]
    # M caps the follow-ups, in position order
    assert len(Sit(SIT, FakeParser(), fill).generate([s], M=2, seed=0).followups[0]) == 2


def test_sit_drops_a_follow_up_whose_dependency_relations_change():
    a = Sentence([Token("a", tag="NN", dep="nsubj"), Token("b", tag="VBD", dep="ROOT")])
    b = Sentence([Token("c", tag="NN", dep="dobj"), Token("b", tag="VBD", dep="ROOT")])
    assert dependency_distance(a, a) == 0 and dependency_distance(a, b) == 2
    assert sit_verdict(a, b, 0, SIT) == "dependency_changed"
    assert sit_verdict(a, b, 0, SIT.model_copy(update={"max_dep_distance": None})) is None


# ---- PatInv -------------------------------------------------------------------------------------------
PATINV = PatInvConfig(tags=["VB", "RB"], top_k=50, min_score=0.0, min_chars=2, skip_edges=True,
                      same_tag_prefix=True, same_tree_shape=True, non_synonym=True)
WORDNET = TinyWordNet([["like", "love", "enjoy"], ["dog", "hound"], ["quickly", "rapidly"], ["hate", "detest"]])


def test_patinv_replaces_a_verb_or_adverb_with_a_non_synonym():
    s = make_source("John quickly told Mary that he liked the dog .", [[(0, 1), (5, 6)]])
    fill = TableFill({"liked": [("loved", 0.5), ("likes", 0.4), ("barked", 0.3), ("was", 0.2)],
                      "quickly": [("rapidly", 0.5), ("slowly", 0.4)], "dog": [("cat", 0.9)],
                      "told": [("saw", 0.5), ("stated", 0.4)]})
    lex = Lexicon(WORDNET)
    got = PatInv(PATINV, FakeParser(), fill, lex).generate([s], M=20, seed=0)
    news = [(changed(s, p), p.edits[0].new[0]) for p in got.followups[0]]
    assert news == [([1], "slowly"), ([2], "saw"), ([2], "stated"), ([6], "barked")]
    for (_, new), p in zip(news, got.followups[0], strict=True):
        old = s.sentence.words[p.edits[0].position]
        assert lex.verdict(old, new) is None
        assert new.lower() not in lex.synonyms(lex.base(old))
    # loved: a WordNet synonym of like; likes: the same stem; was: a stop word; rapidly: a synonym
    assert got.dropped == Counter({"synonym": 2, "same_stem": 1, "stop_word": 1})
    assert not any(pos == 9 for _, pos in fill.requests)  # nouns are not PatInv's (dog), edges never


def test_patinv_tree_shape_ignores_labels_but_not_structure():
    flat = Tree("S", [Tree("NP", [Tree("NN", token=0)]), Tree("VP", [Tree("VBD", token=1)])])
    relabelled = Tree("X", [Tree("Y", [Tree("JJ", token=0)]), Tree("Z", [Tree("VBZ", token=1)])])
    deeper = Tree("S", [Tree("NP", [Tree("NP", [Tree("NN", token=0)])]), Tree("VP", [Tree("VBD", token=1)])])
    assert tree_shape(flat) == tree_shape(relabelled) != tree_shape(deeper)


# ---- CAT ----------------------------------------------------------------------------------------------
CAT = CatConfig(top_k=100, min_score=0.05, same_tags=True, min_similarity=0.8)


def test_cat_keeps_close_follow_ups_of_any_word_ranked_by_similarity():
    s = make_source("the big dog liked the small cat", [[(0, 3), (4, 7)]])
    fill = TableFill({"big": [("huge", 0.5), ("quickly", 0.4), ("large", 0.01)],
                      "the": [("a", 0.6)], "liked": [("loved", 0.9)], "dog": [("hound", 0.2)]})
    got = Cat(CAT, FakeParser(), fill, BagEmbedder()).generate([s], M=20, seed=0)
    sims = [p.score for p in got.followups[0]]
    assert sims == sorted(sims, reverse=True) and all(x >= 0.8 for x in sims)
    texts = followup_texts(s, got)
    assert "the huge dog liked the small cat" in texts and "a big dog liked the small cat" in texts
    assert "the big dog loved the small cat" in texts  # any part of speech
    assert not any("quickly" in t or "large" in t for t in texts)  # tag changed / below min_score
    assert got.dropped["tags_changed"] == 1
    # the same sentence with every word replaced is far: nothing passes a strict threshold
    strict = Cat(CAT.model_copy(update={"min_similarity": 0.99}), FakeParser(), fill, BagEmbedder())
    assert strict.generate([s], M=20, seed=0).followups == [[]]
    # every position that is a word is asked (the fill itself decides which get substitutes)
    assert {pos for _, pos in fill.requests} == set(range(7))


# ---- CheckList ----------------------------------------------------------------------------------------
CHECKLIST = CheckListConfig(recipes=["typos", "contractions", "change_names", "change_location", "change_number",
                                     "punctuation"], typo_samples=1, typos=1, draws=20, names=10, name_pool=100,
                            locations=10, city_pool=100, country_pool=50, numbers=10)


def test_typos_swap_neighbouring_characters_within_or_across_words():
    words, ws = ["his", "country", "won"], [" ", " ", ""]
    assert swap_characters(words, ws, 0) == ["ihs", "country", "won"]
    assert swap_characters(words, ws, 2) == ["hi", "scountry", "won"]  # the letter moves across the space
    assert swap_characters(words, ws, 3) == ["hisc", "ountry", "won"]
    assert swap_characters(["a", "b"], [" ", ""], 0) is None  # would empty "a"
    assert swap_characters(["dog", "."], ["", ""], 2) == ["do.", "g"]


def test_checklist_name_change_replaces_a_person_consistently():
    s = make_source("John said John liked the dog", [[(0, 1), (2, 3)]], ents={0: "B-PERSON", 2: "B-PERSON"})
    cl = CheckList(CHECKLIST.model_copy(update={"recipes": ["change_names"]}))
    got = cl.generate([s], M=20, seed=3)
    assert got.followups[0]
    for p in got.followups[0]:
        w = words_of(s, p)
        assert w[0] == w[2] != "John" and w[1:2] + w[3:] == ["said", "liked", "the", "dog"]
        assert changed(s, p) == [0, 2]
    full = make_source("Mary Smith saw her dog", [[(0, 2), (3, 4)]], ents={0: "B-PERSON", 1: "I-PERSON"})
    for p in cl.generate([full], M=20, seed=3).followups[0]:
        w = words_of(full, p)
        assert set(changed(full, p)) <= {0, 1} and w[:2] != ["Mary", "Smith"] and w[2:] == ["saw", "her", "dog"]
    unknown = make_source("Zorblax saw the dog", [[(0, 1), (0, 1)]], ents={0: "B-PERSON"})
    assert cl.generate([unknown], M=20, seed=3).followups == [[]]


def test_checklist_contractions_locations_numbers_and_punctuation():
    s = make_source("he is not sure it is 30 miles from Boston", [[(0, 1), (4, 5)]], ents={9: "B-GPE"})
    c = contract(s.sentence)
    # pairs are contracted left to right, a word once (CheckList's regex): "he is not" -> "he 's not"
    assert c is not None and words_of(s, c) == ["he", "'s", "not", "sure", "it", "'s", "30", "miles", "from", "Boston"]
    assert c.edits[0].prev_ws == ""
    back = make_source("he 's not here , it is n't", [[(0, 1), (5, 6)]])
    e = expand_contractions(back.sentence)
    assert e is not None and words_of(back, e) == ["he", "is", "not", "here", ",", "it", "is", "not"]
    assert set(number_replacements("30", random.Random(0), 10)) <= {str(v) for v in range(23, 38)} - {"30"}
    assert number_replacements("4", random.Random(0), 10) == []
    cl = CheckList(CHECKLIST.model_copy(update={"recipes": ["change_location", "change_number", "punctuation"]}))
    got = cl.generate([s], M=20, seed=1).followups[0]
    recipes = Counter(p.recipe for p in got)
    assert recipes["change_location"] >= 1 and recipes["change_number"] >= 1 and recipes["punctuation"] == 1
    for p in got:
        w = words_of(s, p)
        if p.recipe == "change_location":
            assert w[:9] == s.sentence.words[:9] and w[9] != "Boston" and len(w) == 10
        if p.recipe == "punctuation":  # no final stop: one is added, carried by the last word
            assert w[-2:] == ["Boston", "."]
    dot = make_source("the dog barked .", [[(0, 2), (0, 2)]])
    dot.sentence.tokens[3].pos = "PUNCT"
    (strip,) = cl.generate([dot], M=20, seed=1).followups[0]
    assert words_of(dot, strip) == ["the", "dog", "barked"]


def test_checklist_is_deterministic_under_a_seed():
    s = make_source("John said that the big dog liked him very much today", JOHN_HIM, ents={0: "B-PERSON"})
    cl = CheckList(CHECKLIST)
    a, b = cl.generate([s], M=20, seed=5), cl.generate([s], M=20, seed=5)
    assert a.followups == b.followups and a.followups[0]
    others = [cl.generate([s], M=20, seed=k).followups for k in range(6, 10)]
    assert any(o != a.followups for o in others)


# ---- TextAttack ---------------------------------------------------------------------------------------
TEXTATTACK = TextAttackConfig(recipes=["char_swap", "eda_synonym", "eda_insert", "eda_swap", "eda_delete"],
                              pct_words_to_swap=0.1, max_deletions=1, skip_stopwords=True, draws_per_followup=5)


def test_eda_swap_keeps_the_token_multiset_and_never_touches_stop_words():
    s = make_source("John quickly told Mary that he liked the big dog today .", [[(0, 1), (5, 6)]])
    ta = TextAttack(TEXTATTACK.model_copy(update={"recipes": ["eda_swap"], "pct_words_to_swap": 0.3}), WORDNET)
    got = ta.generate([s], M=10, seed=0).followups[0]
    assert got
    stops = ta.stops
    for p in got:
        w = words_of(s, p)
        assert Counter(w) == Counter(s.sentence.words) and w != s.sentence.words
        assert all(s.sentence.words[i].lower() not in stops and s.sentence.words[i] != "." for i in changed(s, p))


def test_textattack_recipes_edit_as_they_should():
    s = make_source("John quickly told Mary that he liked the big dog today .", [[(0, 1), (5, 6)]])
    ta = TextAttack(TEXTATTACK, WORDNET)
    got = ta.generate([s], M=20, seed=1)
    by = {}
    for p in got.followups[0]:
        by.setdefault(p.recipe, []).append(p)
    assert set(by) == {"char_swap", "eda_synonym", "eda_insert", "eda_swap", "eda_delete"}
    for p in by["char_swap"]:
        (e,) = p.edits
        old = s.sentence.words[e.position]
        assert sorted(e.new[0]) == sorted(old) and e.new[0] != old
    for p in by["eda_synonym"]:
        (e,) = p.edits
        assert e.new[0].lower() in {"love", "enjoy", "hound", "rapidly"}
    for p in by["eda_delete"]:
        (e,) = p.edits
        assert e.new == () and len(words_of(s, p)) == len(s.sentence.words) - 1
    for p in by["eda_insert"]:
        (e,) = p.edits
        assert e.keep is not None and e.new[e.keep] == s.sentence.words[e.position]
        # carried by a token outside the mentions, unless John is the only neighbour (before the first word)
        assert e.position != 5 and (e.position != 0 or e.keep == len(e.new) - 1)
    assert len({tuple(words_of(s, p)) for p in got.followups[0]}) == len(got.followups[0])
    again = ta.generate([s], M=20, seed=1)
    assert again.followups == got.followups
    assert ta.generate([s], M=20, seed=2).followups != got.followups


def test_a_baseline_s_follow_ups_of_a_source_do_not_depend_on_the_batch():
    a = make_source("John quickly told Mary that he liked the big dog today .", [[(0, 1), (5, 6)]], doc_id="a")
    b = make_source("the big dog liked the small cat", [[(0, 3), (4, 7)]], doc_id="b")
    ta = TextAttack(TEXTATTACK, WORDNET)
    together = ta.generate([a, b], M=20, seed=1).followups
    assert together == ta.generate([a], M=20, seed=1).followups + ta.generate([b], M=20, seed=1).followups


def test_parts_are_the_only_way_in():
    parts = FakeParts(fill=TableFill({}), wordnet=WORDNET, embedder=BagEmbedder())
    for cls, cfg in ((Sit, SIT), (PatInv, PATINV), (Cat, CAT), (CheckList, CHECKLIST), (TextAttack, TEXTATTACK)):
        gen = cls.from_config(cfg, parts)
        got = gen.generate([make_source(TEXT, JOHN_HIM)], M=20, seed=0)
        assert len(got.followups) == 1
