"""Candidate proposers, inflection and LM ranking."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from crest_fakes import FakeScorer
from tests.fakes.conf_options import proposer_options, score_grid

from lingtest.data.model import Sentence, Token
from lingtest.resources.candidates import PROPOSERS, Candidate, get_proposer, merge_candidates
from lingtest.resources.candidates.inflect import inflect_like, match_case
from lingtest.resources.candidates.masked_lm import MaskedLMProposer
from lingtest.resources.candidates.rank import LMRanker, softmax
from lingtest.resources.candidates.vectors import VectorIndex, VectorProposer

GRID = score_grid()


def _sent(spec: str) -> Sentence:
    """'word/UPOS/TAG/lemma ...'"""
    toks = []
    for item in spec.split():
        w, u, t, lem = item.split("/")
        toks.append(Token(w, pos=u, tag=t, lemma=lem))
    return Sentence(toks)


def test_registry_names():
    assert {"wordnet", "vectors", "masked_lm"} <= set(PROPOSERS.names())


@pytest.mark.parametrize("lemma,tag,upos,expected", [
    ("devour", "VBD", "VERB", "devoured"), ("pond", "NNS", "NOUN", "ponds"),
    ("ice cream", "NNS", "NOUN", "ice creams"), ("look_into", "VBZ", "VERB", "looks into"),
    ("good", "JJR", "ADJ", "better"), ("pond", "NN", "NOUN", "pond"),
])
def test_inflect_like(lemma, tag, upos, expected):
    assert inflect_like(lemma, tag, upos) == expected


def test_match_case():
    assert match_case("pond", "Lake") == "Pond"
    assert match_case("pond", "LAKE") == "POND"
    assert match_case("pond", "lake") == "pond"


def test_merge_candidates_dedupes_and_drops_original():
    a = [Candidate("Large", "wordnet_synonym"), Candidate("big", "wordnet_synonym")]
    b = [Candidate("large", "vectors"), Candidate("huge", "vectors")]
    got = merge_candidates("big", [a, b])
    assert [(c.text, c.source) for c in got] == [("Large", "wordnet_synonym"), ("huge", "vectors")]


def test_wordnet_synonyms_antonyms_inflected():
    p = get_proposer("wordnet", GRID, **proposer_options("wordnet", max_senses=2))
    s = _sent("The/DET/DT/the big/ADJ/JJ/big dogs/NOUN/NNS/dog walked/VERB/VBD/walk quickly/ADV/RB/quickly")
    out = p.propose(s, range(5))
    assert 0 not in out  # determiners are not replaced
    big = {(c.text, c.source) for c in out[1]}
    assert ("large", "wordnet_synonym") in big and ("little", "wordnet_antonym") in big
    quick = {(c.text, c.source) for c in out[4]}
    assert ("rapidly", "wordnet_synonym") in quick and ("slowly", "wordnet_antonym") in quick
    assert ("rode", "wordnet_antonym") in {(c.text, c.source) for c in out[3]}  # inflected to VBD
    assert all(c.text.lower() != "dogs" for c in out.get(2, []))
    # sense restriction: fewer senses, fewer (or equal) candidates
    one = get_proposer("wordnet", GRID, **proposer_options("wordnet", max_senses=1)).propose(s, [4])
    assert len(one.get(4, [])) <= len(out[4])


class _FakeVocab:
    """A tiny vector table: 'lake' ~ 'pond' ~ 'pool', 'eat' ~ 'devour'."""

    def __init__(self):
        self.words = ["lake", "pond", "pool", "sea", "eat", "devour", "run"]
        vecs = {"lake": [1, 0.1, 0], "pond": [1, 0.2, 0], "pool": [0.9, 0.3, 0], "sea": [0.2, 1, 0],
                "eat": [0, 0, 1], "devour": [0.1, 0, 1], "run": [0, 1, 0.1]}
        from spacy.strings import hash_string

        self.key = {w: hash_string(w) for w in self.words}  # queries are looked up by this hash
        self.vectors = SimpleNamespace(data=np.array([vecs[w] for w in self.words], dtype=np.float32),
                                       key2row={self.key[w]: i for i, w in enumerate(self.words)})
        self.strings = SimpleNamespace(__getitem__=None)

        class _S(dict):
            def __getitem__(s, w):
                return self.key.get(w, -1)
        self.strings = _S()


class _FakeWN:
    LEMMAS = {"n": ["lake", "pond", "pool", "sea", "run"], "v": ["eat", "devour", "run"], "a": [], "s": [], "r": []}

    def all_lemma_names(self, pos):
        return self.LEMMAS[pos]


def test_vector_proposer_same_pos_inflected():
    idx = VectorIndex.build(_FakeVocab(), _FakeWN())
    p = VectorProposer(index=idx, grid=GRID, topn=2, min_similarity=0.5, skip_lemmas=["be", "have", "do"],
                       disk_cache=True)
    s = _sent("The/DET/DT/the lakes/NOUN/NNS/lake ate/VERB/VBD/eat")
    out = p.propose(s, [0, 1, 2])
    assert [c.text for c in out[1]] == ["ponds", "pools"]
    assert [c.text for c in out[2]] == ["devoured"]  # 'run' is a verb but not similar enough
    assert all(c.source == "vectors" for c in out[1] + out[2])


class _FakeMLM:
    def __init__(self):
        self.requests = None

    def propose_many(self, requests, top_k=10, min_prob=0.0):
        self.requests = list(requests)
        table = {"quickly": [("rapidly", 0.5), ("slowly", 0.2), ("##ly", 0.15), ("fast", 0.05)]}
        return [[SimpleNamespace(token=t, prob=p) for t, p in table.get(words[i], []) if p >= min_prob]
                for words, i in requests]


def test_masked_lm_proposer_filters_by_probability():
    fake = _FakeMLM()
    p = MaskedLMProposer(scorer=fake, grid=GRID, **proposer_options("masked_lm", min_prob=0.1))
    s = _sent("He/PRON/PRP/he ran/VERB/VBD/run quickly/ADV/RB/quickly")
    out = p.propose(s, [0, 1, 2])
    assert len(fake.requests) == 2  # one batch, content words only
    # probabilities on the grid: the log-probability rounded, then its probability rounded
    assert [(c.text, c.prob) for c in out[2]] == [("rapidly", 0.500074), ("slowly", 0.200088)]
    assert out[2][0].prob == GRID.round("prob", math.exp(GRID.round("logprob", math.log(0.5))))


def test_softmax():
    assert softmax([0.0, 0.0]) == [0.5, 0.5]
    p = softmax([-1000.0, -1001.0])
    assert abs(sum(p) - 1) < 1e-9 and p[0] > p[1]


def test_ranker_one_batch_filters_and_orders():
    s = _sent("The/DET/DT/the big/ADJ/JJ/big dog/NOUN/NN/dog ran/VERB/VBD/run")
    cands = {1: [Candidate("enormous", "wordnet_synonym"), Candidate("gargantuanish", "vectors"),
                 Candidate("huge", "vectors")],
             2: [Candidate("cat", "vectors")],
             3: [Candidate("sprinted", "wordnet_synonym")]}
    scorer = FakeScorer()
    r = LMRanker(scorer, grid=GRID, threshold=0.2, include_original=True, filter_sources=["vectors"], window=None,
                 left_window=None, shared_prefix=True)
    out = r.rank(s, cands)
    # one call; originals of positions 1 and 2 + the three vector candidates; WordNet ones unscored
    assert scorer.calls == 1 and scorer.texts == 5
    # position 1: original "big" (3 chars), huge (4), gargantuanish (13): the long one is dropped
    assert [c.text for c in out[1]] == ["enormous", "huge"]
    assert out[1][0].prob is None and 0.2 <= out[1][1].prob < 1
    assert out[2][0].prob == 0.5  # "cat" is as long as "dog"
    assert [c.text for c in out[3]] == ["sprinted"]
    without = LMRanker(FakeScorer(), grid=GRID, threshold=0.2, include_original=False, filter_sources=["vectors"],
                       window=None, left_window=None, shared_prefix=True).rank(s, cands)
    assert [c.text for c in without[1]] == ["enormous", "huge"] and without[2][0].prob == 1.0


def test_ranker_window_cancels_prefix():
    s = _sent("a/DET/DT/a b/NOUN/NN/b c/NOUN/NN/c d/NOUN/NN/d e/NOUN/NN/e")
    seen = []

    class Rec(FakeScorer):
        def score(self, texts):
            seen.extend(texts)
            return super().score(texts)

    options = {"threshold": 0.1, "include_original": True, "filter_sources": ["vectors"], "shared_prefix": True}
    LMRanker(Rec(), grid=GRID, window=1, left_window=None, **options).rank(s, {1: [Candidate("bb", "vectors")]})
    assert seen == ["a b c", "a bb c"]
    seen.clear()
    LMRanker(Rec(), grid=GRID, window=1, left_window=1, **options).rank(s, {3: [Candidate("dd", "vectors")]})
    assert seen == ["c d e", "c dd e"]


def _tiny_causal_scorer():
    import torch
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import WhitespaceSplit
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    from lingtest.resources.lm import CausalLMScorer

    words = ["the", "a", "big", "huge", "large", "enormous", "dog", "cat", "ran", "sprinted", "."]
    vocab = {"<|endoftext|>": 0, "<pad>": 1, "<unk>": 2, **{w: i + 3 for i, w in enumerate(words)}}
    core = Tokenizer(WordLevel(vocab, unk_token="<unk>"))
    core.pre_tokenizer = WhitespaceSplit()
    tok = PreTrainedTokenizerFast(tokenizer_object=core, bos_token="<|endoftext|>", eos_token="<|endoftext|>",
                                  unk_token="<unk>", pad_token="<pad>")
    torch.manual_seed(3)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(vocab), n_positions=32, n_embd=32, n_layer=2, n_head=2,
                                       bos_token_id=0, eos_token_id=0, pad_token_id=1)).eval()
    return CausalLMScorer.from_model(model, tok, device="cpu", batch_size=2)


def test_ranker_shared_prefix_gives_the_same_probabilities():
    s = _sent("the/DET/DT/the big/ADJ/JJ/big dog/NOUN/NN/dog ran/VERB/VBD/run ./PUNCT/./.")
    scorer = _tiny_causal_scorer()

    def cands():
        return {1: [Candidate("huge", "vectors"), Candidate("large", "vectors"), Candidate("enormous", "vectors")],
                2: [Candidate("cat", "vectors")],
                3: [Candidate("sprinted", "vectors"), Candidate("big", "vectors")]}

    calls = []
    orig = scorer.score_grouped

    def rec(groups, **kw):
        calls.append(([list(g) for g in groups], kw))
        return orig(groups, **kw)

    scorer.score_grouped = rec  # type: ignore[method-assign]
    for include_original in (False, True):
        calls.clear()
        fast = LMRanker(scorer, grid=GRID, threshold=0.0, include_original=include_original,
                        filter_sources=["vectors"], window=1, left_window=None, shared_prefix=True).rank(s, cands())
        plain = LMRanker(scorer, grid=GRID, threshold=0.0, include_original=include_original,
                         filter_sources=["vectors"], window=1, left_window=None, shared_prefix=False).rank(s, cands())
        # one call, one group per position, prefix log-probability left out
        assert len(calls) == 1 and calls[0][1] == {"relative": True}
        assert [len(g) for g in calls[0][0]] == [3 + include_original, 1 + include_original,
                                                 2 + include_original]
        for pos in plain:
            assert [c.text for c in fast[pos]] == [c.text for c in plain[pos]]
            # each path rounds its own log-probabilities (relative ones vs whole-sentence ones) to the
            # grid: the probabilities agree to about one step of the log-probability grid
            step = 10.0 ** -GRID.logprob
            assert [c.prob for c in fast[pos]] == pytest.approx([c.prob for c in plain[pos]], rel=2 * step)
        if not include_original:  # a position's only candidate takes all the probability
            assert fast[2][0].prob == pytest.approx(1.0)
        else:
            assert 0.0 < fast[2][0].prob < 1.0


def _hashed_fake_vocab():
    from spacy.strings import hash_string

    vocab = _FakeVocab()
    vocab.key = {w: hash_string(w) for w in vocab.words}  # real spaCy keys, as in the md table
    vocab.vectors.key2row = {vocab.key[w]: i for i, w in enumerate(vocab.words)}
    return vocab


def test_vector_index_disk_round_trip(tmp_path):
    idx = VectorIndex.build(_hashed_fake_vocab(), _FakeWN())
    idx.save(tmp_path / "i.npz")
    back = VectorIndex.load(tmp_path / "i.npz")
    q = [("lake", "NOUN"), ("eat", "VERB"), ("Pond", "NOUN"), ("zzz", "NOUN"), ("run", "ADJ")]
    assert back.neighbours(q, 3, grid=GRID) == idx.neighbours(q, 3, grid=GRID)
    assert [w for w, _ in back.neighbours(q, 3, grid=GRID)[0]] == ["pond", "pool", "sea"]
    assert back.neighbours(q, 3, grid=GRID)[3:] == [[], []]
    assert not [p for p in tmp_path.iterdir() if p.name != "i.npz"]  # no temporary file left


def test_load_index_builds_once_then_reads_the_cache(tmp_path, monkeypatch):
    from lingtest.resources.candidates import vectors as V

    monkeypatch.setattr(V, "index_cache_path", lambda: tmp_path / "crest" / "idx.npz")
    monkeypatch.setattr(V, "load_md_vectors", _hashed_fake_vocab)
    monkeypatch.setattr(V, "load_wordnet", _FakeWN)
    first = V.load_index(disk_cache=True)
    assert (tmp_path / "crest" / "idx.npz").exists()

    def boom():
        raise AssertionError("the cache should have been used")

    monkeypatch.setattr(V, "load_md_vectors", boom)
    second = V.load_index(disk_cache=True)
    q = [("lake", "NOUN"), ("devour", "VERB")]
    assert second.neighbours(q, 2, grid=GRID) == first.neighbours(q, 2, grid=GRID)
    with pytest.raises(AssertionError):
        V.load_index(disk_cache=False)  # no cache: builds (here: the failing loader)
