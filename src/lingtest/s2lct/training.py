"""Fine-tune a sequence classifier from an encoder (the packaged MiniLM by default): the offline
systems under test of S2LCT, ``minilm_sst2`` (SST-2 train, negative/positive) and
``minilm_hatexplain`` (HateXplain: hatespeech -> hate, offensive and normal -> non-hate; offline
the mirror holds only the val and test splits, so it is trained on val and scored on test).

:func:`train_classifier` is pure apart from writing its checkpoint: its result depends only on the
config, the texts and the software versions. Determinism (torch's deterministic algorithms, the
configured threads, seeding: :func:`~lingtest.resources.finetuning.deterministic_training`), the epoch
order (a permutation drawn from ``(seed, epoch)``, batches grouped by length), AdamW with a linear
schedule and the training loop are the NER trainer's (:mod:`lingtest.resources.finetuning`). Texts
longer than ``max_length`` subwords are truncated (counted in the metrics). The label set is the sorted
set of the training labels; a test label outside it is an error.

The checkpoint folder holds the model (``config.json`` with ``id2label``, ``model.safetensors``), the
tokenizer and ``training.json`` (config, labels, metrics);
:class:`~lingtest.systems.classification.transformer.FineTunedClassifier` loads it. The metrics hold
the test accuracy of exactly what that system predicts (argmax of the softmax), macro-F1, the
majority-class accuracy of the test set (what a constant classifier gets), the confusion matrix and
the mean training loss of every epoch.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lingtest.data.model import Document
from lingtest.errors import ConfigError, InputError
from lingtest.resources.finetuning import (
    FineTuneConfig,
    deterministic_training,
    fine_tune,
    save_fine_tuned,
)

__all__ = ["ClassifierData", "LabelledText", "TrainClassifierConfig", "classification_scores",
           "labelled_texts", "subsample", "train_classifier"]

log = logging.getLogger(__name__)


class TrainClassifierConfig(FineTuneConfig):
    """The trainer (``s2lct.training.trainer``, a typed field of
    :class:`~lingtest.s2lct.config.S2lctConfig`): ``base_model`` (``offline-default``: the packaged
    MiniLM; a folder; a hub id), ``epochs``, ``max_length`` (subwords per text, special tokens
    included), ``batch_size``, ``learning_rate`` (AdamW peak, linear warm-up then decay to 0),
    ``warmup_ratio``, ``weight_decay`` (not on biases and LayerNorm weights), ``max_grad_norm``,
    ``group_by_length``, ``eval_batch_size``, ``seed``, ``device``, ``threads`` (as
    :class:`~lingtest.tin.train_ner.TrainNERConfig`)."""

    stage = "train_classifier"


@dataclass(frozen=True)
class ClassifierData:
    """What one classifier is trained on (``s2lct.training.classifiers.<name>``; also the ``bounds`` of a
    coverage system): a prepared ``dataset`` and its ``train_split`` / ``test_split``, ``labels`` (the
    dataset's document label -> the classifier's label, onto at least two labels), ``drop`` (dataset
    labels whose documents are left out, e.g. HateXplain's ``undecided`` posts without a majority),
    ``max_train`` (a seeded sample of at most this many training texts, at least 2; null: all) and
    ``lowercase``. Field types are checked where the config is validated
    (:class:`~lingtest.s2lct.config.S2lctConfig`), the values here."""

    dataset: str
    train_split: str
    test_split: str
    labels: dict[str, str]
    drop: tuple[str, ...]
    max_train: int | None
    lowercase: bool

    def __post_init__(self) -> None:
        for key in ("dataset", "train_split", "test_split"):
            if not getattr(self, key):
                raise ConfigError(f"{key} must be a non-empty string")
        if not self.labels:
            raise ConfigError("labels must be a non-empty mapping dataset label -> classifier label")
        if len(set(self.labels.values())) < 2:
            raise ConfigError("labels must map onto at least two classifier labels")
        if self.max_train is not None and self.max_train < 2:
            raise ConfigError(f"max_train must be an integer >= 2 or null, got {self.max_train!r}")


@dataclass(frozen=True)
class LabelledText:
    text: str
    label: str


def labelled_texts(documents: Iterable[Document], labels: Mapping[str, str], drop: Sequence[str] = (),
                   *, lowercase: bool = False, where: str = "documents") -> list[LabelledText]:
    """One text per document (its words joined by spaces) with its label mapped by ``labels``;
    documents labelled in ``drop`` are left out. A document without a label or with a label in neither
    raises :class:`InputError` naming it."""
    out = []
    for doc in documents:
        if doc.label is None:
            raise InputError(f"document {doc.id} has no label", path=where, field="label")
        if doc.label in drop:
            continue
        if doc.label not in labels:
            raise InputError(f"document {doc.id}: label {doc.label!r} is neither mapped ({sorted(labels)}) "
                             f"nor dropped ({sorted(drop)})", path=where, field="label")
        text = " ".join(doc.words)
        if not text.strip():
            raise InputError(f"document {doc.id} has no words", path=where, field="sentences")
        out.append(LabelledText(text.lower() if lowercase else text, labels[doc.label]))
    return out


def subsample(items: Sequence[LabelledText], limit: int | None, seed: int) -> list[LabelledText]:
    """At most ``limit`` items, a seeded sample kept in input order (``None``: all)."""
    import numpy as np

    if limit is None or len(items) <= limit:
        return list(items)
    keep = sorted(int(i) for i in np.random.default_rng([seed, len(items)]).permutation(len(items))[:limit])
    return [items[i] for i in keep]


def classification_scores(gold: Sequence[str], pred: Sequence[str], labels: Sequence[str]) -> dict[str, Any]:
    """Accuracy, macro-F1 over ``labels``, per-label precision/recall/F1, the confusion matrix
    (``confusion[gold][pred]``) and the accuracy of always predicting the most frequent gold label."""
    if len(gold) != len(pred) or not gold:
        raise ValueError(f"need equally many gold and predicted labels (got {len(gold)} and {len(pred)})")
    confusion = {g: dict.fromkeys(labels, 0) for g in labels}
    for g, p in zip(gold, pred, strict=True):
        confusion[g][p] += 1
    per_label = {}
    for lab in labels:
        tp = confusion[lab][lab]
        predicted = sum(confusion[g][lab] for g in labels)
        actual = sum(confusion[lab].values())
        precision = tp / predicted if predicted else 0.0
        recall = tp / actual if actual else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        per_label[lab] = {"precision": precision, "recall": recall, "f1": f1, "support": actual}
    correct = sum(confusion[lab][lab] for lab in labels)
    return {"accuracy": correct / len(gold), "macro_f1": sum(v["f1"] for v in per_label.values()) / len(labels),
            "majority_accuracy": Counter(gold).most_common(1)[0][1] / len(gold), "per_label": per_label,
            "confusion": confusion, "examples": len(gold)}


def _encode(tokenizer: Any, texts: Sequence[LabelledText], label2id: Mapping[str, int],
            max_length: int) -> tuple[list[dict[str, Any]], int]:
    """Tokenised examples (input ids, attention mask, a scalar label) and how many were truncated."""
    full = tokenizer([t.text for t in texts], truncation=False)["input_ids"]
    enc = tokenizer([t.text for t in texts], truncation=True, max_length=max_length)
    examples = []
    for i, t in enumerate(texts):
        ex: dict[str, Any] = {k: list(v[i]) for k, v in enc.items()}
        ex["labels"] = label2id[t.label]
        examples.append(ex)
    truncated = sum(len(ids) > max_length for ids in full)
    return examples, truncated


def train_classifier(config: TrainClassifierConfig, train: Sequence[LabelledText], test: Sequence[LabelledText],
                     out_dir: str | Path) -> dict[str, Any]:
    """Fine-tune ``config.base_model`` on ``train``, score it on ``test``, save the checkpoint to
    ``out_dir`` and return the metrics (see the module notes)."""
    with deterministic_training(config.seed, config.threads):
        return _train(config, train, test, Path(out_dir))


def _train(config: TrainClassifierConfig, train: Sequence[LabelledText], test: Sequence[LabelledText],
           out: Path) -> dict[str, Any]:
    from transformers import AutoModelForSequenceClassification

    from lingtest.resources.device import pick_device
    from lingtest.systems.classification.transformer import predict_probabilities

    if not train:
        raise InputError("no training texts", field="train")
    if not test:
        raise InputError("no test texts", field="test")
    started = time.perf_counter()
    device = pick_device(config.device)
    labels = sorted({t.label for t in train})
    if len(labels) < 2:
        raise InputError(f"the training texts hold one label only ({labels})", field="train")
    unknown = sorted({t.label for t in test} - set(labels))
    if unknown:
        raise InputError(f"test labels {unknown} never occur in the training data", field="test")
    model = fine_tune(config, AutoModelForSequenceClassification, labels,
                      lambda tok, l2i: _encode(tok, train, l2i, config.max_length), device,
                      name="train_classifier", started=started)
    train_seconds = time.perf_counter() - started

    pred: list[str] = []
    for i in range(0, len(test), config.eval_batch_size):
        chunk = [t.text for t in test[i:i + config.eval_batch_size]]
        for probs in predict_probabilities(model.net, model.tokenizer, chunk, max_length=config.max_length,
                                           device=device):
            pred.append(min(probs, key=lambda k: (-probs[k], k)))
    scores = classification_scores([t.label for t in test], pred, labels)
    metrics = {"test": scores, "test_accuracy": scores["accuracy"], "test_macro_f1": scores["macro_f1"],
               "train_loss": model.losses, "steps": model.steps, "train_texts": len(train), "test_texts": len(test),
               "train_label_counts": dict(sorted(Counter(t.label for t in train).items())),
               "truncated_train_texts": model.truncated, "labels": labels,
               "train_seconds": round(train_seconds, 3), "seconds": round(time.perf_counter() - started, 3)}
    save_fine_tuned(model, out, config, device, metrics)
    return metrics
