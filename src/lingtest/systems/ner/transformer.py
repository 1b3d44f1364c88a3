"""Hugging Face token-classification NER on pre-tokenised sentences, aggregated to words.

Words go to the tokenizer as they are (``is_split_into_words=True``); the model's subword logits are
aggregated to one tag per word (``first``: the word's first subword, the way the model was trained
when its labels were aligned to first subwords; ``average``: the mean of the softmax probabilities
of its subwords) and the word tags are decoded into entities by
:func:`~lingtest.systems.ner.spans.tags_to_entities` (IOB1, IOB2, BIOES and plain IO labels all
read). Nothing is cut off: a sentence longer than ``max_length`` subwords is predicted in windows,
each starting at the first word the previous one did not cover. A word the tokenizer turns into no
subword at all (e.g. a lone zero-width space) is tagged ``O``.

Two systems: :class:`HFTokenClassificationSystem` (any hub id or local folder, e.g.
``dslim/bert-base-NER``) and :class:`MiniLMNERSystem` (the checkpoint the ``train_ner`` stage
fine-tunes from the packaged MiniLM, CoNLL scheme). A local checkpoint's weights are hashed into
``config()``, so retraining it invalidates its cached predictions.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lingtest.data.model import Entity
from lingtest.errors import MissingResourceError
from lingtest.resources.finetuning import CheckpointIdentity, checkpoint_fingerprint, load_pretrained
from lingtest.systems.ner.base import NERSystem, Tokens
from lingtest.systems.ner.spans import tags_to_entities

AGGREGATIONS = ("first", "average")

__all__ = ["AGGREGATIONS", "HFTokenClassificationSystem", "MiniLMNERSystem", "checkpoint_fingerprint",
           "load_token_classifier", "predict_word_tags"]


def load_token_classifier(model: str, *, revision: str | None, device: str) -> tuple[Any, Any]:
    """``(model, tokenizer)`` of a token-classification checkpoint (hub id or local folder), in eval
    mode on ``device``. Raises :class:`MissingResourceError` when it cannot be loaded."""
    from transformers import AutoModelForTokenClassification

    net, tok = load_pretrained(AutoModelForTokenClassification, model, revision=revision, device=device,
                               kind="token-classification")
    if not getattr(tok, "is_fast", False):
        raise MissingResourceError(f"model {model!r} has no fast tokenizer (tokenizer.json); word alignment "
                                   "needs one")
    return net, tok


def predict_word_tags(net: Any, tokenizer: Any, sentences: Sequence[Sequence[str]], *, max_length: int,
                      aggregation: str, device: str) -> list[list[str]]:
    """One tag (the model's ``id2label``) per word of every sentence, in input order."""
    import torch

    if aggregation not in AGGREGATIONS:
        raise ValueError(f"aggregation must be one of {AGGREGATIONS}, not {aggregation!r}")
    if max_length < 3:
        raise ValueError(f"max_length must be >= 3 (two special tokens and a subword), got {max_length}")
    id2label = {int(k): v for k, v in net.config.id2label.items()}
    tags: list[list[str]] = [["O"] * len(s) for s in sentences]
    pending = [(i, 0) for i, s in enumerate(sentences) if len(s)]  # (sentence, first word of the window)
    while pending:
        windows = [list(sentences[i][first:]) for i, first in pending]
        enc = tokenizer(windows, is_split_into_words=True, truncation=True, max_length=max_length,
                        padding=True, return_tensors="pt")
        with torch.inference_mode():
            logits = net(**{k: v.to(device) for k, v in enc.items()}).logits
        probs = torch.softmax(logits.float(), dim=-1).cpu()
        nxt = []
        for b, (i, first) in enumerate(pending):
            word_ids = enc.word_ids(b)
            by_word: dict[int, list[int]] = {}
            for pos, w in enumerate(word_ids):
                if w is not None:
                    by_word.setdefault(w, []).append(pos)
            if not by_word:
                continue  # no word of the rest makes a subword: they stay "O"
            for w, positions in by_word.items():
                p = probs[b, positions[0]] if aggregation == "first" else probs[b, positions].mean(dim=0)
                tags[i][first + w] = id2label[int(p.argmax())]
            covered = first + max(by_word) + 1
            if covered < len(sentences[i]):
                nxt.append((i, covered))
        pending = nxt
    return tags


class HFTokenClassificationSystem(CheckpointIdentity, NERSystem):
    """Any Hugging Face token-classification model. ``model``: hub id (e.g. ``dslim/bert-base-NER``)
    or local folder; ``revision``: a hub revision (commit) to pin; ``label_scheme``: the scheme its
    labels belong to (a key of ``ner_label_maps.schemes``, for grading); ``aggregation``: ``first`` or
    ``average`` (see the module notes); ``max_length``: subwords per window; ``device``: ``auto``,
    ``cpu``, ``cuda``..."""

    name = "hf_token_classification"
    version = "1"

    def __init__(self, model: str, *, label_scheme: str, aggregation: str, max_length: int,
                 revision: str | None = None, device: str = "auto") -> None:
        if aggregation not in AGGREGATIONS:
            raise ValueError(f"aggregation must be one of {AGGREGATIONS}, not {aggregation!r}")
        if int(max_length) < 3:
            raise ValueError(f"max_length must be >= 3, got {max_length}")
        self.model = model
        self.revision = revision
        self.label_scheme = label_scheme
        self.aggregation = aggregation
        self.max_length = int(max_length)
        self.device = device
        self._loaded: tuple[Any, Any, str] | None = None
        self._fingerprint: str | None = None

    def config(self) -> dict[str, Any]:
        return {**self.checkpoint_identity(), "aggregation": self.aggregation, "max_length": self.max_length}

    def _load(self) -> tuple[Any, Any, str]:
        if self._loaded is None:
            from lingtest.resources.device import pick_device

            dev = pick_device(self.device)
            net, tok = load_token_classifier(self.model, revision=self.revision, device=dev)
            self._loaded = (net, tok, dev)
        return self._loaded

    def predict(self, inputs: list[Tokens]) -> list[list[Entity]]:
        if not inputs:
            return []
        net, tok, dev = self._load()
        tags = predict_word_tags(net, tok, inputs, max_length=self.max_length, aggregation=self.aggregation,
                                 device=dev)
        return [tags_to_entities(t) for t in tags]


class MiniLMNERSystem(HFTokenClassificationSystem):
    """The CoNLL-scheme NER that :func:`lingtest.tin.train_ner.train_ner` fine-tunes from the packaged
    MiniLM. ``path``: its checkpoint folder (model, tokenizer, label map); ``max_length``: subwords
    per window; words take the tag of their first subword, as in training."""

    name = "minilm_ner"
    version = "1"

    def __init__(self, path: str, *, max_length: int, device: str = "auto") -> None:
        folder = Path(path).expanduser()
        if not (folder / "config.json").is_file():
            raise MissingResourceError(f"no trained MiniLM NER checkpoint in {folder}; train it with the "
                                       "train_ner stage (dvc repro train_ner)")
        super().__init__(str(folder), label_scheme="conll", aggregation="first", max_length=max_length,
                         device=device)
