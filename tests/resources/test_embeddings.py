"""cosine helpers (pure) and the packaged MiniLM sentence embedder (models)."""

from __future__ import annotations

import numpy as np
import pytest

from lingtest.resources.embeddings import (
    SentenceTransformerEmbedder,
    cosine,
    offline_model_dir,
    paired_cosine,
)


def test_cosine_vectors_and_matrices():
    a = np.array([1.0, 0.0])
    b = np.array([1.0, 1.0])
    assert cosine(a, b) == pytest.approx(1 / np.sqrt(2))
    assert cosine(a, 3 * a) == pytest.approx(1.0)
    assert cosine(a, -a) == pytest.approx(-1.0)
    assert cosine(a, np.zeros(2)) == 0.0
    m = cosine(np.array([[1.0, 0.0], [0.0, 2.0]]), np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]))
    assert m.shape == (2, 3)
    np.testing.assert_allclose(m, [[0, 1, 1 / np.sqrt(2)], [1, 0, 1 / np.sqrt(2)]], atol=1e-12)
    with pytest.raises(ValueError):
        cosine(np.ones(2), np.ones(3))


def test_paired_cosine():
    a = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    b = np.array([[2.0, 0.0], [1.0, 0.0], [1.0, 1.0]])
    np.testing.assert_allclose(paired_cosine(a, b), [1.0, 0.0, 0.0])
    with pytest.raises(ValueError):
        paired_cosine(a, b[:2])


def test_offline_model_dir_is_a_sentence_transformer():
    d = offline_model_dir()
    assert (d / "modules.json").is_file() and (d / "model.safetensors").is_file()


@pytest.fixture(scope="session")
def embedder():
    return SentenceTransformerEmbedder(device="cpu", batch_size=2)


@pytest.mark.e2e
@pytest.mark.models
def test_encode_shapes_and_norms(embedder):
    v = embedder.encode(["A man is playing a guitar.", "Someone plays the guitar.", "Stocks fell sharply."])
    assert v.shape == (3, embedder.dim) == (3, 384) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    sims = cosine(v, v)
    assert sims[0, 1] > 0.6 > 0.2 > sims[0, 2]  # paraphrase close, unrelated far
    assert embedder.encode([]).shape == (0, 384)
    with pytest.raises(TypeError):
        embedder.encode("one string")  # type: ignore[arg-type]


@pytest.mark.e2e
@pytest.mark.models
def test_batch_size_invariance_and_similarity(embedder):
    texts = ["The cat sat on the mat.", "A dog barked.", "It rained all day in Paris.", "Hello"]
    wide = SentenceTransformerEmbedder(device="cpu", batch_size=32)
    wide.model = embedder.model  # same weights, different batching
    np.testing.assert_allclose(embedder.encode(texts), wide.encode(texts), atol=1e-5)
    sim = embedder.similarity(["The cat sat on the mat.", "A dog barked."], ["A cat was sitting on the mat.",
                                                                             "The stock market crashed."])
    assert sim[0] > 0.7 and sim[1] < 0.3
