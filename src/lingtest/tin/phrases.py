"""Similar noun phrases: the :class:`PhraseIndex` protocol and an offline index over sentence
embeddings of the minimal noun phrases of parsed corpora.

The paper queries sense2vec (``s2v_reddit_2015_md``, ``most_similar(n=10)``, keep score >= 0.65;
:class:`Sense2VecPhraseIndex`, hub). Offline, :func:`collect_phrases` gathers the minimal NPs (no
NP below them) of parsed sentences, determiners and possessive pronouns stripped, that hold a
common noun and no proper noun, named entity token, digit or symbol, lower-cased;
:meth:`EmbeddingPhraseIndex.build` embeds them with a sentence embedder (the packaged MiniLM,
:class:`lingtest.resources.embeddings.SentenceTransformerEmbedder`) and
:meth:`EmbeddingPhraseIndex.neighbours` answers with the ``topn`` most cosine-similar phrases (the
query itself left out), best first, ties broken alphabetically, so the same threshold semantics
apply: the caller keeps neighbours with score >= its threshold. Similarities are rounded to the
``similarity`` decimals of ``resources.score_decimals`` before they are ranked (both indexes), so the
neighbours do not depend on float noise in the embeddings. The index is a pure function of the sorted
phrase list and the embedder, saved as one ``.npz``.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from lingtest.data.model import Sentence, Tree
from lingtest.resources.scores import ScoreGrid, stable_ranking
from lingtest.tin.spans import Span
from lingtest.tin.transformations.base import PROPER_NOUN_TAGS, minimal_phrases

#: leading tags stripped from a noun phrase before it is looked up (and re-attached after)
DETERMINER_TAGS = frozenset({"DT", "PDT", "PRP", "PRP$", "WDT", "WP", "WP$"})
COMMON_NOUN_TAGS = frozenset({"NN", "NNS"})
PHRASE_WORD_RE = re.compile(r"^[A-Za-z][A-Za-z'-]*$")
INDEX_FORMAT = 1


@runtime_checkable
class PhraseIndex(Protocol):
    def neighbours(self, queries: Sequence[str], topn: int) -> list[list[tuple[str, float]]]:
        """For each query phrase, at most ``topn`` similar phrases with their scores, best first."""
        ...


@runtime_checkable
class TextEmbedder(Protocol):
    def encode(self, texts: list[str]) -> np.ndarray:
        """One vector per text."""
        ...


def tree_tags(tree: Tree, n_tokens: int) -> list[str]:
    """The preterminal labels of a tree, by token index."""
    tags = ["X"] * n_tokens
    for node in tree.subtrees():
        if node.token is not None and 0 <= node.token < n_tokens:
            tags[node.token] = node.label
    return tags


def np_core(tags: Sequence[str], span: Span) -> Span | None:
    """``span`` without its leading determiners and pronouns; ``None`` when nothing is left."""
    a, b = span
    while a < b and tags[a] in DETERMINER_TAGS:
        a += 1
    return (a, b) if a < b else None


def sentence_phrases(sentence: Sentence, *, max_words: int) -> list[str]:
    """The indexable minimal-NP phrases of one parsed sentence (lower-cased, in order)."""
    if sentence.tree is None:
        return []
    words = sentence.words
    tags = [t.tag or "X" for t in sentence.tokens]
    out = []
    for node in minimal_phrases(sentence.tree, "NP"):
        core = np_core(tags, node.span())
        if core is None or core[1] - core[0] > max_words:
            continue
        rng = range(core[0], core[1])
        if any(tags[i] in PROPER_NOUN_TAGS or not PHRASE_WORD_RE.match(words[i]) for i in rng):
            continue
        if any((sentence.tokens[i].ent or "O") != "O" for i in rng):
            continue
        if not any(tags[i] in COMMON_NOUN_TAGS for i in rng):
            continue
        out.append(" ".join(words[i].lower() for i in rng))
    return out


def collect_phrases(sentences: Iterable[Sentence], *, max_words: int, min_count: int) -> list[str]:
    """Sorted distinct phrases seen at least ``min_count`` times (see :func:`sentence_phrases`)."""
    counts: Counter[str] = Counter()
    for s in sentences:
        counts.update(sentence_phrases(s, max_words=max_words))
    return sorted(p for p, c in counts.items() if c >= min_count)


def _unit_rows(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms == 0, 1.0, norms)


class EmbeddingPhraseIndex:
    """Cosine nearest neighbours among ``phrases`` (rows of ``vectors``); queries are lower-cased
    (as the phrases are) and embedded with ``embedder``, and similarities put on the ``similarity``
    grid of ``grid`` (``resources.score_decimals``); both are needed only to answer queries."""

    def __init__(self, phrases: Sequence[str], vectors: np.ndarray, embedder: TextEmbedder | None = None, *,
                 grid: ScoreGrid | None = None) -> None:
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(phrases):
            raise ValueError(f"{len(phrases)} phrases but vectors of shape {vectors.shape}")
        if list(phrases) != sorted(set(phrases)):
            raise ValueError("phrases must be sorted and distinct")
        self.phrases = list(phrases)
        self.vectors = _unit_rows(vectors)
        self.embedder = embedder
        self.grid = grid

    @classmethod
    def build(cls, phrases: Iterable[str], embedder: TextEmbedder, *,
              grid: ScoreGrid | None = None) -> EmbeddingPhraseIndex:
        """The index of the distinct ``phrases`` embedded with ``embedder`` (``grid``: as in the
        constructor; an index built only to be saved needs none)."""
        uniq = sorted(set(phrases))
        vecs = embedder.encode(uniq) if uniq else np.zeros((0, 1), dtype=np.float32)
        return cls(uniq, np.asarray(vecs, dtype=np.float32), embedder, grid=grid)

    def save(self, path: str | os.PathLike[str]) -> None:
        """One ``.npz`` (written to a temporary file and renamed into place)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".tmp{os.getpid()}.npz")
        np.savez(tmp, phrases=np.array(self.phrases, dtype=str), vectors=self.vectors,
                 format=np.array([INDEX_FORMAT]))
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: str | os.PathLike[str], embedder: TextEmbedder | None = None, *,
             grid: ScoreGrid | None = None) -> EmbeddingPhraseIndex:
        with np.load(path, allow_pickle=False) as z:
            fmt = int(z["format"][0]) if "format" in z.files else -1
            if fmt != INDEX_FORMAT:
                raise ValueError(f"{path}: phrase index format {fmt}, expected {INDEX_FORMAT}")
            return cls([str(p) for p in z["phrases"].tolist()], z["vectors"], embedder, grid=grid)

    def __len__(self) -> int:
        return len(self.phrases)

    def neighbours(self, queries: Sequence[str], topn: int) -> list[list[tuple[str, float]]]:
        """The ``topn`` phrases most similar to each query (itself left out), with their cosine rounded
        to the grid: by rounded cosine, then alphabetically (every phrase tied with the last one kept
        is considered, so the cut does not depend on the selection routine)."""
        if topn < 1:
            raise ValueError(f"topn must be positive, got {topn}")
        queries = list(queries)
        if not queries or not self.phrases:
            return [[] for _ in queries]
        if self.embedder is None or self.grid is None:
            raise ValueError("this phrase index was loaded without an embedder or a score grid; "
                             "it cannot answer queries")
        uniq = sorted({q.lower() for q in queries})  # the phrases are lower-cased, so are queries
        q = _unit_rows(np.asarray(self.embedder.encode(uniq), dtype=np.float32))
        sims = self.grid.round_array("similarity", q.astype(np.float64) @ self.vectors.astype(np.float64).T)
        n = len(self.phrases)
        k = min(n, topn + 1)
        answers: dict[str, list[tuple[str, float]]] = {}
        for row, query in zip(sims, uniq, strict=True):
            cut = np.partition(row, n - k)[n - k]  # the k-th largest rounded cosine
            cand = np.flatnonzero(row >= cut)  # every phrase tied at the cut included
            ranked = cand[np.lexsort((cand, -row[cand]))]  # phrases are sorted: index order = alphabetical
            answers[query] = [(self.phrases[j], float(row[j])) for j in ranked.tolist()
                              if self.phrases[j] != query][:topn]
        return [answers[q.lower()] for q in queries]



class Sense2VecPhraseIndex:
    """The paper's phrase source (hub): sense2vec vectors (``s2v_reddit_2015_md``). A query is looked
    up as its best sense among ``senses`` (``get_best_sense``, words joined by ``_``); its
    ``most_similar`` keys of those senses are returned as phrases (``_`` back to spaces) with the
    sense2vec score on the ``similarity`` grid of ``grid`` (``resources.score_decimals``), best first
    (equal scores alphabetically). ``s2v``: a loaded ``sense2vec.Sense2Vec`` (or anything with
    ``get_best_sense`` and ``most_similar``); else loaded from ``path``."""

    def __init__(self, s2v: object = None, *, grid: ScoreGrid, path: str | None = None,
                 senses: Sequence[str] = ("NOUN",)) -> None:
        if s2v is None:
            if path is None:
                raise ValueError("give a loaded Sense2Vec object or the path of its vectors")
            from sense2vec import Sense2Vec

            s2v = Sense2Vec().from_disk(path)
        self.s2v = s2v
        self.grid = grid
        self.senses = list(senses)

    def neighbours(self, queries: Sequence[str], topn: int) -> list[list[tuple[str, float]]]:
        out: list[list[tuple[str, float]]] = []
        for q in queries:
            key = self.s2v.get_best_sense(q.replace(" ", "_"), senses=self.senses)  # type: ignore[attr-defined]
            if key is None:
                out.append([])
                continue
            found = []
            for other, score in self.s2v.most_similar(key, n=topn):  # type: ignore[attr-defined]
                phrase, _, sense = other.rpartition("|")
                if sense in self.senses:
                    found.append((phrase.replace("_", " "), self.grid.round("similarity", score)))
            out.append(stable_ranking(found, lambda f: f[1], lambda f: f[0]))
        return out
