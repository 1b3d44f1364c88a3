"""The offline causal LM (converted Gemma-3-270M): plausibility and batching on the real model."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lingtest.resources import models

pytestmark = [pytest.mark.e2e, pytest.mark.models]

PAIRS = [
    ("The cat sat on the mat.", "mat the on sat cat The."),
    ("She has been working here for ten years.", "She have been work here for ten year."),
    ("I would like a cup of coffee, please.", "Coffee of cup a like would I please."),
    ("The children are playing in the garden.", "The children is playing in the garden."),
]


@pytest.fixture(scope="session")
def gemma():
    d = Path(os.environ.get("LINGTEST_LM_DIR") or models.default_model_dir())
    if not models.is_converted(d):
        pytest.skip(f"no converted Gemma at {d}; run `python -m lingtest.resources.models convert`")
    import torch

    from lingtest.resources.lm import CausalLMScorer

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the test machine's 2 cores are shared: 1 thread avoids oversubscription
    yield CausalLMScorer(str(d), device="cpu", batch_size=4)
    torch.set_num_threads(threads)


def test_grammatical_beats_scrambled(gemma):
    scores = gemma.score([s for pair in PAIRS for s in pair])
    for i, (good, bad) in enumerate(PAIRS):
        assert scores[2 * i] > scores[2 * i + 1], (good, bad, scores[2 * i], scores[2 * i + 1])


def test_batching_matches_one_by_one(gemma):
    texts = [PAIRS[0][0], PAIRS[1][1], PAIRS[2][0], "Hi.", ""]
    batched = gemma.score(texts)
    single = [gemma.score([t])[0] for t in texts]
    assert batched == pytest.approx(single, abs=1e-3)
    assert batched[-1] == 0.0


def test_bos_is_gemmas_and_tokens_are_scored(gemma):
    assert gemma.bos_id == gemma.tokenizer.bos_token_id == 2
    (ts,) = gemma.token_logprobs(["The cat sat on the mat."])
    assert "".join(ts.tokens).replace("▁", " ") == "The cat sat on the mat."
    assert all(lp < 0 for lp in ts.logprobs) and -60 < ts.total < -10
