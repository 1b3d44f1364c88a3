"""The masked-LM fill-in proposer (resources/fill.py) on a tiny random BERT: raw logits or
probabilities, whole words and word pieces, equal to a manual computation."""

from __future__ import annotations

import math

import pytest
import torch

from lingtest.resources.fill import Fill, FillProposer, MaskedLMFillProposer, SubwordFillProposer
from lingtest.resources.lm import MaskedLMScorer
from tests.fakes.conf_options import score_grid

GRID = score_grid()


@pytest.fixture(scope="module")
def scorer(tiny_mlm, tiny_tokenizer):
    return MaskedLMScorer.from_model(tiny_mlm, tiny_tokenizer, device="cpu", batch_size=2)


def manual_row(model, tok, words, position):
    masked = list(words)
    masked[position] = tok.mask_token
    enc = tok(masked, is_split_into_words=True)
    ids = enc["input_ids"]
    where = ids.index(tok.mask_token_id)
    with torch.no_grad():
        return model(torch.tensor([ids])).logits[0, where].float()


def whole_ids(tok):
    return [i for w, i in tok.get_vocab().items()
            if i not in tok.all_special_ids and not w.startswith("##") and not w.startswith("[unused")
            and any(c.isalnum() for c in w)]


def test_protocols(scorer):
    p = MaskedLMFillProposer(scorer, grid=GRID, score="logit", min_piece_chars=2, model=None, device="cpu")
    assert isinstance(p, FillProposer) and isinstance(p, SubwordFillProposer) and p.score_kind == "logit"


@pytest.mark.parametrize("kind", ["logit", "prob"])
def test_whole_word_fills_equal_manual_top_k(scorer, tiny_mlm, tiny_tokenizer, kind):
    tok = tiny_tokenizer
    words = ["the", "cat", "sat", "on", "the", "mat", "."]
    row = manual_row(tiny_mlm, tok, words, 1)
    # on the grid: logits on the logit grid; probabilities ranked by the log-probability on the logprob
    # grid and reported as its probability on the prob grid; ties by the entry's text
    if kind == "prob":
        row = torch.round(torch.log_softmax(row, -1).double(), decimals=GRID.logprob)
    else:
        row = torch.round(row.double(), decimals=GRID.logit)
    allowed = sorted(((float(row[i]), tok.convert_ids_to_tokens(i)) for i in whole_ids(tok)
                      if tok.convert_ids_to_tokens(i) != "cat"), key=lambda x: (-x[0], x[1]))
    p = MaskedLMFillProposer(scorer, grid=GRID, score=kind, min_piece_chars=2, model=None, device="cpu")
    got = p.propose(words, 1, 4)
    assert [f.word for f in got] == [w for _, w in allowed[:4]]
    expected = [GRID.round("prob", math.exp(s)) if kind == "prob" else s for s, _ in allowed[:4]]
    assert [f.score for f in got] == pytest.approx(expected, abs=1e-12)
    assert "cat" not in [f.word for f in p.propose(words, 1, 30)]
    many = p.propose_many([(words, 1), (["a", "dog", "ran"], 2), (words, 1)], 4)
    assert many[0] == got == many[2] and all(isinstance(f, Fill) for f in many[1])


def test_subword_fills_replace_one_piece(scorer, tiny_mlm, tiny_tokenizer):
    tok = tiny_tokenizer
    words = ["the", "London", "house"]
    assert tok.tokenize("London") == ["Lon", "##don"]
    p = MaskedLMFillProposer(scorer, grid=GRID, score="logit", min_piece_chars=2, model=None, device="cpu")
    [fills] = p.propose_subwords([(words, 1)], 2)
    assert [f.piece for f in fills] == [0, 0, 1, 1]
    # piece 1 masked: continuation pieces only, joined onto "Lon"
    enc = tok(words, is_split_into_words=True)
    ids = list(enc["input_ids"])
    pos = [i for i, w in enumerate(enc.word_ids()) if w == 1][1]
    ids[pos] = tok.mask_token_id
    with torch.no_grad():
        row = tiny_mlm(torch.tensor([ids])).logits[0, pos]
    cont = [i for w, i in tok.get_vocab().items() if w.startswith("##")]
    row = torch.round(row.double(), decimals=GRID.logit)
    best = sorted(((float(row[i]), "Lon" + tok.convert_ids_to_tokens(i)[2:]) for i in cont),
                  key=lambda x: (-x[0], x[1]))
    best = [b for b in best if b[1] != "London"][:2]
    assert [(f.word, round(f.score, 4)) for f in fills[2:]] == [(w, round(s, 4)) for s, w in best]
    # pieces too short are not masked; single-piece words give nothing
    [cats] = p.propose_subwords([(["the", "cats"], 1)], 2)  # "cat" + "##s": "s" is too short to mask
    assert [f.piece for f in cats] == [0, 0] and all(f.word.endswith("s") for f in cats)
    assert p.propose_subwords([(["the", "cat"], 1)], 2) == [[]]
    long_only = MaskedLMFillProposer(scorer, grid=GRID, score="logit", min_piece_chars=3, model=None, device="cpu")
    assert long_only.propose_subwords([(words, 1)], 2) == [[]]


def test_bad_requests(scorer):
    p = MaskedLMFillProposer(scorer, grid=GRID, score="prob", min_piece_chars=2, model=None, device="cpu")
    with pytest.raises(IndexError):
        p.propose(["a"], 3, 2)
    with pytest.raises(ValueError):
        p.propose(["a"], 0, 0)
    with pytest.raises(ValueError):
        MaskedLMFillProposer(scorer, grid=GRID, score="raw", min_piece_chars=2, model=None, device="cpu")
    with pytest.raises(ValueError):
        MaskedLMFillProposer(grid=GRID, score="logit", min_piece_chars=2, model=None, device="cpu")
    assert p.propose_many([], 3) == []
