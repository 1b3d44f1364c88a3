"""Adapted Lesk word sense disambiguation (Banerjee & Pedersen, 2002) over NLTK's WordNet.

Chai et al. (2021) replace a mention word by a synonym, hyponym or hypernym only through the
WordNet sense that this algorithm picks for the word in its sentence, so the substitute does not
drift to another meaning ("bank" of a river never becomes a "depository").

Algorithm, as implemented here:

* **Extended gloss.** For a synset ``s`` and each relation ``r`` in :attr:`AdaptedLesk.relations`
  (``self``, hypernyms, hyponyms, part/member/substance meronyms and holonyms, attributes,
  also-sees, similar-tos), the *gloss of r(s)* is the concatenation of the glosses (definition
  plus example sentences, lower-cased and tokenised) of all synsets ``r(s)``. Glosses are
  separated by boundary markers so that no phrase spans two glosses.
* **Overlap score** of two glosses (:func:`overlap_score`): repeatedly take the longest common
  contiguous phrase, add the square of its length, and mask it on both sides, until nothing is
  shared. Phrases made only of function words score nothing.
* **Relatedness** of two synsets: the sum of overlap scores over all pairs of relations
  ``(r1, r2)`` -- gloss of ``r1(s1)`` against gloss of ``r2(s2)`` (B&P's reflexive relation pairs).
* **Disambiguation** of the target word: context words are up to ``window`` content words with a
  WordNet entry on each side of the target in its sentence. Each candidate sense ``s`` of the
  target gets ``sum over context words c of max over senses s' of c of relatedness(s, s')``
  (the "local" scheme of Patwardhan, Banerjee & Pedersen 2003, which avoids B&P's exponential
  enumeration of sense combinations). The best-scoring sense wins; ties go to the earlier (more
  frequent) WordNet sense. When every score is zero the most frequent sense is returned
  (``fallback="mfs"``) or ``None`` (``fallback="none"``: no substitution without evidence).
"""

from __future__ import annotations

import heapq
import os
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from lingtest.errors import MissingResourceError

_TOKEN = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")

DEFAULT_RELATIONS: tuple[str, ...] = (
    "self", "hypernyms", "hyponyms", "instance_hypernyms", "instance_hyponyms",
    "part_meronyms", "member_meronyms", "substance_meronyms",
    "part_holonyms", "member_holonyms", "substance_holonyms",
    "attributes", "also_sees", "similar_tos",
)

_UPOS_TO_WN = {"NOUN": "n", "PROPN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}


def wordnet_pos(upos: str | None = None, tag: str | None = None) -> str | None:
    """WordNet POS letter (``n v a r``) from a UPOS or PTB tag; ``None`` when unknown/closed class."""
    if upos:
        return _UPOS_TO_WN.get(upos)
    if tag:
        if tag.startswith("NN"):
            return "n"
        if tag.startswith("VB") or tag == "MD":
            return "v" if tag.startswith("VB") else None
        if tag.startswith("JJ"):
            return "a"
        if tag.startswith("RB"):
            return "r"
    return None


def stopwords() -> frozenset[str]:
    """English function words (spaCy's list; importing it loads no model)."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


def load_wordnet() -> Any:
    """NLTK's WordNet reader, via ``lingtest.resources.wordnet.ensure_wordnet`` when available.

    Falls back to ``nltk.corpus.wordnet`` with ``NLTK_DATA`` pointing at lingtest's data folder.
    """
    try:
        from lingtest.resources.wordnet import ensure_wordnet
    except ImportError:
        pass
    else:
        return ensure_wordnet()
    from lingtest.paths import nltk_data_dir

    os.environ.setdefault("NLTK_DATA", str(nltk_data_dir()))
    import nltk

    if str(nltk_data_dir()) not in nltk.data.path:
        nltk.data.path.insert(0, str(nltk_data_dir()))
    from nltk.corpus import wordnet as wn

    try:
        wn.ensure_loaded()
    except LookupError as exc:
        raise MissingResourceError(
            f"WordNet 3.0 for NLTK not found under {nltk_data_dir()}: run scripts/setup.sh or "
            "`python -m nltk.downloader -d ~/.cache/lingtest/nltk_data wordnet`"
        ) from exc
    return wn


def tokenize_gloss(text: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(text.lower()))


def overlap_score(a: Sequence[str | None], b: Sequence[str | None],
                  function_words: frozenset[str] = frozenset()) -> int:
    """Banerjee & Pedersen's phrasal overlap: sum of squared lengths of maximal shared phrases.

    ``None`` entries are gloss boundaries and never match. The longest shared phrase holding at
    least one content word (phrases made only of ``function_words`` never score) is found, scored,
    masked on both sides, and the search repeats; of equally long phrases the one that starts first
    in ``a`` wins (then the earlier position of its first content word in ``a``, then in ``b``).
    Example: ``"the bank of a river"`` vs ``"sloping bank of a river"`` share ``"bank of a river"``
    -> 16.

    The search is lazy: every pair of equal content words (an *anchor*) enters a heap keyed by the
    whole run of equal tokens through it, a bound of any phrase it can give later (masking only
    shortens runs); the anchor on top is re-measured under the current masks and taken when its
    bound still holds, so the long glosses of general synsets are not searched again after every
    phrase. An anchor inside a longer phrase of an earlier content word waits until a mask changes
    that phrase. Same result as searching everything each time (``tests/adversarial/test_lesk.py``
    checks it against that search).
    """
    content = {t for t in a if t is not None and t not in function_words}
    if not content or content.isdisjoint(b):
        return 0
    sa: list[str | None] = list(a)  # None marks a boundary or an already used word
    sb: list[str | None] = list(b)
    na, nb = len(sa), len(sb)
    where: dict[str, list[int]] = {}
    for j, t in enumerate(sb):
        if t is not None and t in content:
            where.setdefault(t, []).append(j)
    heap: list[tuple[int, int, int, int]] = []  # (-length, start in a, i, j), bounds first
    for i, t in enumerate(sa):
        if t is None or t in function_words or t not in where:
            continue
        for j in where[t]:
            left = _run_left(sa, sb, i, j)
            heap.append((-(left + _run_right(sa, sb, i, j, na, nb)), i - left, i, j))
    heapq.heapify(heap)
    waiting: list[tuple[int, int, int, int]] = []
    score = 0
    while heap:
        key = heapq.heappop(heap)
        i, j = key[2], key[3]
        if sa[i] is None or sb[j] is None:
            continue  # inside a phrase already scored
        left = 0
        while i - left > 0 and j - left > 0 and sa[i - left - 1] is not None and sa[i - left - 1] == sb[j - left - 1]:
            left += 1
            if sa[i - left] not in function_words:  # an earlier content word of this phrase finds it
                waiting.append(key)
                break
        else:
            n = _run_right(sa, sb, i - left, j - left, na, nb)
            now = (-n, i - left, i, j)
            if now != key:
                heapq.heappush(heap, now)  # shorter than its bound: back, under what it is now
                continue
            score += n * n
            for k in range(n):
                sa[i - left + k] = None
                sb[j - left + k] = None
            for w in waiting:  # a mask may have cut the phrase that held them
                heapq.heappush(heap, w)
            waiting = []
    return score


def _run_left(sa: list[str | None], sb: list[str | None], i: int, j: int) -> int:
    """How many equal tokens precede positions ``i`` of ``sa`` and ``j`` of ``sb``."""
    left = 0
    while i - left > 0 and j - left > 0 and sa[i - left - 1] is not None and sa[i - left - 1] == sb[j - left - 1]:
        left += 1
    return left


def _run_right(sa: list[str | None], sb: list[str | None], i: int, j: int, na: int, nb: int) -> int:
    """The length of the run of equal tokens from positions ``i`` of ``sa`` and ``j`` of ``sb`` on."""
    n = 1
    while i + n < na and j + n < nb and sa[i + n] is not None and sa[i + n] == sb[j + n]:
        n += 1
    return n


class AdaptedLesk:
    """Adapted Lesk disambiguator; see the module docstring for the exact algorithm.

    ``window`` and ``fallback`` come from config (``adversarial.lexical``). ``wordnet`` defaults to
    :func:`load_wordnet`, ``function_words`` to :func:`stopwords`. Results are cached per instance
    (relatedness per synset pair, extended glosses per synset), so one instance should serve a whole corpus.
    """

    def __init__(self, wordnet: Any | None = None, *, window: int, fallback: str,
                 relations: Sequence[str] = DEFAULT_RELATIONS,
                 function_words: frozenset[str] | None = None) -> None:
        if fallback not in ("mfs", "none"):
            raise ValueError(f"fallback must be 'mfs' or 'none', got {fallback!r}")
        self.wn = wordnet if wordnet is not None else load_wordnet()
        self.window = int(window)
        self.relations = tuple(relations)
        self.fallback = fallback
        self.function_words = function_words if function_words is not None else stopwords()
        self._ext = lru_cache(maxsize=200_000)(self._extended_gloss)
        self._cont = lru_cache(maxsize=200_000)(self._content)
        self._rel = lru_cache(maxsize=1_000_000)(self._relatedness)

    # ---- glosses --------------------------------------------------------------------------
    def _gloss(self, synset: Any) -> tuple[str, ...]:
        text = synset.definition() + " ; " + " ; ".join(synset.examples())
        return tokenize_gloss(text)

    def _related(self, synset: Any, relation: str) -> list[Any]:
        if relation == "self":
            return [synset]
        fn = getattr(synset, relation, None)
        # sorted: NLTK's order of related synsets depends on the process's string hashing
        return sorted(fn(), key=lambda x: x.name()) if fn is not None else []

    def _extended_gloss(self, synset: Any) -> tuple[tuple[str | None, ...], ...]:
        out = []
        for rel in self.relations:
            seq: list[str | None] = []
            for s in self._related(synset, rel):
                seq.extend(self._gloss(s))
                seq.append(None)
            out.append(tuple(seq))
        return tuple(out)

    # ---- relatedness ----------------------------------------------------------------------
    def _content(self, synset: Any) -> tuple[frozenset[str], ...]:
        fw = self.function_words
        return tuple(frozenset(t for t in g if t is not None and t not in fw) for g in self._ext(synset))

    def _relatedness(self, n1: str, n2: str) -> int:
        s1, s2 = self.wn.synset(n1), self.wn.synset(n2)
        e1, e2 = self._ext(s1), self._ext(s2)
        c1, c2 = self._cont(s1), self._cont(s2)
        total = 0
        for g1, k1 in zip(e1, c1, strict=True):
            if not k1:
                continue
            for g2, k2 in zip(e2, c2, strict=True):
                if k2 and not k1.isdisjoint(k2):  # cheap test before the phrase search
                    total += overlap_score(g1, g2, self.function_words)
        return total

    def relatedness(self, s1: Any, s2: Any) -> int:
        """Extended gloss overlap of two synsets (symmetric)."""
        a, b = sorted((s1.name(), s2.name()))
        return self._rel(a, b)

    # ---- disambiguation -------------------------------------------------------------------
    def senses(self, word: str, pos: str | None = None) -> list[Any]:
        """WordNet synsets of ``word`` (morphy-normalised), restricted to ``pos`` when given."""
        w = word.lower()
        if pos == "a":
            return list(self.wn.synsets(w, "a")) + [s for s in self.wn.synsets(w, "s")]
        return list(self.wn.synsets(w, pos)) if pos else list(self.wn.synsets(w))

    def context_indices(self, words: Sequence[str], index: int,
                        pos: Sequence[str | None] | None = None) -> list[int]:
        """Up to ``window`` content words with WordNet senses on each side of ``index``."""

        def ok(i: int) -> bool:
            w = words[i]
            if not any(c.isalpha() for c in w) or w.lower() in self.function_words:
                return False
            return bool(self.senses(w, pos[i] if pos else None))

        left = [i for i in range(index - 1, -1, -1) if ok(i)][: self.window]
        right = [i for i in range(index + 1, len(words)) if ok(i)][: self.window]
        return sorted(left + right)

    def scores(self, words: Sequence[str], index: int,
               pos: Sequence[str | None] | None = None) -> list[tuple[Any, int]]:
        """(candidate sense, score) for the word at ``index``, in WordNet sense order.

        ``pos`` are WordNet POS letters (or ``None``) per word, used to restrict senses.
        """
        target = self.senses(words[index], pos[index] if pos else None)
        ctx = [self.senses(words[i], pos[i] if pos else None) for i in self.context_indices(words, index, pos)]
        out = []
        for s in target:
            total = 0
            for senses in ctx:
                total += max((self.relatedness(s, c) for c in senses), default=0)
            out.append((s, total))
        return out

    def disambiguate(self, words: Sequence[str], index: int,
                     pos: Sequence[str | None] | None = None) -> Any | None:
        """The chosen synset of ``words[index]`` or ``None`` (no senses, or no evidence with
        ``fallback="none"``)."""
        scored = self.scores(words, index, pos)
        if not scored:
            return None
        best, best_score = scored[0]
        for s, sc in scored[1:]:
            if sc > best_score:
                best, best_score = s, sc
        if best_score == 0 and self.fallback == "none":
            return None
        return best
