"""The AFA fine-tuning loop on a tiny randomly initialised Marian model built here (no download):
seeded and reproducible, the loss falls, and the trained model prefers the pronoun it was taught
when the contrastive scorer reads it back from a saved folder."""

from __future__ import annotations

import pytest
import torch

from lingtest.contrapro.finetune import FinetuneOptions, batches, finetune
from lingtest.systems.contrastive.base import ContrastiveQuery
from lingtest.systems.contrastive.hf_seq2seq import HFSeq2SeqScorer

WORDS = "the curtain rises it . <SEP> der vorhang geht hoch er sie es is red ist rot".split()
PAIRS = [("the curtain rises . <SEP> it rises .", "der vorhang geht hoch . <SEP> er geht hoch ."),
         ("it is red .", "er ist rot ."),
         ("the curtain is red . <SEP> it is red .", "der vorhang ist rot . <SEP> er ist rot .")]


def tokenizer():
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import WhitespaceSplit
    from tokenizers.processors import TemplateProcessing
    from transformers import PreTrainedTokenizerFast

    specials = ["<pad>", "</s>", "<unk>"]
    vocab = {w: i for i, w in enumerate(specials + sorted(set(WORDS)))}
    core = Tokenizer(WordLevel(vocab, unk_token="<unk>"))
    core.pre_tokenizer = WhitespaceSplit()
    core.post_processor = TemplateProcessing(single="$A </s>", special_tokens=[("</s>", vocab["</s>"])])
    return PreTrainedTokenizerFast(tokenizer_object=core, pad_token="<pad>", eos_token="</s>", unk_token="<unk>")


def tiny_marian(tok, seed=0):
    from transformers import MarianConfig, MarianMTModel

    torch.manual_seed(seed)
    cfg = MarianConfig(vocab_size=len(tok), d_model=16, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                       decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=64,
                       pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id,
                       decoder_start_token_id=tok.pad_token_id)
    return MarianMTModel(cfg)


@pytest.fixture(autouse=True)
def one_thread():
    """A tiny model gains nothing from threads; on a loaded 2-core machine they cost 100x."""
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


OPTS = FinetuneOptions(epochs=12, learning_rate=2e-2, batch_size=3, max_length=32, seed=7, weight_decay=0.0,
                       warmup_steps=0)


def test_batches_are_seeded_per_epoch():
    a = batches(10, 3, seed=1, epoch=0)
    assert sorted(i for b in a for i in b) == list(range(10)) and [len(b) for b in a] == [3, 3, 3, 1]
    assert a == batches(10, 3, seed=1, epoch=0) and a != batches(10, 3, seed=1, epoch=1)


def test_finetuning_lowers_the_loss_reproducibly_and_teaches_the_pronoun(tmp_path):
    tok = tokenizer()
    query = ContrastiveQuery("it is red .", ("er ist rot .", "sie ist rot .", "es ist rot ."))
    before = HFSeq2SeqScorer.from_model(tiny_marian(tok), tok, mode="sentence").predict([query])[0]
    model = tiny_marian(tok)
    info = finetune(model, tok, PAIRS, OPTS)
    again = finetune(tiny_marian(tok), tok, PAIRS, OPTS)
    assert info["epoch_loss"] == again["epoch_loss"]  # seeded: the same run twice
    assert info["epoch_loss"][-1] < 0.5 * info["epoch_loss"][0]
    assert info["pairs"] == 3 and info["steps"] == 12
    model.save_pretrained(tmp_path / "m")
    tok.save_pretrained(tmp_path / "m")
    scorer = HFSeq2SeqScorer(model=str(tmp_path / "m"), mode="sentence", device="cpu")
    after = scorer.predict([query])[0]
    assert after[0] > max(after[1:])  # the taught "er" wins now
    assert after[0] - max(after[1:]) > before[0] - max(before[1:])


def test_options_are_checked():
    with pytest.raises(ValueError):
        FinetuneOptions(epochs=0, learning_rate=1e-3, batch_size=2, max_length=32, seed=0, weight_decay=0.0,
                        warmup_steps=0)
    with pytest.raises(ValueError, match="no training pairs"):
        finetune(tiny_marian(tokenizer()), tokenizer(), [], OPTS)
