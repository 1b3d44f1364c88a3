"""The offline fill proposer: CREST's candidate proposers and LM ranker behind the FillProposer protocol."""

from __future__ import annotations

import math

import pytest

from lingtest.data.model import Sentence, Token
from lingtest.resources.candidates.base import Candidate
from lingtest.resources.candidates.rank import LMRanker
from lingtest.resources.fill import FillProposer, WordNetVectorsFillProposer
from tests.fakes.conf_options import score_grid

GRID = score_grid()

UPOS = {"rose": "VERB", "sharply": "ADV", "Shares": "NOUN", "Acme": "PROPN"}


class FakeParser:
    def __init__(self):
        self.calls = []

    def parse(self, sentences):
        self.calls.append([list(s) for s in sentences])
        return [Sentence([Token(w, pos=UPOS.get(w, "X"), tag="VBD" if w == "rose" else "NN") for w in s])
                for s in sentences]


class TableProposer:
    def __init__(self, name, table):
        self.name = name
        self.table = table

    def propose(self, sentence, positions):
        out = {}
        for i in positions:
            words = self.table.get(sentence.tokens[i].text, [])
            if words:
                out[i] = [Candidate(w, self.name) for w in words]
        return out


class LengthScorer:
    """log p(text) = -(characters) / 2: shorter sentences are likelier."""

    def __init__(self):
        self.texts = []

    def score(self, texts):
        self.texts.extend(texts)
        return [-len(t) / 2 for t in texts]


def test_candidates_ranked_by_the_lm_behind_the_protocol():
    wn = TableProposer("wordnet_synonym", {"rose": ["climbed", "went up", "rose"]})
    vec = TableProposer("vectors", {"rose": ["fell", "climbed", "soared"], "Acme": ["Apex"]})
    ranker = LMRanker(LengthScorer(), grid=GRID, threshold=0.0, include_original=False,
                      filter_sources=["wordnet_synonym", "vectors"], window=None, left_window=None, shared_prefix=True)
    parser = FakeParser()
    p = WordNetVectorsFillProposer(parser, [wn, vec], ranker)
    assert isinstance(p, FillProposer) and p.score_kind == "prob"
    toks = "Shares rose sharply".split()
    [fills, none] = p.propose_many([(toks, 1), (toks, 0)], 3)
    # "went up" (two words) and the original are dropped; duplicates merged; sorted by probability
    words = ["fell", "soared", "climbed"]  # 4, 6, 7 letters: shorter sentence, higher probability
    z = sum(math.exp(-len(f"Shares {w} sharply") / 2) for w in words)
    assert [f.word for f in fills] == words
    probs = [math.exp(-len(f"Shares {w} sharply") / 2) / z for w in words]
    assert [f.score for f in fills] == pytest.approx(probs, abs=1e-6)
    assert none == [] and parser.calls == [[toks]]  # one parse of the distinct sentence
    assert p.propose(toks, 1, 1)[0].word == "fell"


def test_unscored_sources_are_not_proposed():
    wn = TableProposer("wordnet_synonym", {"rose": ["climbed"]})
    ranker = LMRanker(LengthScorer(), grid=GRID, threshold=0.0, include_original=False, filter_sources=["vectors"],
                      window=None, left_window=None, shared_prefix=True)
    p = WordNetVectorsFillProposer(FakeParser(), [wn], ranker)
    assert p.propose("Shares rose".split(), 1, 5) == []
    with pytest.raises(ValueError):
        WordNetVectorsFillProposer(FakeParser(), [], ranker)


def test_fill_proposer_registry():
    from lingtest.resources.fill import FILL_PROPOSERS, MaskedLMFillProposer

    assert FILL_PROPOSERS.names() == ["masked_lm", "wordnet_vectors"]
    assert FILL_PROPOSERS.get("masked_lm") is MaskedLMFillProposer
