"""The LM score cache and its batch-invariant row layout: a cached value is the value a fresh computation
gives, whatever else was scored with it; only valid values are stored; the key follows everything the
bits depend on."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest
import torch

from lingtest.resources.lm import CausalLMScorer
from lingtest.resources.lm_cache import ScoreCache, weights_fingerprint
from lingtest.resources.lm_packing import pack_groups
from lingtest.resources.lm_rows import padded_head_rows, plan_rows, row_class, row_tensors

WORDS = ["the", "a", "cat", "dog", "sat", "ran", "on", "mat", "big", "small", "house", "."]
GROUPS = [["the cat sat on the mat .", "the cat sat on the house .", "the cat ran on a mat ."],
          ["a big dog ran", "a big dog sat", "a big cat ran ."],
          ["the small house .", "the small mat ."],
          ["dog"],  # one text: scored alone
          ["the dog sat on a big mat .", "the dog sat on a small mat .", "the dog sat ."]]


@pytest.fixture(scope="module")
def gpt2_parts():
    from tests.fakes.lm import tiny_gpt2

    return tiny_gpt2(WORDS)


def scorer(parts, cache_path: Path | None) -> CausalLMScorer:
    sc = CausalLMScorer.from_model(*parts, device="cpu", batch_size=2)
    sc.row_tokens, sc.row_step = 32, 8  # tiny rows: several classes and passes on these groups
    if cache_path is not None:
        sc.use_score_cache(ScoreCache(cache_path))
    return sc


def test_row_plan_and_tensors():
    assert [row_class(n, 8) for n in (1, 8, 9, 16, 17)] == [8, 8, 16, 16, 24]
    plan = plan_rows([5, 20, 7, 9, 30, 40], tokens=32, step=8)
    assert [(b.length, b.size, b.rows) for b in plan] == [(8, 4, (0, 2)), (16, 2, (3,)), (24, 1, (1,)),
                                                          (32, 1, (4,)), (40, 1, (5,))]
    pk = pack_groups([[[1, 2, 3, 4], [1, 2, 5]]], [2], relative=True)
    ids, pos, mask = row_tensors([pk], 8, 2, pad_id=0, dtype=torch.float32)
    n = len(pk.ids)
    assert ids.shape == (2, 8) and ids[0, :n].tolist() == pk.ids and ids[0, n:].tolist() == [0] * (8 - n)
    assert pos[0, :n].tolist() == pk.positions
    allowed = mask == 0
    assert torch.equal(allowed[0, 0, :n, :n], pk.mask())
    assert not allowed[0, 0, :n, n:].any()  # no real token sees padding
    assert allowed[1, 0, :, 0].all() and allowed[1, 0].sum() == 8  # a padding row sees its first token only
    with pytest.raises(ValueError, match="do not fit"):
        row_tensors([pk, pk, pk], 8, 2, pad_id=0, dtype=torch.float32)
    assert padded_head_rows([3, 5, 9]) == [3, 5, 9] + [9] * 13 and padded_head_rows([]) == []
    assert len(padded_head_rows(list(range(16)))) == 16


def test_cached_scores_equal_the_uncached_ones(gpt2_parts, tmp_path):
    plain = scorer(gpt2_parts, None)
    cached = scorer(gpt2_parts, tmp_path / "s.sqlite")
    for relative in (False, True):
        got = cached.score_grouped(GROUPS, relative=relative)
        want = plain.score_grouped(GROUPS, relative=relative)
        for g, w in zip(got, want, strict=True):
            assert g == pytest.approx(w, abs=1e-4)
    for g, w in zip(cached.token_logprobs_grouped(GROUPS), plain.token_logprobs_grouped(GROUPS), strict=True):
        assert [s.token_ids for s in g] == [s.token_ids for s in w]
        assert [s.text for s in g] == [s.text for s in w] and [s.tokens for s in g] == [s.tokens for s in w]
        for a, b in zip(g, w, strict=True):
            assert a.logprobs == pytest.approx(b.logprobs, abs=1e-4)
    assert cached.score_grouped([[], GROUPS[0]])[0] == []


def test_a_cached_value_is_the_fresh_bits_whatever_was_scored_with_it(gpt2_parts, tmp_path):
    cold = scorer(gpt2_parts, tmp_path / "a.sqlite")
    first = cold.score_grouped(GROUPS, relative=True)
    tokens_first = cold.token_logprobs_grouped(GROUPS)
    # another process, another cache: each group alone, then in another order with others
    other = scorer(gpt2_parts, tmp_path / "b.sqlite")
    alone = [other.score_grouped([g], relative=True)[0] for g in GROUPS]
    assert alone == first
    fresh = scorer(gpt2_parts, tmp_path / "c.sqlite")
    assert fresh.score_grouped(GROUPS[::-1], relative=True) == first[::-1]
    assert [[s.logprobs for s in g] for g in fresh.token_logprobs_grouped(GROUPS[::-1])] == \
        [[s.logprobs for s in g] for g in tokens_first[::-1]]
    # warm: nothing is scored again, the same bits come back
    warm = scorer(gpt2_parts, tmp_path / "a.sqlite")
    calls = []
    warm.model.base_model.register_forward_hook(lambda *a: calls.append(1))
    assert warm.score_grouped(GROUPS, relative=True) == first
    assert warm.score_cache.hits == len(GROUPS) and warm.score_cache.misses == 0 and not calls


def test_only_valid_values_are_stored(tmp_path):
    cache = ScoreCache(tmp_path / "v.sqlite")
    fp = {"weights": "x"}
    groups = [("a", "b"), ("c",), ("d",), ("e", "f")]
    stored = cache.put(fp, "score_grouped", True, [(groups[0], [1.0, -2.5]), (groups[1], [math.nan]),
                                                  (groups[2], [1.0, 2.0]), (groups[3], [1.0, "x"])], per_token=False)
    assert stored == 1
    assert cache.get(fp, "score_grouped", True, groups, per_token=False) == [[1.0, -2.5], None, None, None]
    # the key follows the method, `relative` and the fingerprint
    assert cache.get(fp, "score_grouped", False, groups[:1], per_token=False) == [None]
    assert cache.get({"weights": "y"}, "score_grouped", True, groups[:1], per_token=False) == [None]
    assert cache.put(fp, "token_logprobs_grouped", False, [(("a",), [[0.5, math.inf]]), (("b",), [[-1.0]])],
                     per_token=True) == 1
    assert cache.get(fp, "token_logprobs_grouped", False, [("a",), ("b",)], per_token=True) == [None, [[-1.0]]]


def test_fingerprint_follows_what_the_bits_depend_on(gpt2_parts, tmp_path):
    a = scorer(gpt2_parts, tmp_path / "f.sqlite")
    fp = a.cache_fingerprint()
    assert fp == scorer(gpt2_parts, tmp_path / "f.sqlite").cache_fingerprint()
    assert fp["threads"] == torch.get_num_threads() and fp["normaliser"] == "float32"
    b = scorer(gpt2_parts, tmp_path / "f.sqlite")
    b.normaliser = "bfloat16"
    assert b.cache_fingerprint() != fp
    from tests.fakes.lm import tiny_gpt2

    other = CausalLMScorer.from_model(*tiny_gpt2(WORDS, seed=1), device="cpu")
    other.use_score_cache(ScoreCache(tmp_path / "f.sqlite"))
    assert other.cache_fingerprint()["weights"] != fp["weights"]


def test_weights_fingerprint_reads_a_file_once(tmp_path, monkeypatch):
    from lingtest.resources import lm_cache

    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    (folder / "model.safetensors").write_bytes(b"\0" * 1000)
    cache = ScoreCache(tmp_path / "w.sqlite")
    first = cache.fingerprint_of_folder(folder)
    read = []
    real = lm_cache._file_digest
    monkeypatch.setattr(lm_cache, "_file_digest", lambda p: read.append(p.name) or real(p))
    assert cache.fingerprint_of_folder(folder) == first and read == []
    (folder / "model.safetensors").write_bytes(b"\1" * 1000)
    assert cache.fingerprint_of_folder(folder) != first and read == ["model.safetensors"]
    assert weights_fingerprint(folder) == cache.fingerprint_of_folder(folder)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match="no model files"):
        weights_fingerprint(empty)


def test_gemma_rows_are_batch_invariant(tmp_path):
    """On the packaged Gemma (its real matrix shapes): a group's cached-layout scores are the same bits alone
    and among other groups, in another order."""
    from lingtest.resources import models

    d = Path(os.environ.get("LINGTEST_LM_DIR") or models.default_model_dir())
    if not models.is_converted(d):
        pytest.skip(f"no converted Gemma at {d}")
    groups = [["Yesterday the old man walked to the market and bought",
               "Yesterday the old man walked to the store and bought",
               "Yesterday the old man walked to the supermarket and bought"],
              ["She is a very talented", "She is a very gifted", "She is a very clever"],
              ["The committee approved the new budget after a long debate on Tuesday",
               "The committee rejected the new budget after a long debate on Tuesday"],
              ["It rained.", "It snowed.", "It poured all day long and the streets flooded."]]
    sc = CausalLMScorer(str(d), device="cpu", batch_size=8)
    caches = iter(ScoreCache(tmp_path / f"{i}.sqlite") for i in range(10))
    sc.use_score_cache(next(caches))
    together = sc.score_grouped(groups, relative=True)
    for g, want in zip(groups, together, strict=True):
        sc.use_score_cache(next(caches))
        assert sc.score_grouped([g], relative=True)[0] == want
    sc.use_score_cache(next(caches))
    assert sc.score_grouped(groups[::-1], relative=True) == together[::-1]
    sc.use_score_cache(None)
    for g, want in zip(sc.score_grouped(groups, relative=True), together, strict=True):
        assert g == pytest.approx(want, abs=1e-3)
