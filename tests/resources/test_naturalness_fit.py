"""TIN's fit check: the log-probability an edit gains or loses, on a tiny randomly initialised GPT-2 (no download)."""

from __future__ import annotations

import pytest

from lingtest.resources.lm import CausalLMScorer
from lingtest.resources.naturalness import logprob_differences

WORDS = ["the", "a", "cat", "dog", "sat", "ran", "on", "mat", "big", "small", "house", "."]


@pytest.fixture(scope="module")
def gpt2_parts():
    from tests.fakes.lm import tiny_gpt2

    return tiny_gpt2(WORDS)


def test_logprob_differences_of_edits(gpt2_parts):
    model, tok = gpt2_parts
    sc = CausalLMScorer.from_model(model, tok, device="cpu")
    pairs = [("the cat sat on", "the dog sat on"), ("the cat sat on", "the big cat sat on"),
             ("a dog ran", "a dog sat"), ("the cat sat on", "the dog sat on"), ("mat", "mat")]
    whole = dict(zip(sorted({t for p in pairs for t in p}), sc.score(sorted({t for p in pairs for t in p})),
                     strict=True))
    got = logprob_differences(sc, pairs)
    assert got == pytest.approx([whole[b] - whole[a] for a, b in pairs], abs=1e-4)
    assert got[0] == got[3] and got[4] == 0.0  # a repeated pair is scored once; no edit, no difference

    class Summed:  # a scorer without score_grouped: its token log-probabilities are summed
        def token_logprobs(self, texts):
            return sc.token_logprobs(texts)

    assert logprob_differences(Summed(), pairs) == pytest.approx(got, abs=1e-4)
    assert logprob_differences(sc, []) == []
    with pytest.raises(TypeError):
        logprob_differences(sc, [("the cat", 3)])  # type: ignore[list-item]
