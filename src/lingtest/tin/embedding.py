"""Context-aware span embeddings (the paper's ``BERT_Embedding``): the mean over the subword tokens
of a word or phrase of an encoder's hidden states in its sentence.

:class:`TokenEmbedder` is the protocol; :class:`TransformersSpanEmbedder` implements it with any
transformers encoder: the hidden states of ``layers`` (indices into ``hidden_states``, where 0 is
the embedding layer and -1 the last layer) are summed, then averaged over the span's subword
tokens. The paper uses ``bert-large-cased`` with the sum of the last four layers
(``layers: [-4, -3, -2, -1]``); offline, the packaged MiniLM's last layer (``model:
offline-default``, ``layers: [-1]``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from lingtest.resources.device import pick_device, resolve_batch_size
from lingtest.tin.spans import Span

SpanRequest = tuple[Sequence[str], Span]


@runtime_checkable
class TokenEmbedder(Protocol):
    def embed_spans(self, requests: Sequence[SpanRequest]) -> np.ndarray:
        """A ``(len(requests), dim)`` array: the embedding of ``tokens[start:end]`` in its sentence."""
        ...


def span_similarities(embedder: TokenEmbedder,
                      pairs: Sequence[tuple[SpanRequest, SpanRequest]]) -> list[float]:
    """Cosine similarity of each pair of span embeddings (0 when a vector is zero)."""
    if not pairs:
        return []
    vecs = embedder.embed_spans([p[0] for p in pairs] + [p[1] for p in pairs])
    a, b = vecs[: len(pairs)].astype(np.float64), vecs[len(pairs):].astype(np.float64)
    na, nb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
    denom = np.where((na == 0) | (nb == 0), 1.0, na * nb)
    sims = np.where((na == 0) | (nb == 0), 0.0, np.sum(a * b, axis=1) / denom)
    return [float(x) for x in sims]


class TransformersSpanEmbedder:
    """``model``: ``"offline-default"`` (the packaged MiniLM), a local directory or a hub id;
    ``layers``: hidden-state indices summed; ``max_length``: subword tokens per sentence (a span cut
    off by truncation gets a zero vector, similarity 0)."""

    def __init__(self, model: str | os.PathLike[str] = "offline-default", *, layers: Sequence[int],
                 device: str = "auto", batch_size: int | None = None, max_length: int = 256) -> None:
        from transformers import AutoModel, AutoTokenizer

        from lingtest.resources.embeddings import resolve_embedder_model

        name = resolve_embedder_model(model)
        dev = pick_device(device)
        self._setup(AutoModel.from_pretrained(name), AutoTokenizer.from_pretrained(name), layers=layers,
                    device=dev, batch_size=batch_size, max_length=max_length)
        self.model_name = name

    @classmethod
    def from_model(cls, model: Any, tokenizer: Any, *, layers: Sequence[int], device: str = "cpu",
                   batch_size: int | None = None, max_length: int = 256) -> TransformersSpanEmbedder:
        """Wrap a loaded encoder and its (fast) tokenizer."""
        self = cls.__new__(cls)
        self._setup(model, tokenizer, layers=layers, device=pick_device(device), batch_size=batch_size,
                    max_length=max_length)
        self.model_name = type(model).__name__
        return self

    def _setup(self, model: Any, tokenizer: Any, *, layers: Sequence[int], device: str,
               batch_size: int | None, max_length: int) -> None:
        if not layers:
            raise ValueError("layers must name at least one hidden-state index")
        if not getattr(tokenizer, "is_fast", False):
            raise ValueError("a fast tokenizer is needed (word ids of subword tokens)")
        self.layers = [int(x) for x in layers]
        self.device = device
        self.batch_size = resolve_batch_size(batch_size, device, cpu=16, cuda=128)
        self.max_length = int(max_length)
        self.tokenizer = tokenizer
        self.model = model.to(device).eval()

    def embed_spans(self, requests: Sequence[SpanRequest]) -> np.ndarray:
        import torch

        sentences: dict[tuple[str, ...], int] = {}
        for tokens, _ in requests:
            sentences.setdefault(tuple(tokens), len(sentences))
        uniq = list(sentences)
        by_sentence: dict[int, list[int]] = {}
        for r, (tokens, _) in enumerate(requests):
            by_sentence.setdefault(sentences[tuple(tokens)], []).append(r)
        dim = int(self.model.config.hidden_size)
        out = np.zeros((len(requests), dim), dtype=np.float32)
        order = sorted(range(len(uniq)), key=lambda i: (len(uniq[i]), i))
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                batch = order[start:start + self.batch_size]
                enc = self.tokenizer([list(uniq[i]) for i in batch], is_split_into_words=True,
                                     truncation=True, max_length=self.max_length, padding=True,
                                     return_tensors="pt")
                res = self.model(input_ids=enc["input_ids"].to(self.device),
                                 attention_mask=enc["attention_mask"].to(self.device),
                                 output_hidden_states=True)
                hidden = sum(res.hidden_states[x] for x in self.layers).float().cpu()
                for row, si in enumerate(batch):
                    word_ids = enc.word_ids(row)
                    for r in by_sentence[si]:
                        a, b = requests[r][1]
                        pos = [p for p, w in enumerate(word_ids) if w is not None and a <= w < b]
                        if pos:
                            out[r] = hidden[row, pos].mean(dim=0).numpy()
        return out
