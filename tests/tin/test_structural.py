"""The structural transformation on hand-made trees (the paper's three rules)."""

from __future__ import annotations

from lingtest.data.model import Entity, Tree
from lingtest.tin.mutant import MR2, TinSource
from lingtest.tin.transformations import TRANSFORMATIONS
from lingtest.tin.transformations.structural import Structural, interrogative


def source(ptb: str, entities=(), lemmas=None, id="s1") -> TinSource:
    tree, words = Tree.from_bracketed(ptb)
    return TinSource(id=id, tokens=words, entities=list(entities), tree=tree, lemmas=lemmas)


def text(m) -> str:
    return " ".join(m.tokens)


def test_paper_example_be_verb_moves_to_the_front():
    # the paper's Fig. 3 (A): "Twitter" tagged as a common noun and predicted as no entity
    s = source("(S (NP (NN Twitter)) (VP (VBD was) (NP (DT the) (JJ obvious) (NN solution))) (. .))")
    m = interrogative(s)
    assert text(m) == "Was twitter the obvious solution ?"
    assert m.relation == MR2 and m.params["rule"] == "be"
    assert m.restore == {1: "Twitter"} and m.restored_tokens()[1] == "Twitter"
    assert m.alignment.to_followup == (1, 0, 2, 3, 4, 5)


def test_proper_noun_or_entity_subject_keeps_its_capital():
    nnp = source("(S (NP (NNP Twitter)) (VP (VBD was) (NP (DT the) (JJ obvious) (NN solution))) (. .))")
    assert text(interrogative(nnp)) == "Was Twitter the obvious solution ?"
    ent = source("(S (NP (NN Twitter)) (VP (VBD was) (NP (DT the) (NN solution))) (. .))",
                 entities=[Entity(0, 1, "ORG")])
    m = interrogative(ent)
    assert text(m) == "Was Twitter the solution ?" and m.restore == {}
    # the entity moved with its token
    assert m.alignment.map_entities(ent.entities) == [Entity(1, 2, "ORG")]
    pron = source("(S (NP (PRP I)) (VP (VBP am) (ADJP (JJ happy))) (. .))")
    assert text(interrogative(pron)) == "Am I happy ?"


def test_modal_and_auxiliary_move_to_the_front():
    modal = source("(S (NP (DT The) (NN company)) (VP (MD will) (VP (VB announce) (NP (NNS results))))"
                   " (. .))")
    m = interrogative(modal)
    assert text(m) == "Will the company announce results ?" and m.params["rule"] == "modal"
    aux = source("(S (NP (PRP He)) (VP (VBZ has) (VP (VBN faced) (NP (NNS floods)))) (. .))")
    m = interrogative(aux)
    assert text(m) == "Has he faced floods ?" and m.params["rule"] == "aux"
    neg = source("(S (NP (PRP He)) (VP (VBD did) (RB not) (VP (VB go))) (. .))")
    assert text(interrogative(neg)) == "Did he not go ?"


def test_other_verbs_get_do_support_by_tense_and_are_lemmatised():
    cried = source("(S (NP (PRP He)) (VP (VBD cried)) (. .))", lemmas=["he", "cry", "."])
    m = interrogative(cried)
    assert text(m) == "Did he cry ?" and m.params["rule"] == "do-support"
    assert m.alignment.to_followup == (1, 2, 3)  # "Did" is new
    eats = source("(S (NP (PRP She)) (VP (VBZ eats) (NP (DT a) (NN burger))) (. .))",
                  lemmas=["she", "eat", "a", "burger", "."])
    assert text(interrogative(eats)) == "Does she eat a burger ?"
    eat = source("(S (NP (PRP I)) (VP (VBP eat) (NP (DT a) (NN burger))) (. .))")
    assert text(interrogative(eat)) == "Do I eat a burger ?"  # the paper's "do", not the code's "Did"
    has = source("(S (NP (PRP He)) (VP (VBZ has) (NP (DT a) (NN car))) (. .))",
                 lemmas=["he", "have", "a", "car", "."])
    assert text(interrogative(has)) == "Does he have a car ?"  # main-verb "have": do-support


def test_without_a_parse_lemma_the_verb_is_lemmatised_by_lemminflect(monkeypatch):
    import lingtest.tin.transformations.structural as structural

    calls = []

    def fake(word):  # lemminflect itself takes seconds to load; that it is asked is what is checked
        calls.append(word)
        return "eat"

    monkeypatch.setattr(structural, "lemmatize_verb", fake)
    eats = source("(S (NP (PRP She)) (VP (VBZ EATS) (NP (NNS burgers))) (. .))")
    assert text(interrogative(eats)) == "Does she EAT burgers ?" and calls == ["EATS"]


def test_no_rule_applies():
    assert interrogative(source("(S (NP (PRP It)) (VP (VBZ is)) (. .))")) is None  # bare be
    assert interrogative(source("(NP (NNP Peter) (NNP Blackburn))")) is None  # no clause
    contraction = source("(S (NP (PRP He)) (VP (VBZ 's) (ADJP (JJ ill))) (. .))")
    assert interrogative(contraction) is None
    assert interrogative(TinSource(id="x", tokens=["a"], entities=[])) is None  # no tree


def test_which_clauses_are_inverted():
    # the first S in breadth-first order is the main clause, even with an SBAR below
    s = source("(S (NP (PRP He)) (VP (VBD said) (SBAR (S (NP (PRP she)) (VP (VBD was) (ADJP (JJ ill))))))"
               " (. .))", lemmas=["he", "say", "she", "be", "ill", "."])
    assert text(interrogative(s)) == "Did he say she was ill ?"
    # coordinated clauses: the first one does not end the sentence, so no question
    t = source("(S (S (NP (PRP He)) (VP (VBD left))) (CC and)"
               " (S (NP (PRP she)) (VP (VBD was) (ADJP (JJ sad)))) (. .))",
               lemmas=["he", "leave", "and", "she", "be", "sad", "."])
    assert interrogative(t) is None  # not "Did he leave and she was sad ?"
    # lingtest's stricter reading of S -> NP VP: the clause starts the sentence (after at most a fronted
    # adverbial, which stays in front), the search does not enter a VP, and only adverbs, parentheticals and
    # commas separate subject and VP
    front = source("(S (PP (IN In) (NP (NN fact))) (, ,) (S (NP (PRP she)) (VP (VBD was) (ADJP (JJ sad))))"
                   " (. .))")
    assert text(interrogative(front)) == "In fact , was she sad ?"
    flat = source("(S (PP (IN In) (NP (NNP Monday) (POS 's)) (NN game)) (, ,) (NP (PRP he)) (VP (VBD left)) (. .))",
                  lemmas=["in", "Monday", "'s", "game", ",", "he", "leave", "."])
    m = interrogative(flat)
    assert text(m) == "In Monday 's game , did he leave ?" and m.restore == {}  # mid-sentence: no case changed
    late = source("(S (NP (NN Result)) (PP (IN In) (NP (NN fact))) (, ,) (NP (PRP she)) (VP (VBD left)) (. .))")
    assert interrogative(late) is None  # only a fronted adverbial may come first
    small = source("(S (CC But) (S (NP (NNP China)) (VP (VBD saw) (S (NP (PRP$ their) (NN luck))"
                   " (VP (VB desert) (NP (PRP them)))))) (. .))",
                   lemmas=["but", "China", "see", "their", "luck", "desert", "them", "."])
    assert interrogative(small) is None  # not "But China saw do their luck desert them ?"
    colon = source("(S (NP (NN Result)) (: :) (NP (NNP Pakistan)) (VP (VBD won)) (. .))")
    assert interrogative(colon) is None
    adv = source("(S (NP (PRP He)) (ADVP (RB also)) (VP (VBD won)) (. .))", lemmas=["he", "also", "win", "."])
    assert text(interrogative(adv)) == "Did he also win ?"
    quoted = source("(S (`` ``) (NP (PRP He)) (VP (MD can) (VP (VB go))) (. .))")
    assert text(interrogative(quoted)) == "`` Can he go ?"  # opening quotes stay in front


def test_question_mark_before_closing_quote_and_no_period():
    q = source("(S (NP (PRP He)) (VP (MD can) (VP (VB go))) (. .) ('' ''))")
    assert text(interrogative(q)) == "Can he go ? ''"
    n = source("(S (NP (PRP He)) (VP (MD can) (VP (VB go))))")
    assert interrogative(n) is None  # no period: a results line or a headline, not "Can he go"


def test_registry_and_batch_generation():
    cls = TRANSFORMATIONS.get("structural")
    assert cls is Structural and cls.relation == MR2
    a = source("(S (NP (PRP He)) (VP (MD can) (VP (VB go))) (. .))", id="a")
    b = source("(NP (NNP Peter))", id="b")
    out = Structural().generate([a, b])
    assert [m.seed_id for m in out] == ["a"]
