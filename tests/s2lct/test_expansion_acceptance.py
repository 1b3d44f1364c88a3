"""The expansion's quality rules on small fixtures: the ``lm_next`` fill proposer (the LM's next words,
filtered by tag, rescored with the right context, on the score grid), the acceptance rules of the expander
(no repeat across a mask's boundary, the chosen production in the re-parse, the naturalness drop) and the
calibration helpers; a fake LM whose next words and scores the tests set, and a tiny GPT-2 for the LM's
next-token methods."""

from __future__ import annotations

import random

import pytest

from lingtest.resources.fill import Fill, FillProposerBase
from lingtest.resources.next_words import CausalNextWords, WordPieces, piece_role
from lingtest.s2lct.expand import (
    Acceptance,
    Expander,
    ExpansionStats,
    Naturalness,
    corrupt,
    first_accepted,
    naturalness_drop,
    rejected_share,
    removable_positions,
    repeats_across_boundary,
    repeats_in_sentence,
    threshold_keeping,
)
from lingtest.s2lct.fill import LMNextFillProposer, TaggedLexicon, request_texts
from lingtest.s2lct.grammar import Node, ReferenceCFG, leaf_span, masked_sentences, parse_bracketed, realises, spans
from lingtest.s2lct.predicates import Knowledge, SearchSentence, parse_predicate
from lingtest.s2lct.seeds import Found
from tests.fakes.conf_options import score_grid

GRID = score_grid()
REFERENCE = ReferenceCFG([parse_bracketed(t) for t in [
    "(S (NP (DT the) (NNS dogs)) (VP (VBD ran)) (. .))",
    "(FRAG (CC and) (NP (DT all)) (. .))",
    "(FRAG (NP (NNS dogs) (NNS cats)) (. .))",
]])
PRED = parse_predicate("hasattr(length, < 10)")
TAGS = {"Or": "CC", "both": "DT", ".": ".", "ways": "NNS", "Ways": "NNS", "things": "NNS", "sides": "NNS",
        "cats": "NNS", "are": "VBP", "good": "JJ"}
NO_CHECKS = Acceptance(boundary_repeat=True, trees=None, naturalness=None)


def tagger(sentences):
    return [[TAGS.get(w, "NN") for w in s] for s in sentences]


def or_both() -> Found:
    tree = parse_bracketed("(FRAG (CC Or) (NP (DT both)) (. .))")
    return Found(SearchSentence(["Or", "both", "."], ["CC", "DT", "."], "neutral", id="or-both"), tree)


class ListProposer(FillProposerBase):
    name = "list"

    def __init__(self, words):
        self.words = words

    def propose_many(self, requests, k):
        return [[Fill(w, -float(i)) for i, w in enumerate(self.words[:k])] for _ in requests]


def expander(proposer, acceptance=NO_CHECKS, **kw):
    opts = dict(top_masks=5, max_masks=9, max_masked=None, top_k=10, max_tries=20, keep=10, seed=1) | kw
    return Expander(REFERENCE, proposer, tagger, acceptance=acceptance, **opts)


# ---- the lm_next proposer ------------------------------------------------------------------------------
class FakeNextWords:
    """The LM's next words after a context, as the test sets them (first-token log-probabilities)."""

    def __init__(self, table):
        self.table = table
        self.asked = []

    def next_words(self, contexts, n):
        self.asked.append((list(contexts), n))
        return [self.table[c][:n] for c in contexts]


class TableScorer:
    """Log-probability of a text from a table (unknown texts: -50); records the groups it scores."""

    def __init__(self, table):
        self.table = table
        self.groups = []

    def score_grouped(self, groups, relative=False):
        self.groups.extend(groups)
        return [[self.table.get(t, -50.0) for t in g] for g in groups]


def lm_next(words, scorer, *, lexicon=None, prefilter=None, window=None, candidates=10, tagger=None):
    return LMNextFillProposer(words, scorer, grid=GRID, candidates=candidates, window=window, tag_lexicon=lexicon,
                              prefilter=prefilter, tagger=tagger)


def test_lm_next_takes_the_lms_next_words_that_the_masks_tag_allows():
    words = FakeNextWords({"Or both": [("ways", -1.0), ("are", -1.1), ("good", -1.2), ("things", -1.3),
                                       ("bad", -1.4), ("e-mail", -1.5)]})
    lexicon = TaggedLexicon([("ways", "NNS"), ("are", "VBP"), ("Good", "JJ")], min_count=1, max_per_tag=None,
                            lowercase=True)
    scorer = TableScorer({"Or both ways .": -3.0, "Or both things .": -4.0})
    prop = lm_next(words, scorer, lexicon=lexicon, prefilter=lambda w, t: w != "bad", candidates=6)
    fills = prop.propose(["Or", "both", "{NNS}", "."], 2, k=5)
    # "are" and "good" are known with other tags, "bad" fails the prefilter, "e-mail" is not alphanumeric;
    # "things" is unknown to the lexicon: it passes (the tagger checks it in context later)
    assert fills == [Fill("ways", -3.0), Fill("things", -4.0)]
    assert words.asked == [(["Or both"], 6)] and scorer.groups == [["Or both ways .", "Or both things ."]]
    assert lexicon.allows("Ways", "NNS") and not lexicon.allows("ways", "JJ") and lexicon.allows("cats", "JJ")
    assert lexicon.knows("Are") and not lexicon.knows("things")
    assert not prop.allowed("s", "NNS") and lm_next(words, scorer, lexicon=TaggedLexicon(
        [("a", "DT")], min_count=1, max_per_tag=None, lowercase=True)).allowed("A", "DT")  # one character: known
    # with the expander's tagger, the words tagged with the mask's tag in the request's sentence only
    seen = []

    def in_context(sentences):
        seen.extend(" ".join(s) for s in sentences)
        return [["CC", "DT", "NNS" if s[2] == "ways" else "VBZ", "."] for s in sentences]

    scorer.groups.clear()
    tagged = lm_next(words, scorer, lexicon=lexicon, prefilter=lambda w, t: w != "bad", candidates=6,
                     tagger=in_context)
    assert tagged.propose(["Or", "both", "{NNS}", "."], 2, k=5) == [Fill("ways", -3.0)]
    assert seen == ["Or both ways .", "Or both things ."] and scorer.groups == [["Or both ways ."]]
    assert tagged.texts_tagged == 2 and tagged.texts_scored == 1


def test_a_sentence_without_capitals_gets_lower_case_fills():
    from lingtest.s2lct.fill import cased_like

    words = FakeNextWords({"you are a": [("Nazi", -1.0), ("nazi", -1.5), ("big", -2.0)],
                           "You are a": [("Nazi", -1.0), ("big", -2.0)]})
    scorer = TableScorer({"you are a nazi": -3.0, "you are a big": -4.0, "You are a Nazi": -3.0})
    assert [f.word for f in lm_next(words, scorer).propose(["you", "are", "a", "{JJ}"], 3, k=5)] == ["nazi", "big"]
    assert [f.word for f in lm_next(words, scorer).propose(["You", "are", "a", "{JJ}"], 3, k=1)] == ["Nazi"]
    assert cased_like(["{NN}", "x"], 0, ["The", "the"]) == ["the"] and cased_like(["{NN}", "X"], 0, ["The"]) == ["The"]


def test_the_right_context_reorders_the_next_words():
    # after "Or both" the LM prefers "ways"; with the words after the mask, "things" reads better
    words = FakeNextWords({"Or both": [("ways", -0.5), ("things", -2.0), ("sides", -2.5)]})
    scorer = TableScorer({"Or both ways of": -9.0, "Or both things of": -6.0, "Or both sides of": -6.0 - 1e-9})
    prop = lm_next(words, scorer, window=1)
    got = prop.propose(["Or", "both", "{NNS}", "of", "life", "."], 2, k=3)
    # on the grid "sides" and "things" tie: the word decides; the window keeps one word after the mask
    assert [f.word for f in got] == ["sides", "things", "ways"] and got[0].score == got[1].score == -6.0
    assert scorer.groups == [["Or both ways of", "Or both things of", "Or both sides of"]]
    assert request_texts(["a", "{NN}", "b", "c"], 1, ["x"], None) == ["a x b c"]
    assert request_texts(["{NN}", "b"], 0, ["x"], 0) == ["x"]


# ---- next words from a causal LM ----------------------------------------------------------------------
PIECES = ["<bos>", "\u2581ways", "\u2581un", "bel", "iev", "able", "\u2581.", "Ways", "\u2581things", ",",
          "\u2581Things", "\u2581\u2581", "<0x41>"]


class PieceLM:
    """Next tokens and greedy continuations from tables of piece ids."""

    def __init__(self, top, greedy):
        self.top = top          # context -> [(id, logprob)]
        self.greedy = greedy    # tuple of ids after the context -> the most probable next id
        self.calls = []

    def top_next_tokens(self, contexts, k, allowed):
        self.calls.append(("top", list(contexts), k))
        return [[(t, lp) for t, lp in self.top[c] if allowed[t]][:k] for c in contexts]

    def greedy_continuations(self, contexts, starts, extend, max_tokens):
        out = []
        for ss in starts:
            words = []
            for s in ss:
                w = [s]
                while len(w) < max_tokens and extend[self.greedy.get(tuple(w), 0)]:
                    w.append(self.greedy[tuple(w)])
                words.append(w)
            out.append(words)
        return out


def test_piece_roles_and_whole_words():
    assert [piece_role(p) for p in ["\u2581ways", "\u0120ways", "ing", "\u2581.", ",", "\u2581\u2581", "<0x41>"]] \
        == ["start", "start", "bare", None, None, None, None]
    wp = WordPieces.from_pieces(PIECES)
    assert wp.word([2, 3, 4, 5]) == "unbelievable" and wp.word([7]) == "Ways"
    top = {"Or both": [(6, -0.1), (2, -0.5), (1, -1.0), (8, -1.0 - 1e-9), (10, -3.0)],
           "": [(7, -0.2), (1, -0.3), (9, -0.4)]}
    lm = PieceLM(top, {(2,): 3, (2, 3): 4, (2, 3, 4): 5, (2, 3, 4, 5): 1, (1,): 6})
    words = CausalNextWords(lm, wp, grid=GRID, max_pieces=4, known=None)
    got = words.next_words(["Or both", ""], 3)
    # "▁." is no word; "▁un" grows greedily into "unbelievable" (4 pieces: the limit); "▁ways" and "▁things"
    # tie on the grid (the piece decides); at the start of a text only bare pieces start a word
    assert got == [[("unbelievable", -0.5), ("things", -1.0), ("ways", -1.0)], [("Ways", -0.2)]]
    assert lm.calls == [("top", ["Or both"], 6), ("top", [""], 6)]  # twice as many: the cut is on the grid
    short = CausalNextWords(lm, wp, grid=GRID, max_pieces=2, known=None).next_words(["Or both"], 1)
    assert short == [[("unbel", -0.5)]]
    # a first token that is a known word is whole: not continued (here "un", were it a word)
    lm.greedy[(1,)] = 9  # "▁ways" + "," would not grow anyway; "un" would
    known = CausalNextWords(lm, wp, grid=GRID, max_pieces=4, known={"un", "ways"}.__contains__)
    assert known.next_words(["Or both"], 3) == [[("un", -0.5), ("things", -1.0), ("ways", -1.0)]]
    assert known.continued == 1  # "things" alone went to the LM


def test_the_next_tokens_match_a_plain_forward(monkeypatch):
    import torch

    from lingtest.resources.lm import CausalLMScorer
    from lingtest.resources.next_words import NextTokens
    from tests.fakes.lm import tiny_gpt2

    model, tok = tiny_gpt2("Or both ways things . the un bel iev able good".split(), seed=3)
    sc = NextTokens(CausalLMScorer.from_model(model, tok, device="cpu"))
    contexts = ["Or both", "", "the good things"]

    def forward(ids):
        with torch.no_grad():
            return model(torch.tensor([ids])).logits[0, -1].float()

    allowed = torch.ones(len(tok), dtype=torch.bool)
    allowed[[0, 4]] = False
    for c, top in zip(contexts, sc.top_next_tokens(contexts, 4, allowed), strict=True):
        lp = torch.log_softmax(forward(sc.context_ids(c)), -1).masked_fill(~allowed, -float("inf"))
        vals, idx = torch.topk(lp, 4)
        assert [t for t, _ in top] == idx.tolist()
        assert [v for _, v in top] == pytest.approx(vals.tolist(), abs=1e-5)
    starts = [[5, 6], [7], [8, 9, 10]]

    def greedy(c, s, n):
        ids, out = [*sc.context_ids(c), s], [s]
        while len(out) < n:
            out.append(int(forward(ids).argmax()))
            ids.append(out[-1])
        return out

    want = [[greedy(c, s, 4) for s in ss] for c, ss in zip(contexts, starts, strict=True)]
    extend = torch.ones(len(tok), dtype=torch.bool)
    assert sc.greedy_continuations(contexts, starts, extend, 4) == want  # packed passes
    monkeypatch.setattr(NextTokens, "_packable", lambda self, seqs: False)
    assert sc.greedy_continuations(contexts, starts, extend, 4) == want  # right-padded batches
    assert sc.greedy_continuations(contexts, starts, torch.zeros(len(tok), dtype=torch.bool), 4) == \
        [[[s] for s in ss] for ss in starts]  # nothing extends a word


# ---- acceptance rules -----------------------------------------------------------------------------------
def test_a_fill_repeating_the_word_next_to_its_mask_is_refused():
    seed = Found(SearchSentence(["ways", "."], ["NNS", "."], "neutral", id="ways"),
                 parse_bracketed("(FRAG (NP (NNS ways)) (. .))"))
    prop = ListProposer(["ways", "Ways", "cats"])
    st = ExpansionStats()
    strict = Acceptance(boundary_repeat=False, trees=None, naturalness=None)
    out = expander(prop, strict).expand([(seed, [PRED])], Knowledge(), st)
    assert [e.text for e in out["ways"]] == ["ways cats ."]  # "ways ways ." and "ways Ways ." are refused
    assert (st.tag_ok, st.boundary_ok) == (3, 1)
    loose = expander(prop).expand([(seed, [PRED])], Knowledge())
    assert [e.text for e in loose["ways"]] == ["ways ways .", "ways Ways .", "ways cats ."]
    assert repeats_across_boundary(["flick", "away", "away", "from"], [2])
    assert repeats_across_boundary(["Japan", "japan", ","], [0, 1])  # two masks side by side
    assert not repeats_across_boundary(["the", "away", "from"], [1])


def test_a_fill_the_sentence_already_has_is_refused_when_sentence_repeat_is_off():
    def tag_or(sentences):  # "or" as the mask's tag, so only the repeat rule can refuse it
        return [["NNS" if w == "or" else TAGS.get(w, "NN") for w in s] for s in sentences]

    def texts(acceptance):
        ex = Expander(REFERENCE, ListProposer(["or", "cats"]), tag_or, acceptance=acceptance, top_masks=5,
                      max_masks=9, max_masked=None, top_k=10, max_tries=20, keep=10, seed=1)
        return [e.text for e in ex.expand([(or_both(), [PRED])], Knowledge())["or-both"]]

    assert texts(NO_CHECKS) == ["Or both or .", "Or both cats ."]
    once = Acceptance(boundary_repeat=True, trees=None, naturalness=None, sentence_repeat=False)
    assert texts(once) == ["Or both cats ."]  # "or" is already the sentence's first word
    assert repeats_in_sentence(["you", "also", "will", "also", "learn"], [1])
    assert not repeats_in_sentence(["you", "also", "will", "learn"], [1])
    assert repeats_in_sentence(["Also", "it", "is", "also"], [3])  # case-insensitive


def test_spans_and_the_production_at_a_span():
    tree = parse_bracketed("(S (NP (DT the) (NNS dogs)) (VP (VBD ran)) (. .))")
    assert leaf_span(tree, (0,)) == (0, 2) and leaf_span(tree, (1,)) == (2, 3) and leaf_span(tree, ()) == (0, 4)
    assert [n.label for n in spans(tree)[(2, 3)]] == ["VP"]
    assert realises(tree, (0, 2), "NP", ("DT", "NNS")) and not realises(tree, (0, 2), "NP", ("DT",))
    assert not realises(tree, (1, 3), "NP", ("DT", "NNS"))
    # a one-word phrase stands for its word's tag: the parser's (ADVP (RB only)) realises SBAR -> RB IN S
    sbar = parse_bracketed("(SBAR (ADVP (RB only)) (IN that) (S (NP (PRP it)) (VP (VBD ran))))")
    assert realises(sbar, (0, 4), "SBAR", ("RB", "IN", "S")) and realises(sbar, (0, 4), "SBAR", ("ADVP", "IN", "S"))
    assert not realises(sbar, (0, 4), "SBAR", ("RB", "IN", "NP")) and not realises(sbar, (0, 4), "SBAR", ("RB", "S"))
    unary = parse_bracketed("(S (VP (VBD ran)))")
    assert [n.label for n in spans(unary)[(0, 1)]] == ["S", "VP"]  # outermost first
    (m,) = masked_sentences(or_both().tree, REFERENCE, top=5, max_masks=9)
    assert (m.lhs, m.ref_rhs, m.path, m.span) == ("NP", ("DT", "NNS"), (1,), (1, 3))


def test_a_fill_whose_reparse_misses_the_production_is_refused():
    trees = {"Or both ways .": "(FRAG (CC Or) (NP (DT both) (NNS ways)) (. .))",
             "Or both things .": "(FRAG (CC Or) (NP (DT both)) (NP (NNS things)) (. .))",
             "Or both sides .": "(FRAG (CC Or) (NP (DT both) (NNS sides) (. .)))"}
    parsed = []

    def reparse(sentences):
        parsed.extend(" ".join(s) for s in sentences)
        return [parse_bracketed(trees[" ".join(s)]) if " ".join(s) in trees else None for s in sentences]

    st = ExpansionStats()
    acc = Acceptance(boundary_repeat=False, trees=reparse, naturalness=None)
    out = expander(ListProposer(["things", "ways", "sides", "cats"]), acc).expand([(or_both(), [PRED])],
                                                                              Knowledge(), st)
    # things: NP -> DT alone; sides: the NP spans the period too; cats: no tree; ways: NP -> DT NNS at (1, 3)
    assert [e.text for e in out["or-both"]] == ["Or both ways ."]
    assert (st.checked, st.production_ok, st.expansions) == (4, 1, 1)
    parsed.clear()
    out = expander(ListProposer(["ways", "things", "sides"]), acc, keep=1).expand([(or_both(), [PRED])], Knowledge())
    assert [e.text for e in out["or-both"]] == ["Or both ways ."] and parsed == ["Or both ways ."]  # keep reached


class MeanLM:
    """Token log-probabilities from a table: one token per text (a number) or a list of them (the mean and the
    total then differ); records the groups it scores."""

    def __init__(self, table):
        self.table = {t: v if isinstance(v, list) else [v] for t, v in table.items()}
        self.scored = []

    def token_logprobs_grouped(self, groups):
        from lingtest.resources.lm import TokenScores

        self.scored.extend(groups)
        return [[TokenScores(t, ["x"] * len(self.table[t]), [0] * len(self.table[t]), self.table[t]) for t in g]
                for g in groups]


def test_the_naturalness_threshold_refuses_a_low_scoring_fill():
    lm = MeanLM({"Or both .": -2.0, "Or both ways .": -2.3, "Or both things .": -3.0 + 1e-9,
                 "Or both sides .": -2.5000001, "Or both cats .": -3.0})
    nat = Naturalness(lm, grid=GRID, min_drop=-0.5)
    st = ExpansionStats()
    acc = Acceptance(boundary_repeat=False, trees=None, naturalness=nat)
    out = expander(ListProposer(["ways", "things", "sides"]), acc).expand([(or_both(), [PRED])], Knowledge(), st)
    # drops: ways -0.3, things -1.0 (refused), sides -0.5 on the grid (kept: at the threshold)
    assert [e.text for e in out["or-both"]] == ["Or both ways .", "Or both sides ."]
    # one group: the seed and its expansions, each scored once
    assert (st.checked, st.natural_ok) == (3, 2) and nat.texts_scored == 4
    assert lm.scored == [["Or both .", "Or both ways .", "Or both things .", "Or both sides ."]]
    assert nat.drops([("Or both things .", "Or both .")]) == [-1.0] and len(lm.scored) == 1  # memoised
    assert nat.of(["Or both cats ."] * 2) == [-3.0, -3.0] and lm.scored[1:] == [["Or both cats ."]]
    assert naturalness_drop(-2.3, -2.0, GRID) == -0.3


def test_first_accepted_checks_in_order_and_stops_at_need():
    seen = []

    def check(batch):
        seen.append(list(batch))
        return [i % 2 == 0 for i in batch]

    got = first_accepted({0: [1, 2, 3, 4, 6], 1: [8], 2: []}, 2, check)
    assert got == {0: [2, 4], 1: [8], 2: []}
    assert seen == [[1, 2, 8], [3], [4]]  # never 6: group 0 had its 2 by then


# ---- determinism --------------------------------------------------------------------------------------
def test_lm_next_expansions_are_seeded_and_deterministic():
    def parts(noise):
        rng = random.Random(noise)
        words = FakeNextWords({"Or both": [("ways", -1.0), ("things", -1.1), ("sides", -1.2), ("cats", -1.3),
                                           ("are", -1.4)]})
        table = {"Or both ways .": -3.0, "Or both things .": -3.0, "Or both sides .": -2.5, "Or both cats .": -4.0}
        scorer = TableScorer({t: v * (1 + rng.uniform(-1e-9, 1e-9)) for t, v in table.items()})
        return lm_next(words, scorer)

    def run(seed, noise):
        lm = MeanLM({"Or both .": -2.0, "Or both ways .": -2.2, "Or both things .": -2.1, "Or both sides .": -2.4,
                     "Or both cats .": -3.5})
        acc = Acceptance(boundary_repeat=False, trees=None, naturalness=Naturalness(lm, grid=GRID, min_drop=-0.5))
        out = expander(parts(noise), acc, max_tries=2, keep=10, seed=seed).expand([(or_both(), [PRED])], Knowledge())
        return [e.fills[0] for e in out.get("or-both", [])]

    # the ranking on the grid: sides, then things and ways (tied: by word), cats, "are" (not scored: -50)
    assert [f.word for f in parts(0).propose(["Or", "both", "{NNS}", "."], 2, k=5)] == \
        ["sides", "things", "ways", "cats", "are"]
    # max_tries=2 draws two of the five fillings with the seed; "are" fails the tag, cats the naturalness (-1.5)
    want = {0: ["sides", "ways"], 1: ["sides"], 3: [], 4: ["sides", "things"]}
    for seed, fills in want.items():
        assert [run(seed, noise) for noise in range(4)] == [fills] * 4  # float noise on the scores: no change


# ---- calibration ----------------------------------------------------------------------------------------
def test_the_calibration_helpers():
    real = [0.1, -0.2, -0.2, 0.0, -1.0, 0.3, 0.2, -0.1, 0.05, -0.3]
    assert threshold_keeping(real, 0.9) == -0.3  # 9 of 10 are >= -0.3
    assert threshold_keeping(real, 0.7) == -0.2  # 8 of 10 are >= -0.2 (the tie counts)
    assert threshold_keeping(real, 1.0) == -1.0
    assert rejected_share([-0.5, -0.1, -0.35, 0.0], -0.3) == 0.5 and rejected_share([], -0.3) == 0.0
    with pytest.raises(ValueError):
        threshold_keeping([], 0.95)
    words, tags = ["It", "'s", "a", "lovely", "film", "."], ["PRP", "VBZ", "DT", "JJ", "NN", "."]
    rng = random.Random(0)
    dup = corrupt("duplicate", words, tags, {}, rng)
    assert dup is not None and len(dup) == 7 and any(dup[i] == dup[i + 1] for i in range(6))
    swap = corrupt("swap", words, tags, {}, rng)
    assert swap is not None and sorted(swap) == sorted(words) and swap != words and swap[-1] == "."
    rep = corrupt("replace", words, tags, {"JJ": ["lovely", "green"]}, rng)
    assert rep == ["It", "'s", "a", "green", "film", "."]
    assert corrupt("replace", words, tags, {"JJ": ["lovely"]}, rng) is None
    with pytest.raises(ValueError, match="unknown corruption"):
        corrupt("shuffle", words, tags, {}, rng)
    tree = parse_bracketed("(S (NP (PRP It)) (VP (VBZ 's) (NP (DT a) (JJ lovely) (NN film))) (. .))")
    assert removable_positions(tree, None) == [1, 2, 3, 4]  # not "It" (alone in its NP) nor the period
    assert removable_positions(tree, frozenset({"JJ", "RB"})) == [3]
    assert removable_positions(Node("S", (Node("NN", (), "x"), Node(".", (), "."))), None) == []


# ---- a fill before the seed's first word ----------------------------------------------------------------
def test_a_fill_before_the_first_word_takes_the_sentences_initial_case():
    from lingtest.s2lct.expand import initial_cased, start_cased

    masked = [None, "Strange", "and", "beautiful", "film", "."]
    tags = ["DT", "JJ", "CC", "JJ", "NN", "."]
    assert start_cased(masked, tags) == [None, "strange", "and", "beautiful", "film", "."]
    assert initial_cased(["any", "strange", "film"], masked) == ["Any", "strange", "film"]
    assert start_cased([None, "John", "Woo"], ["DT", "NNP", "NNP"])[1] == "John"  # a proper noun
    assert start_cased([None, "I", "ran"], ["RB", "PRP", "VBD"])[1] == "I"
    assert start_cased([None, "WWII", "flick"], ["DT", "NN", "NN"])[1] == "WWII"  # other capitals
    assert start_cased(["Strange", None], ["JJ", "NN"]) == ["Strange", None]  # no mask before it
    lower = [None, "women", "are", "nice"]  # a lower-cased corpus: the fill is lower-cased
    assert start_cased(lower, ["DT", "NNS", "VBP", "JJ"]) == lower
    assert initial_cased(["The", "women", "are", "nice"], lower) == ["the", "women", "are", "nice"]
    assert initial_cased(["x", "Strange"], ["Strange", None]) == ["x", "Strange"]  # the seed's own first word

    class Recorder(ListProposer):
        def propose_many(self, requests, k):
            self.requests = [list(t) for t, _ in requests]
            return super().propose_many(requests, k)

    ref = ReferenceCFG([parse_bracketed("(FRAG (DT all) (NP (JJ strange) (NN film)) (. .))")])
    seed = Found(SearchSentence(["Strange", "film", "."], ["JJ", "NN", "."], "neutral", id="sf"),
                 parse_bracketed("(FRAG (NP (JJ Strange) (NN film)) (. .))"))
    prop = Recorder(["all"])
    exp = Expander(ref, prop, lambda ss: [["DT", "JJ", "NN", "."] for _ in ss], acceptance=NO_CHECKS, top_masks=5,
                   max_masks=9, max_masked=None, top_k=10, max_tries=20, keep=10, seed=1)
    out = exp.expand([(seed, [PRED])], Knowledge())
    assert prop.requests == [["{DT}", "strange", "film", "."]]
    assert [(e.text, e.fills) for e in out["sf"]] == [("All strange film .", ("All",))]


def test_the_insertion_bound_refuses_a_word_that_costs_the_sentence_too_much():
    # totals: seed -4.0; ways -5.0 (-1.0), things -7.5 (-3.5), sides -6.0 (-2.0); every mean drop is small
    lm = MeanLM({"Or both .": [-2.0, -2.0], "Or both ways .": [-2.0, -2.0, -1.0],
                  "Or both things .": [-2.5, -2.5, -2.5], "Or both sides .": [-2.0, -2.0, -2.0]})
    nat = Naturalness(lm, grid=GRID, min_drop=-1.0)
    st = ExpansionStats()
    acc = Acceptance(boundary_repeat=False, trees=None, naturalness=nat, min_insertion_logprob={"NNS": -2.0})
    out = expander(ListProposer(["ways", "things", "sides"]), acc).expand([(or_both(), [PRED])], Knowledge(), st)
    assert [e.text for e in out["or-both"]] == ["Or both ways .", "Or both sides ."]  # sides: at the bound, kept
    assert (st.checked, st.natural_ok, st.insertion_ok) == (3, 3, 2)
    assert nat.insertion_logprobs([("Or both things .", "Or both .")]) == [-3.5] and nat.texts_scored == 4
    # another tag's bound does not apply; the bound needs the scorer
    other = Acceptance(boundary_repeat=False, trees=None, naturalness=Naturalness(lm, grid=GRID, min_drop=-1.0),
                       min_insertion_logprob={"JJ": 0.0})
    assert len(expander(ListProposer(["ways", "things", "sides"]), other).expand(
        [(or_both(), [PRED])], Knowledge())["or-both"]) == 3
    with pytest.raises(ValueError, match="needs the naturalness scorer"):
        Acceptance(boundary_repeat=False, trees=None, naturalness=None, min_insertion_logprob={"NNS": -2.0})
