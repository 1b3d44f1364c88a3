"""Tiny randomly initialised Hugging Face models built inside a test (no download): a word-piece
tokenizer over a fixed vocabulary and a 2-layer BERT sequence classifier saved to a folder, the stand-in
for a hub checkpoint such as ``textattack/bert-base-uncased-SST-2``."""

from __future__ import annotations

import inspect
from pathlib import Path

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "good", "bad", "film", "movie", "the", "is", "was",
         "not", "great", "awful", "plot", "actor", "i", "liked", "it", "hate", "them", "people", ".", ",", "!",
         "boring", "fun", "story", "##s", "and", "but"]


def make_tokenizer(folder: Path):
    from transformers import BertTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "vocab.txt"
    path.write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    # transformers 5 takes the vocabulary as `vocab` (and silently ignores `vocab_file`); 4.x as `vocab_file`
    key = "vocab" if "vocab" in inspect.signature(BertTokenizerFast.__init__).parameters else "vocab_file"
    tok = BertTokenizerFast(**{key: str(path)})
    assert tok.convert_ids_to_tokens(tok("good films")["input_ids"]) == ["[CLS]", "good", "film", "##s", "[SEP]"]
    return tok


def tiny_sequence_classifier(folder: Path, labels: list[str], *, seed: int = 0, layers: int = 2,
                             hidden: int = 8) -> Path:
    """A randomly initialised BERT sequence classifier with ``id2label`` = ``labels``, saved with its
    tokenizer to ``folder``; returns ``folder``."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    tok = make_tokenizer(folder / "tokenizer-src")
    cfg = BertConfig(vocab_size=len(VOCAB), hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=2,
                     intermediate_size=2 * hidden, max_position_embeddings=64, id2label=dict(enumerate(labels)),
                     label2id={t: i for i, t in enumerate(labels)})
    torch.manual_seed(seed)
    model = BertForSequenceClassification(cfg)
    model.eval()
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder
