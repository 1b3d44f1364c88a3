"""The whole-constituent rules on hand-parsed sentences: the shuffle moves whole names among entities of one
role and word class, the phrase level replaces whole common-noun phrases by phrases of the same shape and
number, the structural transformation asks only what makes a question. Each rule: what it keeps, what it
refuses, and that without the parse it refuses nothing."""

from __future__ import annotations

from lingtest.data.model import Entity, Tree
from lingtest.tin.mutant import TinSource
from lingtest.tin.transformations.phrase_level import PhraseLevel, phrase_shape_ok
from lingtest.tin.transformations.shuffle import EntityShuffle, slot_key, whole_phrase
from lingtest.tin.transformations.structural import interrogative, unaskable
from tests.tin.fakes import FakeTagger, parsed


def shuffler(whole_phrases: bool = True) -> EntityShuffle:
    return EntityShuffle(max_exhaustive=4, samples=8, seed=3, whole_phrases=whole_phrases)


def texts(mutants) -> list[str]:
    return [" ".join(m.tokens) for m in mutants]


# ---- shuffle --------------------------------------------------------------------------------------------
BOMB = parsed("A/DT/1/det bomb/NN/8/nsubj on/IN/1/prep a/DT/5/det TWA/NNP/5/compound plane/NN/2/pobj "
              "near/IN/5/prep Athens/NNP/6/pobj killed/VBD/-1/ROOT four/CD/11/nummod U.S./NNP/11/compound "
              "citizens/NNS/8/dobj in/IN/8/prep Brazil/NNP/12/pobj ././8/punct",
              [Entity(4, 5, "ORG"), Entity(7, 8, "LOC"), Entity(10, 11, "LOC"), Entity(13, 14, "LOC")])


def test_shuffle_moves_entities_only_among_those_of_the_same_role():
    assert slot_key(BOMB, Entity(7, 8, "LOC")) == ("LOC", "argument", "proper")
    assert slot_key(BOMB, Entity(10, 11, "LOC")) == ("LOC", "modifier", "proper")
    # Athens and Brazil trade places; U.S. modifies "citizens" and stays ("four Athens citizens" refused)
    assert texts(shuffler().mutants_of(BOMB)) == [
        "A bomb on a TWA plane near Brazil killed four U.S. citizens in Athens ."]
    assert shuffler().mutants_of(BOMB)[0].params["group"] == ["LOC", "argument", "proper", "none"]
    # every LOC by label alone (the public TIN code): 3! - 1 permutations, U.S. among them
    assert len(shuffler(whole_phrases=False).mutants_of(BOMB)) == 5
    # without dependencies the roles are unknown: every whole LOC shares one group
    bare = TinSource("s", BOMB.tokens, BOMB.entities, tags=BOMB.tags)
    assert {slot_key(bare, e)[1] for e in bare.entities} == {"unknown"}
    assert len(shuffler().mutants_of(bare)) == 5


def test_shuffle_keeps_determiners_possessives_and_word_classes_apart():
    the = parsed("flights/NNS/-1/ROOT from/IN/0/prep the/DT/3/det U.S./NNP/1/pobj to/IN/0/prep "
                 "Athens/NNP/4/pobj", [Entity(3, 4, "LOC"), Entity(5, 6, "LOC")])
    assert [slot_key(the, e)[1] for e in the.entities] == ["determined argument", "argument"]
    assert shuffler().mutants_of(the) == []  # not "flights from the Athens to U.S."
    dates = parsed("Thursday/NNP/2/poss 's/POS/0/case fighting/NN/4/nsubj in/IN/2/prep 1982/CD/3/pobj "
                   "ended/VBD/-1/ROOT on/IN/5/prep Friday/NNP/6/pobj",
                   [Entity(0, 1, "DATE"), Entity(4, 5, "DATE"), Entity(7, 8, "DATE")])
    keys = [slot_key(dates, e) for e in dates.entities]
    assert keys == [("DATE", "possessive", "weekday"), ("DATE", "argument", "year"),
                    ("DATE", "argument", "weekday")]
    assert shuffler().mutants_of(dates) == []  # not "on 1982", "in Friday", "1982 's fighting"
    months = parsed("It/PRP/1/nsubj said/VBD/-1/ROOT/say on/IN/1/prep Friday/NNP/2/pobj it/PRP/6/nsubj "
                    "planned/VBD/1/ccomp/plan a/DT/7/det refunding/NN/6/dobj for/IN/7/prep January/NNP/8/pobj",
                    [Entity(3, 4, "DATE"), Entity(9, 10, "DATE")])
    assert shuffler().mutants_of(months) == []  # not "on January ... for Friday"
    un = parsed("Interfax/NNP/1/nsubj said/VBD/-1/ROOT/say she/PRP/3/nsubj served/VBD/1/ccomp at/IN/3/prep "
                "the/DT/7/det United/NNP/7/compound Nations/NNP/4/pobj",
                [Entity(0, 1, "ORG"), Entity(5, 8, "ORG")])
    assert [slot_key(un, e)[1] for e in un.entities] == ["argument", "determined argument"]
    assert shuffler().mutants_of(un) == []  # not "the United Nations said she served at Interfax"


def test_only_arguments_and_adjectives_move_and_no_piece_of_a_name():
    years = parsed("bombs/NNS/4/nsubj in/IN/0/prep 1982/CD/1/pobj and/CC/0/cc 1986/CD/0/conj killed/VBD/-1/ROOT "
                   "two/CD/7/nummod men/NNS/5/dobj in/IN/5/prep 10/CD/8/pobj days/NNS/9/npadvmod",
                   [Entity(2, 3, "DATE"), Entity(4, 5, "DATE"), Entity(6, 7, "CARDINAL"), Entity(9, 10, "CARDINAL")])
    assert texts(shuffler().mutants_of(years)) == ["bombs in 1986 and 1982 killed two men in 10 days"]
    nouns = parsed("FBI/NNP/1/compound agents/NNS/2/nsubj boarded/VBD/-1/ROOT a/DT/5/det TWA/NNP/5/compound "
                   "airliner/NN/2/dobj", [Entity(0, 1, "ORG"), Entity(4, 5, "ORG")])
    assert slot_key(nouns, nouns.entities[0])[1] == "modifier"
    assert shuffler().mutants_of(nouns) == []  # not "TWA agents boarded a FBI airliner"
    adjectives = parsed("French/JJ/1/amod troops/NNS/2/nsubj met/VBD/-1/ROOT German/JJ/4/amod "
                        "officers/NNS/2/dobj", [Entity(0, 1, "MISC"), Entity(3, 4, "MISC")])
    assert texts(shuffler().mutants_of(adjectives)) == ["German troops met French officers"]
    owners = parsed("NATO/NNP/2/poss 's/POS/0/case plans/NNS/4/nsubj and/CC/2/cc Albright/NNP/6/poss 's/POS/4/case "
                    "biography/NN/2/conj", [Entity(0, 1, "ORG"), Entity(4, 5, "ORG")])
    assert shuffler().mutants_of(owners) == []  # not "Albright 's plans and NATO 's biography"
    ministry = parsed("Bre-X/NNP/1/nsubj told/VBD/-1/ROOT the/DT/3/det Mines/NNP/1/dobj and/CC/3/cc "
                      "Energy/NNP/6/compound Ministry/NNP/3/conj", [Entity(0, 1, "ORG"), Entity(5, 7, "ORG")])
    assert not whole_phrase(ministry, ministry.entities[1]) and shuffler().mutants_of(ministry) == []
    pair = parsed("France/NNP/3/nsubj and/CC/0/cc Canada/NNP/0/conj won/VBD/-1/ROOT",
                  [Entity(0, 1, "LOC"), Entity(2, 3, "LOC")])
    assert texts(shuffler().mutants_of(pair)) == ["Canada and France won"]


def test_entities_headed_by_common_nouns_stay():
    grain = parsed("Grain/NN/3/nsubj and/CC/0/cc soybean/NN/0/conj receipts/NNS/-1/ROOT in/IN/3/prep "
                   "bushels/NNS/4/pobj", [Entity(2, 3, "PER"), Entity(5, 6, "PER")])
    assert [slot_key(grain, e)[2] for e in grain.entities] == ["noun", "noun"]
    assert shuffler().mutants_of(grain) == []  # not "Grain and bushels receipts in soybean"
    assert len(shuffler(whole_phrases=False).mutants_of(grain)) == 1


def test_a_piece_of_a_name_is_not_a_whole_phrase_even_as_a_preterminal():
    tree = "(S (NP (NNP Camilla) (NNP Martin)) (VP (VBD beat) (NP (NNP Wang) (NNP Chen))))"
    cut = parsed("Camilla/NNP/1/compound Martin/NNP/2/nsubj beat/VBD/-1/ROOT Wang/NNP/4/compound "
                 "Chen/NNP/2/dobj", [Entity(0, 1, "PER"), Entity(1, 2, "PER"), Entity(3, 5, "PER")], tree)
    assert [whole_phrase(cut, e) for e in cut.entities] == [False, False, True]
    assert shuffler().mutants_of(cut) == []  # not "Martin Camilla beat Wang Chen"
    whole = parsed("Camilla/NNP/1/compound Martin/NNP/2/nsubj beat/VBD/-1/ROOT Wang/NNP/4/compound "
                   "Chen/NNP/2/dobj", [Entity(0, 2, "PER"), Entity(3, 5, "PER")], tree)
    assert texts(shuffler().mutants_of(whole)) == ["Wang Chen beat Camilla Martin"]


# ---- phrase level ---------------------------------------------------------------------------------------
class TableIndex:
    def __init__(self, table):
        self.table = table

    def neighbours(self, queries, topn):
        return [self.table.get(q.lower(), [])[:topn] for q in queries]


TAGS = {"Goals": "NNS", "Goal": "NN", "Scores": "NNS", "rose": "VBD", "against": "IN", "points": "NNS",
        "too": "RB", "many": "JJ", "marks": "NNS", ".": ".", "We": "PRP", "win": "VBP", "as": "RB", "79": "CD",
        "seats": "NNS", "It": "PRP", "is": "VBZ", "everything": "NN", "things": "NNS", "the": "DT",
        "best": "JJS", "point": "NN"}


def phrase_source(ptb: str) -> TinSource:
    tree, words = Tree.from_bracketed(ptb)
    return TinSource("s", words, [], tree=tree)


def test_phrase_replacements_keep_number_and_shape():
    src = phrase_source("(S (NP (NNS Goals)) (VP (VBD rose) (PP (IN against) (NP (NNS points)))) (. .))")
    index = TableIndex({"goals": [("goal", 0.9), ("scores", 0.8)],
                        "points": [("too many points", 0.9), ("point", 0.85), ("marks", 0.8)]})
    checked = PhraseLevel(index, topn=5, min_score=0.5, max_words=3, tagger=FakeTagger(TAGS))
    assert texts(checked.generate([src])) == ["Scores rose against points .", "Goals rose against marks ."]
    assert checked.refused == {"number": 2, "shape": 1}  # goal, point; too many points
    unchecked = PhraseLevel(index, topn=5, min_score=0.5, max_words=3)
    assert len(unchecked.generate([src])) == 5


def test_only_whole_common_noun_phrases_are_replaced():
    assert phrase_shape_ok(["JJ", "NNS"], ["fresh", "loans"])
    assert not phrase_shape_ok(["RB", "JJ", "CD", "NNS"], ["as", "many", "79", "seats"])  # a number inside
    assert not phrase_shape_ok(["NN"], ["everything"])  # a pronoun-like noun
    assert not phrase_shape_ok(["NNS", "IN"], ["goals", "for"])  # no noun at the end
    index = TableIndex({"as many 79 seats": [("seats", 0.9)], "everything": [("things", 0.9)]})
    seats = phrase_source("(S (NP (PRP We)) (VP (VBP win) (NP (RB as) (JJ many) (CD 79) (NNS seats))) (. .))")
    every = phrase_source("(S (NP (PRP It)) (VP (VBZ is) (NP (DT the) (JJS best)) (PP (IN for) (NP (NN everything)))))")
    checked = PhraseLevel(index, topn=5, min_score=0.5, max_words=3, tagger=FakeTagger(TAGS))
    assert checked.slots(seats) == [] and checked.slots(every) == []
    assert PhraseLevel(index, topn=5, min_score=0.5, max_words=3).slots(seats) == [(2, 2, 6)]


class NounLexicon:
    """Nouns WordNet relates (the head rule's only look-up)."""

    def nouns_related(self, a, b):
        return {a, b} == {"prison", "jail"}


def test_a_new_head_noun_must_be_a_wordnet_relative_and_the_source_a_sentence():
    tags = TAGS | {"He": "PRP", "left": "VBD", "freed": "VBN", "from": "IN", "prison": "NN", "jail": "NN",
                   "crime": "NN", "Freed": "VBN", "early": "RB"}
    src = phrase_source("(S (NP (PRP He)) (VP (VBD left) (VP (VBN freed) (PP (IN from) (NP (NN prison))))) (. .))")
    index = TableIndex({"prison": [("jail", 0.9), ("crime", 0.8)]})
    checked = PhraseLevel(index, topn=5, min_score=0.5, max_words=3, tagger=FakeTagger(tags), lexicon=NounLexicon())
    assert texts(checked.generate([src])) == ["He left freed from jail ."]
    assert checked.refused == {"unrelated head": 1}  # "crime" is no kind of prison
    # no finite verb: a headline or a table header gets no phrase mutants
    header = phrase_source("(S (VP (VBN Freed) (PP (IN from) (NP (NN prison))) (ADVP (RB early))) (. .))")
    assert checked.slots(header) == []
    assert PhraseLevel(index, topn=5, min_score=0.5, max_words=3).slots(header) == [(2, 2, 3)]


# ---- structural -----------------------------------------------------------------------------------------
def test_questions_only_from_a_clause_that_ends_the_sentence_with_a_period():
    quoted = parsed("Our/PRP$/1/poss statistics/NNS/2/nsubj are/VBP/7/ccomp highest/JJS/2/acomp ,/,/7/punct "
                    "''/''/7/punct Hakme/NNP/7/nsubj said/VBD/-1/ROOT/say ././7/punct",
                    tree="(S (S (NP (PRP$ Our) (NNS statistics)) (VP (VBP are) (ADJP (JJS highest)))) (, ,) "
                         "('' '') (NP (NNP Hakme)) (VP (VBD said)) (. .))")
    assert interrogative(quoted) is None  # not 'Are our statistics highest , " Hakme said ?'
    results = parsed("Martin/NNP/1/nsubj beat/VBD/-1/ROOT/beat Chen/NNP/1/dobj 11-0/CD/1/npadvmod",
                     tree="(S (NP (NNP Martin)) (VP (VBD beat) (NP (NNP Chen)) (NP (CD 11-0))))")
    assert interrogative(results) is None  # no period: not "Did Martin beat Chen 11-0"
    fine = parsed("Martin/NNP/1/nsubj beat/VBD/-1/ROOT/beat Chen/NNP/1/dobj ././1/punct",
                  tree="(S (NP (NNP Martin)) (VP (VBD beat) (NP (NNP Chen))) (. .))")
    assert texts([interrogative(fine)]) == ["Did Martin beat Chen ?"]


def _strip(source: TinSource) -> TinSource:
    return TinSource(source.id, source.tokens, source.entities, tags=source.tags, lemmas=source.lemmas,
                     tree=source.tree)


def test_unaskable_clauses_read_from_the_dependency_parse():
    coordinated = parsed("He/PRP/1/nsubj walked/VBD/-1/ROOT/walk one/CD/1/npadvmod ,/,/1/punct "
                         "allowed/VBD/1/dep/allow hits/NNS/4/dobj ././1/punct",
                         tree="(S (NP (PRP He)) (VP (VBD walked) (NP (CD one)) (, ,) (VP (VBD allowed) "
                              "(NP (NNS hits)))) (. .))")
    reported = parsed("He/PRP/1/nsubj said/VBD/-1/ROOT/say she/PRP/3/nsubj won/VBD/6/ccomp/win ,/,/6/punct "
                      "officials/NNS/6/nsubj said/VBD/1/ccomp/say ././1/punct",
                      tree="(S (NP (PRP He)) (VP (VBD said) (SBAR (S (S (NP (PRP she)) (VP (VBD won))) (, ,) "
                           "(NP (NNS officials)) (VP (VBD said))))) (. .))")
    headline = parsed("Death/NN/1/compound toll/NN/2/nsubj rose/VBD/-1/ROOT/rise ././2/punct",
                      tree="(S (NP (NN Death) (NN toll)) (VP (VBD rose)) (. .))")
    note = parsed("NOTE/NN/2/nmod -/:/2/punct figures/NNS/3/nsubj refer/VBP/-1/ROOT to/IN/3/prep "
                  "value/NN/4/pobj ././3/punct",
                  tree="(S (NP (NN NOTE) (: -) (NNS figures)) (VP (VBP refer) (PP (IN to) (NP (NN value)))) (. .))")
    for source, why in ((coordinated, "coordinated verb"), (reported, "reporting clause"),
                        (headline, "bare singular subject"), (note, "dash in subject")):
        assert interrogative(source) is None, why
        assert interrogative(_strip(source)) is not None  # without dependencies: asked as before
    clause = next(n for n in headline.tree.subtrees() if n.label == "NP")
    assert unaskable(headline, 2, clause, "do-support") == "bare singular subject"
    determined = parsed("The/DT/2/det death/NN/2/compound toll/NN/3/nsubj rose/VBD/-1/ROOT/rise ././3/punct",
                        tree="(S (NP (DT The) (NN death) (NN toll)) (VP (VBD rose)) (. .))")
    assert texts([interrogative(determined)]) == ["Did the death toll rise ?"]


def test_a_verb_sharing_its_subject_with_a_later_one_and_capitals_inside_names():
    newmont = parsed("Newmont/NNP/1/nsubj said/VBD/-1/ROOT/say the/DT/3/det companies/NNS/4/nsubj met/VBD/1/ccomp "
                     ",/,/1/punct though/IN/7/mark declined/VBD/4/advcl/decline ././1/punct",
                     tree="(S (NP (NNP Newmont)) (VP (VBD said) (SBAR (S (NP (DT the) (NNS companies)) (VP (VBD met))))"
                          " (, ,) (SBAR (IN though) (S (VP (VBD declined))))) (. .))")
    assert interrogative(newmont) is None  # not "Did Newmont say the companies met, though declined?"
    three = parsed("Three/CD/2/nummod FBI/NNP/2/compound agents/NNS/3/nsubj said/VBD/-1/ROOT/say ././3/punct",
                   [Entity(0, 1, "CARDINAL"), Entity(1, 2, "ORG")],
                   tree="(S (NP (CD Three) (NNP FBI) (NNS agents)) (VP (VBD said)) (. .))")
    m = interrogative(three)
    assert texts([m]) == ["Did three FBI agents say ?"] and m.restore == {1: "Three"}
    name = parsed("Wang/NNP/1/compound Chen/NNP/2/nsubj won/VBD/-1/ROOT/win ././2/punct", [Entity(0, 2, "PER")],
                  tree="(S (NP (NNP Wang) (NNP Chen)) (VP (VBD won)) (. .))")
    assert texts([interrogative(name)]) == ["Did Wang Chen win ?"]


def test_no_question_from_a_contracted_negation():
    dont = parsed("These/DT/1/det people/NNS/4/nsubj do/VBP/4/aux/do n't/RB/4/neg understand/VB/-1/ROOT ././4/punct",
                  tree="(S (NP (DT These) (NNS people)) (VP (VBP do) (RB n't) (VP (VB understand))) (. .))")
    assert interrogative(dont) is None  # not "Do these peoplen't understand ?"


def test_no_question_from_a_headline_with_a_bare_singular_object():
    honda = parsed("Honda/NNP/1/compound RV/NNP/2/nsubj exceeds/VBZ/-1/ROOT/exceed sales/NNS/4/compound "
                   "target/NN/2/dobj ././2/punct",
                   tree="(S (NP (NNP Honda) (NNP RV)) (VP (VBZ exceeds) (NP (NNS sales) (NN target))) (. .))")
    assert interrogative(honda) is None  # not "Does Honda RV exceed sales target ?"
    ample = parsed("They/PRP/1/nsubj had/VBD/-1/ROOT/have ample/JJ/3/amod evidence/NN/1/dobj ././1/punct",
                   tree="(S (NP (PRP They)) (VP (VBD had) (NP (JJ ample) (NN evidence))) (. .))")
    assert texts([interrogative(ample)]) == ["Did they have ample evidence ?"]
