"""Quantised copies of a causal LM (lingtest.resources.quantize) on a tiny randomly initialised
Gemma-3 (2 layers, the offline model's architecture; no download)."""

from __future__ import annotations

import pytest
import torch

from lingtest.errors import ConfigError
from lingtest.resources.lm import CausalLMScorer
from lingtest.resources.quantize import (
    BACKENDS,
    QuantizeOptions,
    native_bf16,
    quantize_causal_lm,
    quantize_options,
    quantized_linear_names,
)

WORDS = ["der", "die", "das", "er", "sie", "es", "Hund", "Katze", "Haus", "sah", "lief", "ist", "groß", "klein", "."]
INT8 = QuantizeOptions(backend="torch_dynamic_int8")
BF16 = QuantizeOptions(backend="torch_bf16")
DynLinear = torch.ao.nn.quantized.dynamic.Linear


def tiny_gemma(seed: int = 0):
    """``(model, tokenizer)``: a 2-layer Gemma-3 text model over a word-level vocabulary (``<bos>`` 2,
    ``<pad>`` 0, ``<eos>`` 1, ``<unk>`` 3, then ``WORDS``), float32, seeded, with tied embeddings."""
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import WhitespaceSplit
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig, PreTrainedTokenizerFast

    vocab = {"<pad>": 0, "<eos>": 1, "<bos>": 2, "<unk>": 3, **{w: i + 4 for i, w in enumerate(WORDS)}}
    core = Tokenizer(WordLevel(vocab, unk_token="<unk>"))
    core.pre_tokenizer = WhitespaceSplit()
    tok = PreTrainedTokenizerFast(tokenizer_object=core, bos_token="<bos>", eos_token="<eos>", unk_token="<unk>",
                                  pad_token="<pad>")
    torch.manual_seed(seed)
    config = Gemma3TextConfig(vocab_size=len(vocab), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                              num_attention_heads=2, num_key_value_heads=1, head_dim=32, max_position_embeddings=64,
                              sliding_window=32, pad_token_id=0, eos_token_id=1, bos_token_id=2,
                              tie_word_embeddings=True)
    model = Gemma3ForCausalLM(config).eval()
    with torch.no_grad():  # larger weights than the tiny initialisation, so that scores spread out
        for p in model.parameters():
            if p.dim() == 2:
                p.normal_(0.0, 0.2)
    return model, tok


@pytest.fixture(scope="module")
def gemma():
    return tiny_gemma()


def linear_names(model) -> set[str]:
    return {n for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)}


def test_none_returns_the_model_itself(gemma):
    model, _ = gemma
    assert quantize_causal_lm(model, QuantizeOptions()) is model
    assert quantized_linear_names(model, QuantizeOptions()) == []


def test_int8_quantises_every_linear_but_the_head_and_leaves_the_original(gemma):
    model, _ = gemma
    before = {k: v.clone() for k, v in model.state_dict().items()}
    q = quantize_causal_lm(model, INT8)
    assert q is not model
    body = linear_names(model) - {"lm_head"}
    assert len(body) == 2 * 7  # q, k, v, o, gate, up, down per layer
    assert {n for n, m in q.named_modules() if isinstance(m, DynLinear)} == body
    assert type(q.get_output_embeddings()) is torch.nn.Linear
    assert next(q.parameters()).dtype == torch.float32  # what CausalLMScorer reads as the compute dtype
    # the original is untouched: same module types, same weights
    assert linear_names(model) == body | {"lm_head"}
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())


def test_int8_with_head_quantises_the_head_and_keeps_the_float_embedding(gemma):
    model, _ = gemma
    q = quantize_causal_lm(model, QuantizeOptions(backend="torch_dynamic_int8", quantize_head=True))
    assert isinstance(q.get_output_embeddings(), DynLinear)
    emb = q.get_input_embeddings()
    assert emb.weight.dtype == torch.float32 and torch.equal(emb.weight, model.get_input_embeddings().weight)
    assert not any(isinstance(m, torch.nn.Linear) for m in q.modules())


@pytest.mark.parametrize("per_channel,scheme", [(True, torch.per_channel_affine), (False, torch.per_tensor_affine)])
def test_weight_scales_per_channel_or_per_tensor(gemma, per_channel, scheme):
    model, _ = gemma
    q = quantize_causal_lm(model, QuantizeOptions(backend="torch_dynamic_int8", per_channel=per_channel))
    w = q.model.layers[0].mlp.down_proj.weight()
    assert w.dtype == torch.qint8 and w.qscheme() == scheme
    assert torch.allclose(w.dequantize(), model.model.layers[0].mlp.down_proj.weight, atol=0.2 * 4 / 127)


def test_bf16_multiplies_the_linear_layers_in_bfloat16_and_keeps_the_rest_float32(gemma):
    from lingtest.resources.quantize import BFloat16Linear

    model, _ = gemma
    q = quantize_causal_lm(model, BF16)
    body = linear_names(model) - {"lm_head"}
    assert {n for n, m in q.named_modules() if isinstance(m, BFloat16Linear)} == body
    head = q.get_output_embeddings()
    assert type(head) is torch.nn.Linear and head.weight.dtype == torch.float32
    down = q.model.layers[1].mlp.down_proj
    assert down.weight.dtype == torch.bfloat16
    assert torch.equal(down.weight, model.model.layers[1].mlp.down_proj.weight.to(torch.bfloat16))
    assert q.model.norm.weight.dtype == torch.float32 and next(q.parameters()).dtype == torch.float32
    assert type(model.model.layers[1].mlp.down_proj) is torch.nn.Linear  # the original is untouched
    x = torch.randn(3, 128)  # down_proj: intermediate (128) -> hidden (64)
    assert down(x).dtype == torch.float32
    assert torch.allclose(down(x), model.model.layers[1].mlp.down_proj(x), atol=0.2) and not torch.equal(
        down(x), model.model.layers[1].mlp.down_proj(x))
    with_head = quantize_causal_lm(model, QuantizeOptions(backend="torch_bf16", quantize_head=True))
    assert isinstance(with_head.get_output_embeddings(), BFloat16Linear)
    assert with_head.get_input_embeddings().weight.dtype == torch.float32


def test_quantised_logits_are_close_to_float_but_not_equal(gemma):
    model, tok = gemma
    ids = torch.tensor([[2] + tok("der Hund sah die Katze . sie lief", add_special_tokens=False)["input_ids"]])
    with torch.inference_mode():
        ref = torch.log_softmax(model(input_ids=ids).logits, -1)
        for opts in (INT8, QuantizeOptions(backend="torch_dynamic_int8", quantize_head=True, per_channel=False), BF16,
                     QuantizeOptions(backend="torch_bf16", quantize_head=True)):
            got = torch.log_softmax(quantize_causal_lm(model, opts)(input_ids=ids).logits, -1)
            diff = (got - ref).abs().max().item()
            assert 0.0 < diff < 0.5, (opts.label, diff)
            assert torch.equal(got.argmax(-1), ref.argmax(-1)), opts.label


def test_packed_shared_prefix_scoring_runs_on_the_quantised_model(gemma):
    """The packed pass (block mask, position ids, head only where needed; a quantised head goes
    through the full-logits path) works on the quantised copy and makes the float model's choices.
    Packed and plain scores of the quantised model differ slightly more than float rounding: the
    activations' 8-bit scale is taken over the whole input of each product, i.e. over whatever
    texts share the pass."""
    model, tok = gemma
    groups = [["der Hund sah die Katze . sie lief", "der Hund sah die Katze . er lief",
               "der Hund sah die Katze . es lief"],
              ["das Haus ist groß", "das Haus ist klein"]]
    ref = CausalLMScorer.from_model(model, tok, device="cpu").score_grouped(groups)
    best = [max(range(len(r)), key=r.__getitem__) for r in ref]
    for opts in (INT8, QuantizeOptions(backend="torch_dynamic_int8", quantize_head=True), BF16,
                 QuantizeOptions(backend="torch_bf16", quantize_head=True)):
        sc = CausalLMScorer.from_model(quantize_causal_lm(model, opts), tok, device="cpu")
        packed = sc.score_grouped(groups)
        for g, r, e in zip(groups, packed, ref, strict=True):
            assert r == pytest.approx(sc.score(g), rel=0.01)
            assert r == pytest.approx(e, rel=0.01) and r != pytest.approx(e, abs=1e-4)
        assert [max(range(len(r)), key=r.__getitem__) for r in packed] == best


def test_quantize_options_from_config():
    assert quantize_options(None) == QuantizeOptions() and quantize_options({}) == QuantizeOptions()
    got = quantize_options({"backend": "torch_dynamic_int8", "quantize_head": True, "per_channel": False})
    assert got == QuantizeOptions(backend="torch_dynamic_int8", quantize_head=True, per_channel=False)
    assert got.label == "torch_dynamic_int8[per_tensor,head]" and QuantizeOptions().label == "none"
    assert quantize_options({"backend": "torch_bf16"}).label == "torch_bf16"
    assert BACKENDS == ("none", "torch_dynamic_int8", "torch_bf16")


@pytest.mark.parametrize("cfg,message", [
    ({"backend": "onnx"}, r"systems\.lm\.quantize\.backend: unknown backend 'onnx'"),
    ({"backend": "torch_dynamic_int8", "engine": "cuda"}, r"systems\.lm\.quantize\.engine: unknown engine"),
    ({"backend": "torch_dynamic_int8", "quantize_head": "yes"}, r"systems\.lm\.quantize\.quantize_head: expected"),
    ({"backend": "none", "bits": 4}, r"systems\.lm\.quantize: unknown field\(s\) bits"),
    (["torch_dynamic_int8"], r"systems\.lm\.quantize: expected a mapping, got list"),
])
def test_quantize_options_name_the_bad_field(cfg, message):
    with pytest.raises(ConfigError, match=message):
        quantize_options(cfg, where="systems.lm.quantize")


@pytest.mark.parametrize("opts", [INT8, BF16], ids=lambda o: o.backend)
def test_refuses_a_bfloat16_model(gemma, opts):
    import copy

    model, _ = gemma
    with pytest.raises(ConfigError, match=f"quantize.backend: {opts.backend} needs a float32 model"):
        quantize_causal_lm(copy.deepcopy(model).to(torch.bfloat16), opts)


def test_refuses_a_model_without_linear_layers():
    from tests.fakes.lm import tiny_gpt2

    model, _ = tiny_gpt2(["a", "b"])  # GPT-2 projects with Conv1D, not torch.nn.Linear (its head aside)
    with pytest.raises(ConfigError, match="has no torch.nn.Linear layer"):
        quantize_causal_lm(model, INT8)


def test_native_bf16_reads_the_cpu_flags():
    assert native_bf16(["avx2", "avx512f", "avx512_bf16"]) and native_bf16(["amx_bf16", "avx2"])
    assert not native_bf16(["avx2", "fma", "avx512f", "avx512_vnni"])


def test_bf16_warns_on_a_cpu_without_native_bfloat16(gemma, monkeypatch, caplog):
    from lingtest.resources import quantize

    model, _ = gemma
    monkeypatch.setattr(quantize, "native_bf16", lambda flags=None: False)
    with caplog.at_level("WARNING", logger="lingtest.resources.quantize"):
        quantize_causal_lm(model, BF16)
    assert "several times slower than float32" in caplog.text
    caplog.clear()
    monkeypatch.setattr(quantize, "native_bf16", lambda flags=None: True)
    with caplog.at_level("WARNING", logger="lingtest.resources.quantize"):
        quantize_causal_lm(model, BF16)
    assert caplog.text == ""


@pytest.mark.e2e
@pytest.mark.models
def test_gemma_bf16_stays_within_the_measured_tolerance_of_float32():
    """On the converted Gemma-3-270M, ``torch_bf16`` (head float32) keeps packed relative scores
    within 0.3 nats of float32 (bench/bench_quant.py measured at most 0.26 over 1,202 ContraPro
    candidates) and makes the same choices; ``torch_dynamic_int8`` does not stay within it."""
    import os
    from pathlib import Path

    from lingtest.resources import models

    d = Path(os.environ.get("LINGTEST_LM_DIR") or models.default_model_dir())
    if not models.is_converted(d):
        pytest.skip(f"no converted Gemma at {d}")
    groups = [["Der Hund sah die Katze. Sie lief weg.", "Der Hund sah die Katze. Er lief weg.",
               "Der Hund sah die Katze. Es lief weg."],
              ["Ich habe das Buch gelesen. Es war gut.", "Ich habe das Buch gelesen. Er war gut.",
               "Ich habe das Buch gelesen. Sie war gut."]]
    ref = CausalLMScorer(str(d), device="cpu", dtype="float32")
    want = ref.score_grouped(groups, relative=True)
    bf16 = CausalLMScorer.from_model(quantize_causal_lm(ref.model, BF16), ref.tokenizer, device="cpu")
    got = bf16.score_grouped(groups, relative=True)
    for g, w in zip(got, want, strict=True):
        assert g == pytest.approx(w, abs=0.3) and g != pytest.approx(w, abs=1e-6)
        assert max(range(3), key=g.__getitem__) == max(range(3), key=w.__getitem__)
    int8 = CausalLMScorer.from_model(quantize_causal_lm(ref.model, INT8), ref.tokenizer, device="cpu")
    drift = max(abs(a - b) for g, w in zip(int8.score_grouped(groups, relative=True), want, strict=True)
                for a, b in zip(g, w, strict=True))
    assert drift > 0.3


@pytest.fixture
def saved_gemma(tmp_path, gemma):
    """The tiny Gemma saved as a model folder: the keyword arguments of a contrastive scorer reading it, and one
    ContraPro-like query."""
    from lingtest.systems.contrastive.base import ContrastiveQuery

    model, tok = gemma
    model.save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    common = {"template": "{tgt_context}\n", "model": str(tmp_path), "device": "cpu", "dtype": "float32"}
    queries = [ContrastiveQuery(source="", target_context="der Hund sah die Katze .",
                                candidates=("er lief .", "sie lief .", "es lief ."))]
    return common, queries


def test_a_contrastive_scorer_quantised_from_its_config_keeps_a_cache_key_of_its_own(saved_gemma):
    from lingtest.systems.contrastive.causal_lm import CausalLMContrastiveScorer

    common, queries = saved_gemma
    plain = CausalLMContrastiveScorer(**common, quantize=None)
    bf16 = CausalLMContrastiveScorer(**common, quantize={"backend": "torch_bf16"})
    assert "quantize" not in plain.config()  # float32 keeps the cache key it always had
    assert bf16.config()["quantize"] == "torch_bf16"
    a, b = plain.predict(queries)[0], bf16.predict(queries)[0]
    assert list(b) == pytest.approx(list(a), abs=0.25) and list(b) != list(a)
    with pytest.raises(ConfigError, match="quantize.backend"):
        CausalLMContrastiveScorer(**common, quantize={"backend": "int3"})


def test_a_contrastive_scorer_with_a_bfloat16_normaliser(saved_gemma, monkeypatch):
    """``normaliser``: bfloat16 gives scores near float32's under a cache key of their own;
    ``bfloat16_if_native`` is bfloat16 only on a CPU that multiplies it natively; a bad value names the field."""
    from lingtest.resources import quantize
    from lingtest.systems.contrastive.causal_lm import CausalLMContrastiveScorer

    common, queries = saved_gemma
    plain = CausalLMContrastiveScorer(**common, normaliser="float32")
    bf16 = CausalLMContrastiveScorer(**common, normaliser="bfloat16")
    assert "normaliser" not in plain.config()
    assert bf16.config()["normaliser"] == "bfloat16" and bf16.scorer._head_bf16 is not None
    a, b = plain.predict(queries)[0], bf16.predict(queries)[0]
    # 16 of the 19 words of the tiny vocabulary are in the exact top: nearly float32 scores
    assert list(b) == pytest.approx(list(a), abs=1e-4)
    monkeypatch.setattr(quantize, "native_bf16", lambda flags=None: False)
    assert "normaliser" not in CausalLMContrastiveScorer(**common, normaliser="bfloat16_if_native").config()
    monkeypatch.setattr(quantize, "native_bf16", lambda flags=None: True)
    assert CausalLMContrastiveScorer(**common, normaliser="bfloat16_if_native").config()["normaliser"] == "bfloat16"
    with pytest.raises(ConfigError, match="normaliser"):
        CausalLMContrastiveScorer(**common, normaliser="int8")


@pytest.mark.parametrize("backend", ["torch_bf16", "torch_dynamic_int8"])
def test_the_bfloat16_normaliser_leaves_a_quantised_head_to_its_full_logits(gemma, backend):
    """A quantised head is no plain linear layer: the normaliser setting makes no bfloat16 copy of it and the
    scores are those of the quantised model."""
    model, tok = gemma
    groups = [["der Hund sah die Katze . sie lief", "der Hund sah die Katze . er lief"]]
    q = quantize_causal_lm(model, QuantizeOptions(backend=backend, quantize_head=True))
    sc = CausalLMScorer.from_model(q, tok, device="cpu")
    ref = sc.score_grouped(groups)
    sc.set_normaliser("bfloat16")
    assert sc._head_bf16 is None
    assert sc.score_grouped(groups) == ref
