"""The trained mention-ranking model as a coreference system under test (``kind: neural``).

``path``: a checkpoint folder written by :func:`~.trainer.train_coref` (the ``coref_train`` stage).
Its digest (:func:`~.trainer.checkpoint_digest`) is part of :meth:`NeuralCorefSystem.config`, so a
retrained model never reuses cached predictions. Unparsed input is parsed first (candidates come
from the parse); documents are encoded segment by segment on ``device`` (``auto``: CUDA when
present).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from lingtest.data.model import Cluster, Document
from lingtest.systems.coref.base import CorefSystem, ensure_parsed, iterate, normalise_clusters


class NeuralCorefSystem(CorefSystem):
    """Options (``conf/systems/default.yaml``): ``path`` (checkpoint folder), ``device``,
    ``parser``/``parser_options`` (for unparsed input), ``progress`` (not part of the cache key)."""

    name = "neural"
    version = "1"

    def __init__(self, *, path: str, device: str, parser: str, parser_options: dict[str, Any] | None,
                 progress: bool = False) -> None:
        from lingtest.paths import project_root
        from lingtest.resources.device import pick_device
        from lingtest.systems.coref.neural.trainer import checkpoint_digest

        p = Path(path).expanduser()
        self.path = p if p.is_absolute() else project_root() / p
        self.digest = checkpoint_digest(self.path)
        self.device = pick_device(device)
        self.parser = parser
        self.parser_options = dict(parser_options or {})
        self.progress = bool(progress)
        self._parsers: dict = {}
        self._loaded: tuple[Any, Any, Any, dict[str, Any]] | None = None

    def config(self) -> dict[str, Any]:
        info = self._info()
        return {"checkpoint": self.digest, "encoder": info.get("encoder"), "parser": self.parser,
                "parser_options": self.parser_options}

    def _info(self) -> dict[str, Any]:
        import json

        from lingtest.systems.coref.neural.trainer import CONFIG_FILE

        return dict(json.loads((self.path / CONFIG_FILE).read_text(encoding="utf-8")))

    def _load(self) -> tuple[Any, Any, Any, dict[str, Any]]:
        if self._loaded is None:
            from lingtest.systems.coref.neural.trainer import load_checkpoint

            self._loaded = load_checkpoint(self.path, self.device)
        return self._loaded

    def predict(self, inputs: list[Document]) -> list[list[Cluster]]:
        from lingtest.systems.coref.neural.trainer import predict_prepared, prepare

        model, encoder, tokenizer, info = self._load()
        parsed = [copy.copy(d) for d in ensure_parsed(inputs, self.parser, self.parser_options, _cache=self._parsers)]
        for d in parsed:
            d.clusters = []  # systems never read gold (shallow copies: the caller's documents stay as they are)
        pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        out = []
        for d in iterate(parsed, self.progress, "neural coreference"):
            prepared = prepare([d], tokenizer, int(info["max_segment"]), "input document")
            spans = predict_prepared(model, encoder, prepared, self.device, pad_id)[0]
            out.append(normalise_clusters(spans, n_tokens=sum(len(s.tokens) for s in d.sentences)))
        return out
