"""Tiny randomly initialised BERT models and a WordPiece tokenizer built in the test (no download)."""

from __future__ import annotations

import inspect

import pytest


@pytest.fixture(scope="session")
def tiny_tokenizer(fixtures_dir):
    from transformers import BertTokenizerFast

    path = fixtures_dir / "tin" / "tiny_wordpiece_vocab.txt"
    if "vocab" in inspect.signature(BertTokenizerFast.__init__).parameters:  # transformers >= 5
        vocab = {w: i for i, w in enumerate(path.read_text().split())}
        return BertTokenizerFast(vocab=vocab, do_lower_case=False)
    return BertTokenizerFast(vocab_file=str(path), do_lower_case=False)


def _config(tok):
    from transformers import BertConfig

    return BertConfig(vocab_size=tok.vocab_size, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                      intermediate_size=32, max_position_embeddings=64, pad_token_id=0)


@pytest.fixture(scope="session")
def tiny_mlm(tiny_tokenizer):
    import torch
    from transformers import BertForMaskedLM

    torch.manual_seed(0)
    return BertForMaskedLM(_config(tiny_tokenizer)).eval()


@pytest.fixture(scope="session")
def tiny_encoder(tiny_tokenizer):
    import torch
    from transformers import BertModel

    torch.manual_seed(1)
    return BertModel(_config(tiny_tokenizer)).eval()
