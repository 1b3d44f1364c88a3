"""Adapter for flair's sequence taggers (``flair/ner-english-large``: CoNLL scheme;
``flair/ner-english-ontonotes-large``: OntoNotes scheme), downloaded from the Hugging Face hub on
first use, so they need a network and ``pip install flair`` (not a lingtest dependency: flair is
imported only when a model is loaded).

Words go in pre-tokenised (``flair.data.Sentence(list_of_words)`` makes one flair token per word),
``SequenceTagger.predict(sentences, mini_batch_size=...)`` tags them and each sentence's
``get_spans(tag_type)`` gives the entities: a span's ``tokens`` carry flair's **1-based** token
index ``idx``, and its label is ``span.get_label(tag_type).value`` (flair >= 0.10; older spans have
``.tag``). :func:`entities_from_flair` converts them; it is what the tests exercise on recorded
span shapes.
"""

from __future__ import annotations

from typing import Any

from lingtest.data.model import Entity
from lingtest.errors import InputError, MissingResourceError
from lingtest.systems.ner.base import NERSystem, Tokens

MODELS = {"flair/ner-english-large": "conll", "flair/ner-english-ontonotes-large": "ontonotes"}


def _span_label(span: Any, tag_type: str) -> str:
    getter = getattr(span, "get_label", None)
    if callable(getter):
        label = getter(tag_type)
        value = getattr(label, "value", None)
        if value:
            return str(value)
    tag = getattr(span, "tag", None)
    if tag:
        return str(tag)
    raise InputError(f"flair span {span!r} carries no {tag_type!r} label", field="label")


def entities_from_flair(sentence: Any, tag_type: str, n_tokens: int) -> list[Entity]:
    """Our entities from a tagged flair ``Sentence`` of ``n_tokens`` words: each span of
    ``sentence.get_spans(tag_type)`` becomes ``[first idx - 1, last idx)``. A span whose tokens are
    not consecutive or lie outside the sentence raises :class:`InputError`."""
    out = []
    for k, span in enumerate(sentence.get_spans(tag_type)):
        idx = [int(t.idx) for t in span.tokens]
        if not idx or idx != list(range(idx[0], idx[0] + len(idx))):
            raise InputError(f"flair span {k} has non-consecutive token indices {idx}", field="spans")
        start, end = idx[0] - 1, idx[-1]
        if not 0 <= start < end <= n_tokens:
            raise InputError(f"flair span {k} (tokens {idx}, 1-based) is outside a sentence of {n_tokens} "
                             "tokens", field="spans")
        out.append(Entity(start, end, _span_label(span, tag_type)))
    return sorted(out)


class FlairNERSystem(NERSystem):
    """A flair ``SequenceTagger``. ``model``: hub id or local model file; ``label_scheme``: the scheme
    of its labels (``conll`` for ``flair/ner-english-large``, ``ontonotes`` for
    ``flair/ner-english-ontonotes-large``); ``mini_batch_size``: flair's batch size; ``device``:
    ``auto``/``cpu``/``cuda`` (set as ``flair.device``, flair's one global device)."""

    name = "flair"
    version = "1"

    def __init__(self, model: str, *, label_scheme: str, mini_batch_size: int, device: str = "auto") -> None:
        if model in MODELS and MODELS[model] != label_scheme:
            raise ValueError(f"{model} tags in the {MODELS[model]!r} scheme, not {label_scheme!r}")
        self.model = model
        self.label_scheme = label_scheme
        self.mini_batch_size = int(mini_batch_size)
        self.device = device
        self._tagger: Any = None

    def config(self) -> dict[str, Any]:
        return {"model": self.model}

    def _load(self) -> Any:
        if self._tagger is None:
            try:
                import flair
                from flair.models import SequenceTagger
            except ImportError as exc:
                raise MissingResourceError(f"flair is not installed ({exc}); `pip install flair`") from exc
            import torch

            from lingtest.resources.device import pick_device

            flair.device = torch.device(pick_device(self.device))
            try:
                self._tagger = SequenceTagger.load(self.model)
            except OSError as exc:
                raise MissingResourceError(
                    f"cannot load flair model {self.model!r} ({exc}); it is downloaded from the Hugging Face "
                    "hub on first use (needs a network)") from exc
        return self._tagger

    def predict(self, inputs: list[Tokens]) -> list[list[Entity]]:
        if not inputs:
            return []
        tagger = self._load()
        from flair.data import Sentence

        sentences = [Sentence(list(words)) for words in inputs]
        tagger.predict(sentences, mini_batch_size=self.mini_batch_size)
        tag_type = getattr(tagger, "tag_type", "ner")
        return [entities_from_flair(s, tag_type, len(words))
                for s, words in zip(sentences, inputs, strict=True)]
