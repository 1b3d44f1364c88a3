"""Hugging Face sequence-classification models as text classifiers under test.

:class:`HFTextClassifier` takes any hub id (the S2LCT paper's five: ``textattack/bert-base-uncased-SST-2``,
``textattack/roberta-base-SST-2``, ``distilbert-base-uncased-finetuned-sst-2-english``,
``Hate-speech-CNERG/dehatebert-mono-english``, ``cardiffnlp/twitter-roberta-base-hate``) or a local
folder; :class:`FineTunedClassifier` is the checkpoint that the ``train_classifier`` stage
(:mod:`lingtest.s2lct.training`) fine-tunes from the packaged MiniLM.

The softmax over the model's logits, keyed by its ``id2label`` names, is renamed onto the task's
labels by ``label_map`` (:func:`~lingtest.systems.classification.labels.map_labels`; null keeps the
model's names) and, when ``neutral_margin`` is set, a binary negative/positive output becomes three
classes by CheckList's convention (:func:`~lingtest.systems.classification.labels.three_class`).
Texts longer than ``max_length`` subwords are truncated (as the models were trained). A local
checkpoint's weights are hashed into ``config()``, so retraining invalidates cached predictions.

``dtype`` is the precision the model runs in: ``float32``, ``bfloat16``, or ``bfloat16_if_native``
(:func:`~lingtest.resources.quantize.resolve_precision`: bfloat16 where the device multiplies it natively,
float32 elsewhere). The precision it resolves to is part of the cache key when it is not float32.
``bench/bench_quant_classifier.py`` measures how often bfloat16 changes a label.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lingtest.errors import ConfigError, MissingResourceError
from lingtest.resources.finetuning import CheckpointIdentity, load_pretrained
from lingtest.systems.classification.base import Classifier, Probabilities
from lingtest.systems.classification.labels import NEGATIVE, POSITIVE, check_margin, map_labels, three_class

__all__ = ["FineTunedClassifier", "HFTextClassifier", "load_sequence_classifier", "predict_probabilities"]


def load_sequence_classifier(model: str, *, revision: str | None, device: str) -> tuple[Any, Any]:
    """``(model, tokenizer)`` of a sequence-classification checkpoint (hub id or local folder), in eval
    mode on ``device``. Raises :class:`MissingResourceError` when it cannot be loaded."""
    from transformers import AutoModelForSequenceClassification

    return load_pretrained(AutoModelForSequenceClassification, model, revision=revision, device=device,
                           kind="text-classification")


def predict_probabilities(net: Any, tokenizer: Any, texts: Sequence[str], *, max_length: int,
                          device: str) -> list[dict[str, float]]:
    """The softmax of every text, keyed by the model's ``id2label`` names, in input order."""
    import torch

    if not texts:
        return []
    id2label = {int(k): str(v) for k, v in net.config.id2label.items()}
    enc = tokenizer(list(texts), truncation=True, max_length=max_length, padding=True, return_tensors="pt")
    with torch.inference_mode():
        logits = net(**{k: v.to(device) for k, v in enc.items()}).logits
    probs = torch.softmax(logits.float(), dim=-1).cpu().tolist()
    return [{id2label[i]: float(p) for i, p in enumerate(row)} for row in probs]


class HFTextClassifier(CheckpointIdentity, Classifier):
    """Any Hugging Face text-classification model. ``model``: hub id or local folder; ``revision``: a
    hub commit to pin (null: the default branch); ``label_map``: model label -> task label (null: the
    model's own names); ``neutral_margin``: width of CheckList's neutral band around p(positive) = ½ for
    a binary sentiment model (⅓ in CheckList; null: the labels as mapped); ``max_length``: subwords per
    text; ``device``: ``auto``, ``cpu``, ``cuda``..."""

    name = "hf_text_classification"
    version = "1"

    def __init__(self, model: str, *, revision: str | None, label_map: Mapping[str, str] | None,
                 neutral_margin: float | None, max_length: int, device: str, dtype: str) -> None:
        from lingtest.resources.quantize import check_precision

        if int(max_length) < 3:
            raise ConfigError(f"max_length must be >= 3 (two special tokens and a subword), got {max_length}")
        self.model = model
        self.revision = revision
        self.label_map = {str(k): str(v) for k, v in label_map.items()} if label_map is not None else None
        self.neutral_margin = (check_margin(neutral_margin, True, f"{self.name}.neutral_margin")
                               if neutral_margin is not None else None)
        self.max_length = int(max_length)
        self.device = device
        self.dtype = check_precision(dtype, f"{self.name}.dtype")
        self._loaded: tuple[Any, Any, str] | None = None
        self._fingerprint: str | None = None
        self._precision: str | None = None

    def config(self) -> dict[str, Any]:
        precision = self.precision()
        return {**self.checkpoint_identity(), "label_map": self.label_map, "neutral_margin": self.neutral_margin,
                "max_length": self.max_length, **({"dtype": precision} if precision != "float32" else {})}

    def precision(self) -> str:
        """``float32`` or ``bfloat16``: ``dtype`` resolved on the device the model runs on."""
        if self._precision is None:
            from lingtest.resources.device import pick_device
            from lingtest.resources.quantize import resolve_precision

            self._precision = resolve_precision(self.dtype, pick_device(self.device))
        return self._precision

    def load(self) -> tuple[Any, Any, str]:
        """``(model, tokenizer, device)``, loaded once; checks that the label map covers the model's
        labels and that a three-class conversion gets exactly negative and positive."""
        if self._loaded is None:
            from lingtest.resources.device import pick_device

            dev = pick_device(self.device)
            net, tok = load_sequence_classifier(self.model, revision=self.revision, device=dev)
            if self.precision() == "bfloat16":
                import torch

                net.to(torch.bfloat16)
            labels = {str(v) for v in net.config.id2label.values()}
            mapped = set(map_labels(dict.fromkeys(labels, 0.0), self.label_map))
            if self.neutral_margin is not None and mapped != {NEGATIVE, POSITIVE}:
                raise ConfigError(f"{self.model}: neutral_margin needs a binary model whose labels map onto "
                                  f"{NEGATIVE!r} and {POSITIVE!r}, got {sorted(mapped)} (set label_map)")
            self._loaded = (net, tok, dev)
        return self._loaded

    def predict(self, inputs: list[str]) -> list[Probabilities]:
        if not inputs:
            return []
        net, tok, dev = self.load()
        out = []
        for raw in predict_probabilities(net, tok, inputs, max_length=self.max_length, device=dev):
            probs = map_labels(raw, self.label_map)
            if self.neutral_margin is not None:
                probs = three_class(probs[POSITIVE], self.neutral_margin, inclusive=True)
            out.append(probs)
        return out


class FineTunedClassifier(HFTextClassifier):
    """A classifier that :func:`lingtest.s2lct.training.train_classifier` fine-tuned (the packaged MiniLM
    on SST-2 or HateXplain). ``path``: its checkpoint folder; the other options as
    :class:`HFTextClassifier`."""

    name = "finetuned_classifier"
    version = "1"

    def __init__(self, path: str, *, label_map: Mapping[str, str] | None, neutral_margin: float | None,
                 max_length: int, device: str, dtype: str) -> None:
        folder = Path(path).expanduser()
        if not (folder / "config.json").is_file():
            raise MissingResourceError(f"no fine-tuned classifier checkpoint in {folder}; train it with the "
                                       "train_classifier stage (dvc repro train_classifier@<name>)")
        super().__init__(str(folder), revision=None, label_map=label_map, neutral_margin=neutral_margin,
                         max_length=max_length, device=device, dtype=dtype)
