"""CausalLMScorer and MaskedLMScorer logic on tiny randomly initialised models (no download)."""

from __future__ import annotations

import inspect
import math

import pytest
import torch

from lingtest.resources.lm import CausalLMScorer, MaskedLMScorer, TokenScores

WORDS = ["the", "a", "cat", "dog", "sat", "ran", "on", "mat", "big", "small", "house", "."]


@pytest.fixture(scope="module")
def gpt2_parts():
    from tests.fakes.lm import tiny_gpt2

    return tiny_gpt2(WORDS)


@pytest.fixture(scope="module")
def causal(gpt2_parts):
    model, tok = gpt2_parts
    return CausalLMScorer.from_model(model, tok, device="cpu", batch_size=3)


def manual_logprobs(model, ids: list[int]) -> list[float]:
    with torch.no_grad():
        logits = model(torch.tensor([ids])).logits[0]
    lp = torch.log_softmax(logits.float(), dim=-1)
    return [float(lp[i, ids[i + 1]]) for i in range(len(ids) - 1)]


TEXTS = ["the cat sat on the mat .", "a dog ran", "big", "the small dog sat on a big house .", "mat the cat"]


def test_causal_score_equals_manual_computation(causal, gpt2_parts):
    model, tok = gpt2_parts
    for text in TEXTS:
        ids = [0] + tok(text, add_special_tokens=False)["input_ids"]
        expected = manual_logprobs(model, ids)
        (ts,) = causal.token_logprobs([text])
        assert ts.token_ids == ids[1:] and ts.tokens == text.split()
        assert ts.logprobs == pytest.approx(expected, abs=1e-5)
        assert causal.score([text])[0] == pytest.approx(sum(expected), abs=1e-4)


def test_causal_batching_matches_one_by_one(causal, gpt2_parts):
    model, tok = gpt2_parts
    batched = causal.score(TEXTS)
    single = [causal.score([t])[0] for t in TEXTS]
    assert batched == pytest.approx(single, abs=1e-4)
    wide = CausalLMScorer.from_model(model, tok, device="cpu", batch_size=64).score(TEXTS)
    assert wide == pytest.approx(single, abs=1e-4)
    assert len(set(round(x, 4) for x in batched)) == len(TEXTS)  # order kept, not shuffled by length


def test_causal_mean_reduction(causal):
    sums = causal.score(TEXTS)
    means = causal.score(TEXTS, reduction="mean")
    for text, s, m in zip(TEXTS, sums, means, strict=True):
        assert m == pytest.approx(s / len(text.split()))
    with pytest.raises(ValueError):
        causal.score(TEXTS, reduction="max")  # type: ignore[arg-type]


def test_causal_without_bos_skips_first_token(gpt2_parts):
    model, tok = gpt2_parts
    scorer = CausalLMScorer.from_model(model, tok, device="cpu", add_bos=False)
    (ts,) = scorer.token_logprobs(["the cat sat"])
    assert ts.tokens == ["cat", "sat"]
    ids = tok("the cat sat", add_special_tokens=False)["input_ids"]
    assert ts.logprobs == pytest.approx(manual_logprobs(model, ids), abs=1e-5)


def test_causal_empty_text_and_truncation(gpt2_parts):
    model, tok = gpt2_parts
    scorer = CausalLMScorer.from_model(model, tok, device="cpu", max_length=4)
    empty, long = scorer.token_logprobs(["", "the cat sat on the mat ."])
    assert empty.logprobs == [] and empty.total == 0.0 and math.isnan(empty.mean)
    assert long.tokens == ["the", "cat", "sat"]  # BOS + 3 tokens = max_length
    with pytest.raises(TypeError):
        scorer.score("a single string")  # type: ignore[arg-type]


def test_causal_loads_from_directory(tmp_path, gpt2_parts, causal):
    model, tok = gpt2_parts
    model.save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    scorer = CausalLMScorer(str(tmp_path), device="cpu", batch_size=2, dtype="float32")
    assert scorer.score(TEXTS) == pytest.approx(causal.score(TEXTS), abs=1e-4)
    assert scorer.batch_size == 2 and scorer.dtype == torch.float32


@pytest.mark.parametrize("device", ["cpu", "cuda", "cuda:1"])
def test_auto_dtype_is_float32_on_every_device(device):
    """``dtype="auto"`` never picks half precision, on a GPU either: generation must not depend on the
    device, and measured on a GPU bfloat16 flips choices and varies with the batch (bench/bench_gpu.py)."""
    from lingtest.resources.lm import _resolve_dtype

    assert _resolve_dtype("auto", device) is torch.float32
    assert _resolve_dtype(None, device) is torch.float32
    assert _resolve_dtype("bfloat16", device) is torch.bfloat16  # asked for by name
    with pytest.raises(ValueError, match="unknown dtype"):
        _resolve_dtype("float8", device)


def test_token_scores_dataclass():
    ts = TokenScores("x y", ["x", "y"], [5, 6], [-1.0, -3.0])
    assert ts.total == -4.0 and ts.mean == -2.0 and ts.reduce("mean") == -2.0


# ----------------------------------------------------------------------------- masked LM


@pytest.fixture(scope="module")
def bert_parts(fixtures_dir):
    from transformers import BertConfig, BertForMaskedLM, BertTokenizerFast

    vocab_path = fixtures_dir / "resources" / "tiny_bert_vocab.txt"
    if "vocab" in inspect.signature(BertTokenizerFast.__init__).parameters:  # transformers >= 5
        vocab = {w: i for i, w in enumerate(vocab_path.read_text().split())}
        tok = BertTokenizerFast(vocab=vocab, do_lower_case=False)
    else:
        tok = BertTokenizerFast(vocab_file=str(vocab_path), do_lower_case=False)
    assert tok.vocab_size == 21
    torch.manual_seed(0)
    config = BertConfig(vocab_size=tok.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64, pad_token_id=0)
    return BertForMaskedLM(config).eval(), tok


@pytest.fixture(scope="module")
def masked(bert_parts):
    model, tok = bert_parts
    return MaskedLMScorer.from_model(model, tok, device="cpu", batch_size=5)


def manual_pll(model, tok, text: str) -> list[float]:
    ids = tok(text)["input_ids"]
    out = []
    for p in range(1, len(ids) - 1):  # [CLS] ... [SEP]
        masked_ids = list(ids)
        masked_ids[p] = tok.mask_token_id
        with torch.no_grad():
            logits = model(torch.tensor([masked_ids])).logits[0, p]
        out.append(float(torch.log_softmax(logits, -1)[ids[p]]))
    return out


MTEXTS = ["the cat sat on the mat .", "The dogs ran", "a big house", "cats"]


def test_pll_equals_manual_masking(masked, bert_parts):
    model, tok = bert_parts
    results = masked.token_logprobs(MTEXTS)
    for text, ts in zip(MTEXTS, results, strict=True):
        assert ts.logprobs == pytest.approx(manual_pll(model, tok, text), abs=1e-5)
        assert "[CLS]" not in ts.tokens and "[SEP]" not in ts.tokens
    assert results[3].tokens == ["cat", "##s"]  # each word piece masked and scored separately
    assert results[1].tokens == ["The", "dog", "##s", "ran"]


def test_pll_batch_size_invariance(bert_parts, masked):
    model, tok = bert_parts
    one = MaskedLMScorer.from_model(model, tok, device="cpu", batch_size=1).score(MTEXTS)
    assert masked.score(MTEXTS) == pytest.approx(one, abs=1e-4)
    assert masked.score(MTEXTS, reduction="mean")[0] == pytest.approx(one[0] / 7, abs=1e-4)


def test_propose_matches_softmax_and_filters(masked, bert_parts):
    model, tok = bert_parts
    words = ["the", "cat", "sat", "on", "the", "mat"]
    cands = masked.propose(words, 1, top_k=5)
    assert 0 < len(cands) <= 5
    probs = [c.prob for c in cands]
    assert probs == sorted(probs, reverse=True)
    ids = tok(words[:1] + [tok.mask_token] + words[2:], is_split_into_words=True)["input_ids"]
    pos = ids.index(tok.mask_token_id)
    with torch.no_grad():
        dist = torch.softmax(model(torch.tensor([ids])).logits[0, pos], -1)
    for c in cands:
        assert c.prob == pytest.approx(float(dist[tok.convert_tokens_to_ids(c.token)]), abs=1e-6)
        assert not c.token.startswith("##") and c.token not in tok.all_special_tokens
        assert c.token not in {".", ","}
        assert c.token != "cat"  # original excluded
    # the allowed entries of the full distribution, best first, are exactly what propose returns
    allowed = [(float(dist[i]), t) for t, i in tok.get_vocab().items()
               if not t.startswith("##") and t not in tok.all_special_tokens and t not in {".", ",", "cat"}]
    assert [c.token for c in cands] == [t for _, t in sorted(allowed, reverse=True)[:5]]


def test_propose_min_prob_keep_and_errors(masked):
    words = ["a", "big", "house"]
    cands = masked.propose(words, 2, top_k=50, min_prob=0.06)
    assert all(c.prob >= 0.06 for c in cands)
    with_orig = masked.propose(words, 2, top_k=50, exclude_original=False)
    assert "house" in [c.token for c in with_orig]
    only_upper = masked.propose(words, 2, top_k=50, keep=lambda t: t[0].isupper())
    assert only_upper and all(c.token[0].isupper() for c in only_upper)
    with pytest.raises(IndexError):
        masked.propose(words, 3)
    with pytest.raises(ValueError):
        masked.propose(words, 0, top_k=0)


def test_propose_many_equals_single(masked):
    reqs = [(["the", "cat", "sat"], 0), (["a", "dog", "ran", "on", "the", "mat"], 4), (["cats"], 0)]
    many = masked.propose_many(reqs, top_k=4)
    for (words, pos), got in zip(reqs, many, strict=True):
        single = masked.propose(words, pos, top_k=4)
        assert [c.token for c in got] == [c.token for c in single]
        assert [c.prob for c in got] == pytest.approx([c.prob for c in single], abs=1e-5)


# -- shared-prefix scoring (score_grouped / score_continuations) ---------------------------------
GROUPS = [
    ["the cat sat on the mat .", "the cat ran", "the cat sat on a big house ."],  # share "the cat"
    ["a dog ran on the mat", "a dog sat", "a small dog"],  # share "a" (and BOS)
    ["big", "mat the cat"],  # share only BOS
    ["the small dog sat"],  # one text
    [],
]


def test_score_grouped_equals_score(gpt2_parts):
    model, tok = gpt2_parts
    sc = CausalLMScorer.from_model(model, tok, device="cpu", batch_size=3)
    expected = [sc.score(g) if g else [] for g in GROUPS]
    for gbs in (64, 3, 1):  # all groups in one pass, and split over several passes
        sc.group_batch_size = gbs
        got = sc.score_grouped(GROUPS)
        assert [len(g) for g in got] == [len(g) for g in GROUPS]
        for e, g in zip(expected, got, strict=True):
            assert g == pytest.approx(e, abs=1e-4)
    sc.head_chunk = 2  # the output head in small row chunks
    assert sc.score_grouped(GROUPS[:2]) == [pytest.approx(e, abs=1e-4) for e in expected[:2]]


def test_score_grouped_relative_drops_a_per_group_constant(gpt2_parts):
    model, tok = gpt2_parts
    sc = CausalLMScorer.from_model(model, tok, device="cpu")
    full = sc.score_grouped(GROUPS[:3])
    rel = sc.score_grouped(GROUPS[:3], relative=True)
    for f, r in zip(full, rel, strict=True):
        offsets = [a - b for a, b in zip(f, r, strict=True)]
        assert max(offsets) - min(offsets) < 1e-4  # same constant for the whole group
    # the shared prefix "the cat" has a nonzero log-probability; a group sharing only BOS has none
    assert full[0][0] - rel[0][0] < -1e-3
    assert full[2] == pytest.approx(rel[2], abs=1e-5)
    # so a per-group softmax is unchanged
    import numpy as np

    for f, r in zip(full, rel, strict=True):
        pf, pr = np.exp(f - np.logaddexp.reduce(f)), np.exp(r - np.logaddexp.reduce(r))
        assert pf == pytest.approx(pr, abs=1e-5)


def test_score_continuations(gpt2_parts):
    model, tok = gpt2_parts
    sc = CausalLMScorer.from_model(model, tok, device="cpu")
    conts = [" sat on the mat .", " ran", " dog"]
    assert sc.score_continuations("the cat", conts) == pytest.approx(
        sc.score(["the cat" + c for c in conts]), abs=1e-4)
    # a continuation that changes how the prefix itself is tokenised is still scored exactly
    assert sc.score_continuations("the ca", ["t sat", "t ran"]) == pytest.approx(
        sc.score(["the cat sat", "the cat ran"]), abs=1e-4)
    with pytest.raises(TypeError):
        sc.score_continuations("the", "cat")  # type: ignore[arg-type]


def test_score_grouped_without_bos_falls_back(gpt2_parts):
    model, tok = gpt2_parts
    sc = CausalLMScorer.from_model(model, tok, device="cpu", add_bos=False)
    groups = [["cat sat", "dog ran"], ["the cat sat", "the dog"]]
    got = sc.score_grouped(groups)
    assert got[0] == pytest.approx(sc.score(groups[0]), abs=1e-4)  # nothing shared: plain score
    assert got[1] == pytest.approx(sc.score(groups[1]), abs=1e-4)


@pytest.mark.e2e
@pytest.mark.models
def test_gemma_score_grouped_matches_score():
    import os
    from pathlib import Path

    from lingtest.resources import models

    d = Path(os.environ.get("LINGTEST_LM_DIR") or models.default_model_dir())
    if not models.is_converted(d):
        pytest.skip(f"no converted Gemma at {d}")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        sc = CausalLMScorer(str(d), device="cpu", batch_size=8)
        groups = [["Yesterday the old man walked to the market and bought",
                   "Yesterday the old man walked to the store and bought",
                   "Yesterday the old man walked to the supermarket and bought"],
                  ["She is a very talented", "She is a very gifted", "She is a very clever"]]
        got = sc.score_grouped(groups)
        for g, r in zip(groups, got, strict=True):
            assert r == pytest.approx(sc.score(g), abs=1e-3)
        rel = sc.score_grouped(groups, relative=True)
        assert ([a - b for a, b in zip(got[0], rel[0], strict=True)]
                == pytest.approx([got[0][0] - rel[0][0]] * 3, abs=1e-3))
    finally:
        torch.set_num_threads(threads)


def test_resolve_threads(monkeypatch):
    from lingtest.resources import threads

    assert threads.resolve_threads(None) is None and threads.resolve_threads(3) == 3
    assert threads.resolve_threads("2") == 2
    with pytest.raises(ValueError):
        threads.resolve_threads(0)
    monkeypatch.setattr(threads.os, "cpu_count", lambda: 4)
    monkeypatch.setattr(threads, "idle_cpus", lambda sample_seconds=0.3: 1.2)
    assert threads.resolve_threads("auto") == 1
    monkeypatch.setattr(threads, "idle_cpus", lambda sample_seconds=0.3: 0.1)
    assert threads.resolve_threads("auto") == 1  # never 0
    monkeypatch.setattr(threads, "idle_cpus", lambda sample_seconds=0.3: 3.9)
    assert threads.resolve_threads("auto") == 4
    monkeypatch.setattr(threads, "idle_cpus", lambda sample_seconds=0.3: None)
    assert threads.resolve_threads("auto") == 4  # unknown: all CPUs


def test_moved_helpers_stay_importable_from_lm():
    from lingtest.resources import lm, lm_packing, threads

    assert lm.pack_groups is lm_packing.pack_groups and lm.PackedGroups is lm_packing.PackedGroups
    assert lm.resolve_threads is threads.resolve_threads and lm.idle_cpus is threads.idle_cpus


def test_idle_cpus_is_a_sane_number():
    from lingtest.resources.lm import idle_cpus

    idle = idle_cpus(0.05)
    assert idle is None or 0.0 <= idle <= (__import__("os").cpu_count() or 1) + 1e-6


def test_pack_groups_layout_and_mask():
    from lingtest.resources.lm import pack_groups

    groups = [[[0, 5, 6, 7], [0, 5, 6, 8, 9]],  # prefix 0 5 6
              [[0, 5, 6, 7, 2], [0, 5, 6, 7, 3]],  # prefix 0 5 6 7: extends the same block
              [[0, 9, 4], [0, 9, 5]]]  # prefix 0 9: a new block
    pk = pack_groups(groups, [3, 4, 2], relative=True)
    #        block 0 (0 5 6) | text0: - | text1: 8 | block0 +7 | text2: - | text3: - | block 1 (0 9) | -
    assert pk.ids == [0, 5, 6, 8, 7, 0, 9]
    assert pk.positions == [0, 1, 2, 3, 3, 0, 1]
    assert pk.trunk == [0, 0, 0, 0, 0, 1, 1]
    assert pk.text == [-1, -1, -1, 1, -1, -1, -1]
    # text 0: 7 from the prefix end; text 1: 8 from it, 9 from its own "8"; texts 2, 3 from the
    # extended block's "7"; texts 4, 5 from block 1's "9"
    assert list(zip(pk.head_rows, pk.targets, pk.owners, strict=True)) == [
        (2, 7, 0), (2, 8, 1), (3, 9, 1), (4, 2, 2), (4, 3, 3), (6, 4, 4), (6, 5, 5)]
    m = pk.mask().tolist()
    assert m[3] == [True, True, True, True, False, False, False]  # "8" sees 0 5 6 and itself, not the extension
    assert m[4] == [True, True, True, False, True, False, False]  # the extension sees its block only
    assert m[6] == [False] * 5 + [True, True]
    absolute = pack_groups(groups[:1], [3], relative=False)
    assert list(zip(absolute.head_rows, absolute.targets, strict=True)) == [
        (0, 5), (1, 6), (2, 7), (0, 5), (1, 6), (2, 8), (3, 9)]
    with pytest.raises(ValueError):
        pack_groups([[[0, 5], [0, 6]]], [2])  # no continuation left
    with pytest.raises(ValueError):
        pack_groups([[[0, 5, 1], [0, 6, 1]]], [2])  # not a shared prefix


def test_shared_prefix_length_and_packed_size():
    from lingtest.resources.lm_packing import packed_size, shared_prefix_length

    enc = [[0, 5, 6, 7], [0, 5, 6, 8, 9], [0, 5, 4]]
    assert shared_prefix_length(enc) == 2  # "0 5"
    assert shared_prefix_length([[0, 5], [0, 5, 6]]) == 1  # the shorter text keeps one continuation token
    assert shared_prefix_length([[1, 2], [3, 4]]) == 0
    assert packed_size(enc, 2) == 2 + 1 + 2 + 0  # the prefix once, each continuation but its last token


def test_plan_passes_keeps_groups_whole_within_both_budgets():
    from lingtest.resources.lm_packing import plan_passes

    sizes = [(2, 10), (3, 10), (1, 30), (5, 5), (1, 1)]  # (texts, packed tokens) per group
    # group 2 alone is over the token budget: it still gets a pass, of its own
    assert plan_passes(sizes, max_texts=6, max_tokens=25) == [[0, 1], [2], [3, 4]]
    assert plan_passes(sizes, max_texts=5, max_tokens=100) == [[0, 1], [2], [3], [4]]
    assert plan_passes([], max_texts=4, max_tokens=4) == []


def test_additive_mask_matches_the_boolean_mask():
    from lingtest.resources.lm_packing import pack_groups

    pk = pack_groups([[[0, 5, 6, 7], [0, 5, 6, 8, 9]]], [3])
    add = pk.additive_mask(torch.float32)
    allowed = pk.mask()
    assert add.shape == (1, 1, len(pk.ids), len(pk.ids))
    assert bool((add[0, 0][allowed] == 0).all())
    assert bool((add[0, 0][~allowed] == torch.finfo(torch.float32).min).all())


@pytest.mark.parametrize("bias", [False, True])
def test_head_logprobs_equals_log_softmax(bias):
    from lingtest.resources.lm_head import head_logprobs

    torch.manual_seed(0)
    head = torch.nn.Linear(8, 13, bias=bias)
    hidden = torch.randn(5, 8)
    rows = torch.tensor([0, 0, 3, 4, 2])  # row 0 predicts two targets
    targets = torch.tensor([1, 12, 7, 0, 5])
    with torch.no_grad():
        expected = pytest.approx(torch.log_softmax(head(hidden), dim=-1)[rows, targets].tolist(), abs=1e-5)
        # one chunk; several row and vocabulary chunks
        for kw in ({}, {"head_chunk": 2, "vocab_chunk": 4}):
            assert head_logprobs(head, hidden, rows, targets, **kw).tolist() == expected
        not_linear = torch.nn.Sequential(head)  # full logits, row chunks
        assert head_logprobs(not_linear, hidden, rows, targets, head_chunk=2).tolist() == expected
        capped = torch.log_softmax(torch.tanh(head(hidden) / 0.5) * 0.5, dim=-1)[rows, targets].tolist()
        got = head_logprobs(head, hidden, rows, targets, softcap=0.5, vocab_chunk=4).tolist()
        assert got == pytest.approx(capped, abs=1e-5)


@pytest.mark.parametrize("bias", [False, True])
def test_head_logprobs_bfloat16_normaliser(bias):
    """The bfloat16 normaliser: with every logit among the exact top it is the float32 value; with a few
    it stays within bfloat16's error of the tail; the target logits are float32 either way."""
    from lingtest.resources.lm_head import head_logprobs

    torch.manual_seed(1)
    head = torch.nn.Linear(64, 300, bias=bias)
    hidden = torch.randn(7, 64) * 3
    rows = torch.tensor([0, 1, 2, 3, 4, 5, 6, 6])
    targets = torch.tensor([1, 299, 7, 0, 150, 33, 2, 3])
    with torch.no_grad():
        exact = torch.log_softmax(head(hidden), dim=-1)[rows, targets]
        all_top = head_logprobs(head, hidden, rows, targets, normaliser="bfloat16", exact_top=300, vocab_chunk=64)
        assert all_top.tolist() == pytest.approx(exact.tolist(), abs=1e-5)
        few = head_logprobs(head, hidden, rows, targets, normaliser="bfloat16", exact_top=4, vocab_chunk=64,
                            head_chunk=3)
        assert (few - exact).abs().max().item() < 0.02
        # the same without its top logits recomputed is further off: the correction does something
        none = head_logprobs(head, hidden, rows, targets, normaliser="bfloat16", exact_top=1, vocab_chunk=1)
        assert (none - exact).abs().max().item() > (few - exact).abs().max().item()
        with pytest.raises(ValueError, match="normaliser"):
            head_logprobs(head, hidden, rows, targets, normaliser="int8")


def test_score_grouped_positions_of_one_sentence(gpt2_parts):
    """Groups as CREST makes them with the whole left context (each position of a sentence, left
    to right): they share one growing prefix block, and scores still equal plain scoring."""
    model, tok = gpt2_parts
    sc = CausalLMScorer.from_model(model, tok, device="cpu")
    groups = [["the big cat sat on the mat", "the small cat sat on the mat"],
              ["the cat sat on the mat", "the cat ran on the mat", "the cat sat on the mat ."],
              ["the cat sat on a mat", "the cat sat on the house"],
              ["a dog ran", "a cat ran"]]
    for relative in (False, True):
        got = sc.score_grouped(groups, relative=relative)
        if not relative:
            assert got == [pytest.approx(sc.score(g), abs=1e-4) for g in groups]
        else:
            full = sc.score_grouped(groups)
            for f, r in zip(full, got, strict=True):
                diffs = [a - b for a, b in zip(f, r, strict=True)]
                assert max(diffs) - min(diffs) < 1e-4


def test_score_grouped_with_a_non_linear_head(gpt2_parts):
    """A head that is not a plain linear layer goes through full logits (row chunks) and gives
    the same log-probabilities as the chunked-vocabulary path."""
    model, tok = gpt2_parts
    sc = CausalLMScorer.from_model(model, tok, device="cpu")
    linear = model.get_output_embeddings()
    expected = sc.score_grouped(GROUPS[:3])
    wrapped = torch.nn.Sequential(linear)
    sc.head_chunk = 2
    orig = model.get_output_embeddings
    model.get_output_embeddings = lambda: wrapped  # type: ignore[method-assign]
    try:
        got = sc.score_grouped(GROUPS[:3])
    finally:
        model.get_output_embeddings = orig  # type: ignore[method-assign]
    assert got == [pytest.approx(e, abs=1e-5) for e in expected]
    sc.vocab_chunk = 5  # the chunked log-normaliser over several vocabulary chunks
    assert sc.score_grouped(GROUPS[:3]) == [pytest.approx(e, abs=1e-5) for e in expected]


def test_every_forward_pass_runs_inside_the_attention_guard(gpt2_parts, monkeypatch):
    import contextlib

    import lingtest.resources.lm as lm_mod

    model, tok = gpt2_parts
    sc = CausalLMScorer.from_model(model, tok, device="cpu", batch_size=3)
    inside: list[bool] = []
    entered: list[str] = []

    @contextlib.contextmanager
    def guard(device):
        entered.append(device)
        inside.append(True)
        try:
            yield
        finally:
            inside.pop()

    calls = {"n": 0, "outside": 0}

    def counting(forward):
        def wrapped(*args, **kwargs):
            calls["n"] += 1
            calls["outside"] += not inside
            return forward(*args, **kwargs)
        return wrapped

    monkeypatch.setattr(lm_mod, "attention_guard", guard)
    monkeypatch.setattr(model, "forward", counting(model.forward))  # padded batches
    monkeypatch.setattr(model.base_model, "forward", counting(model.base_model.forward))  # packed passes
    sc.token_logprobs(["the cat sat", "a dog ran on the mat"])
    sc.score_grouped(GROUPS)
    sc.token_logprobs_grouped(GROUPS[:2])
    assert calls["n"] >= 3 and calls["outside"] == 0
    assert set(entered) == {"cpu"} and len(entered) == 3
