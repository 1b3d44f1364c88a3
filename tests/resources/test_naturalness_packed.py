"""Packed naturalness scoring: CausalLMScorer.token_logprobs_grouped gives token_logprobs' values (a
tiny GPT-2 built in the test), and the filter's packed path gives the plain path's SynEval scores."""

from __future__ import annotations

import pytest
from tests.fakes.conf_options import score_grid

from lingtest.resources.lm import CausalLMScorer
from lingtest.resources.naturalness import naturalness_pairs

WORDS = "the cat sat on mat . a dog ran big small house".split()
GROUPS = [
    ["the cat sat on the mat .", "the dog sat on the mat .", "the cat ran on the mat ."],  # share "the"
    ["a dog ran", "a small dog ran", "big dog ran"],  # the last shares only BOS
    ["the small house"],  # one text: not packed
    [],
]


@pytest.fixture(scope="module")
def scorer():
    from tests.fakes.lm import tiny_gpt2

    model, tok = tiny_gpt2(WORDS)
    return CausalLMScorer.from_model(model, tok, device="cpu", batch_size=2)


def test_grouped_token_logprobs_equal_plain(scorer):
    for gbs in (64, 2):  # one pass, and several
        scorer.group_batch_size = gbs
        got = scorer.token_logprobs_grouped(GROUPS)
        assert [len(g) for g in got] == [len(g) for g in GROUPS]
        for group, res in zip(GROUPS, got, strict=True):
            for exp, r in zip(scorer.token_logprobs(group) if group else [], res, strict=True):
                assert r.text == exp.text and r.token_ids == exp.token_ids
                assert r.logprobs == pytest.approx(exp.logprobs, abs=1e-4)


def test_packed_syneval_equals_plain(scorer):
    pairs = [("the cat sat on the mat .", "the dog sat on the mat ."), ("a dog ran", "a small dog ran"),
             ("the cat sat on the mat .", "the cat ran on the mat ."), ("a dog ran", "a dog ran")]
    grid = score_grid()
    plain = naturalness_pairs(scorer, pairs, weight_min=0.6, weight_mean=0.4, grid=grid, packed=False)
    packed = naturalness_pairs(scorer, pairs, weight_min=0.6, weight_mean=0.4, grid=grid, packed=True)
    assert len(packed) == len(pairs)
    # each path's token log-probabilities are rounded to the grid: SynEval agrees to about one step
    tol = 2 * 10.0 ** -grid.logprob
    for (a, b), (c, d) in zip(plain, packed, strict=True):
        assert c == pytest.approx(a, rel=tol) and d == pytest.approx(b, rel=tol)
    assert packed[0][0] == packed[2][0]  # one source, one score
