"""The tiny causal LM every LM test builds (a 2-layer GPT-2 over a word-level vocabulary, seeded, no
download), and the null tracker the stage tests pass instead of MLflow."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lingtest.tracking import NullTracker

__all__ = ["NullTracker", "tiny_gpt2"]


def tiny_gpt2(words: Sequence[str], seed: int = 0, n_positions: int = 32) -> tuple[Any, Any]:
    """``(model, tokenizer)``: a randomly initialised GPT-2 whose vocabulary is ``words`` plus
    ``<|endoftext|>`` (BOS/EOS, id 0), ``<pad>`` (1) and ``<unk>`` (2), split on whitespace."""
    import torch
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import WhitespaceSplit
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    vocab = {"<|endoftext|>": 0, "<pad>": 1, "<unk>": 2, **{w: i + 3 for i, w in enumerate(dict.fromkeys(words))}}
    core = Tokenizer(WordLevel(vocab, unk_token="<unk>"))
    core.pre_tokenizer = WhitespaceSplit()
    tok = PreTrainedTokenizerFast(tokenizer_object=core, bos_token="<|endoftext|>", eos_token="<|endoftext|>",
                                  unk_token="<unk>", pad_token="<pad>")
    torch.manual_seed(seed)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(vocab), n_positions=n_positions, n_embd=32, n_layer=2,
                                       n_head=2, bos_token_id=0, eos_token_id=0, pad_token_id=1)).eval()
    return model, tok
