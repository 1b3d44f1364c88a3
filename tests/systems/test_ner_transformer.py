"""Hugging Face token-classification NER: word-level aggregation and windowing checked exactly with a
context-free stand-in network on a real tokenizer, and the whole load -> predict path on a tiny randomly
initialised BERT saved to a folder inside the test (no download)."""

from __future__ import annotations

import inspect
from types import SimpleNamespace

import pytest

from lingtest.systems.ner.spans import entities_to_iob2
from lingtest.systems.ner.transformer import (
    HFTokenClassificationSystem,
    checkpoint_fingerprint,
    predict_word_tags,
)

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "anna", "berg", "##s", "went", "to", "oslo", ".",
         "new", "york", "and", "paris", "##ville", "met"]
LABELS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
# what the stand-in network predicts for each vocabulary entry, whatever its context
TOKEN_LABEL = {"anna": "B-PER", "berg": "I-PER", "##s": "B-LOC", "oslo": "B-LOC", "new": "B-LOC",
               "york": "I-LOC", "paris": "B-LOC", "##ville": "O"}


def make_tokenizer(folder):
    from transformers import BertTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "vocab.txt"
    path.write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    # transformers 5 takes the vocabulary as `vocab` (and silently ignores `vocab_file`); 4.x as `vocab_file`
    key = "vocab" if "vocab" in inspect.signature(BertTokenizerFast.__init__).parameters else "vocab_file"
    tok = BertTokenizerFast(**{key: str(path)})
    assert tok.convert_ids_to_tokens(tok(["Bergs"], is_split_into_words=True)["input_ids"]) == \
        ["[CLS]", "berg", "##s", "[SEP]"]
    return tok


class ContextFree:
    """A stand-in token classifier: each subword's logits favour TOKEN_LABEL of its vocabulary entry
    (``O`` for specials and the rest), except ``berg``, which is unsure: I-PER 0.45, B-LOC 0.4, so that
    ``first`` and ``average`` disagree on ``Bergs`` (berg + ##s)."""

    def __init__(self):
        import torch

        self.config = SimpleNamespace(id2label=dict(enumerate(LABELS)))
        table = torch.full((len(VOCAB), len(LABELS)), -5.0)
        for i, w in enumerate(VOCAB):
            table[i, LABELS.index(TOKEN_LABEL.get(w, "O"))] = 5.0
        table[VOCAB.index("berg")] = torch.log(torch.tensor([0.05, 0.05, 0.45, 0.4, 0.05]))
        self.table = table
        self.calls = 0

    def __call__(self, input_ids, **_):
        self.calls += 1
        return SimpleNamespace(logits=self.table[input_ids])


def test_first_subword_aggregation_and_windows_cover_every_word(tmp_path):
    tok = make_tokenizer(tmp_path / "tok")
    net = ContextFree()
    sents = [["Anna", "Bergs", "went", "to", "Oslo", "."], ["Parisville", "met", "New", "York"]]
    tags = predict_word_tags(net, tok, sents, max_length=64, aggregation="first", device="cpu")
    # Bergs = berg (I-PER) + ##s (B-LOC): first subword wins; Parisville = paris (B-LOC) + ##ville
    assert tags == [["B-PER", "I-PER", "O", "O", "B-LOC", "O"], ["B-LOC", "O", "B-LOC", "I-LOC"]]


def test_average_aggregation_differs_from_first(tmp_path):
    tok = make_tokenizer(tmp_path / "tok")
    net = ContextFree()
    # Bergs: first -> berg's I-PER (0.45); average -> B-LOC ((0.4 + ~1.0) / 2 against I-PER (0.45 + ~0) / 2)
    first = predict_word_tags(net, tok, [["Bergs"]], max_length=64, aggregation="first", device="cpu")
    avg = predict_word_tags(net, tok, [["Bergs"]], max_length=64, aggregation="average", device="cpu")
    assert first == [["I-PER"]] and avg == [["B-LOC"]]
    with pytest.raises(ValueError, match="aggregation"):
        predict_word_tags(net, tok, [["Bergs"]], max_length=64, aggregation="max", device="cpu")


def test_long_sentences_are_windowed_not_cut(tmp_path):
    tok = make_tokenizer(tmp_path / "tok")
    # 36 subwords
    words = ["Anna", "Bergs", "went", "to", "Oslo", ".", "Parisville", "met", "New", "York"] * 3
    whole = predict_word_tags(ContextFree(), tok, [words], max_length=64, aggregation="first", device="cpu")
    net = ContextFree()
    windowed = predict_word_tags(net, tok, [words, ["Oslo"]], max_length=6, aggregation="first", device="cpu")
    assert windowed[0] == whole[0] and windowed[1] == ["B-LOC"]
    assert net.calls > 5  # 4 subwords per window: many rounds
    assert predict_word_tags(net, tok, [], max_length=6, aggregation="first", device="cpu") == []


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    """A randomly initialised 1-layer BERT token classifier with a 5-label IOB2 map, saved with its
    tokenizer: a stand-in for a hub checkpoint such as dslim/bert-base-NER."""
    import torch
    from transformers import BertConfig, BertForTokenClassification

    folder = tmp_path_factory.mktemp("tiny-bert")
    tok = make_tokenizer(folder / "src")
    cfg = BertConfig(vocab_size=len(VOCAB), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=32, max_position_embeddings=64, id2label=dict(enumerate(LABELS)),
                     label2id={t: i for i, t in enumerate(LABELS)})
    torch.manual_seed(0)
    model = BertForTokenClassification(cfg)
    # a bias towards B-PER on every subword makes predicted entities certain (a random head may predict none)
    with torch.no_grad():
        model.classifier.bias.copy_(torch.tensor([0.0, 8.0, 0.0, 0.0, 0.0]))
    out = folder / "model"
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


def test_hub_system_loads_a_local_checkpoint_and_predicts_valid_spans(tiny_bert):
    system = HFTokenClassificationSystem(str(tiny_bert), label_scheme="conll", aggregation="first",
                                         max_length=8, device="cpu")
    sents = [["Anna", "Bergs", "went", "to", "Oslo", "."], ["New", "York"] * 5, ["x"]]
    preds = system.predict(sents)
    assert len(preds) == 3
    for ents, words in zip(preds, sents, strict=True):
        entities_to_iob2(ents, len(words))  # in bounds, no overlaps
        assert all(e.label in ("PER", "LOC") for e in ents)
    # the B-PER bias: every word is its own PER entity, also beyond the first window of 6 subwords
    assert [(e.start, e.end, e.label) for e in preds[1]] == [(i, i + 1, "PER") for i in range(10)]
    assert system.predict(sents) == preds  # deterministic
    cfg = system.config()
    assert cfg == {"weights": checkpoint_fingerprint(tiny_bert), "aggregation": "first", "max_length": 8}
    assert "model" not in cfg  # a local folder is known by its content, not its path


def test_hub_id_config_and_option_checks():
    s = HFTokenClassificationSystem("dslim/bert-base-NER", label_scheme="conll", aggregation="first",
                                    max_length=512, revision="abc123")
    assert s.config() == {"model": "dslim/bert-base-NER", "revision": "abc123", "aggregation": "first",
                          "max_length": 512}
    with pytest.raises(ValueError, match="aggregation"):
        HFTokenClassificationSystem("x", label_scheme="conll", aggregation="max", max_length=8)
    with pytest.raises(ValueError, match="max_length"):
        HFTokenClassificationSystem("x", label_scheme="conll", aggregation="first", max_length=2)
