"""Which masked sentences S2LCT fills and with what: the insertion rules (the slot of the one mask, the words a
slot is attested with in the reference treebank, the word pairs of the suite's corpus), the refused words, the
clitic boundary and the ``lm_next`` proposer's collocated candidates and gain ranking, on small fixtures."""

from __future__ import annotations

from dataclasses import replace

import pytest

from lingtest.resources.fill import Fill, FillProposerBase
from lingtest.s2lct.expand import Acceptance, Expander, ExpansionStats, splits_clitic
from lingtest.s2lct.fill import Collocations, LMNextFillProposer, insertion_gain, without_mask
from lingtest.s2lct.grammar import (
    Insertion,
    MaskedSentence,
    Node,
    ReferenceCFG,
    Slot,
    allowed_insertion,
    attested_words,
    clause_before,
    collocated_counts,
    fronted_before,
    insertion_context,
    masked_sentences,
    parse_bracketed,
)
from lingtest.s2lct.predicates import Knowledge, SearchSentence
from lingtest.s2lct.seeds import Found
from tests.fakes.conf_options import score_grid

GRID = score_grid()
REFERENCE = [parse_bracketed(t) for t in [
    "(S (NP (DT the) (JJ big) (NN dog)) (ADVP (RB also)) (VP (VBD ran)) (. .))",
    "(S (NP (DT a) (JJ red) (NN cat)) (ADVP (RB also)) (VP (VBD sat)) (. .))",
    "(S (NP (NNS dogs)) (RB often) (VP (VBD ran)) (. .))",
    "(S (NP (DT the) (NN dog)) (VP (VBD ran)) (. .))",
    "(S (NP (DT the) (NN dog)) (VP (VBD ran)) (RB away) (. .))",  # an insertion no rule allows
]]
ADJECTIVE = Insertion.of(["NP"], ["JJ"], ["DT"], ["NN"], final=True)
ADVERB = Insertion.of(["S"], ["RB"], ["NP"], ["VP"], attested=2)
SEED = parse_bracketed("(S (NP (DT the) (NN film)) (VP (VBD ran)) (. .))")


def test_the_slot_of_a_masked_sentence_and_the_rules_that_allow_it():
    ms = {m.text(): m for m in masked_sentences(SEED, ReferenceCFG(REFERENCE), top=5, max_masks=9)}
    adj, adv = ms["the {JJ} film ran ."], ms["the film {RB} ran ."]
    assert insertion_context(adj) == Slot("NP", "DT", "JJ", "NN", True)
    assert insertion_context(adv) == Slot("S", "NP", "RB", "VP", False)
    assert allowed_insertion(adj, [ADJECTIVE]) and not allowed_insertion(adv, [ADJECTIVE])
    assert allowed_insertion(adv, [ADJECTIVE, ADVERB]) and allowed_insertion(adv, None)
    # `final`: the noun after the mask must end the phrase
    assert not Insertion.of(["NP"], ["JJ"], ["DT"], ["NN"], final=True).matches(Slot("NP", "DT", "JJ", "NN", False))
    assert Insertion.of(["NP"], ["JJ"], ["DT"], ["NN"]).matches(Slot("NP", "DT", "JJ", "NN", False))


def test_no_insertion_as_the_sentences_first_word():
    seed = parse_bracketed("(S (NP (NN film)) (VP (VBD ran)) (. .))")
    first = [m for m in masked_sentences(seed, ReferenceCFG([parse_bracketed("(S (NP (JJ big) (NN dog)) (. .))")]),
                                         top=5, max_masks=9)]
    assert [m.text() for m in first] == ["{JJ} film ran ."]
    rule = Insertion.of(["NP"], ["JJ"], ["^"], ["NN"])
    assert rule.matches(insertion_context(first[0])) and not allowed_insertion(first[0], [rule])


def test_attested_words_count_the_reference_slots_lone_words_of_a_phrase_included():
    assert attested_words(REFERENCE, [ADJECTIVE, ADVERB]) == {"RB": frozenset({"also"})}  # often: once; JJ: open
    assert attested_words(REFERENCE, [Insertion.of(["S"], ["RB"], ["NP"], ["VP"], attested=1)]) == {
        "RB": frozenset({"also", "often"})}
    with pytest.raises(ValueError, match="tags RB have rules with and without attested"):
        attested_words(REFERENCE, [ADVERB, Insertion.of(["VP"], ["RB"], ["VBD"], ["VP"])])
    assert collocated_counts([Insertion.of(["NP"], ["JJ"], ["DT"], ["NN"], collocated=2), ADVERB]) == {"JJ": 2}


def test_collocations_count_pairs_keep_the_usual_spelling_and_the_most_frequent_words():
    sents = [("the French film and a new film".split(), "DT JJ NN CC DT JJ NN".split()),
             ("a new film , a french film , the new cast".split(), "DT JJ NN , DT JJ NN , DT JJ NN".split())]
    col = Collocations.count(sents, {"JJ": 1}, top=None)
    assert col.before("JJ", "Film") == ["French", "new"]  # 2 each: alphabetical; French as it is written most
    assert col.before("JJ", "cast") == ["new"] and col.before("JJ", None) == [] and col.before("NN", "x") == []
    assert col.restricts("JJ") and not col.restricts("RB")
    assert Collocations.count(sents, {"JJ": 3}, top=None).before("JJ", "film") == []
    assert Collocations.count(sents, {"JJ": 1}, top=1).before("JJ", "film") == ["new"]  # new: 3 pairs, French: 2
    assert col.filtered(lambda w, _t: w != "new").before("JJ", "film") == ["French"]


def test_a_fill_before_a_clitic_is_refused():
    assert splits_clitic(["it", "also", "'s", "good"], [1]) and splits_clitic(["do", "also", "n't"], [1])
    assert not splits_clitic(["it", "also", "is", "good"], [1]) and not splits_clitic(["it", "'s", "x"], [2])


class ListProposer(FillProposerBase):
    name = "list"

    def __init__(self, words):
        self.words = words
        self.requests = []

    def propose_many(self, requests, k):
        self.requests.extend(requests)
        return [[Fill(w, -float(i)) for i, w in enumerate(self.words[:k])] for _ in requests]


def test_the_expander_fills_only_allowed_collocated_slots():
    seed = Found(SearchSentence("the film ran .".split(), "DT NN VBD .".split(), "neutral", id="s"), SEED)
    tags = {"the": "DT", "film": "NN", "ran": "VBD", ".": ".", "new": "JJ", "also": "RB"}
    proposer = ListProposer(["new", "also"])
    opts = dict(top_masks=5, max_masks=9, max_masked=None, top_k=2, max_tries=20, keep=1, seed=1)
    ex = Expander(ReferenceCFG(REFERENCE), proposer, lambda ss: [[tags.get(w, "NN") for w in s] for s in ss],
                  acceptance=Acceptance(boundary_repeat=False, trees=None, naturalness=None),
                  insertions=[ADJECTIVE, ADVERB], **opts)
    st = ExpansionStats()
    out = ex.expand([(seed, [])], Knowledge(), st)
    assert st.masked > st.masked_allowed == st.masked_used == 2
    assert sorted(e.text for e in out["s"]) == ["the film also ran .", "the new film ran ."]
    ex.collocations = Collocations({("JJ", "cat"): {"red": 1}}, {"JJ": 1})  # nothing seen before "film"
    st = ExpansionStats()
    assert [e.text for e in ex.expand([(seed, [])], Knowledge(), st)["s"]] == ["the film also ran ."]
    assert st.masked_allowed == 1


class GroupScorer:
    """Scores each text by a table (the shared left context included: only differences matter)."""

    def __init__(self, table):
        self.table = table
        self.groups = []

    def score_grouped(self, groups, relative=False):
        self.groups.extend(groups)
        return [[self.table[t] for t in g] for g in groups]


class NoNextWords:
    def next_words(self, contexts, n):
        raise AssertionError("a collocated mask takes its words from the pairs, not from the LM")


def test_lm_next_takes_collocated_words_and_ranks_them_by_their_gain():
    scorer = GroupScorer({"the new": -2.0, "the french": -3.0, "the odd": -9.0,
                          "the film ran": -10.0, "the new film ran": -11.5, "the french film ran": -11.0})
    p = LMNextFillProposer(NoNextWords(), scorer, grid=GRID, candidates=10, window=0, tag_lexicon=None,
                           prefilter=lambda w, _t: w != "odd", tagger=None, rescore=2, rescore_window=None)
    p.collocations = Collocations({("JJ", "film"): {"new": 5, "french": 2, "odd": 9}}, {"JJ": 1})
    [fills] = p.propose_many([(["the", "{JJ}", "film", "ran"], 1)], 5)
    assert [(f.word, f.score) for f in fills] == [("french", -1.0), ("new", -1.5)]  # gain against "the film ran"
    assert scorer.groups[0] == ["the new", "the french"]  # "odd" refused before scoring; the word alone (window 0)
    assert scorer.groups[1][0] == "the film ran"
    assert without_mask(["a", "{JJ}", "b", "c"], 1, 1) == "a b" and insertion_gain(-3.2, -1.0, GRID) == -2.2


def test_main_clause_rules_skip_subordinate_clauses():
    main = Insertion.of(["S"], ["RB"], ["NP"], ["VP"], main_clause=True)
    cfg = ReferenceCFG([parse_bracketed("(ROOT (S (NP (DT the) (NN dog)) (RB also) (VP (VBD ran)) (. .)))"),
                        parse_bracketed("(ROOT (S (NP (PRP it)) (RB also) (VP (VBD ran))))")])
    top = parse_bracketed("(ROOT (S (NP (DT the) (NN story)) (VP (VBZ unfolds)) (. .)))")
    sub = parse_bracketed("(ROOT (S (NP (PRP it)) (VP (VBZ ends) (SBAR (IN as) (S (NP (DT the) (NN story)) "
                          "(VP (VBZ unfolds))))) (. .)))")
    small = parse_bracketed("(ROOT (S (NP (PRP they)) (VP (VBP help) (S (NP (NNP Chicago)) (VP (VB make) "
                            "(NP (PRP it))))) (. .)))")
    frag = parse_bracketed("(ROOT (FRAG (NP (NNS boots)) (NP (NNP Burberry))))")

    def filled(tree):
        return [m.text() for m in masked_sentences(tree, cfg, top=5, max_masks=1)
                if allowed_insertion(m, [main])]

    assert filled(top) == ["the story {RB} unfolds ."]
    # not "as the story also unfolds" (also has nothing to attach to), nor "help Chicago also make it"
    assert filled(sub) == ["it {RB} ends as the story unfolds ."]
    assert filled(small) == ["they {RB} help Chicago make it ."]
    assert filled(frag) == []
    # without the restriction the subordinate clause is filled
    assert [m.text() for m in masked_sentences(sub, cfg, top=5, max_masks=1)
            if allowed_insertion(m, [Insertion.of(["S"], ["RB"], ["NP"], ["VP"])])] == [
        "it {RB} ends as the story unfolds .", "it ends as the story {RB} unfolds ."]


# ---- the words around a slot ---------------------------------------------------------------------------------
def masked(bracketed: str) -> MaskedSentence:
    """The masked sentence of a tree whose one mask is written ``(TAG *)`` (the expanded node: its parent)."""

    def unmask(node: Node) -> Node:
        if not node.children:
            return Node(node.label, (), None) if node.word == "*" else node
        return Node(node.label, tuple(unmask(c) for c in node.children))

    tree = unmask(parse_bracketed(bracketed))
    path = next(p for p, n in tree.subtrees() if any(c.is_mask for c in n.children))
    node = tree
    for i in path:
        node = node.children[i]
    rhs = node.rhs()
    seed = tuple(c.label for c in node.children if not c.is_mask)
    return MaskedSentence(tree, node.label, seed, rhs, 1.0, path)


S_SLOT = Insertion.of(["S"], ["RB"], ["NP"], ["VP"])
VP_SLOT = Insertion.of(["VP"], ["RB"], ["VBZ", "VBP", "VBD", "MD"], ["VP", "ADJP"])
WH = ["how", "what", "who", "when"]


def before(m: MaskedSentence) -> list[str | None]:
    """The words before ``m``'s mask in its clause."""
    return [m.words[i] for i in clause_before(m.tree, m.path, m.mask_positions[0])]


def test_clause_before_leaves_out_the_clauses_nested_in_the_masks_clause():
    only = masked("(S (NP (RB only) (DT the) (NNS looters)) (RB *) (VP (VBP are) (VP (VBN enriched) (SBAR (WHADVP "
                  "(WRB when)) (S (NP (PRP they)) (VP (VBP import) (NP (NNS goods))))))))")
    assert before(only) == ["only", "the", "looters"]
    relative = masked("(S (NP (NP (DT the) (NNS people)) (SBAR (WHNP (WP who)) (S (RB never) (VP (VBD came))))) "
                      "(RB *) (VP (VBD left)))")
    assert before(relative) == ["the", "people"]
    # the mask of a VP: its clause is the lowest S above it; conjoined clauses are clauses of their own
    conj = masked("(S (S (NP (PRP they)) (VP (VBP do) (RB not) (VP (VB care)))) (CC and) (S (NP (NN law)) "
                  "(VP (MD will) (RB *) (VP (VB ignore)))))")
    assert before(conj) == ["law", "will"]
    # no clause above the mask: the whole tree
    frag = masked("(FRAG (NP (DT no) (NN way)) (VP (MD will) (RB *) (VP (VB do))))")
    assert before(frag) == ["no", "way", "will"]


def test_a_fronted_wh_word_is_read_on_the_words():
    ex = masked("(S (NP (WRB how) (RB suddenly) (VBP shitty) (PRP$ their) (NNS lives)) (RB *) (VP (MD must) "
                "(VP (VB be))))")
    assert fronted_before(ex, frozenset(WH))  # "shitty" tagged as a verb heads the wh-phrase
    aux = masked("(S (NP (WRB how) (JJ bad) (PRP$ their) (NNS lives)) (VP (MD must) (RB *) (VP (VB be))))")
    assert fronted_before(aux, frozenset(WH))  # the auxiliary the adverb joins is not a verb between
    rel = masked("(S (NP (NP (DT the) (NNS people)) (SBAR (WHNP (WP who)) (S (VP (VBD saw) (NP (PRP it)))))) "
                 "(RB *) (VP (VBD left)))")
    assert not fronted_before(rel, frozenset(WH))  # a verb between: a relative clause, not a fronted wh-word
    comma = masked("(S (SBAR (WHADVP (WRB when)) (S (NP (PRP it)) (VP (VBD rained)))) (, ,) (NP (PRP we)) (RB *) "
                   "(VP (VBD left)))")
    assert not fronted_before(comma, frozenset(WH))


def test_the_words_around_an_adverb_slot_decide_whether_it_is_filled():
    aux = masked("(S (NP (PRP it)) (VP (VBZ is) (RB *) (VP (VBN made))))")
    lexical = masked("(S (NP (PRP i)) (VP (VBP wanna) (RB *) (VP (VB defeat) (NP (PRP them)))))")
    fused = masked("(S (NP (NNS girls) (NN wanna)) (RB *) (VP (VB defeat) (NP (PRP them))))")
    auxiliaries = ["is", "'s", "are", "will", "should"]
    rule = replace(VP_SLOT, after_words=frozenset(auxiliaries))
    assert allowed_insertion(aux, [rule]) and not allowed_insertion(lexical, [rule])
    assert allowed_insertion(lexical, [VP_SLOT])  # without after_words: any verb of the tags
    assert allowed_insertion(fused, [S_SLOT])
    assert not allowed_insertion(fused, [Insertion.of(["S"], ["RB"], ["NP"], ["VP"], not_after=["Wanna", "gonna"])])
    refuse = Insertion.of(["S"], ["RB"], ["NP"], ["VP"], clause_refuse=["only", "not", "dont"])
    neg = masked("(S (NP (NNS girls) (NN dont)) (RB *) (VP (VBP exist)))")
    after = masked("(S (NP (PRP i)) (RB *) (VP (VBP do) (RB not) (VP (VB think))))")
    only = masked("(S (NP (RB Only) (DT the) (NNS looters)) (RB *) (VP (VBP are) (VP (VBN enriched))))")
    assert not allowed_insertion(neg, [refuse]) and not allowed_insertion(only, [refuse])
    assert allowed_insertion(after, [refuse])  # the negation after the adverb: also scopes over it
    wh = masked("(S (NP (WRB how) (JJ bad) (PRP$ their) (NNS lives)) (RB *) (VP (MD must) (VP (VB be))))")
    assert allowed_insertion(wh, [S_SLOT])
    assert not allowed_insertion(wh, [Insertion.of(["S"], ["RB"], ["NP"], ["VP"], wh_front=WH)])
    assert Insertion.of(["S"], ["RB"], ["NP"], ["VP"], not_after=["Wanna"]).not_after == frozenset({"wanna"})
    gerund = masked("(S (NP (NNP <user>)) (RB *) (VP (VBG invoking) (NP (DT the) (NN doctrine))))")
    finite = masked("(S (NP (NNP Novak)) (RB *) (VP (VBZ manages)))")
    tags = Insertion.of(["S"], ["RB"], ["NP"], ["VP"], not_before_tags=["VBG", "VBN"])
    assert allowed_insertion(gerund, [S_SLOT]) and not allowed_insertion(gerund, [tags])
    assert allowed_insertion(finite, [tags])
