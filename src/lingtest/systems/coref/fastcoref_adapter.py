"""Adapter for fastcoref (Otmazgin et al. 2022): ``FCoref`` (distilled, fast) and
``LingMessCoref`` (LingMess, accurate), both downloaded from the Hugging Face hub
(``biu-nlp/f-coref``, ``biu-nlp/lingmess-coref``), so they need a network the first time.

We pass our tokens pre-split (``predict(texts=[[w, ...], ...], is_split_into_words=True)``). In
that mode fastcoref's "character" offsets are token offsets: its ``offset_mapping`` maps token
``i`` to ``(i, i + 1)``, so ``get_clusters(as_strings=False)`` returns ``(start, end)`` token spans
with an exclusive end (fastcoref 2.1.6, ``utilities/util.py:encode`` and ``align_to_char_level``).
:func:`clusters_from_fastcoref` checks and converts them; it is what the tests exercise on
recorded outputs. fastcoref is imported only when a model is loaded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lingtest.data.model import Cluster, Document
from lingtest.errors import InputError, MissingResourceError
from lingtest.systems.coref.base import CorefSystem, normalise_clusters

MODELS = {"FCoref": "biu-nlp/f-coref", "LingMessCoref": "biu-nlp/lingmess-coref"}


def clusters_from_fastcoref(clusters: Sequence[Sequence[Sequence[int]]], n_tokens: int, *,
                            keep_singletons: bool = False) -> list[Cluster]:
    """Our clusters from ``CorefResult.get_clusters(as_strings=False)`` of a pre-tokenised input
    (token spans, exclusive end). Spans outside the document raise :class:`InputError`."""
    spans: list[list[tuple[int, int]]] = []
    for ci, cluster in enumerate(clusters):
        cur = []
        for span in cluster:
            if span is None or len(span) != 2 or None in span:
                continue  # fastcoref maps spans on special tokens to (None, None)
            s, e = int(span[0]), int(span[1])
            if not (0 <= s < e <= n_tokens):
                raise InputError(f"fastcoref span {span!r} of cluster {ci} is outside the document "
                                 f"({n_tokens} tokens)", field="clusters")
            cur.append((s, e))
        spans.append(cur)
    return normalise_clusters(spans, keep_singletons=keep_singletons, n_tokens=n_tokens)


class FastCorefSystem(CorefSystem):
    """fastcoref's ``FCoref`` or ``LingMessCoref``. ``model``: class name; ``model_path``: hub id
    or local folder (``None``: the class's own hub model); ``device``: ``auto``/``cpu``/``cuda``;
    ``max_tokens_in_batch``: fastcoref's dynamic batch size. All required (values in
    ``conf/systems/default.yaml``)."""

    name = "fastcoref"

    def __init__(self, *, model: str, model_path: str | None, device: str, max_tokens_in_batch: int,
                 keep_singletons: bool) -> None:
        if model not in MODELS:
            raise ValueError(f"fastcoref model must be one of {sorted(MODELS)}, not {model!r}")
        self.model = model
        self.model_path = model_path or MODELS[model]
        self.device = device
        self.max_tokens_in_batch = int(max_tokens_in_batch)
        self.keep_singletons = bool(keep_singletons)
        self._model = None

    def config(self) -> dict[str, Any]:
        return {"model": self.model, "model_path": self.model_path, "keep_singletons": self.keep_singletons}

    def _load(self):
        if self._model is None:
            try:
                import fastcoref
            except ImportError as exc:
                raise MissingResourceError(f"fastcoref is not installed ({exc}); `pip install fastcoref`") from exc
            from lingtest.resources.device import pick_device

            cls = getattr(fastcoref, self.model)
            try:
                self._model = cls(model_name_or_path=self.model_path, device=pick_device(self.device),
                                  enable_progress_bar=False)
            except OSError as exc:  # hub unreachable / no local copy
                raise MissingResourceError(
                    f"cannot load fastcoref model {self.model_path!r} ({exc}); it is downloaded from the "
                    "Hugging Face hub on first use (needs a network), or give model_path= a local copy") from exc
        return self._model

    def predict(self, docs: list[Document]) -> list[list[Cluster]]:
        out: list[list[Cluster] | None] = [None] * len(docs)
        todo = [(i, d.words) for i, d in enumerate(docs) if d.words]
        for i, d in enumerate(docs):
            if not d.words:
                out[i] = []
        if todo:
            model = self._load()
            preds = model.predict(texts=[w for _, w in todo], is_split_into_words=True,
                                  max_tokens_in_batch=self.max_tokens_in_batch)
            for (i, words), res in zip(todo, preds, strict=True):
                out[i] = clusters_from_fastcoref(res.get_clusters(as_strings=False), len(words),
                                                 keep_singletons=self.keep_singletons)
        return out  # type: ignore[return-value]
