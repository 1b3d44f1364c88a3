"""convert_gguf_model on a tiny random Gemma-3 GGUF written in the test: the saved copy must give
the same tokenizer ids and logits as transformers' own GGUF loading."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from lingtest.resources import models

gguf = pytest.importorskip("gguf")

WORDS = ["the", "cat", "sat", "on", "mat", "dog", "ran", "a", "big", "small", "house", "."]


def write_tiny_gemma3_gguf(path: Path, seed: int = 0) -> Path:
    """A 2-layer, 32-wide Gemma-3 GGUF with float32 tensors and a ~40-token SentencePiece vocab."""
    rng = np.random.default_rng(seed)
    hidden, layers, ff, heads, kv, head_dim = 32, 2, 64, 2, 1, 16
    tokens = ["<pad>", "<eos>", "<bos>", "<unk>"] + ["▁" + w for w in WORDS]
    tokens += list("abcdefghijklmnopqrstuvwxyz.▁")
    vocab = len(tokens)
    w = gguf.GGUFWriter(str(path), "gemma3")
    w.add_context_length(128)
    w.add_embedding_length(hidden)
    w.add_block_count(layers)
    w.add_feed_forward_length(ff)
    w.add_head_count(heads)
    w.add_head_count_kv(kv)
    w.add_key_length(head_dim)
    w.add_value_length(head_dim)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_rope_freq_base(10000.0)
    w.add_sliding_window(64)
    w.add_tokenizer_model("llama")
    w.add_tokenizer_pre("default")
    w.add_token_list(tokens)
    w.add_token_scores([-1000.0] * 4 + [-float(i) for i in range(vocab - 4)])
    w.add_token_types([3, 3, 3, 2] + [1] * (vocab - 4))
    w.add_bos_token_id(2)
    w.add_eos_token_id(1)
    w.add_unk_token_id(3)
    w.add_pad_token_id(0)
    w.add_add_bos_token(True)
    w.add_add_eos_token(False)

    def t(*shape: int) -> np.ndarray:
        return rng.normal(0.0, 0.2, size=shape).astype(np.float32)

    w.add_tensor("token_embd.weight", t(vocab, hidden))
    w.add_tensor("output_norm.weight", t(hidden))
    for i in range(layers):
        p = f"blk.{i}."
        shapes = {
            "attn_q": (heads * head_dim, hidden), "attn_k": (kv * head_dim, hidden),
            "attn_v": (kv * head_dim, hidden), "attn_output": (hidden, heads * head_dim),
            "attn_q_norm": (head_dim,), "attn_k_norm": (head_dim,), "attn_norm": (hidden,),
            "post_attention_norm": (hidden,), "ffn_gate": (ff, hidden), "ffn_up": (ff, hidden),
            "ffn_down": (hidden, ff), "ffn_norm": (hidden,), "post_ffw_norm": (hidden,),
        }
        for name, shape in shapes.items():
            w.add_tensor(f"{p}{name}.weight", t(*shape))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    d = tmp_path_factory.mktemp("gguf")
    gguf_path = write_tiny_gemma3_gguf(d / "tiny.gguf")
    out = models.convert_gguf_model(d / "converted", gguf_path=gguf_path, dtype="float32")
    return gguf_path, out


def test_conversion_writes_a_complete_copy(tiny):
    gguf_path, out = tiny
    assert models.is_converted(out)
    info = models.conversion_info(out)
    assert info.dtype == "float32" and info.source_gguf == "tiny.gguf" and len(info.source_sha256) == 64
    assert not list(out.parent.glob("*.tmp"))
    assert "quantization_config" not in (out / "config.json").read_text()


def test_converted_copy_matches_gguf_loading(tiny):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf_path, out = tiny
    ref_tok = AutoTokenizer.from_pretrained(str(gguf_path.parent), gguf_file=gguf_path.name)
    tok = AutoTokenizer.from_pretrained(str(out))
    text = "the cat sat on the mat."
    assert tok(text)["input_ids"] == ref_tok(text)["input_ids"]
    assert tok.bos_token_id == 2
    ref = AutoModelForCausalLM.from_pretrained(str(gguf_path.parent), gguf_file=gguf_path.name,
                                               dtype=torch.float32).eval()
    model = AutoModelForCausalLM.from_pretrained(str(out), dtype=torch.float32).eval()
    ids = torch.tensor([tok(text)["input_ids"]])
    with torch.no_grad():
        torch.testing.assert_close(model(ids).logits, ref(ids).logits, atol=1e-5, rtol=1e-5)


def test_converted_copy_scores(tiny):
    from lingtest.resources.lm import CausalLMScorer

    _, out = tiny
    scorer = CausalLMScorer(str(out), device="cpu", batch_size=2)
    scores = scorer.score(["the cat sat", "a big house .", ""])
    assert scores[0] < 0 and scores[1] < 0 and scores[2] == 0.0


def test_overwrite_replaces_atomically(tiny):
    gguf_path, out = tiny
    before = models.conversion_info(out)
    models.convert_gguf_model(out, gguf_path=gguf_path, dtype="bfloat16", overwrite=True)
    after = models.conversion_info(out)
    assert before.dtype == "float32" and after.dtype == "bfloat16"
    assert models.is_converted(out) and not out.with_name(out.name + ".old").exists()
