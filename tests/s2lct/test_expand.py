"""Expansion: masks -> fills -> validation, with a fake proposer and a fake tagger."""

from __future__ import annotations

from lingtest.resources.fill import Fill, FillProposerBase
from lingtest.s2lct.expand import Acceptance, Expander, ExpansionStats
from lingtest.s2lct.fill import LexiconLMFillProposer, TaggedLexicon, mask_tag
from lingtest.s2lct.grammar import ReferenceCFG, parse_bracketed
from lingtest.s2lct.predicates import Knowledge, SearchSentence, parse_predicate
from lingtest.s2lct.seeds import Found
from tests.fakes.conf_options import score_grid

REFERENCE = ReferenceCFG([parse_bracketed(t) for t in [
    "(S (NP (DT the) (NNS dogs)) (VP (VBD ran)) (. .))",
    "(FRAG (CC and) (NP (DT all)) (. .))",
]])


class FakeProposer(FillProposerBase):
    """The paper's Figure 3: BERT's six words for ``Or both {MASK} .``."""

    name = "fake"

    def __init__(self, words):
        self.words = words
        self.requests = []

    def propose_many(self, requests, k):
        self.requests.extend((list(t), p) for t, p in requests)
        return [[Fill(w, -i) for i, w in enumerate(self.words[:k])] for _ in requests]


# tags a tagger gives the words in context (the fake: a fixed lexicon)
TAGS = {"Or": "CC", "both": "DT", ".": ".", "ways": "NNS", "things": "NNS", "sides": "NNS", "are": "VBP",
        "good": "JJ", "terrible": "JJ", "really": "RB"}


def fake_tagger(sentences):
    return [[TAGS.get(w, "NN") for w in s] for s in sentences]


def seed() -> Found:
    tree = parse_bracketed("(FRAG (CC Or) (NP (DT both)) (. .))")
    return Found(SearchSentence(["Or", "both", "."], ["CC", "DT", "."], "neutral", id="or-both"), tree)


#: the tags and predicates alone (the acceptance rules have their own tests: test_expansion_acceptance.py)
NO_CHECKS = Acceptance(boundary_repeat=True, trees=None, naturalness=None)


def expander(proposer, **kw):
    opts = dict(top_masks=5, max_masks=9, max_masked=None, top_k=10, max_tries=20, keep=10, seed=1,
                acceptance=NO_CHECKS) | kw
    return Expander(REFERENCE, proposer, fake_tagger, **opts)


PRED = parse_predicate("hasattr(length, < 10) and hasattr(label, neutral)")


def test_the_running_example_keeps_only_words_with_the_masks_tag():
    prop = FakeProposer(["ways", "are", "good", "things", "really", "terrible"])
    st = ExpansionStats()
    out = expander(prop).expand([(seed(), [PRED])], Knowledge(), st)
    assert sorted(e.text for e in out["or-both"]) == ["Or both things .", "Or both ways ."]
    e = out["or-both"][0]
    assert e.masked == "Or both {NNS} ." and e.tags == ("NNS",)
    # the request: the mask placeholder in the sentence's context
    assert prop.requests == [(["Or", "both", "{NNS}", "."], 2)]
    assert st.tried == 6 and st.tag_ok == 2 and st.predicates_ok == 2 and st.expansions == 2


def test_the_predicates_must_still_hold():
    prop = FakeProposer(["ways", "things"])
    never = parse_predicate("hasattr(length, < 3)")  # "Or both ways ." has 3 words
    assert expander(prop).expand([(seed(), [PRED, never])], Knowledge()) == {}
    label = parse_predicate("hasattr(label, positive)")  # the seed's label carries over
    assert expander(prop).expand([(seed(), [label])], Knowledge()) == {}


def test_keep_and_max_tries():
    prop = FakeProposer(["ways", "things", "sides"])
    out = expander(prop, keep=1).expand([(seed(), [PRED])], Knowledge())
    assert len(out["or-both"]) == 1
    st = ExpansionStats()
    expander(prop, max_tries=2).expand([(seed(), [PRED])], Knowledge(), st)
    assert st.tried == 2
    # the choice of tries is seeded: the same seed gives the same expansions
    a = expander(prop, max_tries=2, seed=5).expand([(seed(), [PRED])], Knowledge())
    b = expander(prop, max_tries=2, seed=5).expand([(seed(), [PRED])], Knowledge())
    assert a == b


def test_no_tree_no_candidates_no_expansion():
    prop = FakeProposer([])
    st = ExpansionStats()
    s = seed()
    out = expander(prop).expand([(Found(s.sentence, None), [PRED]), (s, [PRED])], Knowledge(), st)
    assert out == {} and st.sentences == 2 and st.with_tree == 1 and st.no_candidates == 1


class FakeScorer:
    """log-probability: minus the position of the candidate word in a preference list."""

    def __init__(self, prefer):
        self.prefer = prefer
        self.groups = []

    def score_grouped(self, groups, relative=False):
        self.groups.extend(groups)
        return [[-float(self.prefer.index(t.split()[2])) if t.split()[2] in self.prefer else -99.0 for t in g]
                for g in groups]


def test_lexicon_lm_proposer_ranks_tagged_words_in_context():
    lex = TaggedLexicon([("ways", "NNS"), ("ways", "NNS"), ("Things", "NNS"), ("things", "NNS"),
                         ("dogs", "NNS"), ("dogs", "NNS"), ("bad", "JJ"), ("bad", "JJ")], min_count=2,
                        max_per_tag=None, lowercase=True)
    assert lex.candidates("NNS") == ["dogs", "things", "ways"]  # lower-cased counts, ties alphabetical
    cased = TaggedLexicon([("Things", "NNS"), ("things", "NNS"), ("dogs", "NNS"), ("dogs", "NNS")], min_count=2,
                          max_per_tag=None, lowercase=False)
    assert cased.candidates("NNS") == ["dogs"]  # "Things" and "things" counted apart: once each
    assert lex.candidates("JJ") == ["bad"] and lex.candidates("VB") == []
    scorer = FakeScorer(["ways", "dogs", "things"])
    prop = LexiconLMFillProposer(lex, scorer, grid=score_grid(), window=1, max_candidates=None,
                                 prefilter=lambda w, t: w != "dogs")
    fills = prop.propose(["Or", "both", "{NNS}", ".", "extra"], 2, k=5)
    assert [f.word for f in fills] == ["ways", "things"]  # dogs filtered out before scoring
    assert scorer.groups == [["Or both things .", "Or both ways ."]]  # window 1: "extra" not scored
    assert mask_tag("{NNS}") == "NNS" and mask_tag("NNS") is None
    # at most max_candidates words (the most frequent that pass), none already in the sentence
    prop1 = LexiconLMFillProposer(lex, FakeScorer(["ways", "things"]), grid=score_grid(), window=None, max_candidates=1)
    assert [f.word for f in prop1.propose(["the", "dogs", "{NNS}"], 2, k=5)] == ["things"]
