"""Adapter for Maverick (Martinelli et al. 2024, ``maverick-coref``): ``Maverick(hf_name_or_path,
device).predict(sample)`` with the hub checkpoints ``sapienzanlp/maverick-mes-ontonotes`` (default),
``-litbank``, ``-preco`` (network needed the first time).

We pass the document as sentence-tokenised words (a list of lists), so Maverick keeps our sentence
breaks and tokens. Its result's ``clusters_token_offsets`` are ``(start, end)`` pairs over the
flattened words with an **inclusive** end (``tokens[start:end + 1]``, maverick 1.0.7
``models/maverick_model.py``); :func:`clusters_from_maverick` converts them to our exclusive ends.
maverick is imported only when a model is loaded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lingtest.data.model import Cluster, Document
from lingtest.errors import InputError, MissingResourceError
from lingtest.systems.coref.base import CorefSystem, normalise_clusters


def clusters_from_maverick(result: Mapping[str, Any] | Sequence[Sequence[Sequence[int]]], n_tokens: int, *,
                           keep_singletons: bool = False) -> list[Cluster]:
    """Our clusters from a Maverick ``predict`` result (its dict, or the
    ``clusters_token_offsets`` list itself): inclusive token ends become exclusive."""
    clusters = result["clusters_token_offsets"] if isinstance(result, Mapping) else result
    if isinstance(result, Mapping) and "tokens" in result and len(result["tokens"]) != n_tokens:
        raise InputError(f"Maverick returned {len(result['tokens'])} tokens for a document of {n_tokens}",
                         field="tokens")
    spans: list[list[tuple[int, int]]] = []
    for ci, cluster in enumerate(clusters):
        cur = []
        for span in cluster:
            s, e = int(span[0]), int(span[1]) + 1
            if not (0 <= s < e <= n_tokens):
                raise InputError(f"Maverick span {tuple(span)!r} of cluster {ci} is outside the document "
                                 f"({n_tokens} tokens)", field="clusters_token_offsets")
            cur.append((s, e))
        spans.append(cur)
    return normalise_clusters(spans, keep_singletons=keep_singletons, n_tokens=n_tokens)


class MaverickSystem(CorefSystem):
    """Maverick. ``model``: hub id or local checkpoint; ``device``: ``auto``/``cpu``/``cuda``;
    ``singletons``: ask Maverick for singletons (kept on output only with ``keep_singletons``). All
    required (values in ``conf/systems/default.yaml``)."""

    name = "maverick"

    def __init__(self, *, model: str, device: str, singletons: bool, keep_singletons: bool) -> None:
        self.model = model
        self.device = device
        self.singletons = bool(singletons)
        self.keep_singletons = bool(keep_singletons)
        self._model = None

    def config(self) -> dict[str, Any]:
        return {"model": self.model, "singletons": self.singletons, "keep_singletons": self.keep_singletons}

    def _load(self):
        if self._model is None:
            try:
                from maverick import Maverick
            except ImportError as exc:
                raise MissingResourceError(
                    f"maverick-coref is not installed ({exc}); `pip install maverick-coref`") from exc
            from lingtest.resources.device import pick_device

            try:
                self._model = Maverick(hf_name_or_path=self.model, device=pick_device(self.device))
            except (OSError, FileNotFoundError) as exc:
                raise MissingResourceError(
                    f"cannot load Maverick checkpoint {self.model!r} ({exc}); it is downloaded from the "
                    "Hugging Face hub on first use (needs a network), or give a local weights.ckpt path") from exc
        return self._model

    def predict(self, docs: list[Document]) -> list[list[Cluster]]:
        out: list[list[Cluster]] = []
        for doc in docs:
            sents = [s.words for s in doc.sentences if s.tokens]
            n = sum(len(s) for s in sents)
            if n == 0:
                out.append([])
                continue
            result = self._load().predict(sents, singletons=self.singletons)
            out.append(clusters_from_maverick(result, n, keep_singletons=self.keep_singletons))
        return out
